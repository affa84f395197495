"""`gorilla-tui tui`: the subcommand is registered, its flags are checked before the app starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gorilla_tui.cli import main


def test_tui_help_lists_the_flags(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tui", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--model", "--mode", "-k", "--hub", "--kernel"):
        assert flag in out


def test_bad_k_is_one_line_and_exit_2(capsys):
    assert main(["tui", "-k", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gorilla-tui: error: k must be between 1 and 50") and "Traceback" not in err


def test_broken_config_stops_bare_gorilla_tui_cleanly(gorilla_home):
    config = gorilla_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("k = 'many'\n")
    done = subprocess.run(
        [sys.executable, "-m", "gorilla_tui"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "setting 'k' must be an integer" in done.stderr and "Traceback" not in done.stderr
