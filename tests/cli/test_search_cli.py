"""`gorilla-tui search` through cli.main, and a real run of the installed console script."""

from __future__ import annotations

import pytest

from gorilla_tui.cli import main


def test_search_without_index_says_how_to_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "detect objects"]) == 2
    err = capsys.readouterr().err
    assert "no index" in err and "gorilla-tui index --refresh" in err and "Traceback" not in err


def test_search_a_task_of_control_characters_only_is_empty(capsys: pytest.CaptureFixture[str]) -> None:
    """Escape sequences are no words: such a task is refused as empty (like `ask`), before the index."""
    assert main(["search", "\x1b[31m\x1b]0;title\x07\x08"]) == 2
    err = capsys.readouterr().err
    assert "task is empty" in err and "no index" not in err
