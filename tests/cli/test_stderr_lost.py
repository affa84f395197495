"""Break-it round 11, R11-3: a standard error that cannot be written never changes the exit status.

With stderr on a full disk (`2>/dev/full`), closed (`2>&-`) or open only for reading (what a shell script
run with `2>&-` leaves on descriptor 2), every command that failed with bad input or damaged state exited 1,
the status of findings, instead of 2: the print in main()'s error handler raised and the exception left
main(). A closed stderr also sent the error line into standard output (print(file=None)). Now every line
for stderr goes through cli/output.py (quiet_stderr, say). The CLI in a subprocess, each exit-2 path with
each kind of lost stderr."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
#: Commands that fail with bad input (exit 2): a missing file to check or run, an unknown model, an
#: unknown code for --select.
FAILING = {
    "check-missing-file": ["check", "nosuch.py", "--file"],
    "run-missing-file": ["run", "nosuch.py"],
    "model-pull-unknown": ["model", "pull", "nosuchmodel"],
    "check-unknown-code": ["check", "x.py", "--select", "NOPE", "--code"],
}
LOST = ("full", "closed", "read-only")
POOL = ROOT / "tests" / "data" / "pool" / "torchhub_api.jsonl"
WRONG = "torch.hub.load('pytorch/vision', 'resnet-201')"


def _close_stderr() -> None:  # runs in the child before exec
    os.close(2)


def _run(argv: list[str], lost: str, tmp_path: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GORILLA_TUI_HOME": str(tmp_path / "home"),
           "HF_HUB_OFFLINE": "1", "GORILLA_TUI_DENSE": "0"}  # fmt: skip
    cmd = [sys.executable, "-m", "gorilla_tui", *argv]
    common = {"stdout": subprocess.PIPE, "text": True, "env": env, "cwd": tmp_path, "timeout": 120}
    if lost == "closed":
        return subprocess.run(cmd, preexec_fn=_close_stderr, **common)  # noqa: PLW1509 (no threads here)
    if lost == "full":
        with open("/dev/full", "w") as full:
            return subprocess.run(cmd, stderr=full, **common)
    readable = tmp_path / "stderr-read-only"
    readable.write_text("")
    with open(readable) as read_only:
        return subprocess.run(cmd, stderr=read_only, **common)


@pytest.mark.parametrize("lost", LOST)
@pytest.mark.parametrize("name", sorted(FAILING))
def test_bad_input_exits_2_whatever_happens_to_stderr(tmp_path: Path, name: str, lost: str) -> None:
    done = _run(FAILING[name], lost, tmp_path)
    assert done.returncode == 2, (name, lost, done.returncode, done.stdout)
    assert done.stdout == "", done.stdout  # the error line never goes into the output


def test_a_lost_stderr_keeps_the_status_and_output_of_a_check(tmp_path: Path) -> None:
    """`check` of two files says its summary ("1 finding in 2 file(s)") on stderr: lost, the status stays
    0 for clean files and 1 for findings, and stdout holds the findings alone."""
    (tmp_path / "clean.py").write_text("x = 1\n")
    (tmp_path / "wrong.py").write_text(f"import torch\n{WRONG}\n")
    for lost in LOST:
        for path, status in (("clean.py", 0), ("wrong.py", 1)):
            done = _run(["check", path, "clean.py", "--pool", str(POOL)], lost, tmp_path)
            assert done.returncode == status, (lost, path, done.stdout)
            assert "file(s)" not in done.stdout and "gorilla-tui" not in done.stdout, done.stdout
            assert ("wrong_args" in done.stdout) == bool(status), done.stdout
