"""Break-it round 6: a path longer than the file system takes (a home, a model, --out, --from) made
Path.exists() raise ENAMETOOLONG on Python 3.11: "internal error" from six inputs. Now one line, exit 2.
And the refresh pause hook (GORILLA_TUI_REFRESH_PAUSE) ended a whole build in "internal error" on "abc"."""

from __future__ import annotations

import pytest

from gorilla_tui.build.publish import PAUSE_ENV, _pause_seconds
from gorilla_tui.cli import main

LONG = "x" * 300  # over NAME_MAX (255) of every file system here


@pytest.mark.parametrize(
    "argv",
    [
        ["search", "copy a file"],
        ["index", "--refresh", "--from", f"/tmp/{LONG}"],
        ["doctor", "--no-inference"],
    ],
)
def test_a_path_too_long_is_one_line_and_exit_2(argv, tmp_path, monkeypatch, capsys) -> None:
    monkeypatch.setenv("GORILLA_TUI_HOME", str(tmp_path / LONG) if argv[0] != "index" else str(tmp_path))
    code = main(argv)
    err = capsys.readouterr().err
    assert "internal error" not in err and "Traceback" not in err, err
    if argv[0] != "doctor":  # doctor lists what it cannot read as a problem (exit 1)
        assert code == 2 and err.startswith("gorilla-tui: error: "), (code, err)


@pytest.mark.parametrize(
    ("value", "seconds"), [("abc", 0.0), ("1e300", 0.0), ("nan", 0.0), ("-1", 0.0), ("0.5", 0.5)]
)
def test_the_refresh_pause_hook_ignores_values_that_are_no_pause(value, seconds, monkeypatch) -> None:
    monkeypatch.setenv(PAUSE_ENV, value)
    assert _pause_seconds() == seconds
