"""Fuzz run: extract + validate over >= 100,000 arbitrary and hostile strings; counts exceptions (target 0).

Run: python bench/fuzz_validator.py [--n 100000]. Strings come from hypothesis (text() with every unicode
category incl. NUL and lone surrogates, plus a grammar of hostile shapes: deep nesting, unbalanced quotes
and fences, Gorilla fields, dict strings, JSON tool calls, 1 MB inputs). Writes the "Validator fuzz"
section of docs/benchmarks.md.
"""

from __future__ import annotations

import sys
import time
import traceback
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from hypothesis import HealthCheck, given, settings  # noqa: E402

from bench._report import parser, write_section  # noqa: E402
from gorilla_tui.check.validator import Validator  # noqa: E402
from gorilla_tui.pool.doc import load_jsonl  # noqa: E402
from tests.apibench.test_fuzz import hostile  # noqa: E402


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--n", type=int, default=100_000)
    args = ap.parse_args()
    apibench = Path(args.shared) / "apibench"
    docs = []
    for hub in ("torchhub", "tensorflowhub", "huggingface"):
        docs += load_jsonl(apibench / "api" / f"{hub}_api.jsonl", hub).docs
    validator = Validator(docs)
    counts = {"n": 0, "errors": 0, "max_len": 0}

    @settings(max_examples=args.n, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))  # fmt: skip
    @given(hostile(scale=10))
    def run(text: str) -> None:
        counts["n"] += 1
        counts["max_len"] = max(counts["max_len"], len(text))
        try:
            validator.check(text)
        except Exception:
            counts["errors"] += 1
            if counts["errors"] <= 3:
                traceback.print_exc()

    start = time.perf_counter()
    run()
    seconds = time.perf_counter() - start
    print(f"fuzz: {counts['n']:,} strings, {counts['errors']} exceptions, longest {counts['max_len']:,} "
          f"characters, {seconds:.0f} s")  # fmt: skip
    if not args.no_write:
        write_section(
            "Validator fuzz",
            f"`bench/fuzz_validator.py`: extract + validate over **{counts['n']:,}** hypothesis strings "
            f"(arbitrary unicode incl. NUL and lone surrogates; hostile shapes: deep nesting, unbalanced "
            f"quotes/fences, Gorilla fields, dict strings, JSON tool calls, up to {counts['max_len']:,} "
            f"characters): **{counts['errors']} exceptions** (target 0), {seconds:.0f} s.",
        )
    return 0 if counts["errors"] == 0 and counts["n"] >= args.n else 1


if __name__ == "__main__":
    sys.exit(main())
