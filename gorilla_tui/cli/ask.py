"""`gorilla-tui ask "TASK"`: one task through pipeline.ask, printed as a rich panel or JSON."""

from __future__ import annotations

import argparse
import sys
import threading
import time
from typing import Any

import gorilla_tui.cli as entry  # the package (cli.run reads EXIT_NOW), loaded already: it dispatched here
from gorilla_tui.cancel import ctrl_c_sets
from gorilla_tui.cli.options import TASK_HELP, add_model_options, settings_from_args, task_text
from gorilla_tui.cli.output import HeldLoss, say
from gorilla_tui.cli.run import add_isolation_option, check_run_args, confirm_and_run, open_history
from gorilla_tui.config import Settings
from gorilla_tui.errors import GorillaError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.textsafe import safe_text
from gorilla_tui.types import (
    FIT_LINES,
    NEEDS_NOTE,
    TRANSLATION_NOTE,
    Hit,
    Proposal,
    code_origin,
    group_by_call,
)

#: Seconds of the cold-start stages of the last ask in this process (index_load, model_load, model_wait,
#: validator_build); `ask --json` prints them as "startup" (bench/latency.py reads them).
STARTUP: dict[str, float] = {}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `ask` subcommand."""
    p = sub.add_parser(
        "ask",
        help="turn a task in plain English into a checked API call",
        description="Retrieve API docs for TASK, ask the model for the call, check it against the API pool.",
    )
    p.add_argument(
        "task",
        help="what you want to do, in plain words (another language is put into English by the model first; "
        f"{TASK_HELP})",
    )
    p.add_argument("--json", action="store_true", help="print the proposal as JSON")
    add_model_options(p)
    p.add_argument(
        "--run", action="store_true", help="then run the proposed code in the sandbox (asks to confirm)"
    )
    p.add_argument("--yes", "-y", action="store_true", help="with --run: answer every confirmation")
    p.add_argument("--timeout", type=float, default=None, metavar="S", help="with --run: wall-clock limit")
    p.add_argument("--keep", action="store_true", help="with --run: keep the sandbox folder")
    add_isolation_option(p)
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Answer the task; exit 0 for a valid verdict, 1 for any other verdict (incomplete too: the call
    still holds placeholders), 2 for bad input/setup,
    130 after Ctrl+C (at any point: loading the index or the model, retrieval or generation).
    With --run: then confirm and run the code in the sandbox; the exit status is the run's (cli/run.py)."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.pipeline import clean_task  # deferred with services

    args.task = task_text(args.task)  # "-": standard input; over MAX_TASK_INPUT_CHARS: one line, exit 2
    settings = settings_from_args(args)
    clean_task(args.task)  # an empty task fails before the model is loaded
    services.check_settings(settings)  # a bad --endpoint or --kernel: one line, exit 2, before anything loads
    if args.run:
        check_run_args(args)  # no TTY and no --yes: refuse before the model is loaded
    cancel = threading.Event()
    with ctrl_c_sets(cancel) as interrupted:
        try:
            proposal = _ask(args, settings, cancel, interrupted)
        except GorillaError:
            if interrupted:  # AskCancelled, or an error the interruption caused
                raise KeyboardInterrupt from None
            raise
    if interrupted:
        raise KeyboardInterrupt  # cli.main: "gorilla-tui: interrupted", exit 130
    data = proposal.to_dict()
    # stdout refusing a write (`| head -1`, a full disk) is held: the history row is still saved, and the
    # status is the answer's (or the run's) when the reader went away (break-it round 10)
    held = HeldLoss()
    with held.catch():
        if args.json and args.run:
            pass  # one JSON document: the proposal goes into the run report below
        elif args.json:
            startup = {k: round(v, 4) for k, v in STARTUP.items()}
            print(json_text(data | {"startup": startup}, indent=2))
        else:
            for w in proposal.warnings:  # a translated task is a note, not a warning
                kind = "note" if w.startswith(TRANSLATION_NOTE) else "warning"
                say(f"gorilla-tui: {kind}: {safe_text(w)}")
            _print_panel(data, proposal.hits)
        sys.stdout.flush()  # the answer is out before the history is touched
    history = open_history()
    task_id = history.add(args.task, data)  # the TUI's history screen lists CLI asks too
    if args.run:
        if proposal.fit == "nothing":
            say("gorilla-tui: nothing to run: no API in the index fits the task")
            return held.end(1)
        if not proposal.code.strip():
            say("gorilla-tui: nothing to run: the proposal has no code")
            return held.end(1)
        return held.end(
            confirm_and_run(
                proposal.code,
                proposal.verdict,
                args,
                extra={"proposal": data},
                task_id=task_id,
                history=history,
                echo_last=True,  # a proposal: its doc example may end in a bare expression (`os.getcwd()`)
            )
        )
    entry.EXIT_NOW = True  # printed and saved: the process need not free the model before it ends
    return held.end(0 if proposal.verdict.ok and proposal.fit != "nothing" else 1)


#: The colour of each fit judgment's line (types.FIT_LINES) in the `ask` panel.
_FIT_COLOUR = {"fits": "green", "unsure": "yellow", "nothing": "red"}

_BADGE = {
    "valid": "green",
    "incomplete": "cyan",
    "wrong_args": "yellow",
    "hallucination": "red",
    "unparseable": "red",
    "no_call": "red",
}


class Background:
    """`fn(*args)` running in a daemon thread from construction on; :meth:`result` waits for it and returns
    its value or raises its exception; after Ctrl+C (`interrupted`) it lets fn end, then raises
    AskCancelled. `seconds`: how long fn ran."""

    def __init__(self, fn: Any, *args: Any) -> None:
        self._value: Any = None
        self._error: BaseException | None = None
        self.seconds = 0.0
        self._thread = threading.Thread(target=self._work, args=(fn, *args), daemon=True)
        self._thread.start()

    def _work(self, fn: Any, *args: Any) -> None:
        t = time.perf_counter()
        try:
            self._value = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread
            self._error = e
        self.seconds = time.perf_counter() - t

    def join(self) -> None:
        """Wait for fn to end, whatever happens meanwhile (SIGINT only sets a flag under ctrl_c_cancels)."""
        self._thread.join()

    def result(self, interrupted: list[int] | None = None) -> Any:
        while self._thread.is_alive():
            self._thread.join(0.05)
            if interrupted:
                from gorilla_tui.pipeline import AskCancelled  # deferred with services

                self.join()  # a model load has fds 1 and 2 on /dev/null: "interrupted" must come after it
                raise AskCancelled("cancelled")
        if self._error is not None:
            raise self._error
        return self._value


def _ask(
    args: argparse.Namespace, settings: Settings, cancel: threading.Event, interrupted: list[int]
) -> Proposal:
    """Load the index (building it on first launch) and the backend through services, then pipeline.ask;
    stop early (AskCancelled) when Ctrl+C came during a slow step.

    Cold-start work overlaps (bench/latency.py --first-answer measures each stage): the model loads in a
    thread (llama.cpp reads the GGUF with the GIL released) while this thread reads the index; the checker
    reads only the entries of the lookup saved with the index that the proposal's call can reach
    (services.build_checker), not a Validator over the whole pool. Nothing runs beside the model's
    scoring, which uses every core of the kernel profile. The seconds of each stage go to STARTUP
    ("startup" in --json)."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.pipeline import AskCancelled  # deferred with services

    t = time.perf_counter()
    # ~0.4 s idle: the GGUF loads, GIL released; Ctrl+C sets cancel, which also stops a first-use probe
    model = Background(lambda: services.load_backend(settings, cancel=cancel))

    def note(line: str) -> None:
        model.join()  # Llama(verbose=False) points fds 1 and 2 at /dev/null while it loads
        _note(line)

    try:
        index = services.load_index(hub=settings.hub, build_if_missing=True, note=note)
        STARTUP["index_load"] = time.perf_counter() - t
        if interrupted:
            raise AskCancelled("cancelled")
        t = time.perf_counter()
        validator = services.build_checker(index, settings.hub)
        STARTUP["validator_build"] = time.perf_counter() - t
    except BaseException:
        # let the model load end before the error (or "interrupted") is printed, or it would be lost
        model.join()
        raise
    t = time.perf_counter()
    backend = model.result(interrupted)  # Ctrl+C is honoured while waiting
    STARTUP["model_load"], STARTUP["model_wait"] = model.seconds, time.perf_counter() - t
    pipeline = services.build_pipeline(settings, index, backend, validator=validator)
    return pipeline.ask(args.task, cancel=cancel)


def _note(line: str) -> None:
    # may quote a path or a server's words: one line whatever they hold
    say(safe_text(f"gorilla-tui: {line}"))


def _print_panel(d: dict[str, Any], hits: list[Hit]) -> None:
    """Print proposal dict `d` as a panel; `hits` (the proposal's, in rank order) are listed each call once
    (types.group_by_call), with a docs column "xN" when a call stands for N of them."""
    from rich.console import Group  # deferred: rich (~0.1 s); --help and --json stay fast
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.table import Table
    from rich.text import Text

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    v = d["verdict"]
    fit = d.get("fit") or ""
    nothing = fit == "nothing"  # the call is the nearest hit's, not a proposal: said first, no code shown
    colour = "red" if nothing else _BADGE.get(v["verdict"], "white")
    fit_line = (
        Text.assemble(("fit      ", "bold"), (FIT_LINES[fit], f"bold {_FIT_COLOUR[fit]}")) if fit else None
    )
    # every text from the model, a doc or the task goes through safe_text and is never read as markup
    parts: list[Any] = [fit_line] if nothing and fit_line else []
    if nothing:
        parts.append(Text.assemble(("nearest  ", "bold"), safe_text(d.get("nearest_call") or "(none)")))
    else:
        call = safe_text(d["api_call"] or "(none)", limit=None)  # whole: the answer, to copy
        parts.append(Text.assemble(("call     ", "bold"), call))
    diagnostics = list(v["diagnostics"])
    verdict_line = Text.assemble(("verdict  ", "bold"), (v["verdict"], f"bold {colour}"))
    if nothing:
        verdict_line.append("  (of the nearest call: it exists, it does not do this task)", style="dim")
    needs_shown = v["verdict"] == "incomplete" and bool(diagnostics) and diagnostics[0].startswith(NEEDS_NOTE)
    if needs_shown:
        # the values to fill in, beside the verdict (check/verdicts.py incomplete: "needs: src, dst")
        verdict_line.append("  " + safe_text(diagnostics.pop(0)), style=colour)
    words = "" if nothing else arguments_words(d.get("arguments") or [], needs_shown=needs_shown)
    if words:
        parts.append(Text.assemble(("args     ", "bold"), words))
    unused = [] if nothing else d.get("unused") or []
    if unused:  # the task's values no argument took (fill/unused.py): said, not dropped in silence
        parts.append(Text.assemble(("unused   ", "bold"), (unused_words(unused), "yellow")))
    parts.append(verdict_line)
    if fit_line is not None and not nothing:  # beside the verdict: the call exists / it fits the task
        parts.append(fit_line)
    for line in diagnostics:
        parts.append(Text(safe_text(f"         {line}"), style="dim"))
    if v["suggestions"]:
        parts.append(
            Text(safe_text("         did you mean: " + "; ".join(v["suggestions"][:3])), style="yellow")
        )
    if v["matched"]:
        m = v["matched"]
        where = ", ".join(x for x in (m["source"], m["domain"]) if x)  # APIZoo docs have no domain
        parts.append(Text.assemble(("matched  ", "bold"), safe_text(f"{m['api_name']} ({where})")))
    if d["explanation"]:
        parts.append(Text.assemble(("why      ", "bold"), safe_text(d["explanation"][:300])))
    if d["code"]:
        src = _code_origin(d)
        parts.append(Text(f"code ({src}):", style="bold"))
        code = safe_text(d["code"], newlines=True, whole="`ask --json` has it whole")  # cut_block's caps
        parts.append(Syntax(code, "python", word_wrap=True))
    shown = group_by_call(hits)  # each call once, as its best-ranked hit; the choice saw every hit
    repeats = len(shown) < len(hits)
    columns = ("#", "BM25", *(("docs",) if repeats else ()), "api_call", "source")  # "#": the order
    table = Table(*columns, box=None, pad_edge=False)
    for h, n in shown:
        table.add_row(
            str(h.rank),
            f"{h.score:.2f}",
            *((f"x{n}" if n > 1 else "",) if repeats else ()),
            Text(safe_text(h.doc.api_call[:90])),
            Text(safe_text(h.doc.source)),
        )
    parts += [Text("nearest hits:" if nothing else "hits:", style="bold"), table]
    t = d["timings"]
    parts.append(Text(" ".join(f"{k} {v:.3f}s" for k, v in t.items()), style="dim"))
    make_console().print(Panel(Group(*parts), title=panel_title(d), border_style=colour))


def arguments_words(arguments: list[dict[str, Any]], needs_shown: bool) -> str:
    """The panel's "args" line for Proposal.to_dict()'s "arguments": each argument as name=value (origin),
    in call order, e.g. "secs=10 (task), follow_symlinks=False (default)" (origins: types.ARGUMENT_ORIGINS);
    a placeholder as "dst (missing)", left out when the verdict line already says "needs: dst"
    (`needs_shown`). "" when nothing is left to list. Names and values are safe_text'd on one line."""
    words = []
    for a in arguments:
        name = safe_text(str(a["name"]))
        if a["origin"] != "missing":
            words.append(f"{name}={safe_text(str(a['value']))} ({a['origin']})")
        elif not needs_shown:
            words.append(f"{name} (missing)")
    return ", ".join(words)


def unused_words(unused: list[str]) -> str:
    """The panel's "unused" line for Proposal.unused: "setup.py, 8080 (in your task, not in the call)",
    each value safe_text'd and cut at 60 characters, on one line."""
    return ", ".join(safe_text(str(u), limit=60) for u in unused) + " (in your task, not in the call)"


def panel_title(d: dict[str, Any]) -> str:
    """The panel title for proposal dict `d`: the task (first 70 characters, no edge spaces) and
    [mode, model], as rich markup: control characters (a terminal escape sequence typed into the task)
    are shown as visible escapes (textsafe.safe_text) and square brackets are escaped, so the task is
    shown, never interpreted."""
    from rich.markup import escape  # deferred: rich (~0.1 s); --help and --json stay fast

    task = d["task"][:70].strip()
    return escape(safe_text(f"{task}  [{d['mode']}, {d['model']}]".strip()))


def _code_origin(d: dict) -> str:
    """Where the shown code comes from, for the panel's "code (...)" line, from a Proposal.to_dict()
    (types.code_origin: the TUI's proposal panel says the same)."""
    return code_origin(d["code_source"], d.get("mode", ""))
