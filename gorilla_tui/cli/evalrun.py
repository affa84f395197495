"""`gorilla-tui eval run`: answer a hub's APIBench eval set with the local model, resumably, then score it."""

from __future__ import annotations

import argparse
import json
import signal
import sys
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import safe_text


def register(actions: argparse._SubParsersAction) -> None:
    """Add `eval run` beside `eval score` (called by gorilla_tui.cli.evalcmd)."""
    from gorilla_tui.cli.evalcmd import add_data_options
    from gorilla_tui.cli.options import add_model_options

    p = actions.add_parser(
        "run",
        help="answer a hub's eval set with the model and score it",
        description="Answer every task of a hub's APIBench eval set through the same pipeline as the TUI, "
        "append the answers to --out as Gorilla response lines (a rerun resumes where it stopped), then "
        "score them with both metrics. Ctrl+C stops after the current task; twice drops it.",
    )
    add_data_options(p)
    p.add_argument("--retriever", required=True, choices=("none", "bm25", "oracle"),
                   help="none: no docs (0-shot); bm25: the index, this hub's pool only; oracle: the "
                   "ground-truth doc")  # fmt: skip
    add_model_options(p, hub=False, max_tokens=False)  # --hub: the eval set's, from add_data_options
    p.add_argument("--limit", type=int, default=None, metavar="N", help="answer at most N tasks")
    p.add_argument("--sample", choices=("head", "spread"), default="head",
                   help="with --limit: the first N tasks (head) or N evenly spaced (spread)")  # fmt: skip
    p.add_argument("--concurrency", type=int, default=1, metavar="N",
                   help="with --endpoint: send up to N tasks to the server at once (retrieval and checking "
                   "stay local; the file keeps the task order); default 1")  # fmt: skip
    p.add_argument("--out", required=True, metavar="FILE", help="response file (JSON Lines), appended")
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run)


@contextmanager
def _ctrl_c(stop: threading.Event, cancel: threading.Event) -> Iterator[None]:
    """First Ctrl+C sets `stop` (finish the current task), the second sets `cancel` (drop it), the third
    is a plain KeyboardInterrupt. Only in the main thread (signal handlers cannot be set elsewhere)."""
    if threading.current_thread() is not threading.main_thread():
        yield
        return

    def handler(_signum: int, _frame: Any) -> None:
        if stop.is_set():
            cancel.set()
            signal.signal(signal.SIGINT, signal.default_int_handler)
        stop.set()

    old = signal.signal(signal.SIGINT, handler)
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def run(args: argparse.Namespace) -> int:
    """Answer, then print the summary. Exit 0 when every selected task is answered, 130 when stopped."""
    from gorilla_tui.cli.options import settings_from_args
    from gorilla_tui.evaluate import run as evalrun
    from gorilla_tui.model.registry import EMBEDDED

    data = evalrun.hub_data(
        args.hub, from_dir=args.from_dir, eval_path=args.eval_file, pool_path=args.pool_file
    )
    settings = settings_from_args(args).replace(hub=data.hub)
    if not 1 <= args.concurrency <= evalrun.MAX_CONCURRENCY:
        raise UsageError(f"--concurrency must be in 1..{evalrun.MAX_CONCURRENCY}, not {args.concurrency}")
    if args.concurrency > 1 and not settings.endpoint:
        raise UsageError(
            "--concurrency above 1 needs --endpoint: a local model answers one task at a time",
            hint="start a server (python -m llama_cpp.server --model FILE.gguf) and pass --endpoint URL",
        )
    tasks = evalrun.select_tasks(evalrun.load_tasks(data.eval_path, data.hub), args.limit, args.sample)
    model = settings.model or ("remote" if settings.endpoint else EMBEDDED)
    info = evalrun.RunInfo(data.hub, args.retriever, settings.mode, model, settings.k, _select_by(settings))
    existed = Path(args.out).exists()
    done, notes = evalrun.load_answers(args.out, info)  # a wrong --out fails before the model loads
    for note in notes:
        print(f"gorilla-tui: {args.out}: {note}", file=sys.stderr)
    stats = evalrun.RunStats(skipped=len(tasks), concurrency=args.concurrency)
    if any(t.question_id not in done for t in tasks):
        stats = _answer(args, settings, data, tasks, info, len(done.keys() & {t.question_id for t in tasks}))
    if stats.stopped and not done and not stats.answered:  # stopped before the first answer: nothing to sum
        out = Path(args.out)
        if not existed and out.exists() and out.stat().st_size == 0:
            out.unlink()
        return 130
    summary = evalrun.summarise(args.out, data.hub, tasks, eval_path=data.eval_path, pool_path=data.pool_path)
    if args.json:
        out = {"hub": data.hub, "retriever": args.retriever, "mode": settings.mode,
               "select_by": info.select_by, "model": model, "k": settings.k, "out": str(args.out),
               "answered": stats.answered, "skipped": stats.skipped, "stopped": stats.stopped,
               "concurrency": stats.concurrency, "seconds": round(stats.seconds, 3),
               "tasks_per_s": round(stats.tasks_per_s, 4), **summary.to_dict()}  # fmt: skip
        print(json.dumps(out, ensure_ascii=False))
    else:
        _print_summary(summary, info, stats, str(args.out))
    return 130 if stats.stopped else 0


def _select_by(settings: Any) -> str:
    """How select mode will choose, known before the model loads (a resume must match it): what
    Pipeline.select_by gives for the backend open_backend(settings) opens: "" in generate mode; with
    --endpoint and likelihood, "likelihood" only when the server returns prompt log-probabilities
    (RemoteBackend.supports_loglikelihoods probes it once; a note on stderr says when it does not), else
    settings.select_by. Raises remote.EndpointDownError (one line) when the endpoint cannot be reached."""
    if settings.mode != "select":
        return ""
    if settings.endpoint and settings.select_by == "likelihood":
        from gorilla_tui.model.remote import RemoteBackend

        probe = RemoteBackend(settings.endpoint, n_ctx=settings.n_ctx or 4096)
        if not probe.supports_loglikelihoods():
            note = safe_text(probe.scoring_note, newlines=False)  # the server's own words
            print(f"gorilla-tui: note: {note}; select mode chooses with the grammar", file=sys.stderr)
            return "grammar"
    return settings.select_by


def _answer(args: argparse.Namespace, settings: Any, data: Any, tasks: list, info: Any, done: int) -> Any:
    from rich.console import Console
    from rich.progress import (
        BarColumn,
        MofNCompleteColumn,
        Progress,
        ProgressColumn,
        SpinnerColumn,
        TextColumn,
        TimeElapsedColumn,
        TimeRemainingColumn,
    )
    from rich.text import Text

    from gorilla_tui.evaluate import run as evalrun
    from gorilla_tui.model.backend import open_backend
    from gorilla_tui.pipeline import Pipeline

    class RateColumn(ProgressColumn):
        """Seconds per task (rich's own speed estimate over its recent samples)."""

        def render(self, task: Any) -> Text:
            return Text(f"{1 / task.speed:.2f} s/task" if task.speed else "-- s/task", style="cyan")

    console = Console(stderr=True)
    index, where = evalrun.hub_index(data)
    console.print(f"[dim]{data.hub}: {len(tasks)} tasks, {done} already in {args.out}; index: {where}[/]")
    backend = open_backend(settings)
    pipeline = Pipeline(settings, index, backend, retriever=info.retriever)
    if pipeline.select_by() != info.select_by:  # a backend that cannot score after all: lines say "grammar"
        raise UsageError(
            f"select mode cannot choose by {info.select_by} with model {info.model}",
            hint="use --select-by grammar",
        )
    stop, cancel = threading.Event(), threading.Event()
    valid = [0, 0]
    columns = (SpinnerColumn(), TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
               RateColumn(), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())  # fmt: skip
    with Progress(*columns, console=console) as progress:
        bar = progress.add_task(f"{data.hub} {info.retriever}", total=len(tasks), completed=done)

        def on_answer(line: dict[str, Any]) -> None:
            valid[0] += line["verdict"] == "valid"
            valid[1] += 1
            note = " [yellow]stopping after this task[/]" if stop.is_set() else ""
            desc = f"{data.hub} {info.retriever} valid {valid[0]}/{valid[1]}{note}"
            progress.update(bar, advance=1, description=desc)

        with _ctrl_c(stop, cancel):
            stats = evalrun.answer_tasks(pipeline, tasks, args.out, info, stop=stop, cancel=cancel,
                                         on_answer=on_answer, concurrency=args.concurrency)  # fmt: skip
    done_now = stats.answered + stats.failed
    if done_now:
        console.print(f"[dim]{done_now} tasks in {stats.seconds:.1f} s: {stats.tasks_per_s:.3f} tasks/s "
                      f"(concurrency {stats.concurrency})[/]")  # fmt: skip
    if stats.stopped:
        console.print(f"[yellow]stopped: {stats.answered} answered now; rerun the same command to resume[/]")
    return stats


def _pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def _print_summary(summary: Any, info: Any, stats: Any, out: str) -> None:
    from rich.console import Console
    from rich.table import Table

    console = Console()
    d = summary.to_dict()
    mode = f"{info.mode} by {info.select_by}" if info.select_by else info.mode
    head = Table(title=f"{info.hub} · {info.retriever} · {mode} · {info.model} · k={info.k} · n={summary.n}")
    for col in ("metric", "accuracy", "hallucination", "error"):
        head.add_column(col, justify="right" if col != "metric" else "left")
    for score in (summary.gorilla, summary.strict):
        head.add_row(score.metric, _pct(score.accuracy), _pct(score.hallucination), _pct(score.error))
    console.print(head)
    console.print(
        f"latency p50 {summary.latency_p50:.2f} s, p95 {summary.latency_p95:.2f} s · right API in the hits "
        f"(api@k) {_pct(d['api_at_k'])} · picked {_pct(d['picked'])} · picked when in the hits "
        f"{_pct(d['picked_when_in_hits'])} · failed {summary.failed}"
    )
    table = Table(title="per domain")
    for col in ("domain", "n", "gorilla acc", "strict acc", "hallucination"):
        table.add_column(col, justify="left" if col == "domain" else "right")
    for domain, row in summary.gorilla.per_domain.items():
        strict = summary.strict.per_domain.get(domain, {})
        table.add_row(domain, str(int(row["n"])), _pct(row["accuracy"]), _pct(strict.get("accuracy", 0.0)),
                      _pct(row["hallucination"]))  # fmt: skip
    console.print(table)
    console.print(f"[dim]{stats.answered} answered now, {stats.skipped} already answered · {out}[/]")
