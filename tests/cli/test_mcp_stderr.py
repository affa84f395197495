"""Break-it round 16, P2: a failed MCP tool call never fills a stderr pipe nobody reads.

The MCP SDK logged each failed tool call to stderr (a few rich-wrapped lines) and a crashed tool's whole
traceback (~114 KB for a deep recursion). A client that pipes stderr and never reads it filled the pipe and
the server blocked in the write, its reply unsent. Now a failed call is a tool error of one line; stderr
gets one short line per bug and 20 at most in all (mcp/logs.py), the traceback goes to a bounded log file.
The real server process, with its stderr a 4,096-byte pipe (the smallest Linux makes) that is never read.
"""

from __future__ import annotations

import fcntl
import os
import textwrap
from pathlib import Path

from gorilla_tui.mcp.logs import LINE_CHARS, LOG_NAME, STDERR_LINES, TRACE_LINES
from tests.cli.test_mcp_protocol_errors import Stdio

#: The server with check_api_call broken for one code: a mutual recursion (the traceback module cannot
#: fold its frames, as rich could not: ~2,000 lines), as round 16's star-import cycle was before its fix.
BUGGY = textwrap.dedent(
    """
    import sys
    from gorilla_tui.mcp.tools import ToolBox
    def ping(n): return pong(n + 1)
    def pong(n): return ping(n + 1)
    fine = ToolBox.check
    def check(self, code, source=""):
        return ping(0) if code == "bug()" else fine(self, code, source)
    ToolBox.check = check
    sys.argv[0] = "gorilla-tui"
    from gorilla_tui.cli import run
    run()
    """
)

#: Calls that fail for the caller's reasons (no index in this home, arguments of the wrong type or range,
#: a missing argument, text that is no JSON tool call) and one that fails by a bug.
FAILING = [
    {"name": "search_api_docs", "arguments": {"task": "copy a folder"}},  # no index
    {"name": "search_api_docs", "arguments": {"task": "copy a folder", "k": 0}},
    {"name": "check_api_call", "arguments": {"code": '[{"name": 1'}},
    {"name": "check_api_call", "arguments": {"code": "f()", "source": 5}},
    {"name": "propose_api_call", "arguments": {}},
    {"name": "check_api_call", "arguments": {"code": "bug()"}},
]

#: Lines the protocol refuses (mcp/replies.py, mcp/protocol_errors.py).
GARBAGE = [
    b'{"jsonrpc": "2.0", "id": 1, "method": ',
    b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": {"name": "nope", "arguments": {}}}',
]


def _small_pipe() -> tuple[int, int]:
    read, write = os.pipe()
    fcntl.fcntl(write, fcntl.F_SETPIPE_SZ, 4096)
    assert fcntl.fcntl(write, fcntl.F_GETPIPE_SZ) == 4096
    return read, write


def test_many_failing_calls_are_all_answered_with_stderr_unread(tmp_path: Path) -> None:
    read, write = _small_pipe()
    s = Stdio(tmp_path, stderr=write, python=("-c", BUGGY))
    os.close(write)
    try:
        s.initialized()
        texts = []
        for n in range(40):
            for call in FAILING:
                reply = s.request("tools/call", call)
                assert reply is not None, f"call {n}: no reply ({call}): the server is stuck writing stderr"
                assert reply["result"]["isError"] is True, reply
                texts.append(reply["result"]["content"][0]["text"])
            for line in GARBAGE:  # and lines that are no request, or call no tool: their JSON-RPC errors
                s.send(line)
                reply = s.receive()
                assert reply is not None and reply["error"]["code"] in (-32700, -32602), (line, reply)
        assert s.proc.stdin is not None
        s.proc.stdin.close()
        assert s.proc.wait(timeout=30) == 0
        os.set_blocking(read, False)
        err = os.read(read, 1 << 16).decode()
    finally:
        os.close(read)
        if s.proc.poll() is None:  # it did not end: stuck (main's server) or a failed assertion
            s.proc.kill()
            s.proc.wait()
    assert all("\n" not in t for t in texts)
    bugs = [t for t in texts if "internal error" in t]
    assert len(bugs) == 40 and bugs[0].startswith("Error executing tool check_api_call: internal error in ")
    assert "RecursionError" in bugs[0] and str(tmp_path / "logs" / LOG_NAME) in bugs[0], bugs[0]
    # stderr: a line per bug, 20 in all and the line saying where the rest went; no input error, no traceback
    lines = err.splitlines()
    assert len(lines) == STDERR_LINES + 1 and all(len(line) <= LINE_CHARS for line in lines), err
    assert lines[0].startswith("gorilla-tui mcp: internal error in check_api_call: RecursionError")
    assert "Traceback" not in err and "only in" in lines[-1]
    log = (tmp_path / "logs" / LOG_NAME).read_text()
    assert log.count("Traceback (most recent call last)") == 40
    assert log.count("lines left out") == 40 and len(log.splitlines()) < 40 * (TRACE_LINES + 10)
    assert "no index" in log  # the caller's errors are in the log file, not on stderr
