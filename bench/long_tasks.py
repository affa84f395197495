"""Benchmark `ask` on long tasks (break-it round 15, P1): time and peak memory for 200 to 20,000 characters.

Run: /work/venv/bin/python bench/long_tasks.py --home HOME [--before DIR] [--no-write].
Each `ask` runs as its own child process (`python -m gorilla_tui ask TASK`, HF_HUB_OFFLINE=1, GORILLA_TUI_HOME
a copy of the default index home: never written by ask but its history); its peak resident memory is the
child's ru_maxrss from os.wait4, its time the wall seconds of the whole command (model load included). The
task is plain words, one paragraph (a person describing what they want, repeated to the length), cut at a
word boundary. `--before DIR`: a checkout of older code, run the same way (PYTHONPATH=DIR) in the same run,
so the ratios compare code on one machine under one load (the absolute seconds depend on the load: this
machine has 2 cores shared by other jobs). 20,000 characters are over the accepted 10,000 (exit 2, refused
before anything loads); 10,000 are cut to 2,000 characters (textsafe.MAX_TASK_CHARS) for the search, and
the model and the fillers read the first 200 words (textsafe.MODEL_TASK_WORDS).
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _report import parser, publish  # noqa: E402

TITLE = "Long tasks in ask (break-it round 15, P1)"
LENGTHS = (200, 2_000, 10_000, 20_000)
PARAGRAPH = (
    "I have a folder full of holiday photos on my laptop and I would like to make every picture smaller "
    "so that the whole album fits into an email to my family, keeping the files readable and sharp enough "
    "to look at on a phone screen, and it would be nice if the original images stayed where they are. "
)


def task_of(chars: int) -> str:
    """PARAGRAPH repeated to `chars` characters, cut at the last word boundary before it."""
    text = PARAGRAPH * (chars // len(PARAGRAPH) + 1)
    return text[:chars].rsplit(" ", 1)[0]


def run_ask(code: Path, home: Path, task: str) -> dict:
    """One `ask` in a child with PYTHONPATH=code; returns exit code, wall seconds, peak RSS (MB) and the
    warning lines it printed."""
    env = dict(os.environ, GORILLA_TUI_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONPATH=str(code))
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(
            [sys.executable, "-m", "gorilla_tui", "ask", task], env=env, stdout=out, stderr=err, cwd=code
        )  # cwd: `python -m` puts the working folder before PYTHONPATH
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        err.seek(0)
        said = [line for line in err.read().decode().splitlines() if "shortened" in line or "error" in line]
    return {"rc": os.waitstatus_to_exitcode(status), "s": seconds, "mb": usage.ru_maxrss / 1024, "said": said}


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--home", type=Path, required=True, help="a copy of the default index home")
    ap.add_argument("--before", type=Path, help="a checkout of the code to compare with (e.g. main)")
    args = ap.parse_args()
    versions = ([("before", args.before)] if args.before else []) + [("after", ROOT)]
    rows: dict[str, list[dict]] = {}
    for name, code in versions:
        rows[name] = []
        for n in LENGTHS:
            r = run_ask(code, args.home, task_of(n))
            rows[name].append(r)
            print(f"{name} {n:>6} chars: exit {r['rc']} {r['s']:.1f} s {r['mb']:.0f} MB", r["said"])
    head = "| task (characters) | " + " | ".join(f"{v}: s, MB, exit" for v, _ in versions)
    head += " | after / before (s, MB) |" if args.before else " |"
    lines = [head, "|---" * (len(versions) + 1 + bool(args.before)) + "|"]
    for i, n in enumerate(LENGTHS):
        cells = [f"{rows[v][i]['s']:.1f}, {rows[v][i]['mb']:.0f}, {rows[v][i]['rc']}" for v, _ in versions]
        if args.before:
            b, a = rows["before"][i], rows["after"][i]
            cells.append(f"{a['s'] / b['s']:.2f}, {a['mb'] / b['mb']:.2f}")
        lines.append(f"| {n:,} | " + " | ".join(cells) + " |")
    growth = [f"{rows['after'][i]['s'] / rows['after'][0]['s']:.2f}" for i in range(len(LENGTHS) - 1)]
    text = (
        f"`bench/long_tasks.py`: one `ask` per row (default index, the embedded model), wall time with the "
        f"model load and peak RSS of the child; load average {os.getloadavg()[0]:.1f} on "
        f"{os.cpu_count()} cores, so compare the ratios within the table. The model and the fillers read "
        f"the first 200 words of a "
        f"task (a warning says so: 'the task was shortened to 200 words (of N) for the model'); the search "
        f"reads it up to 2,000 characters; over 10,000 characters is refused (exit 2).\n\n"
        + "\n".join(lines)
        + f"\n\nAfter, time relative to the 200-character task: {', '.join(growth)} (200 / 2,000 / 10,000)."
    )
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
