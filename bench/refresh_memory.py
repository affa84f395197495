"""Benchmark the peak memory of `index --refresh` (issue 17): the full pool, and a 200 MB garbage source.

Run: /work/venv/bin/python bench/refresh_memory.py [--shared DIR] [--garbage-mb 200] [--no-write].
Each refresh runs as its own child process (`python -m gorilla_tui index --refresh ...`, HF_HUB_OFFLINE=1,
a fresh GORILLA_TUI_HOME); its peak resident memory is the child's ru_maxrss from os.wait4, so nothing of
this script is counted. Rows:
1. the three APIBench hubs + APIZoo + python-env (`--from SHARED/apibench/api --from SHARED/apizoo`);
2. Torch Hub alone (the baseline of rows 3 and 4);
3. Torch Hub + a garbage source (base64 of random bytes in 76-column lines, as `base64` writes it, then 3
   valid APIBench lines: the file of issue 17 that took a refresh to 5.2 GB): refused by the size limit;
4. the same with `--max-source-mb` raised above its size: read to the end (streamed) and refused as
   mostly not docs.
The garbage file is written to a temp folder and removed afterwards.
"""

from __future__ import annotations

import base64
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _report import parser, publish  # noqa: E402

TITLE = "Refresh peak memory and bad sources (issue 17)"


def run_refresh(home: Path, args: list[str]) -> dict:
    """One `index --refresh` in a child; returns exit code, wall seconds, peak RSS (MB), last stderr line."""
    env = dict(os.environ, GORILLA_TUI_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONPATH=str(ROOT))
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--json", *args]
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err)
        _, status, usage = os.wait4(proc.pid, 0)
        seconds = time.perf_counter() - t0
        proc.returncode = os.waitstatus_to_exitcode(status)
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    docs = None
    if proc.returncode == 0:
        docs = sum(r.get("loaded", 0) for r in json.loads(stdout)["sources"])
    last = (stderr.strip().splitlines() or [""])[-1]
    return {"rc": proc.returncode, "s": seconds, "rss_mb": usage.ru_maxrss / 1024, "docs": docs, "err": last}


def write_garbage(path: Path, megabytes: int, apibench_api: Path) -> int:
    """base64 text of random bytes, written 1 MB at a time, then 3 valid Torch Hub lines; returns its size."""
    with open(path, "wb") as fh:
        for _ in range(megabytes):
            fh.write(base64.encodebytes(os.urandom(750_000)))  # 750 kB -> ~1 MB of 76-column lines
        fh.writelines((apibench_api / "torchhub_api.jsonl").read_bytes().splitlines(keepends=True)[:3])
    return path.stat().st_size


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--garbage-mb", type=int, default=200)
    args = ap.parse_args()
    api, zoo = args.shared / "apibench" / "api", args.shared / "apizoo"

    rows = []
    with tempfile.TemporaryDirectory(prefix="gorilla-bench-") as tmp:
        tmp_path = Path(tmp)
        full = run_refresh(tmp_path / "home-full", ["--from", str(api), "--from", str(zoo)])
        rows.append(("3 hubs + APIZoo + python-env", full))
        home = tmp_path / "home"
        base = run_refresh(home, ["--from", str(api), "--only", "torchhub"])
        rows.append(("Torch Hub alone (baseline)", base))
        garbage = tmp_path / "garbage.jsonl"
        size = write_garbage(garbage, args.garbage_mb, api)
        mb = size / 1e6
        source = ["--from", str(api), "--only", "torchhub", "--source", str(garbage)]
        rows.append((f"Torch Hub + {mb:.0f} MB garbage source", run_refresh(home, source)))
        raised = run_refresh(home, [*source, "--max-source-mb", str(int(mb) + 50)])
        rows.append((f"Torch Hub + {mb:.0f} MB garbage, --max-source-mb {int(mb) + 50}", raised))

    lines = [
        f"`python bench/refresh_memory.py` on {platform.machine()}, Python {platform.python_version()}, "
        f"{os.cpu_count()} CPUs (shared); each refresh is a child process, peak RSS = its ru_maxrss.",
        "",
        "| refresh | exit | docs indexed | wall s | peak RSS MB | what it said (stderr, last line) |",
        "|---|---|---|---|---|---|",
    ]
    for name, r in rows:
        said = r["err"].replace("|", "\\|")[:160] if r["rc"] else ""
        docs = r["docs"] if r["docs"] is not None else "—"
        lines.append(f"| {name} | {r['rc']} | {docs} | {r['s']:.1f} | {r['rss_mb']:.0f} | {said} |")
    lines += [
        "",
        "For comparison, issue 17 reports that before this change a 200 MB file of this shape was accepted",
        "(exit 0) and the refresh peaked at 5.2 GB. Row 3 is refused by the size limit (default 64 MB)",
        "before it is read; row 4 is read line by line and refused as mostly not docs.",
    ]
    text = "\n".join(lines)
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
