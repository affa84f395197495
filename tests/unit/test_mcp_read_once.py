"""The stdio transport of `gorilla-tui mcp` (mcp/transport.py) reads each line the client sends once
(mcp/replies.py read_line): it was parsed by reply_to, then again to see whether it was a request. The real
SDK's message adapter counts the parses."""

from __future__ import annotations

import threading

import anyio
import pytest
from mcp.types import JSONRPCRequest

from gorilla_tui.mcp import replies, transport

LINES = [
    '{"jsonrpc": "2.0", "id": 7, "method": "tools/list"}',
    '{"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 7}}',
]


class _Source:
    """A Lines stand-in: the given lines, then end of input."""

    def __init__(self, lines: list[str]) -> None:
        self._lines = list(lines)

    async def receive(self) -> str:
        if not self._lines:
            raise anyio.EndOfStream
        return self._lines.pop(0)


class _Counting:
    """The SDK's message adapter, counting validate_json calls."""

    def __init__(self, inner) -> None:
        self.inner = inner
        self.parsed = 0

    def validate_json(self, *args, **kwargs):
        self.parsed += 1
        return self.inner.validate_json(*args, **kwargs)

    def __getattr__(self, name):
        return getattr(self.inner, name)


def test_each_line_is_parsed_once(monkeypatch):
    counting = _Counting(replies.message_adapter)
    monkeypatch.setattr(replies, "message_adapter", counting)
    monkeypatch.setattr(transport, "message_adapter", counting)
    monkeypatch.setattr(transport, "EOF_GRACE_S", 0.1)
    send, receive = anyio.create_memory_object_stream(10)
    pending = transport._Pending()

    async def read_all() -> list[str]:
        checked = transport._CheckedLines(_Source(LINES), send, threading.Event(), pending)  # type: ignore[arg-type]
        return [line async for line in checked]

    assert anyio.run(read_all) == LINES  # both go on to the SDK unchanged
    assert counting.parsed == len(LINES)


def test_read_line_gives_the_message_or_the_errors():
    message, errors = replies.read_line(LINES[0])
    assert isinstance(message, JSONRPCRequest) and message.id == 7 and errors == []
    message, errors = replies.read_line('{"jsonrpc": "2.0", "id": 3, "method": "x", "params": "p"}')
    assert message is None and [e.id for e in errors] == [3]
    assert replies.read_line("  \t") == (None, [])


@pytest.mark.parametrize("line", [LINES[0], "not json", '{"jsonrpc": "2.0", "method": "x"}'])
def test_reply_to_says_what_read_line_says(line):
    message, errors = replies.read_line(line)
    assert replies.reply_to(line) == (None if message is not None else errors)
