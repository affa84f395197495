"""Answers on a busy machine: the hits scored with llama.cpp's configured threads, then with the governor.

Run: python bench/busy.py [--burners N] [--rounds 5] [--no-write]

llama.cpp's worker threads meet at a spinning barrier after every graph node; when other processes hold the
cores, each barrier waits for a descheduled partner. model/threads.py drops the context to one thread when a
decode shows it. This script scores the 5 hits of one task (backend.loglikelihoods over the embedded Gemma 3
270M, as select mode by likelihood does) `rounds` times in each of four settings: idle or with N busy
processes (`while True: pass`, default one per core), and the governor on or pinned off (the configured
counts kept). Ratios within one run are what to compare (machines here differ by up to 3x between
sessions). Writes the section "Answers on a busy machine" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import publish  # noqa: E402

from gorilla_tui.model import likelihood  # noqa: E402
from gorilla_tui.model.backend import LlamaBackend  # noqa: E402
from gorilla_tui.model.profiles import choose_profile, runtime_params  # noqa: E402
from gorilla_tui.model.registry import embedded_model_path  # noqa: E402
from gorilla_tui.pool.doc import load_jsonl  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "Answers on a busy machine"
TASK = "classify the sports activities in a video"
POOL = ROOT / "tests" / "data" / "pool" / "torchhub_api.jsonl"


def score_rounds(backend: LlamaBackend, docs, rounds: int, governed: bool) -> list[tuple[float, float]]:
    """(wall s, process CPU s) of `rounds` scorings of TASK against `docs`. governed False pins the
    configured counts (the governor's decisions are undone before every round and it is switched off)."""
    g = backend.threads
    out = []
    for _ in range(rounds):
        g._apply(*g.configured)
        g.current, g.contended_until = g.configured, 0.0
        saved = g.configured
        if not governed:
            g.configured = (1, 1)  # governs is False: begin/end do nothing, the context keeps `saved`
        t, c = time.perf_counter(), time.process_time()
        likelihood.query_likelihoods(backend, TASK, docs)
        out.append((time.perf_counter() - t, time.process_time() - c))
        g.configured = saved
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    cores = os.cpu_count() or 1
    ap.add_argument("--burners", type=int, default=cores, help="busy processes (default: one per core)")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--no-write", action="store_true")
    args = ap.parse_args()

    docs = [h.doc for h in ApiIndex.build(load_jsonl(POOL, "torchhub").docs).search(TASK, 5)]
    profile, _why = choose_profile()
    with tempfile.TemporaryDirectory() as tmp:
        path = embedded_model_path(Path(tmp))
        backend = LlamaBackend(path, params=runtime_params(profile), name="gemma3-270m")
    load = os.getloadavg()[0]
    print(f"configured threads (generation, batch): {backend.threads.configured}; load {load:.2f}")
    likelihood.query_likelihoods(backend, TASK, docs)  # warm-up
    rows = []
    for busy in (0, args.burners):
        burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(busy)]
        try:
            time.sleep(0.5 if busy else 0.0)
            for governed in (False, True):
                runs = score_rounds(backend, docs, args.rounds, governed)
                wall = statistics.median(r[0] for r in runs)
                cpu = statistics.median(r[1] for r in runs)
                worst = max(r[0] for r in runs)
                rows.append((busy, governed, wall, worst, cpu))
                print(f"busy {busy}  governor {'on ' if governed else 'off'}  median {wall:.2f} s  "
                      f"worst {worst:.2f} s  CPU {cpu:.2f} s", flush=True)  # fmt: skip
        finally:
            for p in burners:
                p.kill()
                p.wait()
    md = [
        f"Script: `python bench/busy.py --burners {args.burners} --rounds {args.rounds}`",
        "",
        f'Scoring the 5 BM25 hits of "{TASK}" (tests/data/pool Torch Hub docs) with the embedded Gemma 3 '
        f"270M (configured threads, generation / batch: {backend.threads.configured[0]} / "
        f"{backend.threads.configured[1]}; {cores} logical cores; 1-minute load average {load:.2f} at the "
        f"start), {args.rounds} rounds per row. "
        "Busy: that many `while True: pass` processes beside it. Governor off: the configured counts kept; "
        "on: model/threads.py drops to one thread after a decode in which the calling thread got less than "
        "70 % of its core.",
        "",
        "| busy processes | governor | median wall s | worst wall s | median CPU s |",
        "|---|---|---|---|---|",
    ]
    md += [f"| {b} | {'on' if g else 'off'} | {w:.2f} | {x:.2f} | {c:.2f} |" for b, g, w, x, c in rows]
    off = next(r for r in rows if r[0] and not r[1])
    on = next(r for r in rows if r[0] and r[1])
    idle_off = next(r for r in rows if not r[0] and not r[1])
    idle_on = next(r for r in rows if not r[0] and r[1])
    md += [
        "",
        f"Busy: the governor answers in {on[2] / off[2]:.2f} x the time of the configured threads "
        f"(worst round {on[3] / off[3]:.2f} x); idle: {idle_on[2] / idle_off[2]:.2f} x (1.00: it stays out "
        "of the way).",
    ]
    text = "\n".join(md)
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    raise SystemExit(main())
