"""Break-it round 29 (F9): `index --status` said nothing of a config.toml `hub` naming no source of the index
(exit 0, `config_problem: null`) while search refused it (exit 2) and doctor listed it."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main


def test_status_says_a_hub_naming_no_source_and_exits_2(small_home: Path, capsys: pytest.CaptureFixture[str]):
    config = small_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('hub = "nosuch"\n')
    assert main(["search", "copy a file"]) == 2  # what search refuses ...
    capsys.readouterr()
    assert main(["index", "--status"]) == 2  # ... status says, on a line of its own, with the fix
    out = " ".join(capsys.readouterr().out.split())
    assert "problem: hub 'nosuch' in config.toml is not a source of the index (its sources:" in out, out
    assert 'set hub to one of them (or to "" for all)' in out and "docs," in out, out
    assert main(["index", "--status", "--json"]) == 2
    said = json.loads(capsys.readouterr().out)["config_problem"]
    assert said["message"].startswith("hub 'nosuch' in config.toml") and str(config) in said["hint"], said
    assert main(["doctor", "--no-hash", "--json"]) == 1  # the same words in doctor
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert {"problem": said["message"], "fix": said["hint"]} in problems, problems
    sources = said["message"].split("(its sources: ", 1)[1].rstrip(")").split(", ")
    config.write_text(f'hub = "{sources[0]}"\n')  # a source it has: no problem
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["config_problem"] is None


def test_status_keeps_exit_2_for_a_config_problem_when_the_reader_goes_away(small_home: Path) -> None:
    """Break-it round 30 (F-L1): `index --status | head -1` exited 0 with `hub = "nosuch"` (2 without the
    pipe; README: a reader that goes away changes no status)."""
    import os
    import subprocess
    import sys

    (small_home / "config").mkdir(parents=True, exist_ok=True)
    (small_home / "config" / "config.toml").write_text('hub = "nosuch"\n')
    env = {**os.environ, "GORILLA_TUI_HOME": str(small_home), "GORILLA_TUI_DENSE": "0"}
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--status"]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert proc.stdout is not None
    proc.stdout.close()  # the reader is gone before the first write
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == 2, err.decode()
    assert err.decode() == ""
