"""Break-it round 18, R18-2: a log path that is not a regular file never stops `gorilla-tui mcp`.

logs/mcp.log as a FIFO held the server in open(2) (a FIFO opened for writing waits for a reader), so it
never answered `initialize`, and doctor said "no problems found". Now the log file is opened only when it
is a regular file or absent, without blocking; otherwise the server says one line on stderr, runs without
a log file, and doctor names the path. The real server process over stdio, in a home of the test's own.
"""

from __future__ import annotations

import os
import subprocess
from collections.abc import Callable
from pathlib import Path

import pytest

from gorilla_tui.cli import doctor
from gorilla_tui.mcp.logs import LOG_NAME
from gorilla_tui.paths import get_paths
from tests.cli.test_mcp_protocol_errors import Stdio

#: Ways to put something that is not a regular file where the log goes, and the kind the line names.
NOT_REGULAR: dict[str, tuple[Callable[[Path], None], str]] = {
    "fifo": (os.mkfifo, "a FIFO"),
    "folder": (Path.mkdir, "a folder"),
    "link to a device": (lambda p: p.symlink_to("/dev/zero"), "a character device"),
}


@pytest.mark.parametrize("kind", NOT_REGULAR)
def test_a_log_path_that_is_not_a_file_is_looked_past_said_once_and_a_doctor_problem(
    tmp_path: Path, kind: str
) -> None:
    make, said = NOT_REGULAR[kind]
    home = Path(os.environ["GORILLA_TUI_HOME"])
    log = get_paths().logs / LOG_NAME
    log.parent.mkdir(parents=True)
    make(log)
    err = tmp_path / "stderr"
    with err.open("wb") as sink:
        s = Stdio(home, stderr=sink.fileno())
        try:
            s.initialized()  # main: no reply to initialize with a FIFO (receive() gives None after WAIT s)
            reply = s.request(
                "tools/call", {"name": "check_api_call", "arguments": {"code": "shutil.copy()"}}
            )
            assert reply is not None and "result" in reply, reply
            s.close()
        finally:
            if s.proc.poll() is None:
                s.proc.kill()
                s.proc.wait()
    lines = err.read_text().splitlines()
    assert lines == [
        f"gorilla-tui mcp: no log file: {log} is not a regular file ({said}); logging to stderr only"
    ], lines
    assert os.path.lexists(log)  # left as it is
    problems: list[dict[str, str]] = []
    doctor._mcp_log(problems)
    assert [p["problem"] for p in problems] == [
        f"the MCP log {log} is not a regular file ({said}): `gorilla-tui mcp` writes no log file"
    ]


def test_a_regular_or_absent_log_is_written_and_no_doctor_problem() -> None:
    problems: list[dict[str, str]] = []
    doctor._mcp_log(problems)  # absent
    assert problems == []
    home = Path(os.environ["GORILLA_TUI_HOME"])
    s = Stdio(home, stderr=subprocess.DEVNULL).initialized()
    s.close()
    log = get_paths().logs / LOG_NAME
    assert log.is_file()
    doctor._mcp_log(problems)
    assert problems == []
