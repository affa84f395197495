"""`gorilla-tui run FILE|-`: validate code against the API pool, confirm, and run it in the sandbox."""

from __future__ import annotations

import argparse
import json
import math
import re
import sys
from pathlib import Path
from typing import Any

from gorilla_tui.check.lint import MAX_CODE_BYTES as CODE_LIMIT
from gorilla_tui.check.notebook import KERNEL_NOTE
from gorilla_tui.cli.output import HeldLoss, say
from gorilla_tui.cli.run_notebook import WRITEFILE_MARK, ipython_note, skipped_ipython
from gorilla_tui.cli.sandbox_run import STOPPED_BY, report_run, run_in_sandbox
from gorilla_tui.cli.source_text import code_text, refuse_bom_with_coding
from gorilla_tui.config import load_settings
from gorilla_tui.errors import UsageError
from gorilla_tui.history import History
from gorilla_tui.paths import FileTooLargeError
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.files import open_regular
from gorilla_tui.sandbox.runner import IsolationError, Limits, probe_isolation
from gorilla_tui.textsafe import safe_text

#: The most code `run` reads from a file or stdin, in bytes (the limit `check` puts on one file,
#: check/lint.py MAX_FILE_BYTES): code is typed or generated, never megabytes long.
MAX_CODE_BYTES = 10 * 1024 * 1024

#: Files `run` reads as `check` reads them (check/lint.py blocks), by suffix (any case): their kind, named in
#: an error. Only the code found in them runs: a notebook's code cells, a Markdown file's Python fences.
EXTRACTED = {".ipynb": "notebook", ".md": "Markdown file", ".markdown": "Markdown file"}

#: What each verdict that is not `valid` means for a person about to run the code (DESIGN.md, "verdict").
VERDICT_RISK = {
    "incomplete": "the call still holds placeholders for values the task did not give",
    "wrong_args": "the API exists but is called with arguments the pool does not know",
    "hallucination": "the code calls an API that is not in the pool (a hallucination)",
    "unparseable": "the code does not parse as Python",
    "no_call": "the code contains no API call from the pool",
}


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `run` subcommand."""
    p = sub.add_parser(
        "run",
        help="validate code and run it in the sandbox",
        description="Check code with the AST sub-tree match against the API pool, show it, ask for "
        "confirmation (twice when the verdict is not valid), then run it in an isolated, limited process. "
        "Nothing is ever installed.",
    )
    p.add_argument(
        "file",
        metavar="FILE|-",
        help="Python file to run (of a notebook its code cells, of Markdown its Python fences, as check reads"
        " them), or - to read the code from stdin",
    )
    p.add_argument(
        "--yes", "-y", action="store_true", help="answer yes to every confirmation (needed without a TTY)"
    )
    p.add_argument(
        "--timeout", type=float, default=None, metavar="S", help="wall-clock limit in seconds (30)"
    )
    p.add_argument("--hub", default=None, metavar="NAME", help="validate against this source only")
    p.add_argument("--keep", action="store_true", help="keep the sandbox folder and print where it is")
    add_isolation_option(p)
    p.add_argument(
        "--json", action="store_true", help="print verdict, exit status, limits hit and output as JSON"
    )
    p.set_defaults(func=run_command)


def add_isolation_option(p: argparse.ArgumentParser) -> None:
    """Add --no-isolation (shared by `run` and `ask --run`); --yes never implies it."""
    p.add_argument(
        "--no-isolation",
        action="store_true",
        help="where this machine refuses namespaces, run anyway: network open, files writable",
    )


def run_command(args: argparse.Namespace) -> int:
    """Validate, confirm, run, record. Exit 0: the code ran and exited 0 within its limits; 1: it failed, hit
    a limit, or the person declined; 2: bad input, no index, or no TTY to confirm on without --yes."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    code = _read_code(args.file)
    check_run_args(args)
    settings = load_settings()
    hub = args.hub if args.hub is not None else (settings.hub or None)
    verdict = services.build_validator(services.load_index().pool(hub)).check(code)
    # A file of one's own runs as `python FILE` runs it: a script does not echo its last expression (a
    # final `main()` returning a status object would print it). Only a proposal echoes (ask --run, F5).
    return confirm_and_run(code, verdict, args, echo_last=False)


def check_run_args(args: argparse.Namespace) -> None:
    """Raise UsageError (exit 2) for a --timeout out of (0, 3600] s, or when a run would need a
    confirmation but there is no TTY and no --yes; IsolationError (exit 2, one line saying what is missing)
    when the machine refuses namespaces and --no-isolation was not given. Called before any slow work, by
    `run` and `ask --run`."""
    if args.timeout is not None and not (0 < args.timeout <= 3600):
        raise UsageError(f"--timeout must be greater than 0 and at most 3600 seconds, not {args.timeout:g}")
    iso = probe_isolation()
    if iso.mode != "namespaces" and not getattr(args, "no_isolation", False):
        raise IsolationError(
            f"refusing to run: no isolation here ({iso.reason}); --no-isolation runs it anyway, with the"
            " network open and files writable"
        )

    if not args.yes and not sys.stdin.isatty():
        raise UsageError(
            "refusing to run code without confirmation: no terminal to ask on",
            hint="read the code, then pass --yes to confirm non-interactively",
        )


def confirm_and_run(
    code: str,
    verdict: Any,
    args: argparse.Namespace,
    extra: dict[str, Any] | None = None,
    task_id: int | None = None,
    history: Any = None,
    echo_last: bool = False,
) -> int:
    """Confirm (once for a valid verdict, twice otherwise), run in the sandbox, report the run, then record
    it in the history (linked to the history task `task_id` when given; `history`: the History to use,
    default open_history()). args needs: yes, timeout, keep, json, no_isolation; extra: more keys for the
    --json document. A history that cannot be written only warns (History): the result is never lost.
    echo_last: print a final expression's repr as the REPL does (SandboxRun; True for a proposal).
    Shared by `run` and `ask --run`.
    Returns 0 when the code ran and exited 0 within its limits, 128 + the signal number when Ctrl+C (130),
    SIGTERM or SIGHUP stopped it, 1 otherwise (declined included). Raises IsolationError as check_run_args."""
    requirements = list(verdict.matched.env_requirements) if verdict.matched else []
    check_run_args(args)
    isolation = probe_isolation()
    if not confirm_run(code, verdict, requirements, isolated=isolation.mode == "namespaces", yes=args.yes):
        if args.json:
            doc = {**(extra or {}), "verdict": verdict.to_dict(), "run": None, "declined": True}
            print(json.dumps(doc, indent=1))
        else:
            say("Not run.")
        return 1
    limits = Limits()
    if args.timeout is not None:
        limits = Limits(timeout_s=args.timeout, cpu_s=max(1, math.ceil(args.timeout)))
    held = (
        HeldLoss()
    )  # stdout refusing a write (`| head -1`, a full disk) ends neither the run nor its record
    result, stopped_by = run_in_sandbox(
        code,
        limits,
        stream=not args.json,
        keep=args.keep,
        allow_unisolated=getattr(args, "no_isolation", False),
        echo_last=echo_last,
        held=held,
    )
    status = 0 if result.ok else 1
    if stopped_by is not None:
        status = 128 + stopped_by.value
    with held.catch():  # text: on stderr, said even when stdout was lost; --json: on stdout
        report_run(verdict, requirements, result, args, extra or {}, code)
        sys.stdout.flush()  # the result is out before the history is touched
    if stopped_by is not None:
        say(f"gorilla-tui: run stopped ({STOPPED_BY[stopped_by]})")
    (history or open_history()).add_run(
        task_id,
        code,
        result.exit_status,
        result.output,
        duration_s=result.duration_s,
        truncated=result.truncated,
    )
    # the output lost: the run's status when the reader went away, else "could not write the output" (2)
    return held.end(status)


def open_history() -> Any:
    """The user's History, printing each of its warnings as one line on stderr ("gorilla-tui: warning:
    history ..."); used by `ask` and `run` after their result is printed."""

    def warn(message: str) -> None:
        say(f"gorilla-tui: warning: {safe_text(message)}")

    return History(on_warning=warn)


def _read_code(name: str) -> str:
    """The code to run, from file `name` or stdin ("-"), as text. Raises UsageError (one line) when it
    cannot be read, is not a regular file (a FIFO blocks, /dev/zero never ends: checked with os.stat before
    opening, as `check` does), holds more than MAX_CODE_BYTES, is not UTF-8 text (code_text: `check`
    refuses such a file alike) or holds no code. Of a notebook or Markdown file, only its code (file_code)."""
    what = "stdin" if name == "-" else name
    try:
        if name == "-":  # bytes, so invalid UTF-8 is caught here, not as "surrogates not allowed" later
            buf = getattr(sys.stdin, "buffer", None)
            raw = (
                buf.read(MAX_CODE_BYTES + 1)
                if buf is not None
                else sys.stdin.read().encode("utf-8", "surrogateescape")
            )
        else:
            with open_regular(Path(name), MAX_CODE_BYTES) as fh:
                raw = fh.read(MAX_CODE_BYTES + 1)
        if len(raw) > MAX_CODE_BYTES:
            raise UsageError(f"cannot read {what}: more than {MAX_CODE_BYTES // 2**20} MiB of code")
    except UnicodeEncodeError as e:
        raise UsageError(f"cannot read {what}: not UTF-8 text (bad byte at offset {e.start})") from None
    except SourceRejected as e:
        raise UsageError(f"cannot read {e}") from None
    except FileTooLargeError:  # by os.fstat: never read
        raise UsageError(f"cannot read {what}: more than {MAX_CODE_BYTES // 2**20} MiB of code") from None
    except OSError as e:
        raise UsageError(f"cannot read {what}: {e.strerror or e}") from None
    if Path(name).suffix.lower() not in EXTRACTED:  # Python (a file or stdin): as CPython reads it
        refuse_bom_with_coding(raw, what)
    code = code_text(raw, what)  # UTF-8 without NUL bytes, as `check` reads a file (cli/source_text.py)
    if name != "-":
        code = file_code(name, code)
    if not code.strip():
        raise UsageError(f"{what} holds no code")
    if len(code.encode("utf-8", "surrogatepass")) > CODE_LIMIT:
        raise UsageError(
            f"cannot run {what}: more than {CODE_LIMIT // 2**20} MiB of code (the limit `check` has)"
        )
    return code


def file_code(name: str, text: str) -> str:
    """The code `run` runs from file `name` whose text is `text`, the code `check` checks in it
    (check/lint.py blocks): a notebook's (.ipynb) code cells, IPython's syntax made Python line for line
    (check/ipython_syntax.py; a cell that still is no Python left out, with a note on stderr), or a
    Markdown file's (.md, .markdown) Python fences, joined in order with a newline; any other file whole.
    Before, `run` checked the extracted code and then ran the file itself: a notebook's JSON ran as a
    dict literal, Markdown failed with a SyntaxError at its fence (break-it pass). Raises UsageError (one
    line, exit 2) for a notebook that is not JSON with a cells list, and for a notebook or Markdown file
    with no code in it."""
    kind = EXTRACTED.get(Path(name).suffix.lower())
    if kind is None:
        return text
    from gorilla_tui.check.lint import blocks  # deferred: the validator (~45 ms); --help stays fast

    try:
        found = blocks(name, text)
    except ValueError as e:  # "not a notebook (not JSON: ...)" / "(no cells list)"
        raise UsageError(f"cannot run {name}: {e}") from None
    kernel = next((n for block in found for n in block.notes if n.startswith(KERNEL_NOTE)), None)
    if kernel is not None:  # an R notebook: none of its cells is Python (break-it round 14)
        raise UsageError(f"cannot run {name}: {kernel.removesuffix(': not checked')}")
    for note in (n for block in found for n in block.notes):  # a notebook cell that is no Python: left out
        say(safe_text(f"gorilla-tui: note: {name}: {note}"))
    skipped = skipped_ipython(text) if kind == "notebook" else []
    if skipped:  # IPython would run them; the sandbox runs Python only (x = !cmd gets [] here)
        say(safe_text(f"gorilla-tui: note: {name}: {ipython_note(skipped)}"))
    code = "\n".join(_marked(block, skipped) for block in found)
    if not code.strip():
        what = "no code cell" if kind == "notebook" else "no Python fence (```python)"
        raise UsageError(f"cannot run {name}: a {kind} with {what}: nothing to run")
    return code if code.endswith("\n") else code + "\n"


def _marked(block: Any, skipped: list[tuple[int, int, str, str]]) -> str:
    """block.code with each ``%%writefile NAME.py`` cell run_notebook.skipped_ipython lists marked on its
    (blank) first line by WRITEFILE_MARK: the confirmation shows it, and report_run's ImportError hint
    reads it back (written_modules). Only a plain file name is written into the comment."""
    marks = {
        (n, k): lost.removesuffix(" not written")
        for n, k, _, lost in skipped
        if lost.endswith(".py not written") and _PLAIN_FILE.fullmatch(lost.removesuffix(" not written"))
    }
    if not marks or not block.cells:
        return block.code
    lines = block.code.split("\n")
    for i, where in enumerate(block.cells[: len(lines)]):
        if where in marks:
            lines[i] = WRITEFILE_MARK + marks[where]
    return "\n".join(lines)


#: A file name put in a WRITEFILE_MARK comment: letters, digits, "_", "-" and "." only.
_PLAIN_FILE = re.compile(r"[\w.-]+\.py", re.ASCII)


def confirm_run(code: str, verdict: Any, requirements: list[str], *, isolated: bool, yes: bool) -> bool:
    """Show the exact code (long lines wrapped, never cut: all of it is what runs), its env requirements
    and the verdict on stderr, then ask on stdin; a verdict that is not valid needs a second, explicit yes.
    yes=True answers both (shown). Shared with `ask --run`. The code, the call and the requirements are
    shown through textsafe.safe_text, never as markup."""
    from rich.console import Console  # deferred: rich (~0.1 s); --help and --json stay fast
    from rich.panel import Panel
    from rich.syntax import Syntax
    from rich.text import Text

    err = Console(stderr=True)
    # word_wrap: every character that will run is shown; without it rich cut a long line at the panel's edge
    # and the hidden rest ran ("x = 1" + 200 spaces + "; print(...)" showed "x = 1"). A wrapped line's
    # continuation rows have no line number, so they never pass for a line of their own.
    # limit=None: all the code that will run is shown, its size first (a block is cut elsewhere, cut_block)
    shown = Syntax(safe_text(code, newlines=True, limit=None), "python", line_numbers=True, word_wrap=True)
    size = f"{len(code.splitlines()):,} lines, {len(code):,} characters"
    err.print(Panel(shown, title=f"code to run ({size})", expand=False))
    line = Text.assemble("verdict: ", (verdict.kind, "bold"))
    if verdict.api_call:
        line.append("  api_call: " + safe_text(verdict.api_call))
    err.print(line)
    err.print(
        Text("env requirements: " + (safe_text(", ".join(requirements)) if requirements else "none listed"))
    )
    if not isolated:
        err.print(
            Text.assemble(
                ("warning:", "yellow"), " no isolation here (--no-isolation): network open, files writable"
            )
        )
    questions = ["Run this code in the sandbox?"]
    if verdict.kind != "valid":
        risk = VERDICT_RISK.get(verdict.kind, f"verdict {verdict.kind}")
        questions.append(f"The verdict is not valid: {risk}. Run it anyway?")
    for question in questions:
        if yes:
            err.print(f"{question} yes (--yes)", markup=False)
            continue
        sys.stderr.write(f"{question} [y/N] ")  # on stderr, so that --json keeps stdout clean
        sys.stderr.flush()
        answer = sys.stdin.readline()
        if answer.strip().lower() not in ("y", "yes"):
            return False
    return True
