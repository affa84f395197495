"""What running llama.cpp in a worker process (the way ollama runs its llama.cpp runner) would cost an ask.

Run: python bench/worker_overhead.py [--tasks 30] [--n-threads N] [--shared ../shared] [--no-write]   (writes the "Worker
process overhead" section of docs/benchmarks.md). Issue 13's bound: select-by-likelihood ask p50 within 5 % of
in-process. The worker here is a measuring prototype, not shipped code: a spawned process hosting the same
LlamaBackend (embedded Gemma 3 270M, cpu profile defaults), every Backend call (count_tokens, loglikelihoods,
complete streamed piece by piece, last_stats) forwarded over a multiprocessing Pipe. The same APIBench tasks
are asked in-process and through the worker, alternating, so that load from other processes hits both alike.
"""

# ruff: noqa: E501  (markdown table rows read better unwrapped)
from __future__ import annotations

import argparse
import multiprocessing as mp
import os
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from _report import publish  # noqa: E402
from latency import HUBS, pct, tasks_from  # noqa: E402

from gorilla_tui import services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402
from gorilla_tui.model.backend import LlamaBackend  # noqa: E402
from gorilla_tui.model.profiles import choose_profile, runtime_params  # noqa: E402
from gorilla_tui.model.registry import embedded_model_path  # noqa: E402
from gorilla_tui.pool.doc import load_jsonl  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402


def _echo_worker(conn: Any) -> None:
    """A worker with no model: answers every request with a reply of the size the real one would have."""
    while (req := conn.recv()) is not None:
        conn.send(("done", req[3], {}))


def _worker(conn: Any, path: str, params: dict) -> None:
    """The worker process: one LlamaBackend; answers (method, args, kwargs) requests until None."""
    backend = LlamaBackend(path, params=params, name="gemma3-270m", family="fewshot")
    conn.send(("ready", backend.n_ctx))
    while (req := conn.recv()) is not None:
        method, args, kwargs = req
        try:
            if method == "complete":
                for piece in backend.complete(*args, **kwargs):
                    conn.send(("piece", piece))
                conn.send(("done", backend.last_stats))
            else:
                conn.send(("done", getattr(backend, method)(*args, **kwargs), backend.last_stats))
        except Exception as e:  # noqa: BLE001 - forwarded to the parent
            conn.send(("error", f"{type(e).__name__}: {e}"))


class WorkerBackend:
    """The Backend protocol, forwarded to _worker over a Pipe (no cancel: a measuring prototype)."""

    def __init__(self, path: Path, params: dict) -> None:
        ctx = mp.get_context("spawn")
        self._conn, child = ctx.Pipe()
        self._proc = ctx.Process(target=_worker, args=(child, str(path), params), daemon=True)
        self._proc.start()
        _, self._n_ctx = self._conn.recv()
        self.name, self.family, self.last_stats, self.warnings = "gemma3-270m", "fewshot", {}, []
        self.log: list[tuple[str, tuple, dict, Any]] = []  # every call and its result, for the echo replay

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def _call(self, method: str, *args: Any, **kwargs: Any) -> Any:
        self._conn.send((method, args, kwargs))
        reply = self._conn.recv()
        if reply[0] == "error":
            raise RuntimeError(reply[1])
        self.last_stats = reply[2]
        self.log.append((method, args, kwargs, reply[1]))
        return reply[1]

    def count_tokens(self, text: str) -> int:
        return self._call("count_tokens", text)

    def loglikelihoods(self, contexts: Any, continuation: str, cancel: Any = None) -> list[float]:
        return self._call("loglikelihoods", list(contexts), continuation)

    def complete(self, prompt: str, **kwargs: Any) -> Any:
        kwargs.pop("cancel", None)
        self._conn.send(("complete", (prompt,), kwargs))
        while True:
            kind, value = self._conn.recv()[:2]
            if kind == "piece":
                yield value
            elif kind == "done":
                self.last_stats = value
                return
            else:
                raise RuntimeError(value)

    def close(self) -> None:
        self._conn.send(None)
        self._proc.join(10)


def replay_ipc(log: list[tuple[str, tuple, dict, Any]], repeats: int) -> float:
    """Seconds of pure Pipe round trips for the calls in `log` (same requests, same-size replies) against a
    worker with no model, per replay of the whole log (median of `repeats`)."""
    ctx = mp.get_context("spawn")
    conn, child = ctx.Pipe()
    proc = ctx.Process(target=_echo_worker, args=(child,), daemon=True)
    proc.start()
    times = []
    for _ in range(repeats):
        t = time.perf_counter()
        for method, args, kwargs, result in log:
            conn.send((method, args, kwargs, result))
            conn.recv()
        times.append(time.perf_counter() - t)
    conn.send(None)
    proc.join(10)
    return statistics.median(times)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--tasks", type=int, default=30)
    ap.add_argument("--shared", default=str(Path(__file__).resolve().parent.parent.parent / "shared"))
    ap.add_argument("--no-write", action="store_true")
    ap.add_argument("--n-threads", type=int, default=0, help="config.toml n_threads (1 on a busy machine)")
    args = ap.parse_args()
    api = Path(args.shared) / "apibench"
    load_before = os.getloadavg()[0]
    with tempfile.TemporaryDirectory() as tmp:
        path = embedded_model_path(Path(tmp))
        params = runtime_params(choose_profile()[0], n_threads=args.n_threads)
        local = LlamaBackend(path, params=params, name="gemma3-270m", family="fewshot")
        t = time.perf_counter()
        worker = WorkerBackend(path, params)
        start_s = time.perf_counter() - t
        docs = [d for hub, f, _ in HUBS for d in load_jsonl(api / "api" / f, hub).docs]
        index = ApiIndex.build(docs)
        per_hub = [args.tasks // 3 + (1 if i < args.tasks % 3 else 0) for i in range(3)]
        work = [(hub, task) for (hub, _, ev), n in zip(HUBS, per_hub, strict=True)
                for task in tasks_from(api / "eval" / ev, n)]  # fmt: skip
        pipes = {
            (who, hub): services.build_pipeline(
                Settings(mode="select", select_by="likelihood", k=5, hub=hub), index, be
            )
            for who, be in (("in-process", local), ("worker", worker))
            for hub, _, _ in HUBS
        }
        for p in pipes.values():
            _ = p.validator
        lat: dict[str, list[float]] = {"in-process": [], "worker": []}
        same, calls_per_ask = 0, []
        for i, (hub, task) in enumerate(work):
            order = ("in-process", "worker") if i % 2 == 0 else ("worker", "in-process")
            calls = {}
            for who in order:
                before = len(worker.log)
                t = time.perf_counter()
                calls[who] = pipes[who, hub].ask(task).api_call
                lat[who].append(time.perf_counter() - t)
                if who == "worker":
                    calls_per_ask.append(len(worker.log) - before)
            same += calls["in-process"] == calls["worker"]
        worker.close()
        ipc_per_ask = replay_ipc(worker.log, repeats=20) / len(work)
    p50 = {k: pct(v, 0.5) for k, v in lat.items()}
    diff = p50["worker"] / p50["in-process"] - 1
    paired = statistics.median(w - i for w, i in zip(lat["worker"], lat["in-process"], strict=True))
    load_after = os.getloadavg()[0]
    md = "\n".join(
        [
            f"`python bench/worker_overhead.py --tasks {args.tasks}`: {len(work)} APIBench tasks, select mode by "
            f"likelihood (k 5), asked alternately in-process and through a spawned worker process hosting the same "
            f"LlamaBackend (every Backend call over a multiprocessing Pipe; bench/worker_overhead.py). Llama() params "
            f"`{params}`. 1-min load average {load_before:.1f} at start, {load_after:.1f} at end.",
            "",
            "| figure | in-process | worker process | target |",
            "|---|---|---|---|",
            f"| ask p50 / p95 | {p50['in-process']:.3f} s / {pct(lat['in-process'], 0.95):.3f} s | "
            f"{p50['worker']:.3f} s / {pct(lat['worker'], 0.95):.3f} s | worker p50 within 5 % |",
            f"| p50 difference | | **{100 * diff:+.1f} %** | <= +5 % |",
            f"| median paired difference (worker - in-process, same task) | | {1000 * paired:+.1f} ms | |",
            f"| worker start (spawn + import + model load), once per session | | {start_s:.2f} s | |",
            f"| same api_call chosen | | {same}/{len(work)} | all |",
            f"| Backend calls per ask through the Pipe (median) | | {statistics.median(calls_per_ask):.0f} | |",
            f"| pure IPC per ask: the same calls and replies against a worker with no model (median of 20 "
            f"replays) | | **{1000 * ipc_per_ask:.2f} ms** = {100 * ipc_per_ask / p50['in-process']:.4f} % of "
            f"the in-process p50 | |",
        ]
    )
    return publish("Worker process overhead", md, not args.no_write)


if __name__ == "__main__":
    raise SystemExit(main())
