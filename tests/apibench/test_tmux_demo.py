"""The real `gorilla-tui` in tmux (scripts/tmux_demo.sh): types a task, waits for the verdict, copies."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]


@pytest.mark.model
@pytest.mark.slow
def test_tmux_demo_shows_a_verdict_and_copies(tmp_path, apibench):
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux)")
    binary = Path(sys.executable).with_name("gorilla-tui")
    out = tmp_path / "screen.txt"
    env = dict(os.environ, GORILLA_TUI_BIN=str(binary), GORILLA_TUI_SHARED=str(apibench.parent))
    done = subprocess.run(
        ["bash", str(REPO / "scripts" / "tmux_demo.sh"), str(out)],
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert done.returncode == 0, done.stderr
    screen = out.read_text()
    assert "answered" in screen and "model gemma3-270m" in screen
    assert any(mark in screen for mark in ("✔ valid", "✘ ", "∅ no_call", "✎ incomplete"))
    assert "verdict shown and call copied" in done.stdout
    # the call Ctrl+Y copied, read back with `tmux show-buffer`: a call shown on the screen
    copied = done.stdout.split("tmux buffer: ", 1)[1].split("\n", 1)[0]
    assert "(" in copied and copied.split("(")[0] in screen
