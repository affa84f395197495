"""Issue 42, kind 5: `gorilla-tui mcp` answers every line with JSON-RPC 2.0, bad ones with an error.

The real server process over stdio, spoken to line by line (no SDK client: it never sends a bad line).
Malformed JSON, a lone surrogate in a string, a batch of garbage and params that are no object got no
reply at all (the SDK's transport dropped them) and a client waited forever; each gets its error response
now (-32700 / -32600 / -32602, with the request's id or null), and the server answers the next request.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

REPO = Path(__file__).resolve().parents[2]
#: Seconds to wait for a reply: far above the few milliseconds one takes; main's server never replied.
WAIT = 20


class Stdio:
    """A `gorilla-tui mcp` process and its standard input and output, one JSON-RPC message a line."""

    def __init__(self, home: Path) -> None:
        env = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
        env |= {"GORILLA_TUI_HOME": str(home), "HF_HUB_OFFLINE": "1", "PYTHONPATH": str(REPO)}
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "gorilla_tui", "mcp"],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=env,
        )  # fmt: skip
        self.ids = itertools.count(100)
        self.buffer = b""

    def send(self, line: bytes) -> None:
        assert self.proc.stdin is not None
        self.proc.stdin.write(line + b"\n")
        self.proc.stdin.flush()

    def receive(self) -> dict[str, Any] | None:
        """The next message the server writes, or None when none comes within WAIT seconds. Read from the
        file descriptor with a buffer of our own: a buffered readline() may take two replies at once, and
        select() then waits for bytes already read."""
        assert self.proc.stdout is not None
        fd = self.proc.stdout.fileno()
        deadline = time.monotonic() + WAIT
        while b"\n" not in self.buffer:
            ready, _, _ = select.select([fd], [], [], max(0.0, deadline - time.monotonic()))
            chunk = os.read(fd, 1 << 16) if ready else b""
            if not chunk:
                return None
            self.buffer += chunk
        line, self.buffer = self.buffer.split(b"\n", 1)
        return json.loads(line)

    def request(self, method: str, params: dict[str, Any] | None = None) -> dict[str, Any] | None:
        rid = next(self.ids)
        self.send(
            json.dumps({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}).encode()
        )
        reply = self.receive()
        assert reply is None or reply.get("id") == rid, reply
        return reply


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stdio]:
    """One server for the module (no index is needed to answer the protocol), initialized."""
    s = Stdio(tmp_path_factory.mktemp("mcp-home"))
    reply = s.request(
        "initialize",
        {"protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": {"name": "test", "version": "1"}},
    )
    assert reply is not None and "result" in reply, reply
    s.send(b'{"jsonrpc": "2.0", "method": "notifications/initialized"}')
    yield s
    assert s.proc.stdin is not None
    s.proc.stdin.close()
    assert s.proc.wait(timeout=WAIT) == 0  # the client closed its side: the server ends cleanly


CASES = {
    "malformed JSON": (b'{"jsonrpc": "2.0", "id": 1, "method": ', [(None, -32700)]),
    "bytes that are not UTF-8": (b"\xff\xfe{", [(None, -32700)]),
    "too deep for a JSON reader": (b"[" * 100_000, [(None, -32700)]),
    "a lone surrogate in a string": (
        b'{"jsonrpc": "2.0", "id": 2, "method": "tools/call", '
        b'"params": {"name": "check_api_call", "arguments": {"code": "f(\'\\ud800\')"}}}',
        [(2, -32602)],
    ),
    "a batch of garbage": (b"[1, 2, 3]", [(None, -32600)]),
    "a batch of requests": (
        b'[{"jsonrpc": "2.0", "id": 3, "method": "tools/list"}, '
        b'{"jsonrpc": "2.0", "id": "x", "method": "ping"}]',
        [(3, -32600), ("x", -32600)],
    ),
    "no request object": (b'{"hello": "world"}', [(None, -32600)]),
    "params that are no object": (
        b'{"jsonrpc": "2.0", "id": 4, "method": "tools/call", "params": "x"}',
        [(4, -32602)],
    ),
}


@pytest.mark.parametrize("line,expected", CASES.values(), ids=CASES.keys())
def test_a_bad_line_gets_its_jsonrpc_error_and_the_server_keeps_serving(
    server: Stdio, line: bytes, expected: list[tuple[str | int | None, int]]
) -> None:
    server.send(line)
    got = []
    for _ in expected:
        reply = server.receive()
        assert reply is not None, f"no reply to {line[:60]!r}: the client would wait forever"
        assert reply["jsonrpc"] == "2.0" and "result" not in reply
        got.append((reply["id"], reply["error"]["code"]))
    assert got == expected
    tools = server.request("tools/list")  # and the next request is answered
    assert tools is not None and [t["name"] for t in tools["result"]["tools"]][0] == "search_api_docs"


def test_a_notification_that_cannot_be_read_is_not_answered(server: Stdio) -> None:
    """JSON-RPC 2.0 section 4.1: a notification (no id) is never answered, a broken one neither."""
    server.send(b'{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": 7}')
    reply = server.request("ping")
    assert reply is not None and reply["result"] == {}
