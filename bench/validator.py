"""Benchmark: extract + validate throughput (responses per second per core) on the released Gorilla responses.

Run: python bench/validator.py [--shared DIR]. Prints the figures and writes the "Validator" section of
docs/benchmarks.md. Per-core rate = responses / process CPU seconds (single thread), so a busy machine does
not understate it; wall-clock rate is printed beside it. Target (issue 3): >= 2,000 responses/s per core.
"""

from __future__ import annotations

import json
import platform
import sys
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import parser, write_section  # noqa: E402
from gorilla_tui.check.validator import Validator  # noqa: E402
from gorilla_tui.evaluate.score import score_file  # noqa: E402
from gorilla_tui.pool.doc import load_jsonl  # noqa: E402

HUBS = ("torchhub", "tensorflowhub", "huggingface")
TARGET = 2000.0
#: Published Gorilla-7B FT (accuracy %, hallucination %) per hub and retriever (issue 3 targets).
PUBLISHED = {
    "torchhub": {"0_shot": (75.81, 16.13), "bm25": (44.62, 17.20), "gpt_index": (77.42, 5.38),
                 "oracle": (59.14, 39.25)},
    "tensorflowhub": {"0_shot": (83.80, 5.40), "bm25": (34.31, 20.58), "gpt_index": (52.70, 19.27),
                      "oracle": (83.21, 12.99)},
    "huggingface": {"0_shot": (69.36, 10.95), "bm25": (10.51, 46.90), "gpt_index": (26.22, 41.59),
                    "oracle": (44.36, 52.88)},
}  # fmt: skip


def metric_table(apibench: Path) -> str:
    """Markdown table: --metric gorilla vs the published numbers, and --metric strict, per FT file."""
    lines = [
        "`gorilla-tui eval score` on the released Gorilla-7B FT responses (accuracy / hallucination, %).",
        "",
        "| hub | retriever | published | `--metric gorilla` | `--metric strict` |",
        "|---|---|---|---|---|",
    ]
    for hub, rows in PUBLISHED.items():
        for retriever, (acc, hal) in rows.items():
            path = apibench / "responses" / hub / f"response_{hub}_Gorilla_FT_{retriever}.jsonl"
            g = score_file(hub, path, metric="gorilla", from_dir=apibench)
            s = score_file(hub, path, metric="strict", from_dir=apibench)
            lines.append(
                f"| {hub} | {retriever} | {acc:.2f} / {hal:.2f} | {100 * g.accuracy:.2f} / "
                f"{100 * g.hallucination:.2f} | {100 * s.accuracy:.2f} / {100 * s.hallucination:.2f} |"
            )
    return "\n".join(lines)


def main() -> int:
    ap = parser(__doc__)
    args = ap.parse_args()
    apibench = Path(args.shared) / "apibench"
    rows = []
    total_n = total_cpu = total_wall = 0.0
    for hub in HUBS:
        build0 = time.perf_counter()
        validator = Validator(load_jsonl(apibench / "api" / f"{hub}_api.jsonl", hub).docs)
        build = time.perf_counter() - build0
        texts = [
            json.loads(line).get("text", "")
            for f in sorted((apibench / "responses" / hub).glob("*.jsonl"))
            for line in f.read_text().splitlines()
        ]
        validator.check(texts[0])  # warm up the parser and query
        cpu0, wall0 = time.process_time(), time.perf_counter()
        kinds = Counter(validator.check(t).kind for t in texts)
        cpu, wall = time.process_time() - cpu0, time.perf_counter() - wall0
        total_n, total_cpu, total_wall = total_n + len(texts), total_cpu + cpu, total_wall + wall
        rows.append((hub, len(texts), len(texts) / cpu, len(texts) / wall, build, kinds))
        rate, wall_rate, ms = len(texts) / cpu, len(texts) / wall, build * 1000
        print(f"{hub}: {len(texts)} responses, {rate:,.0f}/s per core (CPU), {wall_rate:,.0f}/s wall, "
              f"index build {ms:.0f} ms, {dict(kinds)}")  # fmt: skip
    overall = total_n / total_cpu
    print(f"all: {overall:,.0f} responses/s per core (target >= {TARGET:,.0f}) -> "
          f"{'PASS' if overall >= TARGET else 'FAIL'}")  # fmt: skip
    if not args.no_write:
        lines = [
            f"extract + validate on the {int(total_n):,} released Gorilla responses (8 files per hub), "
            "one thread, "
            f"Python {platform.python_version()}, {platform.machine()}. Target: >= {TARGET:,.0f} responses/s "
            "per core (rate = responses / process CPU seconds; wall-clock rate shown too).",
            "",
            "| hub | responses | per core (CPU) /s | wall /s | index build ms | verdicts |",
            "|---|---:|---:|---:|---:|---|",
        ]
        for hub, n, rate, wall_rate, build, kinds in rows:
            verdicts = ", ".join(f"{k} {v}" for k, v in sorted(kinds.items()))
            lines.append(
                f"| {hub} | {n:,} | {rate:,.0f} | {wall_rate:,.0f} | {build * 1000:.0f} | {verdicts} |"
            )
        lines.append(f"| **all** | {int(total_n):,} | **{overall:,.0f}** | {total_n / total_wall:,.0f} | | |")
        write_section("Validator", "\n".join(lines))
        table = metric_table(apibench)
        print(table)
        write_section("APIBench metrics", table)
    return 0 if overall >= TARGET else 1


if __name__ == "__main__":
    sys.exit(main())
