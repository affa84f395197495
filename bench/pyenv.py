"""Benchmark the python-env source: time and peak memory to index the standard library, recall@5 on tasks.

Run: python bench/pyenv.py [--no-write]. Targets (issue 9): the standard library indexed
in <= 30 s on 2 cores; recall@5 >= 80 % on tests/data/stdlib_tasks.toml with BM25
(gorilla_tui.retrieve.index.ApiIndex, the app's own retriever).
"""

from __future__ import annotations

import os
import platform
import resource
import sys
import time
import tracemalloc
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import parser, publish  # noqa: E402

from gorilla_tui.pool.pyenv.source import load_python_env  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TASKS = ROOT / "tests" / "data" / "stdlib_tasks.toml"
TITLE = "python-env source (issue 9)"


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("-k", type=int, default=5)
    args = ap.parse_args()

    # 1. Index the standard library: wall time without tracing, then peak Python heap with tracemalloc.
    rss0 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    t0 = time.perf_counter()
    result = load_python_env("stdlib")
    load_s = time.perf_counter() - t0
    t1 = time.perf_counter()
    index = ApiIndex.build(result.docs)
    build_s = time.perf_counter() - t1
    rss1 = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    tracemalloc.start()
    load_python_env("stdlib")
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()

    # 2. recall@k on the hand-written tasks.
    tasks = tomllib.loads(TASKS.read_text(encoding="utf-8"))["task"]
    hits_ok, misses = 0, []
    for task in tasks:
        names = [h.doc.api_name for h in index.search(task["query"], k=args.k)]
        if set(names) & set(task["expected"]):
            hits_ok += 1
        else:
            misses.append((task["query"], task["expected"][0], names[:3]))
    recall = hits_ok / len(tasks)

    kinds: dict[str, int] = {}
    for d in result.docs:
        kinds[d.functionality.split(" in ")[0]] = kinds.get(d.functionality.split(" in ")[0], 0) + 1
    rows = [
        ("ApiDocs", f"{len(result.docs):,}", ""),
        ("parse + resolve (tree-sitter)", f"{load_s:.2f} s", "<= 30 s"),
        ("BM25 build (ApiIndex.build)", f"{build_s:.2f} s", ""),
        ("peak Python heap while indexing (tracemalloc)", f"{peak / 2**20:.0f} MiB", ""),
        (
            "process max RSS after index + BM25 (getrusage)",
            f"{rss1 / 1024:.0f} MiB (before: {rss0 / 1024:.0f})",
            "",
        ),
        (
            f"recall@{args.k} on {len(tasks)} tasks (BM25)",
            f"{recall:.1%} ({hits_ok}/{len(tasks)})",
            ">= 80 %",
        ),
    ]
    md = [
        f"Python {platform.python_version()}, {os.cpu_count()} cores, one thread; "
        f"`python bench/pyenv.py` ({time.strftime('%Y-%m-%d')}).",
        "",
        "| measure | value | target |",
        "|---|---|---|",
        *[f"| {a} | {b} | {c} |" for a, b, c in rows],
        "",
        "Docs by kind: "
        + ", ".join(f"{k} {v:,}" for k, v in sorted(kinds.items(), key=lambda kv: -kv[1]))
        + ".",
        "",
        f"Misses (task -> expected, top 3 hits): {len(misses)}",
        "",
        *[f"- {q} -> `{e}`; got {', '.join(f'`{n}`' for n in got) or 'nothing'}" for q, e, got in misses],
    ]
    text = "\n".join(md)
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    raise SystemExit(main())
