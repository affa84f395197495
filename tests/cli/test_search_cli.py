"""`gorilla-tui search` through cli.main, and a real run of the installed console script."""

from __future__ import annotations

import pytest

from gorilla_tui.cli import main


def test_search_without_index_says_how_to_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "detect objects"]) == 2
    err = capsys.readouterr().err
    assert "no index" in err and "gorilla-tui index --refresh" in err and "Traceback" not in err
