"""The stdio transport of `gorilla-tui mcp`: every line a client sends is answered (issue 42, kind 5).

The SDK's stdio transport (mcp.server.stdio.stdio_server) parses each line with pydantic and hands a line
that is no JSON-RPC message to the session as an exception, which logs and drops it: malformed JSON, a
string holding a lone surrogate (``"\\ud800"``: pydantic's JSON parser refuses it, Python's json reads it),
a batch (an array, which MCP 2025-06-18 no longer allows), ``"params": "x"``. None got a reply, and a
client waiting on its request's id waited forever while the server lived. Here each line is read first
(`reply_to`): a message the SDK reads goes on to it unchanged; any other is answered with a JSON-RPC 2.0
error response (JSON-RPC 2.0 sections 5 and 5.1), written by the SDK's own writer, and the server keeps
serving:

- -32700 parse error: not JSON (not even a JSON object at its top level), id null;
- -32600 invalid request: JSON but no request object (a number, a batch, no method), with the request's
  id when it has one of the allowed types (string or integer), else null (a batch: each of its requests'
  ids, read from its top level alone when it nests too deeply, jsontext.top_level_items);
- -32602 invalid params: a request whose params are no object, hold a lone surrogate, or an integer of more
  digits than Python converts (sys.get_int_max_str_digits(), 4,300: valid JSON, which pydantic refuses as
  "number out of range"; it was -32700 with id null, and the client waited on its id, break-it round 11),
  or nest a value deeper than the JSON readers follow (about 200 levels: the id is read from the top level
  alone, jsontext.top_level; break-it round 12), with its id.

An id holding a lone surrogate (``"id": "\\ud800x"``, valid JSON) is no id that can be written back (no
UTF-8 writer takes it): the request gets -32600 with id null, as JSON-RPC 2.0 section 5 asks when the id
cannot be detected (break-it round 9: the reply killed the server). And every message the server writes
goes through `_Writable`: a lone surrogate left in any string of it (a path decoded from a byte that is no
UTF-8, "\\udcff", in a tool's error) is written as U+FFFD rather than ending the server.

A notification (a method and no id) is never answered, as JSON-RPC 2.0 section 4.1 says, nor is a client's
response to a server request; they are dropped as the SDK drops them. Standard input is read from a copy
of file descriptor 0, which then points at the null device while the server runs, as the SDK's own
transport does: a child process (the model probe) never reads the client's messages.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
from collections.abc import Awaitable, Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
from anyio.abc import ObjectReceiveStream, ObjectSendStream
from mcp.server.mcpserver import MCPServer
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError
from mcp.shared.message import SessionMessage
from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    CallToolResult,
    ErrorData,
    JSONRPCError,
    JSONRPCNotification,
    TextContent,
)
from mcp.types import jsonrpc_message_adapter as message_adapter
from pydantic import ValidationError
from pydantic_core import PydanticSerializationError

from gorilla_tui.jsontext import (
    LongNumber,
    long_number_path,
    top_level,
    top_level_items,
    with_long_numbers,
    without_lone_surrogates,
)
from gorilla_tui.mcp.lines import MAX_LINE_BYTES, Lines, TooLong, start_reader


def reply_to(line: str) -> list[JSONRPCError] | None:
    """None when `line` is a JSON-RPC message the SDK reads (it goes on to the SDK); else the error
    responses it gets (see the module doc), [] for a blank line, a notification or a client's response
    that cannot be read (nothing is sent back). A batch gets one -32600 per member that has an id (each
    waits on its own), or one with id null when none has."""
    if not line.strip():
        return []
    try:
        message = message_adapter.validate_json(line, by_name=False)
    except ValidationError as e:
        first = e.errors()[0]
        where = ".".join(str(p) for p in first["loc"][1:])  # loc[0] names the union member tried
        detail = f"{where}: {first['msg']}" if where else first["msg"]
    else:
        if isinstance(message, JSONRPCNotification) and '"id"' in line and _bad_id(line):
            # pydantic read a request whose id is 9.5, true, [1], null or 1e400 as a notification, which
            # is never answered: the client waited forever. JSON-RPC 2.0 section 5: id null, -32600.
            why = "Invalid Request: the id must be a string or an integer"
            return [_error(None, INVALID_REQUEST, why)]
        return None
    try:  # an integer longer than Python converts is valid JSON: kept as its digits, refused by name below
        obj = with_long_numbers(line)
    except RecursionError:  # nested deeper than json.loads follows: its id is still at depth 1 (2 in a batch)
        items = top_level_items(line)
        return _batch(items) if items is not None else _too_deep(top_level(line), detail)
    except ValueError:
        return [_error(None, PARSE_ERROR, "Parse error: the line is not JSON", detail)]
    if isinstance(obj, list):
        return _batch(obj)
    if not isinstance(obj, dict):
        return [_error(None, INVALID_REQUEST, "Invalid Request: not a JSON-RPC request object", detail)]
    if isinstance(obj.get("id"), str) and _lone_surrogate(obj["id"]):
        why = "Invalid Request: the id holds a lone surrogate (a \\ud800-\\udfff escape without its pair)"
        return [_error(None, INVALID_REQUEST, why)]
    if isinstance(obj.get("id"), LongNumber):  # no id that can be written back: JSON-RPC 2.0 section 5
        why = f"Invalid Request: the id is a number of more than {sys.get_int_max_str_digits()} digits"
        return [_error(None, INVALID_REQUEST, why)]
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
        long = long_number_path(obj)
        if long is not None:
            limit = sys.get_int_max_str_digits()
            why = f"Invalid params: {long[:200]} is an integer of more than {limit} digits (too long to read)"
            return [_error(rid, INVALID_PARAMS, why)]
        if "recursion limit" in detail:  # deeper than pydantic reads (json.loads read it)
            return _too_deep(obj, detail)
        if "number out of range" in detail:  # a float pydantic refuses (9...9.5 of 5,000 digits)
            return [_error(rid, INVALID_PARAMS, "Invalid params: a number is out of range", detail)]
        return [_error(rid, INVALID_PARAMS, "Invalid params: params must be an object", detail)]
    return [_error(rid, INVALID_REQUEST, "Invalid Request: not a JSON-RPC 2.0 request", detail)]


def _batch(items: list[Any]) -> list[JSONRPCError]:
    """The reply to a batch (a JSON array: MCP 2025-06-18 allows none): one -32600 per item that is an
    object with an id (each request waits on its own), or one with id null when none has. `items`: the
    array as json.loads read it, or its top level alone (jsontext.top_level_items) when it nests deeper
    than json.loads follows (break-it round 13, R13-9: such a batch got -32700 with id null)."""
    ids = [i for i in (_id(m) for m in items if isinstance(m, dict)) if i is not None] or [None]
    why = "Invalid Request: batches are not supported; send one JSON-RPC message per line"
    return [_error(i, INVALID_REQUEST, why) for i in ids]


#: How deep the SDK reads a message: pydantic-core's JSON parser stops at about 200 levels of nesting
#: ("recursion limit exceeded"); json.loads goes on to Python's recursion limit.
MAX_DEPTH = 200


def _too_deep(members: dict[str, Any] | None, detail: str) -> list[JSONRPCError]:
    """The reply to a line nested deeper than a JSON reader follows, from its top-level `members`
    (jsontext.top_level, or the whole message when json.loads read it; None: not even its top level is a
    JSON object, -32700 id null). A request with an id gets -32602 "a value is nested too deeply" with
    that id (break-it round 12, R12-8: 5,000 deep got -32700 with id null, 300 deep "params must be an
    object"); a notification nothing; anything else -32600."""
    if members is None:
        return [_error(None, PARSE_ERROR, "Parse error: the line is not JSON", detail)]
    method, rid = members.get("method"), _id(members)
    if isinstance(method, str) and "id" not in members:
        return []  # a notification is never answered (JSON-RPC 2.0 section 4.1)
    why = f"a value is nested too deeply (more than about {MAX_DEPTH} levels of objects and arrays)"
    if isinstance(method, str) and members.get("jsonrpc") == "2.0" and rid is not None:
        return [_error(rid, INVALID_PARAMS, f"Invalid params: {why}", detail)]
    return [_error(rid, INVALID_REQUEST, f"Invalid Request: not a JSON-RPC 2.0 request, or {why}", detail)]


def _id(message: dict[str, Any]) -> str | int | None:
    """The request id when it is one JSON-RPC allows here (a string without a lone surrogate, or an
    integer, never a bool), else None (the reply's id is then null)."""
    rid = message.get("id")
    if isinstance(rid, LongNumber):  # digits that are no int Python can write back
        return None
    if isinstance(rid, str):
        return None if _lone_surrogate(rid) else rid
    return rid if isinstance(rid, int) and not isinstance(rid, bool) else None


def _bad_id(line: str) -> bool:
    """True when `line` is a JSON object with an "id" member of a type JSON-RPC does not allow here
    (a number that is no integer, a bool, an array, an object or null)."""
    try:
        obj = json.loads(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(obj, dict) and "id" in obj and _id(obj) is None


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
    reads is passed on; any other line's error responses are sent to `replies` instead (a line over
    lines.MAX_LINE_BYTES: -32600, id null). At end of input `at_end` is set first (the running tool calls
    see it as their cancel event)."""

    def __init__(
        self, source: Lines, replies: ObjectSendStream[SessionMessage],
        at_end: threading.Event,
    ) -> None:  # fmt: skip
        self._source = source
        self._replies = replies
        self._at_end = at_end

    def __aiter__(self) -> _CheckedLines:
        return self

    async def __anext__(self) -> str:
        while True:
            try:
                line = await self._source.receive()
            except (anyio.EndOfStream, anyio.ClosedResourceError):
                self._at_end.set()  # the client closed stdin: the MCP stdio shutdown; a running call stops
                raise StopAsyncIteration from None
            if isinstance(line, TooLong):
                why = f"Invalid Request: line too long (over {MAX_LINE_BYTES // 2**20} MiB); it was not read"
                errors: list[JSONRPCError] | None = [_error(None, INVALID_REQUEST, why)]
            else:
                errors = reply_to(line)
            if errors is None:
                return line  # type: ignore[return-value]
            for error in errors:
                await self._replies.send(SessionMessage(error))


class _Writable:
    """The SDK's write stream (WriteStream[SessionMessage]) with every message made writable first: one
    that pydantic cannot write as JSON (a lone surrogate in a string: "surrogates not allowed") is sent
    with each lone surrogate as U+FFFD (jsontext.without_lone_surrogates). The SDK's stdout writer raised
    PydanticSerializationError on it, which ended the whole server (exit 1, no reply; break-it round 9)."""

    def __init__(self, inner: Any) -> None:
        self._inner = inner

    async def send(self, message: SessionMessage) -> None:
        try:
            message.message.model_dump_json(by_alias=True, exclude_unset=True)
        except PydanticSerializationError:
            data = without_lone_surrogates(message.message.model_dump(by_alias=True, exclude_unset=True))
            message = SessionMessage(message_adapter.validate_python(data, by_name=False))
        await self._inner.send(message)

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
        lines = _CheckedLines(start_reader(wire), send, cancel)
        async with anyio.create_task_group() as outer:
            outer.start_soon(_on_sigint, cancel, outer.cancel_scope, interrupted)
            async with stdio_server(stdin=lines) as (read, sdk_write):  # type: ignore[arg-type]
                write = _Writable(sdk_write)
                async with anyio.create_task_group() as tg:
                    tg.start_soon(_forward, receive, write)
                    await lowlevel.run(read, write, lowlevel.create_initialization_options())
                    tg.cancel_scope.cancel()
            outer.cancel_scope.cancel()
    return bool(interrupted)


def unknown_arguments(tool: Any, arguments: Any) -> str | None:
    """The tool error for `arguments` (a tools/call's) naming one the tool's input schema does not list,
    or None: "Error executing tool search_api_docs: unknown argument 'hub'; it takes task, k, source
    (source names one source of the index, as the CLI's --hub; empty for all)", worded as the SDK's own
    tool errors for arguments of the wrong type. The SDK's argument models ignore such a name: the call
    ran as if it were not given (`hub: "nosuchhub"` searched every source)."""
    if not isinstance(arguments, dict):
        return None  # the SDK says what is wrong with it
    schema = getattr(tool, "input_schema", None) or getattr(tool, "inputSchema", None) or {}
    takes = list(schema.get("properties", {}))
    unknown = [key for key in arguments if key not in takes]
    if not unknown:
        return None
    names = ", ".join(repr(key[:40]) for key in unknown[:5])
    plural = "s" if len(unknown) > 1 else ""
    msg = f"Error executing tool {tool.name}: unknown argument{plural} {names}; it takes {', '.join(takes)}"
    if "source" in takes:
        msg += " (source names one source of the index, as the CLI's --hub; empty for all)"
    return msg


class ProtocolErrors:
    """SDK middleware (MCPServer(middleware=...)) that gives two protocol errors their JSON-RPC code and a
    message that says what to do (break-it pass 4):

    - a request before `initialize` (ping excepted) was -32602 "Invalid request parameters"; it is -32600
      "Invalid Request: the server is not initialized; send initialize first";
    - `prompts/get` of a prompt that does not exist was error code 0 (the SDK's code for any exception of a
      handler, with a traceback on stderr); it is -32602 invalid params naming the prompt (this server has
      none; prompts/list says so), as `resources/read` of an unknown resource already is;
    - `tools/call` of a tool that is not listed was a tool result with isError; MCP (2025-06-18 and
      2025-11-25, Tools, "Error Handling") lists an unknown tool among the protocol errors: it is -32602
      "Unknown tool: NAME" (break-it round 7). Arguments of the wrong type stay a tool result with isError,
      as MCP 2025-11-25 asks (the model can correct them); so is an argument the tool does not take
      (`unknown_arguments`: the SDK dropped it, and `hub` naming no source searched every source where
      the CLI refuses an unknown --hub, break-it round 8).

    tools: the server's list_tools (set once the server exists), None until then.
    """

    def __init__(self) -> None:
        self.initialized = False
        self.tools: Callable[[], Awaitable[list[Any]]] | None = None

    async def __call__(self, ctx: Any, call_next: Any) -> Any:
        params = getattr(ctx, "params", None)
        name = params.get("name") if ctx.method == "tools/call" and isinstance(params, dict) else None
        if self.initialized and isinstance(name, str) and self.tools is not None:
            tools = {tool.name: tool for tool in await self.tools()}
            if name not in tools:
                raise MCPError(
                    code=INVALID_PARAMS, message=f"Unknown tool: {name[:200]}", data={"name": name[:200]}
                )
            unknown = unknown_arguments(tools[name], params.get("arguments"))
            if unknown:
                return CallToolResult(content=[TextContent(type="text", text=unknown)], is_error=True)
        try:
            result = await call_next(ctx)
        except MCPError as e:
            gate = not self.initialized and ctx.method not in ("initialize", "ping")
            if gate and e.error.code == INVALID_PARAMS:  # the SDK's gate for requests before initialize
                why = "Invalid Request: the server is not initialized; send initialize first"
                raise MCPError(code=INVALID_REQUEST, message=why, data=ctx.method) from None
            raise
        except ValueError as e:  # not a bug of ours: the SDK's own "Unknown prompt: NAME"
            if ctx.method != "prompts/get":
                raise
            raise MCPError(code=INVALID_PARAMS, message=f"Invalid params: {str(e)[:200]}") from None
        if ctx.method in ("initialize", "server/discover"):  # the handshake, or the SDK client's discovery
            self.initialized = True
        return result
