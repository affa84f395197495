"""The stdio transport of `gorilla-tui mcp`: every line a client sends is answered (issue 42, kind 5).

The SDK's stdio transport (mcp.server.stdio.stdio_server) drops a line that is no JSON-RPC message without
a reply. Here the SDK is given the client's lines through `_CheckedLines`: each line is read first, once
(mcp/replies.py read_line): a message the SDK reads goes on to it unchanged; any other is answered with the
JSON-RPC 2.0 error responses replies.py words, written by the SDK's own writer, and the server keeps
serving. The lines come from a daemon thread of our own (mcp/lines.py), so Ctrl+C and the end of input
stop the server at once.

- every message the server writes goes through `_Writable`: a lone surrogate left in any string of it (a
  path decoded from a byte that is no UTF-8, "\\udcff", in a tool's error) is written as U+FFFD rather
  than ending the server (break-it round 9);
- standard input is read from a copy of file descriptor 0, which then points at the null device while the
  server runs, as the SDK's own transport does: a child process (the model probe) never reads the
  client's messages (`_stdin`);
- SIGINT sets the tools' cancel event and ends the server (`_on_sigint`); `serve_stdio` runs it all;
- at the end of input the requests already read are answered before the server ends (`_Pending`; break-it
  round 19, P-b: a ping and a tools/list written just before the client closed stdin got no reply, as the
  SDK's session ended at once): the running tool calls are cancelled (their reply is a tool error) and
  the server waits up to EOF_GRACE_S for every reply to be written.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import JSONRPCError, JSONRPCNotification, JSONRPCRequest, JSONRPCResponse
from mcp.types import jsonrpc_message_adapter as message_adapter
from pydantic_core import PydanticSerializationError

from gorilla_tui.jsontext import without_lone_surrogates
from gorilla_tui.mcp.lines import Lines, NotUtf8, TooLong, start_reader
from gorilla_tui.mcp.replies import read_line, reply_to_long_line, reply_to_not_utf8

#: Seconds the server waits at the end of input for the replies to the requests it has read (a cancelled
#: tool call answers within a cancel check, about 0.1 s; the rest is headroom for a loaded machine).
EOF_GRACE_S = 10.0
#: The notification by which a client cancels one of its requests (MCP 2025-06-18, utilities/cancellation).
CANCELLED = "notifications/cancelled"


class _Pending:
    """The ids of the client's requests read but not yet answered; `drained()` returns once none is left."""

    def __init__(self) -> None:
        self._ids: set[tuple[type, object]] = set()
        self._empty = anyio.Event()
        self._empty.set()

    def add(self, request_id: object) -> None:
        self._ids.add((type(request_id), request_id))
        if self._empty.is_set():
            self._empty = anyio.Event()

    def answered(self, request_id: object) -> None:
        self._ids.discard((type(request_id), request_id))
        if not self._ids:
            self._empty.set()

    async def drained(self) -> None:
        await self._empty.wait()


class _CheckedLines:
    """The client's lines as the SDK's stdio reader takes them (an async iterator of str): a message it
    reads is passed on; any other line's error responses are sent to `replies` instead (a line over
    lines.MAX_LINE_BYTES: -32600, id null). At end of input `at_end` is set first (the running tool calls
    see it as their cancel event)."""

    def __init__(
        self, source: Lines, replies: ObjectSendStream[SessionMessage],
        at_end: threading.Event, pending: _Pending,
    ) -> None:  # fmt: skip
        self._source = source
        self._replies = replies
        self._at_end = at_end
        self._pending = pending

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._source.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                self._at_end.set()  # the client closed stdin: the MCP stdio shutdown; a running call stops
                with anyio.move_on_after(EOF_GRACE_S):
                    await self._pending.drained()  # the requests already read are answered first
                raise StopAsyncIteration from None
            if isinstance(line, TooLong):
                message, errors = None, reply_to_long_line()
            elif isinstance(line, NotUtf8):  # replaced in silence, its bytes reached a tool as U+FFFD
                message, errors = None, reply_to_not_utf8(line)
            else:
                message, errors = read_line(line)
            if message is not None:  # read once (replies.read_line), not parsed again here
                if isinstance(message, JSONRPCRequest):
                    self._pending.add(message.id)
                elif isinstance(message, JSONRPCNotification) and message.method == CANCELLED:
                    # a cancelled request gets no reply (MCP 2025-06-18, cancellation): none is awaited
                    self._pending.answered((message.params or {}).get("requestId"))
                return line  # type: ignore[return-value]
            for error in errors:
                await self._replies.send(SessionMessage(error))


class _Writable:
    """The SDK's write stream (WriteStream[SessionMessage]) with every message made writable first: one
    that pydantic cannot write as JSON (a lone surrogate in a string: "surrogates not allowed") is sent
    with each lone surrogate as U+FFFD (jsontext.without_lone_surrogates). The SDK's stdout writer raised
    PydanticSerializationError on it, which ended the whole server (exit 1, no reply; break-it round 9)."""

    def __init__(self, inner: Any, pending: _Pending) -> None:
        self._inner = inner
        self._pending = pending

    async def send(self, message: SessionMessage) -> None:
        try:
            message.message.model_dump_json(by_alias=True, exclude_unset=True)
        except PydanticSerializationError:
            data = without_lone_surrogates(message.message.model_dump(by_alias=True, exclude_unset=True))
            message = SessionMessage(message_adapter.validate_python(data, by_name=False))
        await self._inner.send(message)
        if isinstance(message.message, (JSONRPCResponse, JSONRPCError)):
            self._pending.answered(message.message.id)

    async def aclose(self) -> None:
        await self._inner.aclose()

    def close(self) -> None:
        self._inner.close()

    async def __aenter__(self) -> _Writable:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()


@contextmanager
def _stdin() -> Iterator[int]:
    """A copy of file descriptor 0 (the client's messages); fd 0 points at the null device meanwhile and is
    put back after, as the SDK's own transport does. The copy is never closed: the reader thread may still
    block reading it."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        yield wire
    finally:
        os.dup2(wire, 0)


async def _forward(replies: ObjectReceiveStream[SessionMessage], write: Any) -> None:
    async with replies:
        async for message in replies:
            await write.send(message)


async def _on_sigint(cancel: threading.Event, scope: anyio.CancelScope, interrupted: list[bool]) -> None:
    """At the first SIGINT: set `cancel` (a running tool call stops), note it, and end the server."""
    with anyio.open_signal_receiver(signal.SIGINT) as signals:
        async for _ in signals:
            cancel.set()
            interrupted.append(True)
            scope.cancel()
            return


async def serve_stdio(server: MCPServer, cancel: threading.Event | None = None) -> bool:
    """Run `server` over stdio until the client closes standard input or SIGINT comes, answering every
    line (module doc); True when SIGINT ended it. `cancel` (the tools' cancel event) is set at either: a
    running tool call stops (its reply, if any, is a tool error) and the server exits at once, not when
    the call's deadlines pass. The SDK's writer (its claim of stdout) and its session are used as
    MCPServer.run("stdio") uses them."""
    cancel = cancel or threading.Event()
    interrupted: list[bool] = []
    # MCPServer has no public accessor for its low-level server; the SDK's own in-memory client reads
    # the same attribute (mcp/client/_memory.py)
    lowlevel = server._lowlevel_server
    send, receive = anyio.create_memory_object_stream[SessionMessage](0)
    with _stdin() as wire:
        pending = _Pending()
        lines = _CheckedLines(start_reader(wire), send, cancel, pending)
        async with anyio.create_task_group() as outer:
            outer.start_soon(_on_sigint, cancel, outer.cancel_scope, interrupted)
            async with stdio_server(stdin=lines) as (read, sdk_write):  # type: ignore[arg-type]
                write = _Writable(sdk_write, pending)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_forward, receive, write)
                    await lowlevel.run(read, write, lowlevel.create_initialization_options())
                    tg.cancel_scope.cancel()
            outer.cancel_scope.cancel()
    return bool(interrupted)
