"""Benchmark: what the sandbox's layers cost per run (wall-clock seconds from start to result).

Run: python bench/sandbox.py [--runs N] [--no-write]. Runs `print('hi')` N times (default 10) through
sandbox.runner.run_code and prints the median and the slowest; writes the "Sandbox start" section of
docs/benchmarks.md unless --no-write. The layers this machine allows (runner.isolation_layers) are listed
with the figures, since they decide the cost: two interpreter starts (supervisor, PID 1) plus the code's,
unshare(1), the new root's bind mounts, a cgroup made and removed. No target: a run is interactive and
bounded by the code's own start (`python -I -c pass` is printed for comparison).
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from bench._report import parser, write_section  # noqa: E402
from gorilla_tui.sandbox import runner  # noqa: E402


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--runs", type=int, default=10)
    args = ap.parse_args()
    layers = runner.isolation_layers() if hasattr(runner, "isolation_layers") else {}
    runner.run_code("print('warm')\n")  # probes (namespaces, cgroups) are cached per process
    times = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        result = runner.run_code("print('hi')\n")
        times.append(time.perf_counter() - t0)
        assert result.output == "hi\n", result.output
    bare = []
    for _ in range(args.runs):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-I", "-c", "pass"], check=True)
        bare.append(time.perf_counter() - t0)
    med, worst, base = statistics.median(times), max(times), statistics.median(bare)
    print(f"sandbox run of print('hi'): median {med:.3f} s, slowest {worst:.3f} s over {args.runs} runs")
    print(f"python -I -c pass: median {base:.3f} s")
    for k, v in layers.items():
        print(f"  {k}: {v}")
    if not args.no_write:
        rows = "\n".join(f"| {k} | {v} |" for k, v in layers.items())
        md = (
            f"`python bench/sandbox.py --runs {args.runs}`: one run of `print('hi')` from start to result "
            f"(2 shared CPU cores).\n\n| figure | seconds |\n|---|---|\n"
            f"| sandbox run, median | {med:.3f} |\n| sandbox run, slowest | {worst:.3f} |\n"
            f"| `python -I -c pass`, median | {base:.3f} |\n\n"
            f"| layer | on this machine |\n|---|---|\n{rows}\n"
        )
        print(f"wrote {write_section('Sandbox start', md)}")


if __name__ == "__main__":
    main()
