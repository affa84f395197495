"""Break-it round 18, R18-3: a tool call the client cancels (notifications/cancelled) stops its work, and one
cancelled while it waits for its turn never runs.

The SDK cancelled only the server's wait for the call: the call's thread ran on under ToolBox's lock, so 20
proposals sent and cancelled at once each ran the model in turn, and the next search waited 42 s. Here the
real server runs over stdio against an endpoint on 127.0.0.1 that counts the requests it gets and never
answers them: one proposal holds the turn (its first request waits on the endpoint), five more are sent and
cancelled behind it, then it is cancelled too, then a search must answer, first, and the five must never
have reached the endpoint.
"""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from tests.cli.test_mcp_protocol_errors import _initialized
from tests.conftest import clone_home

#: Proposals cancelled while the first one runs.
QUEUED = 5


class Gate:
    """An endpoint that counts its POST requests (`hits`) and holds each until `close` (never answered);
    `reached` is set at the first."""

    def __init__(self) -> None:
        self.hits = 0
        self.reached = threading.Event()
        self.closed = threading.Event()
        gate = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                gate.hits += 1
                gate.reached.set()
                gate.closed.wait(60)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.server.daemon_threads = True
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.closed.set()
        self.server.shutdown()
        self.server.server_close()


@pytest.fixture
def gate() -> Iterator[Gate]:
    g = Gate()
    yield g
    g.close()


@pytest.fixture
def indexed_home(home_template, gorilla_home: Path) -> Path:
    return clone_home(
        home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home
    )


def _call(rid: int, name: str, arguments: dict[str, object]) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "tools/call",
            "params": {"name": name, "arguments": arguments},
        }
    ).encode()


def _cancel(rid: int) -> bytes:
    return json.dumps(
        {
            "jsonrpc": "2.0",
            "method": "notifications/cancelled",
            "params": {"requestId": rid, "reason": "test"},
        }
    ).encode()


def test_cancelled_proposals_stop_or_never_run_and_a_search_then_answers_first(
    indexed_home: Path, gate: Gate
) -> None:
    s = _initialized(indexed_home, "--endpoint", gate.url)
    try:
        s.send(_call(10, "propose_api_call", {"task": "copy a file"}))
        assert gate.reached.wait(60), "the first proposal never reached the endpoint"
        for rid in range(11, 11 + QUEUED):  # queued behind the first, each cancelled at once
            s.send(_call(rid, "propose_api_call", {"task": f"copy file number {rid}"}))
            s.send(_cancel(rid))
        hits = gate.hits
        s.send(_cancel(10))  # the running one: its request to the endpoint gives up
        s.send(_call(20, "search_api_docs", {"task": "copy a file", "k": 1}))
        reply = s.receive()  # main: None (the first proposal waits on the endpoint for its 120 s deadline)
        assert reply is not None, "no reply to the search: a cancelled proposal still holds the server"
        assert reply.get("id") == 20 and not reply["result"]["isError"], reply  # no reply to a cancelled id
        assert reply["result"]["structuredContent"]["hits"], reply
        assert gate.hits == hits, f"cancelled proposals still ran: {gate.hits - hits} more requests"
        assert s.request("ping") is not None  # and the server serves on
        assert s.proc.stdin is not None
        s.proc.stdin.close()
        assert s.proc.wait(timeout=20) == 0
    finally:
        if s.proc.poll() is None:
            s.proc.kill()
            s.proc.wait()
