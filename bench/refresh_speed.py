"""Benchmark `index --refresh` wall and CPU time (issue 18): first, unchanged, one source changed, forced.

Run: /work/venv/bin/python bench/refresh_speed.py [--shared DIR] [--vector-cache DIR] [--repeat N]
[--no-write]

Each refresh is its own child process (`python -m gorilla_tui index --refresh --json --from
SHARED/apibench/api --from COPY`, HF_HUB_OFFLINE=1, one fresh GORILLA_TUI_HOME for the whole run): the
default index of the three APIBench hubs, APIZoo and python-env (10,963 docs with CPython 3.11). COPY holds
a copy of SHARED/apizoo, so that one APIZoo file can be edited for the "one source changed" row. Wall time
is perf_counter around the child; CPU time is the child's user + system time from os.wait4. With a vector
cache (--vector-cache, default $GORILLA_TUI_VECTOR_CACHE) every dense vector comes from it, as on a
machine that refreshed before; without one the refreshes run with --no-dense. Rows:
1. first refresh (no index yet);
2. unchanged refresh (nothing changed; the median of --repeat runs): the live index is kept;
3. one source changed (one APIZoo file edited): APIZoo is rebuilt, the other sources' docs are reused;
4. forced refresh (--force): every source rebuilt;
5. with --baseline DIR (another checkout, e.g. the main branch before issue 18): an unchanged refresh
   run by that code (its own fresh home, built once first), for comparison.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _report import publish  # noqa: E402

TITLE = "Refresh speed: unchanged sources (issue 18)"


def run_refresh(home: Path, args: list[str], cache: str, code: Path = ROOT) -> dict:
    """One `index --refresh --json` in a child running the checkout `code`: wall and CPU seconds, docs,
    whether it kept the live index, the sources it rebuilt, the 1-minute load average after it."""
    env = dict(os.environ, GORILLA_TUI_HOME=str(home), HF_HUB_OFFLINE="1", PYTHONPATH=str(code))
    if cache:
        env["GORILLA_TUI_VECTOR_CACHE"] = cache
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--json", *args]
    if not cache:
        cmd.append("--no-dense")
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        proc = subprocess.Popen(cmd, env=env, stdout=out, stderr=err, cwd=code)  # `-m` looks in cwd first
        _, status, usage = os.wait4(proc.pid, 0)
        wall = time.perf_counter() - t0
        out.seek(0)
        err.seek(0)
        stdout, stderr = out.read().decode(), err.read().decode()
    code = os.waitstatus_to_exitcode(status)
    if code != 0:
        raise SystemExit(f"refresh failed ({code}): {stderr.strip().splitlines()[-1:]}")
    data = json.loads(stdout)
    docs = sum(int(r.get("loaded") or 0) for r in data["sources"] if r.get("status") in ("ok", "kept"))
    rebuilt = [
        r["name"] for r in data["sources"] if r.get("status") == "ok" and r.get("message") != "unchanged"
    ]
    cpu = usage.ru_utime + usage.ru_stime
    kept = bool(data.get("unchanged"))  # a baseline before issue 18 does not say
    return {"wall": wall, "cpu": cpu, "docs": docs, "unchanged": kept, "rebuilt": rebuilt,
            "load": os.getloadavg()[0]}  # fmt: skip


def edit_one_apizoo_file(folder: Path) -> str:
    """Change one description of the first APIZoo file that is strict JSON (some are not; they stay as
    they are); returns the file name."""
    for path in sorted(folder.glob("*.json")):
        try:
            entries = json.loads(path.read_text(encoding="utf-8"))
        except ValueError:
            continue
        if isinstance(entries, list) and entries and isinstance(entries[0], dict):
            break
    else:
        raise SystemExit(f"no strict-JSON APIZoo file in {folder} to edit")
    entries[0]["description"] = str(entries[0].get("description", "")) + " (edited by bench/refresh_speed.py)"
    path.write_text(json.dumps(entries, indent=1), encoding="utf-8")
    return path.name


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared")
    ap.add_argument("--vector-cache", default=os.environ.get("GORILLA_TUI_VECTOR_CACHE", ""))
    ap.add_argument("--repeat", type=int, default=3, help="unchanged refreshes timed (median reported)")
    ap.add_argument(
        "--baseline", type=Path, help="also time an unchanged refresh by the code of this checkout"
    )
    ap.add_argument("--no-write", action="store_true", help="print only; do not update docs/benchmarks.md")
    args = ap.parse_args()
    shared = args.shared.resolve()
    with tempfile.TemporaryDirectory(prefix="refresh-speed-") as tmp:
        copy = Path(tmp) / "mirror"
        shutil.copytree(shared / "apizoo", copy / "apizoo")
        home = Path(tmp) / "home"
        flags = ["--from", str(shared / "apibench" / "api"), "--from", str(copy)]
        rows = [("first refresh (no index yet)", run_refresh(home, flags, args.vector_cache))]
        same = [run_refresh(home, flags, args.vector_cache) for _ in range(max(1, args.repeat))]
        median = sorted(same, key=lambda r: r["wall"])[len(same) // 2]
        rows.append((f"unchanged refresh (median of {len(same)})", median))
        edited = edit_one_apizoo_file(copy / "apizoo")
        rows.append(
            (f"one source changed (apizoo: {edited} edited)", run_refresh(home, flags, args.vector_cache))
        )
        forced = run_refresh(home, [*flags, "--force"], args.vector_cache)
        rows.append(("forced refresh (--force: every source rebuilt)", forced))
        if args.baseline is not None:
            base = Path(tmp) / "baseline-home"
            run_refresh(base, flags, args.vector_cache, args.baseline.resolve())
            label = f"unchanged refresh by the code of {args.baseline} (baseline)"
            rows.append((label, run_refresh(base, flags, args.vector_cache, args.baseline.resolve())))
    lines = [
        "| refresh | wall s | CPU s (user + sys) | docs | kept the live index | rebuilt | load avg (1 min) |",
        "|---|---:|---:|---:|---|---|---:|",
    ]
    for label, r in rows:
        rebuilt = ", ".join(r["rebuilt"]) or "none"
        lines.append(f"| {label} | {r['wall']:.2f} | {r['cpu']:.2f} | {r['docs']:,} | "
                     f"{'yes' if r['unchanged'] else 'no'} | {rebuilt} | {r['load']:.2f} |")  # fmt: skip
    unchanged = [f"{r['wall']:.2f}" for r in same]
    dense = f"vector cache {args.vector_cache}" if args.vector_cache else "--no-dense (no vector cache given)"
    text = "\n".join(
        [
            f"`python bench/refresh_speed.py` on {platform.node()} ({os.cpu_count()} CPUs, Python "
            f"{platform.python_version()}), {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}: the "
            f"default "
            f"index (`--from {shared}/apibench/api --from <copy of {shared}/apizoo>`: three APIBench hubs, "
            f"APIZoo, python-env), each refresh a child process, {dense}. Target (issue 18): an unchanged "
            "refresh <= 5 s on an idle machine.",
            "",
            *lines,
            "",
            f"Unchanged refreshes, wall s: {', '.join(unchanged)} (median {median['wall']:.2f}). "
            "An unchanged refresh compares each source's content fingerprint (files' sizes and SHA-256, the "
            "python-env interpreter and module files' sizes and mtimes, the manifest, the code) with the one "
            "recorded in the live index, checks the live version's files against their recorded SHA-256, and "
            "keeps it; the dense vectors are already in it. The one-source-changed row reuses the other "
            "sources' docs and term counts from the live index (no python-env parse, no tokenising them "
            "again) but still writes the whole version: docs.jsonl (one JSON line per doc), vocab.json, "
            "postings.npz (the per-term postings), the validator lookup (one Validator per source, an fsync "
            "per lookup shard) and the .npy doc vectors (all from the cache).",
        ]
    )
    publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    main()
