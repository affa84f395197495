"""Break-it pass 4, break 8: standard output that refuses a write. A full disk (`> /dev/full`) was
"internal error: OSError [Errno 28]" (exit 1); a closed stdout (`>&-`) lost the output with exit 0; a
reader that went away (`| head -1`) made `doctor` and `index --status` exit 1 with no word (rich's Console)
where `search` exited 0. Now: one line on stderr and exit 2 when the output was lost, silence for a broken
pipe with the status the command has when its output is read (`check`'s findings 1, `doctor`'s problems 1,
`search`'s no hit 1, a run's own status), for every command (cli/__init__.py main, cli/output.py).
Break-it round 10: `doctor | head -1` exited 0 on a damaged index; `run FILE --yes | head -1` said "the
sandbox could not start: Broken pipe" (exit 2) for a run that succeeded, and `> /dev/full` blamed the
sandbox too. The CLI in a subprocess."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from tests.conftest import clone_home

POOL = Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl"
SMALL_POOL = POOL.parent
ROOT = Path(__file__).resolve().parents[2]
WRONG = "torch.hub.load('pytorch/vision', 'resnet-201')"
#: Code that prints 3,000 lines (more than a pipe holds) and ends with the status given.
PRINTS = "for i in range(3000):\n    print(i)\nraise SystemExit({})\n"
COMMANDS = {
    "check-sarif": ["check", WRONG, "--pool", str(POOL), "--format", "sarif"],
    "check-text": ["check", WRONG, "--pool", str(POOL)],
    "doctor": ["doctor", "--no-hash", "--no-inference"],
    "doctor-json": ["doctor", "--no-hash", "--no-inference", "--json"],
    "index-status": ["index", "--status"],
    "search-hits": ["search", "load a pretrained resnet"],
    "search-no-hit": ["search", "zzqx wvut"],
    "search-no-hit-json": ["search", "zzqx wvut", "--json"],
    "run-ok": ["run", "{ok}", "--yes"],
    "run-fails": ["run", "{fails}", "--yes"],
    "run-json": ["run", "{fails}", "--yes", "--json"],
}


@pytest.fixture()
def home(tmp_path: Path, home_template) -> Path:
    """A home with a BM25 index of the small pool's Torch Hub docs and an endpoint `doctor` calls a problem
    (`search` and `run` never read it)."""
    template = home_template(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)])
    home = clone_home(template, tmp_path / "home")
    (home / "config").mkdir(exist_ok=True)
    (home / "config" / "config.toml").write_text('endpoint = "notaurl"\n')
    return home


def _env(home: Path) -> dict[str, str]:
    return {
        **os.environ,
        "PYTHONPATH": str(ROOT),
        "GORILLA_TUI_HOME": str(home),
        "HF_HUB_OFFLINE": "1",
        "GORILLA_TUI_DENSE": "0",
    }


def _cmd(name: str, tmp_path: Path) -> list[str]:
    for status, stem in ((0, "ok"), (3, "fails")):
        (tmp_path / f"{stem}.py").write_text(PRINTS.format(status))
    argv = [a.format(ok=tmp_path / "ok.py", fails=tmp_path / "fails.py") for a in COMMANDS[name]]
    return [sys.executable, "-m", "gorilla_tui", *argv]


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_full_disk_or_a_closed_stdout_is_one_line_and_exit_2(tmp_path: Path, home: Path, name: str) -> None:
    """`run` too: the run ends, and the output, not the sandbox, is blamed."""
    cmd = _cmd(name, tmp_path)
    with open("/dev/full", "w") as full:
        done = subprocess.run(cmd, stdout=full, stderr=subprocess.PIPE, text=True, env=_env(home))
    assert done.returncode == 2, done.stderr
    assert done.stderr.endswith("gorilla-tui: error: could not write the output: No space left on device\n")
    assert "internal error" not in done.stderr and "Exception ignored" not in done.stderr, done.stderr
    assert "sandbox" not in done.stderr.splitlines()[-1], done.stderr
    shell = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, text=True, env=_env(home)
    )
    assert shell.returncode == 2, shell.stderr
    assert shell.stderr.endswith("gorilla-tui: error: could not write the output: Bad file descriptor\n")


@pytest.mark.parametrize("name", sorted(COMMANDS))
def test_a_reader_that_went_away_is_silent_and_keeps_the_status(
    tmp_path: Path, home: Path, name: str
) -> None:
    """The pipe's read end is closed before the command writes: its first write meets EPIPE. Silent, with
    the status the command has when its output is read: `check ... | head -1` was 0 (break-it round 8),
    `doctor | head -1` 0 and `run FILE --yes | head -1` 2, "the sandbox could not start" (round 10)."""
    cmd = _cmd(name, tmp_path)
    read = subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, env=_env(home))
    expected = {"check": 1, "doctor": 1, "index": 0, "search": 0, "run": 1}[name.split("-")[0]]
    if name.startswith(("search-no-hit", "run-ok")):
        expected = 1 - expected
    assert read.returncode == expected, read.stderr  # the status with a reader: the command's own
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=_env(home))
    assert proc.stdout is not None
    proc.stdout.close()
    _, err = proc.communicate(timeout=120)
    assert proc.returncode == expected, err.decode()
    if name.startswith("run"):  # the confirmation (and in text the run's report) on stderr, no error
        assert "error" not in err.decode() and "could not" not in err.decode(), err.decode()
        assert ("run: " in err.decode()) is (name != "run-json"), err.decode()
    else:
        assert err.decode() == ""


def test_a_closed_stdout_with_nothing_to_write_is_not_an_error(tmp_path: Path, home: Path) -> None:
    """A clean `check` writes nothing to stdout: no output was lost, the status is the check's own."""
    clean = tmp_path / "clean.py"
    clean.write_text("print(1)\n")
    cmd = [sys.executable, "-m", "gorilla_tui", "check", str(clean), "--pool", str(POOL)]
    shell = subprocess.run(
        ["sh", "-c", 'exec "$@" >&-', "sh", *cmd], stderr=subprocess.PIPE, text=True, env=_env(home)
    )
    assert (shell.returncode, shell.stderr) == (0, "")
