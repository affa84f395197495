"""`eval run --endpoint` against a local llama_cpp.server, concurrency 1 vs N: wall time and tasks/s.

Run: python bench/eval_server.py [--tasks 100] [--concurrency 1 4] [--shared ../shared]
(writes the "Eval against a server (issue 21)" section of docs/benchmarks.md after each run, so a long run
that is stopped keeps the figures it has).

Starts `python -m llama_cpp.server` with the embedded GGUF on 127.0.0.1 (a free port; loopback only) with
`--interrupt_requests false` (its default, true, cancels a running completion when the next request comes
in, which breaks any concurrent client) and `--logits_all false` (select by grammar needs no prompt
log-probabilities). llama-cpp-python's server has no parallel slots: it answers one completion at a time,
so on this 2-core machine concurrency can only overlap our local work (retrieval, prompt building,
checking, HTTP) with the server's; the point measured is that the client is not the bottleneck and that the
file order holds. Each run answers the first --tasks Torch Hub eval tasks (bm25, select by grammar, k 3)
into a fresh response file through the real CLI (a subprocess), then checks that the file holds each task
exactly once, in task order.
"""

# ruff: noqa: E501  (markdown table rows read better unwrapped)
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import parser, write_section  # noqa: E402

from gorilla_tui.model.registry import embedded_model_path  # noqa: E402

TITLE = "Eval against a server (issue 21)"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_server(gguf: Path, port: int, n_ctx: int, log: Path) -> subprocess.Popen:
    """llama_cpp.server on 127.0.0.1:port, waited for (GET /v1/models) up to 120 s."""
    cmd = [sys.executable, "-m", "llama_cpp.server", "--model", str(gguf), "--host", "127.0.0.1",
           "--port", str(port), "--n_ctx", str(n_ctx), "--interrupt_requests", "false",
           "--logits_all", "false"]  # fmt: skip
    proc = subprocess.Popen(cmd, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    for _ in range(480):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/v1/models", timeout=1).read()
            return proc
        except OSError:
            if proc.poll() is not None:
                raise SystemExit(f"llama_cpp.server exited at start; see {log}") from None
            time.sleep(0.25)
    proc.terminate()
    raise SystemExit("llama_cpp.server did not start in 120 s")


def run_eval(url: str, shared: Path, tasks: int, concurrency: int, out: Path, home: Path) -> dict:
    """One `gorilla-tui eval run` subprocess; its --json summary plus the wall time seen from outside."""
    cmd = [sys.executable, "-m", "gorilla_tui", "eval", "run", "--hub", "torchhub", "--retriever", "bm25",
           "--mode", "select", "--select-by", "grammar", "-k", "3", "--from", str(shared / "apibench"),
           "--limit", str(tasks), "--out", str(out), "--endpoint", url, "--concurrency", str(concurrency),
           "--json"]  # fmt: skip
    env = os.environ | {"GORILLA_TUI_HOME": str(home), "PYTHONPATH": str(ROOT), "HF_HUB_OFFLINE": "1"}
    start = time.perf_counter()
    done = subprocess.run(cmd, capture_output=True, text=True, env=env, check=False)
    wall = time.perf_counter() - start
    if done.returncode != 0:
        raise SystemExit(f"eval run failed ({done.returncode}): {done.stderr.strip()[-500:]}")
    summary = json.loads(done.stdout)
    ids = [json.loads(line)["question_id"] for line in out.read_text(encoding="utf-8").splitlines()]
    summary["order_ok"] = ids == list(range(1, tasks + 1))
    summary["wall"] = wall
    return summary


def report(rows: list[dict], tasks: int, n_ctx: int) -> str:
    lines = [
        f"`python bench/eval_server.py --tasks {tasks}`: `eval run --endpoint` on the first {tasks} Torch Hub "
        f"eval tasks (bm25, select by grammar, k 3) against a local `python -m llama_cpp.server` serving the "
        f"embedded Gemma 3 270M Q4_K_M (n_ctx {n_ctx}, `--interrupt_requests false`, loopback), "
        f"{os.cpu_count()} CPU cores shared with other work (1-minute load average at the start of each run "
        "in the table: other sessions' jobs shared the cores, so the ratio is indicative only). "
        "llama-cpp-python's server has no parallel slots (one completion at a time), so concurrency overlaps "
        "only the client's own work with the server's.",
        "",
        "| concurrency | tasks | answering (s) | tasks/s | process wall (s) | load avg | strict acc | file order, each task once |",
        "|---|---|---|---|---|---|---|---|",
    ]
    for r in rows:
        lines.append(
            f"| {r['concurrency']} | {r['answered']} | {r['seconds']:.1f} | {r['tasks_per_s']:.3f} | "
            f"{r['wall']:.1f} | {r['load']:.1f} | {100 * r['strict']['accuracy']:.1f} % | {'yes' if r['order_ok'] else 'NO'} |"
        )
    if len(rows) > 1:
        lines += ["", f"Speed-up of concurrency {rows[-1]['concurrency']} over {rows[0]['concurrency']}: "
                  f"{rows[-1]['tasks_per_s'] / rows[0]['tasks_per_s']:.2f}x."]  # fmt: skip
    return "\n".join(lines)


def main() -> int:
    ap = parser(__doc__)
    ap.add_argument("--tasks", type=int, default=100)
    ap.add_argument("--concurrency", type=int, nargs="+", default=[1, 4])
    ap.add_argument("--n-ctx", type=int, default=2048)
    args = ap.parse_args()
    with tempfile.TemporaryDirectory(prefix="gorilla-tui-bench-") as tmp:
        port = free_port()
        proc = start_server(embedded_model_path(), port, args.n_ctx, Path(tmp) / "server.log")
        rows: list[dict] = []
        try:
            for n in args.concurrency:
                load = os.getloadavg()[0]
                r = run_eval(f"http://127.0.0.1:{port}", args.shared, args.tasks, n, Path(tmp) / f"c{n}.jsonl",
                             Path(tmp) / "home")  # fmt: skip
                r["load"] = load
                rows.append(r)
                print(f"concurrency {n}: {r['answered']} tasks in {r['seconds']:.1f} s = {r['tasks_per_s']:.3f} tasks/s "
                      f"(process {r['wall']:.1f} s), order ok: {r['order_ok']}", flush=True)  # fmt: skip
                print(write_section(TITLE, report(rows, args.tasks, args.n_ctx)), flush=True)
        finally:
            proc.terminate()
            proc.wait(30)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
