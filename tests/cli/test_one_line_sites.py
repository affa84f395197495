"""Every place that prints untrusted text as a line (an error or note on stderr, a progress line, a title,
a table cell, a panel row, a line of the TUI) prints it on one line with no control character of its own:
textsafe.safe_text's one-line form is its default, and keeping newlines is the explicit choice of the places
that print a block (a full doc, code, sandbox output). Each site is driven with one hostile text and its
output read as the terminal gets it: rich's Console writing as to a colour terminal, or standard error."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from rich.console import Console
from rich.progress import Progress

import gorilla_tui.cli.console as cli_console
from gorilla_tui.check.lint import Finding, shown_path
from gorilla_tui.cli import ask as cli_ask
from gorilla_tui.cli import check as cli_check
from gorilla_tui.cli import index_report, index_status, lint, main, refresh_progress
from gorilla_tui.errors import UsageError
from gorilla_tui.model.endpoint_url import check_endpoint
from gorilla_tui.model.remote_replies import shown as server_text
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.sandbox.limits import RunResult
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.arguments import arguments_line
from gorilla_tui.tui.screens.run import run_report
from gorilla_tui.types import Argument, Hit, Verdict

#: Every way a text breaks a line or drives a terminal: LF, CR, U+2028, NEL (U+0085), CSI and OSC
#: sequences, BEL, and markup that renders ("[red]") and that raised ("[/x]": a tag nothing opened).
HOSTILE = "x\ny\rz\u2028w\x85v\x1b[2J\x1b]0;t\x07[/x][red]r"
#: What the terminal shows of it: one line, every control a visible escape, the brackets as they are.
SHOWN = "x\\x0ay\\x0dz\\u2028w\\x85v\\x1b[2J\\x1b]0;t\\x07[/x][red]r"
#: The styles rich writes of its own (SGR: ESC [ ... m), taken out before looking for raw control bytes.
_SGR = re.compile(r"\x1b\[[0-9;]*m")


def _assert_one_line(out: str, times: int = 1) -> None:
    """`out` shows HOSTILE `times` times, each whole on one line, and holds no control character beyond
    line ends and rich's own styles."""
    plain = _SGR.sub("", out)
    lines = plain.split("\n")
    assert sum(line.count(SHOWN) for line in lines) >= times, repr(plain)
    assert not re.search("[\x00-\x08\x0b-\x1f\x7f-\x9f\u2028\u2029]", plain), repr(plain)


def _console() -> tuple[Console, io.StringIO]:
    buffer = io.StringIO()
    return Console(file=buffer, force_terminal=True, color_system="truecolor", width=400), buffer


def _argparse_error(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(SystemExit):
        main([f"--x{HOSTILE}"])
    return capsys.readouterr().err


def _gorilla_error(capsys: pytest.CaptureFixture[str]) -> str:
    assert main(["check", "--pool", f"/nonexistent/{HOSTILE}.json", "f()"]) == 2
    return capsys.readouterr().err


def _endpoint_error(capsys: pytest.CaptureFixture[str]) -> str:
    with pytest.raises(UsageError) as e:
        check_endpoint(f"http://h/{HOSTILE}")
    return str(e.value).replace("\\\\", "\\")  # the message quotes the URL by repr()


def _note(capsys: pytest.CaptureFixture[str]) -> str:
    cli_ask._note(HOSTILE)
    return capsys.readouterr().err


def _lint_line(capsys: pytest.CaptureFixture[str]) -> str:
    return lint._text_line(Finding(HOSTILE, 1, 1, "hallucination", HOSTILE, [HOSTILE]))


def _shown_cell(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    console.print(cli_console.shown(HOSTILE))
    return buffer.getvalue()


def _progress_line(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    progress = Progress(*cli_console.progress_columns(), console=console)
    progress.add_task(HOSTILE, total=2)
    console.print(progress.make_tasks_table(progress.tasks))  # the live line, without the cursor moves
    return buffer.getvalue()


def _refresh_line(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    refresh_progress._say(console, HOSTILE)
    return buffer.getvalue()


def _refresh_notes(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    index_report._print_notes(
        console, [{"name": HOSTILE, "notes": [HOSTILE], "skips": [HOSTILE], "skipped": 3}]
    )
    return buffer.getvalue()


def _status_skips(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    index_status._print_skipped(
        console, [{"severity": "skipped", "file": HOSTILE, "line": 3, "message": HOSTILE}]
    )
    return buffer.getvalue()


def _server_text(capsys: pytest.CaptureFixture[str]) -> str:
    return server_text(HOSTILE)


def _ask_panel(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    d: dict[str, Any] = {
        "task": HOSTILE, "mode": "select", "model": HOSTILE, "fit": "", "api_call": HOSTILE,
        "arguments": [{"name": HOSTILE, "value": HOSTILE, "origin": "task"}], "unused": [HOSTILE],
        "verdict": {"verdict": "hallucination", "diagnostics": [HOSTILE], "suggestions": [HOSTILE],
                    "matched": {"api_name": HOSTILE, "source": "torchhub", "domain": ""}},
        "explanation": HOSTILE, "code": "", "timings": {"total": 1.0},
    }  # fmt: skip
    hit = Hit(ApiDoc(id="1", source=HOSTILE, api_call=HOSTILE), score=1.0, rank=1)
    original = cli_console.make_console
    cli_console.make_console = lambda stderr=False: console  # type: ignore[assignment]
    try:
        cli_ask._print_panel(d, [hit])
    finally:
        cli_console.make_console = original
    return buffer.getvalue()


def _check_panel(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    verdict = Verdict("hallucination", "f()", suggestions=[HOSTILE], diagnostics=[HOSTILE], reason=HOSTILE)
    original = cli_console.make_console
    cli_console.make_console = lambda stderr=False: console  # type: ignore[assignment]
    try:
        cli_check._print_panel(verdict)
    finally:
        cli_console.make_console = original
    return buffer.getvalue()


def _tui_arguments_line(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    arguments = [Argument(HOSTILE, "1", "task"), Argument(HOSTILE, HOSTILE, "missing")]
    console.print(arguments_line(arguments, unused=[HOSTILE]))
    return buffer.getvalue()


def _tui_run_report(capsys: pytest.CaptureFixture[str]) -> str:
    console, buffer = _console()
    result = RunResult(1, None, 0.5, "", False, [], "open", "contained", Path("/tmp/run"), notes=[HOSTILE],
                       limits_scope=HOSTILE)  # fmt: skip
    console.print(run_report(result))
    return buffer.getvalue()


#: (site, how many times it shows HOSTILE at least)
SITES: list[tuple[Callable[[pytest.CaptureFixture[str]], str], int]] = [
    (_argparse_error, 1), (_gorilla_error, 1), (_endpoint_error, 1), (_note, 1), (_lint_line, 3),
    (_shown_cell, 1), (_progress_line, 1), (_refresh_line, 1), (_refresh_notes, 3), (_status_skips, 2),
    (_server_text, 1), (_ask_panel, 11), (_check_panel, 3), (_tui_arguments_line, 3), (_tui_run_report, 2),
]  # fmt: skip


@pytest.mark.parametrize(("site", "times"), SITES, ids=[s.__name__.lstrip("_") for s, _ in SITES])
def test_a_line_site_shows_hostile_text_on_one_line(
    site: Callable[[pytest.CaptureFixture[str]], str], times: int, capsys: pytest.CaptureFixture[str]
) -> None:
    _assert_one_line(site(capsys), times)


def test_a_block_keeps_its_newlines_only_when_it_asks_to() -> None:
    """Code, a full doc and sandbox output keep their lines (newlines=True); the escapes are the same."""
    assert safe_text(HOSTILE) == SHOWN
    assert safe_text(HOSTILE, newlines=True) == SHOWN.replace("\\x0a", "\n")
    assert shown_path(f"a\n{HOSTILE}.py") == "a\\x0a" + SHOWN + ".py"
