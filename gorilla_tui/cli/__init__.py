"""Command line: `gorilla-tui` opens the TUI; subcommands are thin clients of the headless stage packages."""

from __future__ import annotations

import argparse
import contextlib
import errno
import importlib
import os
import sys
from collections.abc import Sequence

from gorilla_tui import __version__
from gorilla_tui.cli.env_checks import drop_unreadable_env, drop_unusable_tui_env
from gorilla_tui.cli.output import (
    OutputLost,
    discard_stdout,
    guarded_stdout,
    one_line_warnings,
    quiet_stderr,
    say,
)
from gorilla_tui.errors import GorillaError
from gorilla_tui.textsafe import safe_line
from gorilla_tui.tui.terminal import keep_early_keys

#: Subcommand modules under gorilla_tui.cli; each defines register(subparsers) that sets `func` on its parser.
#: `func(args) -> int` returns the exit status.
COMMAND_MODULES = ("index", "search", "check", "evalcmd", "ask", "model", "doctor", "run", "mcp", "tui")


#: Commands named like their module: `gorilla-tui check ...` builds only the `check` parser.
_DIRECT = frozenset(COMMAND_MODULES) - {"tui"}

#: Set to 1 to let unexpected exceptions show their traceback instead of the one-line "internal error".
DEBUG_ENV = "GORILLA_TUI_DEBUG"
#: Options the top-level parser handles itself; any other leading option goes to the default command `tui`.
_TOP_LEVEL_OPTIONS = ("-h", "--help", "--version")


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> None:  # one line on stderr, exit 2 (argparse's own code for usage)
        # argparse quotes some arguments with repr() but not all ("unrecognized arguments: ..."): escaped here
        self.exit(2, f"gorilla-tui: error: {safe_line(message)} (see '{self.prog} --help')\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The full argparse tree (subcommand modules that are not present yet are skipped); with `only`
    (a command whose module has its name, e.g. "check"), just that command: its module alone is imported,
    which keeps a cold `check` or `search` fast (issue 20: doctor's importlib.metadata, config...)."""
    parser = _Parser(prog="gorilla-tui", description="Turn a task in plain English into a checked API call.")
    parser.add_argument("--version", action="version", version=f"gorilla-tui {__version__}")
    sub = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser)
    for name in COMMAND_MODULES if only is None else (only,):
        try:
            module = importlib.import_module(f"gorilla_tui.cli.{name}")
        except ModuleNotFoundError as e:
            if e.name == f"gorilla_tui.cli.{name}":
                continue
            raise
        module.register(sub)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the CLI and return the exit status: 0 ok, 1 a negative result (e.g. a verdict that is not
    valid), 2 bad usage or setup (one line on stderr, never a traceback), 130 interrupted. Standard
    output that refuses a write (a full disk, a closed descriptor) is one line and exit 2; a reader that
    went away (EPIPE) exit 0 in silence (cli/output.py). A stderr that cannot be written (closed, full)
    loses its lines but never changes the status (cli/output.py quiet_stderr, say).

    Options without a command go to the default command `tui` (`gorilla-tui --model X` = `gorilla-tui tui
    --model X`). An unexpected exception prints one line (exit 1); GORILLA_TUI_DEBUG=1 shows the traceback.
    A command that opens the TUI keeps the keys typed while it starts, Ctrl+Q included, from here on, before
    the subcommands are imported (tui/terminal.py)."""
    argv = list(sys.argv[1:] if argv is None else argv)
    _writable_text()
    _closed_stdin_read_as_empty()
    drop_unreadable_env()  # before any dependency reads them (cli/env_checks.py)
    with quiet_stderr():  # a stderr that cannot be written never changes the status (break-it round 11)
        if _opens_tui(argv):
            drop_unusable_tui_env()
            with keep_early_keys():
                return _main(argv)
        return _guarded_main(argv)


def _writable_text() -> None:
    """Standard output and error write a character their encoding cannot hold as its escape (``\\xe9``)
    instead of failing: with PYTHONIOENCODING=ascii (or a latin-1 locale) `search "copy résumé"` was
    "internal error: UnicodeEncodeError" (break-it round 21, R21-6). A stream that is no TextIOWrapper (a
    test's capture) is left as it is."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is not None:
            with contextlib.suppress(Exception):  # a closed or detached stream: nothing to set
                reconfigure(errors="backslashreplace")


def _closed_stdin_read_as_empty() -> None:
    """Standard input closed at start (`<&-`; Python set sys.stdin to None) reads as empty, as `</dev/null`
    does: file descriptor 0 is given the null device (so no file a command opens takes its place) and
    sys.stdin reads it. `ask -`, `check -`, `run` and the TUI were "internal error: AttributeError" or a raw
    traceback (break-it round 24, R24-3's class); they now refuse an empty task or a missing terminal."""
    if sys.stdin is not None:
        return
    try:
        null = os.open(os.devnull, os.O_RDONLY)
        if null != 0:
            os.dup2(null, 0)
            os.close(null)
        sys.stdin = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    except OSError:  # no null device: sys.stdin stays None
        pass


def _guarded_main(argv: list[str]) -> int:
    """_main(argv) with standard output guarded (cli/output.py): a write it refuses is one line, exit 2."""
    status = None
    try:
        # flushed inside: a full disk found at exit is said too; a library's warning is one line
        with guarded_stdout(), one_line_warnings():
            status = _main(argv)
            return status
    except OutputLost as e:  # stdout refused a write (cli/output.py): the output is lost
        discard_stdout()
        if e.broken_pipe:  # the reader went away (`| head -1`): it asked for no more; findings stay 1
            return e.status if status is None else status
        say(f"gorilla-tui: error: {safe_line(e.message())}")  # stderr gone too: the status still says it
        return 2


def _opens_tui(argv: list[str]) -> bool:
    """Whether `argv` runs the TUI: no command, `tui`, or options without a command (as _main reads it)."""
    return not argv or argv[0] == "tui" or (argv[0].startswith("-") and argv[0] not in _TOP_LEVEL_OPTIONS)


def _main(argv: list[str]) -> int:
    """main() once the terminal is set up: parse `argv`, run the command, map errors to exit codes."""
    try:
        parser = build_parser(argv[0] if argv and argv[0] in _DIRECT else None)
        if (
            argv
            and argv[0].startswith("-")
            and argv[0] not in _TOP_LEVEL_OPTIONS
            and _has_command(parser, "tui")
        ):
            argv = ["tui", *argv]
        args = parser.parse_args(argv)
        if getattr(args, "func", None) is None:  # bare `gorilla-tui` opens the TUI
            args = parser.parse_args(["tui"]) if _has_command(parser, "tui") else None
            if args is None:
                parser.print_help()
                return 0
        return int(args.func(args) or 0)
    except GorillaError as e:  # messages quote arguments, paths and file contents: shown, never interpreted
        # one line: a newline quoted from a value (a model path, an endpoint's error message) printed a
        # forged line of its own (break-it round 7)
        say(f"gorilla-tui: error: {safe_line(str(e))}")
        if e.hint:
            say(f"  hint: {safe_line(e.hint)}")
        return e.exit_code
    except KeyboardInterrupt:
        say("gorilla-tui: interrupted")
        return 130
    except BrokenPipeError:
        return 0
    except OSError as e:
        if e.errno != errno.ENAMETOOLONG or os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
            return _internal_error(e)
        # any path the person gave (a home, a model, --out, --from) longer than the file system takes:
        # Path.exists() raises it on Python 3.11 (break-it round 6: "internal error" from six inputs)
        shown = safe_line(str(e.filename or "")[:60])
        say(f"gorilla-tui: error: a path is too long for the file system: {shown}...")
        return 2
    except Exception as e:  # last resort: a bug, not the user's input; one line unless debugging
        return _internal_error(e)


def _internal_error(e: BaseException) -> int:
    """One line for a bug (exit 1), the traceback with GORILLA_TUI_DEBUG=1: re-raised from the handler."""
    if os.environ.get(DEBUG_ENV, "").strip() not in ("", "0"):
        raise e
    msg = safe_line((str(e).splitlines() or [""])[0][:300])
    say(f"gorilla-tui: internal error: {type(e).__name__}: {msg} (run with {DEBUG_ENV}=1 for the traceback)")
    return 1


def _has_command(parser: argparse.ArgumentParser, name: str) -> bool:
    return any(isinstance(a, argparse._SubParsersAction) and name in a.choices for a in parser._actions)


#: Set by a command whose output is printed and whose results are saved (`ask` after its history row,
#: cli/ask.py) when what is left of the process is freeing memory: the loaded model (Llama.close, ~0.1-0.2 s
#: for Gemma 3 270M) and every module. run() then flushes stdout and stderr and ends with os._exit, so the
#: shell prompt comes back as soon as the answer is out (issue 19). Never read by main() (tests call it).
EXIT_NOW = False


def run() -> None:
    """Console-script shim: exit with main()'s status (at once when a command set EXIT_NOW)."""
    status = main()
    if EXIT_NOW:
        for stream in (sys.stdout, sys.stderr):
            if stream is None:  # its descriptor was closed at start (`>&-`, `2>&-`): Python set it to None
                continue  # (break-it round 24, R24-3: a raw AttributeError traceback, exit 1)
            try:
                stream.flush()
            except (OSError, ValueError):  # a closed pipe: the status still counts
                pass
        os._exit(status)
    sys.exit(status)
