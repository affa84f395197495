"""JSON read from stored or untrusted text (history rows, caches, the index's lookup, source and eval
files), one way: text that is no JSON, a number longer than Python converts and JSON nested deeper than
Python's recursion limit are all ValueError.

A JSON integer of more than sys.get_int_max_str_digits() digits (4,300) made json.loads raise a plain
ValueError ("Exceeds the limit (4300 digits) for integer string conversion"), which loaders that caught
json.JSONDecodeError let through as "internal error" (break-it round 7: a tools file, an OpenAPI document, a
JSON Lines pool). decode() raises it as json.JSONDecodeError at the number's position.

json.loads raises RecursionError for ``{"a":{"a":...}}`` nested some thousands deep (the C decoder follows
the interpreter's recursion limit); callers that caught ValueError alone crashed on it (break-it pass 4: a
history row's proposal nested 5,000 deep crashed the history screen with a traceback).
"""

from __future__ import annotations

import json
import re
import sys
from json.decoder import scanstring  # type: ignore[attr-defined]  # C speedup of json, not in typeshed
from typing import Any

#: The message of the ValueError for JSON nested deeper than json.loads can follow.
TOO_DEEP = "JSON nested deeper than Python's recursion limit"


def decode(data: str | bytes | bytearray, **kwargs: Any) -> Any:
    """json.loads(data, **kwargs), with a number longer than Python converts raised as
    json.JSONDecodeError ("a number of more than N digits") like any other text that is no JSON, and a
    lone surrogate escape (``"\\ud800"``) read as U+FFFD (without_lone_surrogates).
    RecursionError (JSON nested deeper than Python's recursion limit) is left to the caller; loads() makes
    it a ValueError. Raises TypeError for data that is not text or bytes."""
    try:
        value = json.loads(data, **kwargs)
    except json.JSONDecodeError:
        raise
    except ValueError as e:
        if "integer string conversion" not in str(e):
            raise
        limit = sys.get_int_max_str_digits()
        text = data if isinstance(data, str) else bytes(data).decode("utf-8", "replace")
        found = re.search(rf"\d{{{limit + 1},}}", text)
        msg = f"a number of more than {limit} digits"
        raise json.JSONDecodeError(msg, text, found.start() if found else 0) from None
    probe = data if isinstance(data, str) else bytes(data)
    if (_SURROGATE if isinstance(probe, str) else _SURROGATE_BYTES).search(probe):
        value = without_lone_surrogates(value)
    return value


#: A JSON escape of a UTF-16 surrogate (``\ud800``): json.loads pairs a high and a low one into one
#: character, and leaves a lone one as a lone surrogate, which no UTF-8 writer takes.
_SURROGATE = re.compile(r"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_SURROGATE_BYTES = re.compile(rb"\\u[dD][89a-fA-F][0-9a-fA-F]{2}")
_LONE = re.compile("[\ud800-\udfff]")
#: What `dumps` writes as a JSON escape besides: lone surrogates, C1 controls (U+0080..U+009F: U+009B is
#: the one-byte CSI an xterm that reads UTF-8 C1 obeys, "\u009b2J" clears the screen), the bidirectional
#: controls (U+061C, U+200E/F, U+202A..U+202E, U+2066..U+2069: Trojan Source, CVE-2021-42574) and the
#: line and paragraph separators (U+2028/9). Each only ever appears inside a JSON string, where its
#: escape reads back the same (break-it round 20, P-e: model text wrote them raw in `ask --json`).
_ESCAPE = re.compile("[\ud800-\udfff\u0080-\u009f\u061c\u200e\u200f\u2028-\u202e\u2066-\u2069]")


def without_lone_surrogates(value: Any) -> Any:
    """`value` with every lone surrogate in its strings and keys made U+FFFD (in place for lists and dicts,
    walked without recursion). A doc holding one ("\\ud800", valid JSON) was "internal error:
    UnicodeEncodeError" when the index wrote it (break-it round 8); the MCP server makes every message it
    writes so (break-it round 9: a path decoded from a non-UTF-8 byte, "\\udcff", killed it)."""
    if isinstance(value, str):
        return _LONE.sub("\ufffd", value)
    stack = [value]
    while stack:
        node = stack.pop()
        if isinstance(node, list):
            for i, v in enumerate(node):
                if isinstance(v, str):
                    node[i] = _LONE.sub("\ufffd", v)
                elif isinstance(v, (list, dict)):
                    stack.append(v)
        elif isinstance(node, dict):
            for k in list(node):
                v = node[k]
                if isinstance(v, str):
                    v = _LONE.sub("\ufffd", v)
                elif isinstance(v, (list, dict)):
                    stack.append(v)
                if isinstance(k, str) and _LONE.search(k):
                    del node[k]
                    node[_LONE.sub("\ufffd", k)] = v
                else:
                    node[k] = v
    return value


def dumps(value: Any, **kwargs: Any) -> str:
    """json.dumps(value, ensure_ascii=False, **kwargs) as text that UTF-8 can always encode: each lone
    surrogate (U+D800..U+DFFF, which only a JSON string can hold) is written as its JSON escape
    (``\\udcff``), and so is each C1 control, bidirectional control and line or paragraph separator
    (_ESCAPE: nothing a terminal obeys reaches it raw), every other character as it is. The text reads
    back to the same value (json.loads; a high surrogate just before a low one reads back as the one
    character they pair to, as ensure_ascii's own escapes do) and is valid UTF-8 when written. A model
    answer, or a path decoded from a byte that is no UTF-8, holding one made ``ask --json`` "internal
    error: UnicodeEncodeError" (break-it round 14, R14-1). Every JSON and JSON Lines writer of the product
    that keeps non-ASCII text as it is goes through here (tests/unit/test_json_writers.py holds them to
    it); kwargs are json.dumps's (indent, sort_keys, separators, default). Raises what json.dumps raises
    (TypeError for a value it cannot write, ValueError for a circular one)."""
    text = json.dumps(value, ensure_ascii=False, **kwargs)
    return _ESCAPE.sub(_escaped, text) if _ESCAPE.search(text) else text


def _escaped(m: re.Match[str]) -> str:
    return f"\\u{ord(m.group()):04x}"


def loads(data: str | bytes | bytearray) -> Any:
    """decode(data). Raises ValueError (json.JSONDecodeError for text that is no JSON or a number longer
    than Python converts, a plain ValueError with TOO_DEEP for JSON nested deeper than Python's recursion
    limit) and TypeError for data that is not text or bytes."""
    try:
        return decode(data)
    except RecursionError:
        raise ValueError(TOO_DEEP) from None


class LongNumber(str):
    """A JSON integer of more digits than Python converts (sys.get_int_max_str_digits(), 4,300), kept as
    its text by with_long_numbers: valid JSON (RFC 8259 section 6 sets no limit on digits) that a reader
    can still answer, or refuse by name."""


def with_long_numbers(data: str | bytes | bytearray) -> Any:
    """json.loads(data), each integer longer than Python converts read as a LongNumber (its digits) instead
    of raising: a JSON-RPC request holding one still has an id to answer (break-it round 11, R11-10).
    Raises json.JSONDecodeError for text that is no JSON, RecursionError for JSON nested deeper than
    Python's recursion limit, TypeError for data that is not text or bytes."""
    return json.loads(data, parse_int=_parse_int)


def _parse_int(digits: str) -> int | LongNumber:
    """int(digits), or a LongNumber when it has more digits than Python converts."""
    limit = sys.get_int_max_str_digits()
    if limit and len(digits.lstrip("-")) > limit:
        return LongNumber(digits)
    return int(digits)


def long_number_path(value: Any) -> str | None:
    """The path ("params.arguments.k", "[2]" for a list item) of the first LongNumber in JSON data `value`,
    or None; walked without recursion."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        node, where = stack.pop()
        if isinstance(node, LongNumber):
            return where or "the value"
        if isinstance(node, dict):
            stack += [(v, f"{where}.{k}" if where else str(k)) for k, v in reversed(list(node.items()))]
        elif isinstance(node, list):
            stack += [(v, f"{where}[{i}]") for i, v in reversed(list(enumerate(node)))]
    return None


def split_json_lines(text: str) -> list[str]:
    """The lines of JSON Lines `text`: split at "\\n" alone, a "\\r" before it dropped (JSON Lines end each
    value with LF, jsonlines.org). str.splitlines() also splits at U+2028, U+2029 and U+0085, which JSON
    holds raw inside a string (json.dumps(ensure_ascii=False) writes U+2028 as it is): a model answer with
    U+2028 made `eval run`'s own answers file unreadable to it ("not JSON Lines"), and a tools file with one
    in a description lost its lines (break-it round 7). The last element is "" when `text` ends with a
    newline; blank lines are the caller's to skip."""
    return [line[:-1] if line.endswith("\r") else line for line in text.split("\n")]


def nested_deeper(value: Any, limit: int) -> bool:
    """True when JSON data `value` nests objects and lists more than `limit` levels (the value itself is
    level 1); walked without recursion, so any depth is measured. Code that recurses over a schema (a
    deepcopy, a validator) reached Python's recursion limit at a few hundred levels. Python literals
    (ast.literal_eval's values) are measured the same way: tuples and sets count as lists."""
    stack = [(value, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > limit:
            return True
        children = node.values() if isinstance(node, dict) else node if isinstance(node, _SEQUENCES) else ()
        stack += [(v, depth + 1) for v in children if isinstance(v, (dict, *_SEQUENCES))]
    return False


#: The containers nested_deeper walks besides dict (JSON arrays; Python literals' tuples and sets).
_SEQUENCES = (list, tuple, set, frozenset)


class Nested:
    """The stand-in top_level gives for a member whose value is an object or an array (not read)."""

    def __repr__(self) -> str:
        return "Nested()"


#: The one Nested value.
NESTED = Nested()

_BLANK = re.compile(r"[ \t\n\r]*")


def _blank_end(text: str, at: int) -> int:
    """The index of the first character at or after `at` that is no JSON whitespace."""
    found = _BLANK.match(text, at)
    return found.end() if found else at


#: What a skip of a nested value stops at: a string's opening quote, a run of openers, a run of closers.
_BRACKETS = re.compile(r'"|[\[{]+|[\]}]+')
_SCALARS = json.JSONDecoder(parse_int=_parse_int)


def top_level(text: str) -> dict[str, Any] | None:
    """The members of the JSON object `text` at its top level, read without following its nesting: each
    scalar decoded (an integer longer than Python converts as a LongNumber), each object or array value
    given as NESTED, skipped by a bracket counter that reads strings (so a "]" inside one does not count).
    For a line json.loads cannot read because it nests deeper than Python's recursion limit: its "id" sits
    at depth 1 and can still be answered (break-it round 12, R12-8: a request holding a list 5,000 deep got
    its error with id null). None when `text` is no JSON object at its top level (the nested values are
    only checked for balanced brackets and well-formed strings). Runs in time linear in len(text), without
    recursion."""
    at = _blank_end(text, 0)
    if text[at : at + 1] != "{":
        return None
    try:
        members, at = _object(text, at)
    except (ValueError, RecursionError):
        return None
    return members if not text[at:].strip(" \t\n\r") else None


def top_level_items(text: str) -> list[Any] | None:
    """The items of the JSON array `text`, read as top_level reads an object: each object item its
    top-level members (a dict whose object and array values are NESTED), each array item NESTED, each
    scalar decoded. For a batch json.loads cannot read because one of its requests nests deeper than
    Python's recursion limit: each request's "id" sits at depth 2 and can still be answered (break-it
    round 13, R13-9: such a batch got -32700 with id null, a shallow one -32600 with its ids). None when
    `text` is no JSON array at its top level. Linear in len(text), without recursion."""
    at = _blank_end(text, 0)
    if text[at : at + 1] != "[":
        return None
    items: list[Any] = []
    at = _blank_end(text, at + 1)
    try:
        if text[at : at + 1] == "]":
            at += 1
        else:
            while True:
                item, at = _value(text, at)
                items.append(item)
                at = _blank_end(text, at)
                sep = text[at : at + 1]
                if sep == "]":
                    at += 1
                    break
                if sep != ",":
                    return None
                at = _blank_end(text, at + 1)
    except (ValueError, RecursionError):
        return None
    return items if not text[at:].strip(" \t\n\r") else None


def _value(text: str, at: int) -> tuple[Any, int]:
    """The item of an array that starts at text[at] (an object: its top-level members; an array: NESTED;
    a scalar: decoded) and the index just past it. Raises ValueError when it is no JSON value."""
    if text[at : at + 1] == "{":
        return _object(text, at)
    if text[at : at + 1] == "[":
        end = _nested_end(text, at)
        if end is None:
            raise ValueError("an array that never closes")
        return NESTED, end
    return _SCALARS.raw_decode(text, at)


def _object(text: str, at: int) -> tuple[dict[str, Any], int]:
    """The top-level members of the object that opens at text[at] (top_level) and the index just past its
    "}". Raises ValueError when it is no JSON object."""
    members: dict[str, Any] = {}
    at = _blank_end(text, at + 1)
    closed = text[at : at + 1] == "}"
    while not closed:
        if text[at : at + 1] != '"':
            raise ValueError("a member name must be a string")
        key, at = scanstring(text, at + 1)
        at = _blank_end(text, at)
        if text[at : at + 1] != ":":
            raise ValueError("a member name must be followed by ':'")
        at = _blank_end(text, at + 1)
        if text[at : at + 1] in ("{", "["):
            end = _nested_end(text, at)
            if end is None:
                raise ValueError("a value that never closes")
            members[key], at = NESTED, end
        else:
            members[key], at = _SCALARS.raw_decode(text, at)
        at = _blank_end(text, at)
        sep = text[at : at + 1]
        if sep not in (",", "}"):
            raise ValueError("members must be separated by ','")
        closed = sep == "}"
        at = _blank_end(text, at + 1) if not closed else at
    return members, at + 1


def _nested_end(text: str, start: int) -> int | None:
    """The index just past the object or array that opens at text[start], or None when it never closes."""
    depth, at = 0, start
    while (found := _BRACKETS.search(text, at)) is not None:
        token = found.group()
        if token == '"':
            at = scanstring(text, found.end())[1]
        elif token[0] in "[{":
            depth, at = depth + len(token), found.end()
        elif len(token) >= depth:
            return found.start() + depth
        else:
            depth, at = depth - len(token), found.end()
    return None
