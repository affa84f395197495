"""Break-it round 18, P3: a path named in an error or status line is shown the way check shows file names
(textsafe.shown_path / safe_line): a TAB in GORILLA_TUI_HOME was printed raw in "no index at ..." (search,
index --status, doctor) while ESC and BEL in the same path were escaped."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.textsafe import safe_line, shown_path

#: A home folder name with a TAB, an OSC title sequence and a newline.
HOSTILE = "home-\x1b]0;PWN\x07\tT\nX"


@pytest.fixture
def hostile_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / HOSTILE
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    return home


@pytest.mark.parametrize(
    "argv",
    [["search", "copy a file", "-k", "1"], ["index", "--status"], ["doctor", "--no-hash", "--no-inference"]],
)
def test_a_path_in_an_error_or_status_line_has_no_raw_control_character(
    hostile_home: Path, argv: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(argv)
    out, err = capsys.readouterr()
    said = out + err
    assert status in (0, 1, 2) and "internal error" not in said, said
    assert "home-\\x1b]0;PWN\\x07\\x09T\\x0aX" in said, said  # the path, each control character escaped
    assert not any(c in said for c in "\t\x1b\x07"), said


def test_shown_path_and_safe_line_escape_tab_and_keep_plain_text() -> None:
    assert shown_path("/tmp/a\tb/c") == "/tmp/a\\x09b/c"
    assert shown_path("/tmp/ç 中文/x.py") == "/tmp/ç 中文/x.py"
    assert shown_path("/tmp/\udcff.py") == "/tmp/\\xff.py"  # a file name byte that is not UTF-8
    assert safe_line("no index at /a\tb\n") == "no index at /a\\x09b\\x0a"
