"""What `gorilla-tui mcp` answers to a line the SDK would drop (issue 42, kind 5): the JSON-RPC 2.0 error
responses of the stdio transport (mcp/transport.py).

The SDK's stdio transport parses each line with pydantic and hands a line that is no JSON-RPC message to
the session as an exception, which logs and drops it: malformed JSON, a string holding a lone surrogate
(``"\\ud800"``: pydantic's JSON parser refuses it, Python's json reads it), a batch (an array, which MCP
2025-06-18 no longer allows), ``"params": "x"``. None got a reply, and a client waiting on its request's id
waited forever while the server lived. Here each line is read first (`reply_to`): a message the SDK reads
goes on to it unchanged; any other is answered with a JSON-RPC 2.0 error response (JSON-RPC 2.0 sections 5
and 5.1):

- -32700 parse error: not JSON (not even a JSON object at its top level), id null;
- -32600 invalid request: JSON but no request object (a number, a batch, no method), with the request's
  id when it has one of the allowed types (string or integer), else null (a batch: each of its requests'
  ids, read from its top level alone when it nests too deeply, jsontext.top_level_items); a line over
  lines.MAX_LINE_BYTES, never read, id null (`reply_to_long_line`);
- -32602 invalid params: a request whose params are no object, hold a lone surrogate, or an integer of more
  digits than Python converts (sys.get_int_max_str_digits(), 4,300: valid JSON, which pydantic refuses as
  "number out of range"; it was -32700 with id null, and the client waited on its id, break-it round 11),
  or nest a value deeper than the JSON readers follow (about 200 levels: the id is read from the top level
  alone, jsontext.top_level; break-it round 12), with its id.

An id holding a lone surrogate (``"id": "\\ud800x"``, valid JSON) is no id that can be written back (no
UTF-8 writer takes it): the request gets -32600 with id null, as JSON-RPC 2.0 section 5 asks when the id
cannot be detected (break-it round 9: the reply killed the server).

A notification (a method and no id) is never answered, as JSON-RPC 2.0 section 4.1 says, nor is a client's
response to a server request: `reply_to` gives [] for them, and they are dropped as the SDK drops them.
A blank line (JSON whitespace only: spaces, tabs, CR; RFC 8259 section 2) holds no message and is skipped
without a reply, as the SDK skips it; any other character makes the line a message to answer ("\x1c", which
str.strip() took for whitespace, gets -32700; break-it round 17, P3).
"""

from __future__ import annotations

import json
import sys
from typing import Any

from mcp.types import (
    INVALID_PARAMS,
    INVALID_REQUEST,
    PARSE_ERROR,
    ErrorData,
    JSONRPCError,
    JSONRPCMessage,
    JSONRPCNotification,
)
from mcp.types import jsonrpc_message_adapter as message_adapter
from pydantic import ValidationError

from gorilla_tui.jsontext import LongNumber, long_number_path, top_level, top_level_items, with_long_numbers
from gorilla_tui.mcp.lines import MAX_LINE_BYTES, NotUtf8

#: The whitespace JSON allows around a value (RFC 8259 section 2): a line of nothing else is blank.
JSON_WHITESPACE = " \t\r\n"


def reply_to(line: str) -> list[JSONRPCError] | None:
    """None when `line` is a JSON-RPC message the SDK reads (it goes on to the SDK); else the error
    responses it gets (see the module doc), [] for a blank line, a notification or a client's response
    that cannot be read (nothing is sent back). A batch gets one -32600 per member that has an id (each
    waits on its own), or one with id null when none has. read_line gives the message read too."""
    message, errors = read_line(line)
    return None if message is not None else errors


def read_line(line: str) -> tuple[JSONRPCMessage | None, list[JSONRPCError]]:
    """`line` read once (mcp/transport.py: the line is not parsed again to see what it is): (the message,
    []) when it is a JSON-RPC message the SDK reads, else (None, the error responses reply_to gives)."""
    if not line.strip(JSON_WHITESPACE):
        return None, []
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
            return None, [_error(None, INVALID_REQUEST, why)]
        return message, []
    return None, _unread(line, detail)


def _unread(line: str, detail: str) -> list[JSONRPCError]:
    """The error responses of a `line` the SDK cannot read (pydantic said `detail`): see the module doc."""
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
        pair = "a lone surrogate (a \\ud800-\\udfff escape without its pair)"
        if _lone_surrogate(obj.get("params")):
            return [_error(rid, INVALID_PARAMS, f"Invalid params: a string holds {pair}")]
        if _lone_surrogate(obj):  # the method or a member's name: no request (was -32602; round 17, P3)
            return [
                _error(rid, INVALID_REQUEST, f"Invalid Request: the method or a member name holds {pair}")
            ]
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


def reply_to_long_line() -> list[JSONRPCError]:
    """The reply to a line over lines.MAX_LINE_BYTES, which was never read (so its id is not known):
    -32600 with id null."""
    why = f"Invalid Request: line too long (over {MAX_LINE_BYTES // 2**20} MiB); it was not read"
    return [_error(None, INVALID_REQUEST, why)]


def reply_to_not_utf8(line: NotUtf8) -> list[JSONRPCError]:
    """The reply to a line that is not UTF-8 (lines.NotUtf8): -32700 "Parse error" naming the first byte
    that is not, with the request's id when the rest of the line reads as a request whose id holds no such
    byte (so its client stops waiting on it; bytes after the whole object too), else id null; a
    notification or a client's response gets nothing, as the SDK's would."""
    why = f"Parse error: the line is not UTF-8 (byte {line.start}); JSON-RPC messages are UTF-8"
    try:
        obj = with_long_numbers(line.text)
    except (ValueError, RecursionError):
        # bytes after a whole object ('{"id": 7, ...}\xff') leave the request's id readable
        obj = top_level(line.text) or top_level(line.text.rstrip("\ufffd \t\n\r"))
    if not isinstance(obj, dict):
        return [_error(None, PARSE_ERROR, why)]
    method = obj.get("method")
    answer = "result" in obj or "error" in obj
    if (isinstance(method, str) and "id" not in obj) or (method is None and answer):
        return []  # a notification is never answered (JSON-RPC 2.0 section 4.1), nor a client's response
    rid = _id(obj)
    return [_error(None if isinstance(rid, str) and "\ufffd" in rid else rid, PARSE_ERROR, why)]
