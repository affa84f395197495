"""`gorilla-tui check PATH...` as a linter (issue 20): the acceptance corpus, output formats, reason-code
filters, inline ignores, stdin, exit codes, the prebuilt lookup (same verdicts as the full Validator) and
the pre-commit hook run by the real `pre-commit` tool on a scratch repository."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]


def test_fifo_and_oversized_file_are_errors_not_a_hang(tmp_path):
    """`check DIR` with a FIFO named *.py in it used to block forever in open(); a FIFO named on the command
    line was "no such file or folder". Both, and a file over 10 MiB, are one error line each (exit 2); no
    index is needed as no file is read."""
    os.mkfifo(tmp_path / "pipe.py")
    with open(tmp_path / "huge.py", "wb") as fh:
        fh.truncate(11 * 1024 * 1024)
    env = dict(os.environ, GORILLA_TUI_HOME=str(tmp_path / "home"), PYTHONPATH=str(REPO))
    for target, huge in ((str(tmp_path), True), (str(tmp_path / "pipe.py"), False)):
        run = subprocess.run(
            [sys.executable, "-m", "gorilla_tui", "check", target],
            env=env, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
        assert run.returncode == 2, run.stderr
        assert "pipe.py: not a regular file (a FIFO): not checked" in run.stderr
        assert ("huge.py: too large (11.0 MiB > 10 MiB): not checked" in run.stderr) == huge
        assert "Traceback" not in run.stderr
