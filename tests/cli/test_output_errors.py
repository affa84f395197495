"""Break-it pass 4, break 8: standard output that refuses a write. A full disk (`> /dev/full`) was
"internal error: OSError [Errno 28]" (exit 1); a closed stdout (`>&-`) lost the output with exit 0; a
reader that went away (`| head -1`) made `doctor` and `index --status` exit 1 with no word (rich's Console)
where `search` exited 0. Now: one line on stderr and exit 2 when the output was lost, silence for a broken
pipe (exit 0, or `check`'s findings status 1), for every command (cli/__init__.py main, cli/output.py).
The CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

POOL = Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl"
ROOT = Path(__file__).resolve().parents[2]
WRONG = "torch.hub.load('pytorch/vision', 'resnet-201')"
COMMANDS = {
    "check-sarif": ["check", WRONG, "--pool", str(POOL), "--format", "sarif"],
    "check-text": ["check", WRONG, "--pool", str(POOL)],
    "doctor": ["doctor"],
    "index-status": ["index", "--status"],
}


def _env(tmp_path: Path) -> dict[str, str]:
    return {**os.environ, "PYTHONPATH": str(ROOT), "GORILLA_TUI_HOME": str(tmp_path / "home")}


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_or_a_closed_stdout_is_one_line_and_exit_2(tmp_path: Path, name: str) -> None:
    cmd = [sys.executable, "-m", "gorilla_tui", *COMMANDS[name]]
    with open("/dev/full", "w") as full:
        done = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, env=_env(tmp_path))
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith("gorilla-tui: error: could not write the output: No space left on device\n")
    assert "internal error" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    shell = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, text=True, env=_env(tmp_path)
    )
    assert shell.returncode == 2, shell.stderr
    assert shell.stderr.endswith("gorilla-tui: error: could not write the output: Bad file descriptor\n")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_reader_that_went_away_is_silent_and_keeps_the_findings_status(tmp_path: Path, name: str) -> None:
    """The pipe's read end is closed before the command writes: its first write meets EPIPE. Silent; exit
    0, but `check` with findings stays exit 1 (`check ... | head -1` was 0, break-it round 8)."""
    cmd = [sys.executable, "-m", "gorilla_tui", *COMMANDS[name]]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(tmp_path))
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert (proc.returncode, err.decode()) == (1 if name.startswith("check") else 0, "")


def test_a_closed_stdout_with_nothing_to_write_is_not_an_error(tmp_path: Path) -> None:
    """A clean `check` writes nothing to stdout: no output was lost, the status is the check's own."""
    clean = tmp_path / "clean.py"
    clean.write_text("print(1)\n")
    cmd = [sys.executable, "-m", "gorilla_tui", "check", str(clean), "--pool", str(POOL)]
    shell = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, text=True, env=_env(tmp_path)
    )
    assert (shell.returncode, shell.stderr) == (0, "")
