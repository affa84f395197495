"""The stdio transport of `gorilla-tui mcp`: every line a client sends is answered (issue 42, kind 5).

The SDK's stdio transport (mcp.server.stdio.stdio_server) parses each line with pydantic and hands a line
that is no JSON-RPC message to the session as an exception, which logs and drops it: malformed JSON, a
string holding a lone surrogate (``"\\ud800"``: pydantic's JSON parser refuses it, Python's json reads it),
a batch (an array, which MCP 2025-06-18 no longer allows), ``"params": "x"``. None got a reply, and a
client waiting on its request's id waited forever while the server lived. Here each line is read first
(`reply_to`): a message the SDK reads goes on to it unchanged; any other is answered with a JSON-RPC 2.0
error response (JSON-RPC 2.0 sections 5 and 5.1), written by the SDK's own writer, and the server keeps
serving:

- -32700 parse error: not JSON (or nested deeper than Python's JSON reader goes), id null;
- -32600 invalid request: JSON but no request object (a number, a batch, no method), with the request's
  id when it has one of the allowed types (string or integer), else null;
- -32602 invalid params: a request whose params are no object or hold a lone surrogate, with its id.

A notification (a method and no id) is never answered, as JSON-RPC 2.0 section 4.1 says, nor is a client's
response to a server request; they are dropped as the SDK drops them. Standard input is read from a copy
of file descriptor 0, which then points at the null device while the server runs, as the SDK's own
transport does: a child process (the model probe) never reads the client's messages.
"""

from __future__ import annotations

import io
import json
import os
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.message import SessionMessage
from mcp.types import INVALID_PARAMS, INVALID_REQUEST, PARSE_ERROR, ErrorData, JSONRPCError
from mcp.types import jsonrpc_message_adapter as message_adapter
from pydantic import ValidationError


def reply_to(line: str) -> list[JSONRPCError] | None:
    """None when `line` is a JSON-RPC message the SDK reads (it goes on to the SDK); else the error
    responses it gets (see the module doc), [] for a blank line, a notification or a client's response
    that cannot be read (nothing is sent back). A batch gets one -32600 per member that has an id (each
    waits on its own), or one with id null when none has."""
    if not line.strip():
        return []
    try:
        message_adapter.validate_json(line, by_name=False)
        return None
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:])  # loc[0] names the union member tried
        detail = f"{where}: {first['msg']}" if where else first["msg"]
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return [_error(None, PARSE_ERROR, "Parse error: the line is not JSON", detail)]
    if isinstance(obj, list):
        ids = [i for i in (_id(m) for m in obj if isinstance(m, dict)) if i is not None] or [None]
        why = "Invalid Request: batches are not supported; send one JSON-RPC message per line"
        return [_error(i, INVALID_REQUEST, why) for i in ids]
    if not isinstance(obj, dict):
        return [_error(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request object", detail)]
    method, rid = obj.get("method"), _id(obj)
    if isinstance(method, str) and "id" not in obj:
        return []  # a notification is never answered (JSON-RPC 2.0 section 4.1)
    if method is None and ("result" in obj or "error" in obj):
        return []  # a client's response to a server request: there is no one to answer
    if isinstance(method, str) and obj.get("jsonrpc") == "2.0" and rid is not None:
        if _lone_surrogate(obj):
            why = (
                "Invalid params: a string holds a lone surrogate (a \\ud800-\\udfff escape without its pair)"
            )
            return [_error(rid, INVALID_PARAMS, why)]
        return [_error(rid, INVALID_PARAMS, "Invalid params: params must be an object", detail)]
    return [_error(rid, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request", detail)]


def _id(message: dict[str, Any]) -> str | int | None:
    """The request id when it is one JSON-RPC allows here (a string or an integer, never a bool), else
    None (the reply's id is then null)."""
    rid = message.get("id")
    return rid if isinstance(rid, str) or (isinstance(rid, int) and not isinstance(rid, bool)) else None


def _lone_surrogate(obj: Any) -> bool:
    """True when a string of `obj` (a key or a value) holds a lone surrogate: UTF-8 cannot encode it."""
    try:
        json.dumps(obj, ensure_ascii=False).encode("utf-8")
    except UnicodeEncodeError:
        return True
    return False


def _error(rid: str | int | None, code: int, message: str, data: str = "") -> JSONRPCError:
    """The error response (id null for None); `data`, what pydantic said (cut at 200 characters), only
    when given."""
    error = (
        ErrorData(code=code, message=message, data=data[:200])
        if data
        else ErrorData(code=code, message=message)
    )
    return JSONRPCError(jsonrpc="2.0", id=rid, error=error)


class _CheckedLines:
    """The client's lines as the SDK's stdio reader takes them (an async iterator of str): a message it
    reads is passed on; any other line's error responses are sent to `replies` instead."""

    def __init__(self, source: anyio.AsyncFile[str], replies: ObjectSendStream[SessionMessage]) -> None:
        self._source = source
        self._replies = replies

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            line = await self._source.readline()
            if not line:
                raise StopAsyncIteration
            errors = reply_to(line)
            if errors is None:
                return line
            for error in errors:
                await self._replies.send(SessionMessage(error))


@asynccontextmanager
async def _stdin() -> AsyncIterator[anyio.AsyncFile[str]]:
    """Standard input as UTF-8 lines (bytes that are not UTF-8 as U+FFFD, as the SDK reads them) from a
    copy of file descriptor 0; fd 0 points at the null device meanwhile and is put back after. The copy
    is never closed: a worker thread may still block reading it (the SDK's reason for the same)."""
    wire = os.dup(0)
    null = os.open(os.devnull, os.O_RDONLY)
    os.dup2(null, 0)
    os.close(null)
    try:
        raw = os.fdopen(wire, "rb", buffering=0, closefd=False)
        yield anyio.wrap_file(io.TextIOWrapper(io.BufferedReader(raw), encoding="utf-8", errors="replace"))
    finally:
        os.dup2(wire, 0)


async def _forward(replies: ObjectReceiveStream[SessionMessage], write: Any) -> None:
    async with replies:
        async for message in replies:
            await write.send(message)


async def serve_stdio(server: MCPServer) -> None:
    """Run `server` over stdio until the client closes standard input, answering every line (module doc).
    The SDK's writer (its claim of stdout) and its session are used as MCPServer.run("stdio") uses them."""
    # MCPServer has no public accessor for its low-level server; the SDK's own in-memory client reads
    # the same attribute (mcp/client/_memory.py)
    lowlevel = server._lowlevel_server
    send, receive = anyio.create_memory_object_stream[SessionMessage](0)
    async with _stdin() as source, stdio_server(stdin=_CheckedLines(source, send)) as (read, write):  # type: ignore
        async with anyio.create_task_group() as tg:
            tg.start_soon(_forward, receive, write)
            await lowlevel.run(read, write, lowlevel.create_initialization_options())
            tg.cancel_scope.cancel()
