"""`gorilla-tui` without a terminal: one line and exit 2, not a TUI drawing into a pipe forever."""

from __future__ import annotations

import os
import subprocess
import sys

from gorilla_tui.cli.tui import NO_TERMINAL


def test_the_tui_without_a_terminal_says_so_in_one_line_and_exits_2(tmp_path):
    """Break-it finding: `gorilla-tui </dev/null >file` drew the app's escapes into the file and never ended.
    stdin and stdout here are pipes, as in cron, CI or an editor's task runner."""
    for argv in ([], ["tui"], ["--model", "x"]):
        done = subprocess.run(
            [sys.executable, "-m", "gorilla_tui", *argv],
            stdin=subprocess.DEVNULL,
            capture_output=True,
            text=True,
            timeout=120,
            env={**os.environ, "GORILLA_TUI_HOME": str(tmp_path)},
        )
        assert done.returncode == 2, (argv, done.stderr)
        assert done.stdout == "" and "\x1b" not in done.stderr
        assert done.stderr.splitlines()[0] == f"gorilla-tui: error: {NO_TERMINAL}"
        assert "Traceback" not in done.stderr
