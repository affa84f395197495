"""`gorilla-tui eval score` and `eval run`: score model responses on APIBench (strict or the paper's gorilla
metric), or answer a hub's eval set with the local model, resumably, then score it. `eval bfcl` (BFCL's
questions and AST checker) is in cli/eval_bfcl.py."""

from __future__ import annotations

import argparse
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.cancel import ctrl_c_sets
from gorilla_tui.cli.eval_bfcl import register_bfcl
from gorilla_tui.cli.options import add_model_options, settings_from_args
from gorilla_tui.cli.output import say, status_if_cut
from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.textsafe import safe_text

if TYPE_CHECKING:
    from gorilla_tui.evaluate import run as evalrun


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `eval` subcommand and its `score`, `run` and `bfcl` actions."""
    p = sub.add_parser(
        "eval", help="APIBench and BFCL evaluation", description="Evaluate on APIBench and BFCL."
    )
    actions = p.add_subparsers(dest="eval_command", metavar="ACTION", parser_class=type(p))
    p.set_defaults(func=lambda args: _usage(p))
    register_score(actions)
    register_run(actions)
    register_bfcl(actions)


def _usage(parser: argparse.ArgumentParser) -> int:
    parser.print_help()
    return 2


def add_data_options(p: argparse.ArgumentParser) -> None:
    """--hub, --eval, --pool, --from: where the eval set and the API pool come from (shared with eval run)."""
    p.add_argument("--hub", required=True, metavar="NAME", help="torchhub, tensorflowhub or huggingface")
    p.add_argument("--eval", dest="eval_file", metavar="FILE", help="the eval set file (default: the hub's)")
    p.add_argument("--pool", dest="pool_file", metavar="FILE", help="the API pool file (default: the hub's)")
    p.add_argument(
        "--from",
        dest="from_dir",
        metavar="DIR",
        help="local APIBench mirror holding *_api.jsonl and *_eval.json (also in api/ and eval/ subfolders); "
        "default: download from the Hugging Face dataset gorilla-llm/APIBench",
    )


def register_score(actions: argparse._SubParsersAction) -> None:
    """Add `eval score`."""
    p = actions.add_parser(
        "score",
        help="score a response file",
        description="Score Gorilla-format responses (JSON Lines of {question_id, text}) against a hub's "
        "eval set: accuracy, hallucination and error (they sum to 1), overall and per domain.",
    )
    add_data_options(p)
    p.add_argument("--responses", required=True, metavar="FILE", help="JSON Lines of {question_id, text}")
    p.add_argument(
        "--metric",
        choices=("strict", "gorilla"),
        default="strict",
        help="strict: the exact ground-truth API (default); gorilla: the paper's AST metric",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run_score)


def run_score(args: argparse.Namespace) -> int:
    """Score args.responses and print the result (warnings also go to stderr, one line each)."""
    from rich.table import Table  # deferred: rich; --help stays fast

    from gorilla_tui.evaluate.score import (
        score_file,  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    )

    score = score_file(
        args.hub,
        args.responses,
        metric=args.metric,
        eval_path=args.eval_file,
        pool_path=args.pool_file,
        from_dir=args.from_dir,
    )
    for warning in score.warnings:  # stderr in both modes, so --json keeps stdout pure JSON
        say(f"gorilla-tui: warning: {safe_text(warning)}")
    if args.json:
        print(json_text(score.to_dict()))
        return 0
    from gorilla_tui.cli.console import make_console, shown  # deferred: rich; --help stays fast

    console = make_console()  # hubs, domains, reasons and notes come from the files read: shown, never markup
    head = Table(title=shown(f"{score.hub} · metric {score.metric} · n={score.n}"))
    for col in ("accuracy", "hallucination", "error"):
        head.add_column(col, justify="right")
    head.add_row(*(f"{100 * v:.2f} %" for v in (score.accuracy, score.hallucination, score.error)))
    console.print(head)
    table = Table(title="per domain")
    table.add_column("domain")
    for col in ("n", "accuracy", "hallucination", "error"):
        table.add_column(col, justify="right")
    for domain, row in score.per_domain.items():
        table.add_row(
            shown(domain),
            str(int(row["n"])),
            *(f"{100 * row[k]:.1f} %" for k in ("accuracy", "hallucination", "error")),
        )
    console.print(table)
    if score.verdicts:
        console.print(shown("verdicts: " + ", ".join(f"{k} {v}" for k, v in sorted(score.verdicts.items()))))
    if score.reasons:
        reasons = Table(title="per reason (non-valid verdicts)")
        for col, just in (("reason", "left"), ("n", "right"), ("share", "right")):
            reasons.add_column(col, justify=just)
        for reason, count in score.reasons.items():
            reasons.add_row(shown(reason), str(count), f"{100 * count / max(score.n, 1):.1f} %")
        console.print(reasons)
    for note in score.notes:
        console.print(shown(note, "dim"))
    return 0


def register_run(actions: argparse._SubParsersAction) -> None:
    """Add `eval run`."""
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
    p.set_defaults(func=run_eval)


def run_eval(args: argparse.Namespace) -> int:
    """Answer, then print the summary. Exit 0 when every selected task is answered, 130 when stopped, 1 when
    every task answered now failed (all_failed)."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.evaluate import run as evalrun  # deferred with services

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
    model = services.model_label(settings)

    def note(line: str) -> None:  # the server's own words: escaped
        say(f"gorilla-tui: note: {safe_text(line)}")

    select_by = services.planned_select_by(settings, note=note)
    info = evalrun.RunInfo(data.hub, args.retriever, settings.mode, model, settings.k, select_by)
    existed = Path(args.out).exists()
    done, notes = evalrun.load_answers(args.out, info)  # a wrong --out fails before the model loads
    for note in notes:
        say(safe_text(f"gorilla-tui: {args.out}: {note}"))
    stats = evalrun.RunStats(skipped=len(tasks), concurrency=args.concurrency)
    if any(t.question_id not in done for t in tasks):
        stats = _answer(args, settings, data, tasks, info, len(done.keys() & {t.question_id for t in tasks}))
    if stats.stopped and not done and not stats.answered:  # stopped before the first answer: nothing to sum
        out = Path(args.out)
        if not existed and out.exists() and out.stat().st_size == 0:
            out.unlink()
        return 130
    summary = evalrun.summarise(args.out, data.hub, tasks, eval_path=data.eval_path, pool_path=data.pool_path)
    status = 130 if stats.stopped else 1 if all_failed(stats, args.out) else 0
    with status_if_cut(status):  # `eval run | head -1` keeps it (break-it round 10)
        if args.json:
            out = {"hub": data.hub, "retriever": args.retriever, "mode": settings.mode,
                   "select_by": info.select_by, "model": model, "k": settings.k, "out": str(args.out),
                   "answered": stats.answered, "skipped": stats.skipped, "stopped": stats.stopped,
                   "concurrency": stats.concurrency, "seconds": round(stats.seconds, 3),
                   "tasks_per_s": round(stats.tasks_per_s, 4), **summary.to_dict()}  # fmt: skip
            print(json_text(out))
        else:
            _print_summary(summary, info, stats, str(args.out))
    return status


def all_failed(stats: evalrun.RunStats, out: str) -> bool:
    """True (after one line on stderr) when tasks were answered now and every one failed (an endpoint that
    never gave an answer): the run exits 1, a failed answer, not 0 with "0 answered now" (break-it pass 4)."""
    if not stats.failed or stats.answered:
        return False
    say(safe_text(f"gorilla-tui: every task failed ({stats.failed} of {stats.failed}); each line of {out} "
                  "says why in its \"error\""))  # fmt: skip
    return True


def _answer(
    args: argparse.Namespace,
    settings: Settings,
    data: evalrun.HubData,
    tasks: list[evalrun.EvalTask],
    info: evalrun.RunInfo,
    done: int,
) -> evalrun.RunStats:
    """Answer the tasks not yet in args.out through the pipeline services builds, with a progress bar on
    stderr. Ctrl+C: first stops after the current task, second drops it, third is a KeyboardInterrupt."""
    from rich.progress import Progress  # deferred: rich; --help stays fast

    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.cli.console import make_console, progress_columns, shown  # deferred: rich; --help fast
    from gorilla_tui.evaluate import run as evalrun  # deferred with services

    console = make_console(stderr=True)
    index, where = evalrun.hub_index(data)
    console.print(
        shown(f"{data.hub}: {len(tasks)} tasks, {done} already in {args.out}; index: {where}", "dim")
    )
    backend = services.load_backend(settings)
    pipeline = services.build_pipeline(settings, index, backend, retriever=info.retriever)
    if pipeline.select_by() != info.select_by:  # a backend that cannot score after all: lines say "grammar"
        raise UsageError(
            f"select mode cannot choose by {info.select_by} with model {info.model}",
            hint="use --select-by grammar",
        )
    stop, cancel = threading.Event(), threading.Event()
    valid = [0, 0]
    with Progress(*progress_columns("task"), console=console) as progress:
        bar = progress.add_task(f"{data.hub} {info.retriever}", total=len(tasks), completed=done)

        def on_answer(line: dict[str, Any]) -> None:
            valid[0] += line["verdict"] == "valid"
            valid[1] += 1
            note = " (stopping after this task)" if stop.is_set() else ""  # plain text: PlainColumn
            desc = f"{data.hub} {info.retriever} valid {valid[0]}/{valid[1]}{note}"
            progress.update(bar, advance=1, description=desc)

        def worker() -> Any:  # one pipeline per worker thread, sharing index, backend and validator
            return services.build_pipeline(settings, index, backend, retriever=info.retriever,
                                           validator=pipeline.validator)  # fmt: skip

        with ctrl_c_sets(stop, cancel, escalate=True):
            stats = evalrun.answer_tasks(pipeline, tasks, args.out, info, stop=stop, cancel=cancel,
                                         on_answer=on_answer, concurrency=args.concurrency,
                                         workers=worker if args.concurrency > 1 else None)  # fmt: skip
    done_now = stats.answered + stats.failed
    if done_now:
        console.print(f"[dim]{done_now} tasks in {stats.seconds:.1f} s: {stats.tasks_per_s:.3f} tasks/s "
                      f"(concurrency {stats.concurrency})[/]")  # fmt: skip
    if stats.stopped:
        console.print(f"[yellow]stopped: {stats.answered} answered now; rerun the same command to resume[/]")
    return stats


def _pct(x: float) -> str:
    return f"{100 * x:.2f} %"


def _print_summary(
    summary: evalrun.Summary, info: evalrun.RunInfo, stats: evalrun.RunStats, out: str
) -> None:
    from rich.table import Table  # deferred: rich; --help stays fast

    from gorilla_tui.cli.console import make_console, shown  # deferred: rich; --help stays fast

    console = make_console()  # the model's name, the domains and the path: shown, never markup
    d = summary.to_dict()
    mode = f"{info.mode} by {info.select_by}" if info.select_by else info.mode
    head = Table(
        title=shown(f"{info.hub} · {info.retriever} · {mode} · {info.model} · k={info.k} · n={summary.n}")
    )
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
        table.add_row(shown(domain), str(int(row["n"])), _pct(row["accuracy"]),
                      _pct(strict.get("accuracy", 0.0)), _pct(row["hallucination"]))  # fmt: skip
    console.print(table)
    console.print(shown(f"{stats.answered} answered now, {stats.skipped} already answered · {out}", "dim"))
