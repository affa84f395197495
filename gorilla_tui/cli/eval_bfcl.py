"""`gorilla-tui eval bfcl`: answer Berkeley Function Calling Leaderboard questions through the pipeline and
score the proposed calls with BFCL's AST checker (evaluate/bfcl.py, evaluate/bfcl_checker.py)."""

from __future__ import annotations

import argparse
import tempfile
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.cancel import ctrl_c_sets
from gorilla_tui.cli.options import add_model_options, settings_from_args
from gorilla_tui.cli.output import say, status_if_cut
from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.textsafe import safe_text

if TYPE_CHECKING:
    from gorilla_tui.evaluate import bfcl
    from gorilla_tui.evaluate.run import RunStats

#: The short category names --category takes (evaluate/bfcl.py CATEGORIES; "all" is every one of them).
SHORT_CATEGORIES = ("simple", "multiple", "parallel", "parallel_multiple", "irrelevance")


def register_bfcl(actions: argparse._SubParsersAction) -> None:
    """Add `eval bfcl`."""
    p = actions.add_parser(
        "bfcl",
        help="answer BFCL questions with the model and score them with BFCL's AST checker",
        description="Answer Berkeley Function Calling Leaderboard questions through the same pipeline as "
        "the TUI, each with its own functions as the API pool (--pooled: all of them beside your index), "
        "and score the proposed calls with BFCL's AST checker. --out keeps one JSON line per question; a "
        "rerun skips the questions already in it. Even ids are the dev half, odd ids the test half. "
        "Ctrl+C stops after the current question; twice drops it.",
    )
    p.add_argument("--category", action="append", required=True, metavar="NAME",
                   help=f"{', '.join(SHORT_CATEGORIES)}, all, or a BFCL category name (simple_python); "
                   "repeat it or separate names with commas")  # fmt: skip
    p.add_argument("--data", metavar="DIR",
                   help="the BFCL data folder (BFCL_v4_*.json and possible_answer/); default: the bfcl/ "
                   "folder of $GORILLA_TUI_SHARED or ../shared")  # fmt: skip
    p.add_argument(
        "--pooled", action="store_true", help="one pool: every function of the categories beside your index"
    )
    add_model_options(p, hub=False, max_tokens=False)
    p.add_argument("--limit", type=int, default=None, metavar="N", help="at most N questions per category")
    p.add_argument("--stride", type=int, default=1, metavar="S",
                   help="every S-th question of each category (before --limit); default 1")  # fmt: skip
    p.add_argument(
        "--out",
        metavar="FILE",
        help="answer file (JSON Lines, appended, resumable); default: a temporary file",
    )
    p.add_argument("--json", action="store_true", help="print the summary as JSON")
    p.set_defaults(func=run_bfcl)


def categories_of(values: list[str]) -> list[str]:
    """BFCL's category names of the --category values (comma-separated, repeatable; "all" is the five
    short ones), each once, in order. Raises UsageError for an unknown or unsupported name."""
    from gorilla_tui.evaluate.bfcl import category_name  # deferred: numpy, scipy; --help stays fast

    names: list[str] = []
    for value in values:
        for name in (n.strip() for n in value.split(",")):
            for one in SHORT_CATEGORIES if name.lower() == "all" else (name,) if name else ():
                full = category_name(one)
                if full not in names:
                    names.append(full)
    if not names:
        raise UsageError("--category needs a category name")
    return names


def run_bfcl(args: argparse.Namespace) -> int:
    """Answer, score and print. Exit 0 when every selected question is answered, 130 when stopped, 2 for
    bad input (an unknown category, a missing data folder: one line, before the model loads)."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.evaluate import bfcl  # deferred with services

    names = categories_of(args.category)
    data = Path(args.data) if args.data else bfcl.default_data_dir()
    every = {name: bfcl.load_questions(data, name) for name in names}
    questions = [q for name in names for q in bfcl.select_questions(every[name], args.limit, args.stride)]
    settings = settings_from_args(args).replace(hub="")

    def note(line: str) -> None:  # the server's own words: escaped
        say(f"gorilla-tui: note: {safe_text(line)}")

    run = bfcl.BfclRun(services.model_label(settings), settings.mode,
                       services.planned_select_by(settings, note=note), settings.k, args.pooled)  # fmt: skip
    with tempfile.TemporaryDirectory(prefix="gorilla-tui-bfcl-") as tmp:
        out = Path(args.out) if args.out else Path(tmp) / "answers.jsonl"
        existed = out.exists()
        done, notes = bfcl.load_done(out, run)  # a wrong --out fails before the model loads
        for line in notes:
            say(safe_text(f"gorilla-tui: {out}: {line}"))
        stats = None
        if any(q.id not in done for q in questions):
            pool = [q for name in names for q in every[name]]
            stats = _answer(settings, questions, pool, out, run, len(done.keys() & {q.id for q in questions}))
        if stats is not None and stats.stopped and not stats.answered and not done:
            if not existed and out.exists() and out.stat().st_size == 0:  # stopped before the first answer
                out.unlink()
            return 130
        scores = bfcl.score_answers(out, questions)
    status = 130 if stats is not None and stats.stopped else 0
    with status_if_cut(status):  # `eval bfcl | head -1` keeps it
        if args.json:
            print(json_text({**run.key(), "data": str(data), "out": str(args.out or ""),
                              "answered": stats.answered if stats else 0,
                              "skipped": stats.skipped if stats else len(questions),
                              "stopped": bool(stats and stats.stopped),
                              "seconds": round(stats.seconds, 3) if stats else 0.0,
                              "categories": [s.to_dict() for s in scores]}))  # fmt: skip
        else:
            _print_scores(scores, run, args.out or "")
    return status


def _answer(settings: Settings, questions: list[bfcl.BfclQuestion], pool: list[bfcl.BfclQuestion], out: Path,
            run: bfcl.BfclRun, done: int) -> RunStats:  # fmt: skip
    """Answer the questions not yet in `out` with the model loaded once: a progress bar on a terminal,
    one plain line per question on stderr otherwise. Ctrl+C: first stops after the current question,
    second drops it, third is a KeyboardInterrupt."""
    from rich.progress import Progress  # deferred: rich; --help stays fast

    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.cli.console import make_console, progress_columns, shown  # deferred: rich; --help fast
    from gorilla_tui.evaluate import bfcl  # deferred with services

    console = make_console(stderr=True)
    where = "pooled with your index" if run.pooled else "each question's own functions"
    console.print(shown(f"BFCL: {len(questions)} questions, {done} already in {out}; pool: {where}", "dim"))
    backend = services.load_backend(settings)
    if run.pooled:
        live = services.load_index(build_if_missing=True, note=lambda line: console.print(shown(line, "dim")))
        index = bfcl.pooled_index(pool, live)
        kind = "your index, which holds every function" if index is live else "BM25, the functions added"
        console.print(
            shown(f"pooled index: {len(index.docs)} docs ({', '.join(index.sources)}), {kind}", "dim")
        )
        shared = services.build_pipeline(settings, index, backend)
        pipelines: Any = lambda _q: shared  # noqa: E731
    else:
        pipelines = lambda q: services.build_pipeline(settings, bfcl.question_index(q), backend)  # noqa: E731
    probe = pipelines(questions[0])
    if probe.select_by() != run.select_by:  # a backend that cannot score after all: lines say "grammar"
        raise UsageError(f"select mode cannot choose by {run.select_by} with model {run.model}",
                         hint="use --select-by grammar")  # fmt: skip
    stop, cancel = threading.Event(), threading.Event()
    right = [0, 0]

    def count(line: dict[str, Any]) -> str:
        right[0] += line["valid"] is True
        right[1] += 1
        return f"BFCL right {right[0]}/{right[1]}" + (
            " (stopping after this one)" if stop.is_set() else ""  # plain text: PlainColumn
        )

    with ctrl_c_sets(stop, cancel, escalate=True):
        if console.is_terminal:
            with Progress(*progress_columns("question"), console=console) as progress:
                bar = progress.add_task("BFCL", total=len(questions), completed=done)
                stats = bfcl.answer_questions(
                    questions, out, run, pipelines, stop=stop, cancel=cancel,
                    on_answer=lambda line: progress.update(bar, advance=1, description=count(line)),
                )  # fmt: skip
        else:

            def plain(line: dict[str, Any]) -> None:
                count(line)
                how = "right" if line["valid"] else f"wrong ({line.get('error_type') or 'no call'})"
                say(safe_text(f"{line['id']}: {how} [{right[0]}/{right[1]}]"))

            stats = bfcl.answer_questions(questions, out, run, pipelines, stop=stop, cancel=cancel,
                                          on_answer=plain)  # fmt: skip
    if stats.answered + stats.failed:
        console.print(f"[dim]{stats.answered + stats.failed} questions in {stats.seconds:.1f} s[/]")
    if stats.stopped:
        console.print(f"[yellow]stopped: {stats.answered} answered now; rerun the same command to resume[/]")
    return stats


def _print_scores(scores: list[bfcl.CategoryScore], run: bfcl.BfclRun, out: str) -> None:
    """The final table: per category questions, right, accuracy, and the dev (even ids) / test (odd ids)
    halves; then the commonest reasons of the wrong answers."""
    from rich.table import Table  # deferred: rich; --help stays fast

    from gorilla_tui.cli.console import make_console, shown  # deferred: rich; --help stays fast

    console = make_console()  # the model's name, the categories and the path: shown, never markup
    mode = f"{run.mode} by {run.select_by}" if run.select_by else run.mode
    pool = "pooled" if run.pooled else "own functions"
    table = Table(title=shown(f"BFCL · {run.model} · {mode} · k={run.k} · {pool}"))
    for col in ("category", "questions", "right", "accuracy", "dev (even ids)", "test (odd ids)", "p50 s"):
        table.add_column(col, justify="left" if col == "category" else "right")
    for s in scores:
        halves = [
            f"{100 * s.accuracy(h):.2f} % of {s.split_n[h]}" if s.split_n[h] else "-" for h in ("dev", "test")
        ]
        table.add_row(shown(s.category), str(s.n), str(s.right), f"{100 * s.accuracy():.2f} %", *halves,
                      f"{s.seconds_p50:.2f}")  # fmt: skip
    console.print(table)
    for s in scores:
        if s.errors and s.category != "all":
            top = ", ".join(f"{kind} {n}" for kind, n in s.errors.most_common(3))
            console.print(shown(f"{s.category} wrong: {safe_text(top)}", "dim"))
    if out:
        console.print(shown(out, "dim"))
