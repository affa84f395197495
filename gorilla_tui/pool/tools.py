"""Function-definition files as a source (format "tools"): each function one ApiDoc (pool/functions.py
function_doc).

The shapes read, told from the content (is_tools_value):

- OpenAI ``tools``: a JSON list ``[{"type": "function", "function": {"name", "description",
  "parameters"}}]``, or an object ``{"tools": [...]}`` of those (the Responses API's flat
  ``{"type": "function", "name", "description", "parameters"}`` too);
- a bare list of function objects ``[{"name", "description", "parameters"}]`` (BFCL's function lists too);
- an MCP server's ``tools/list`` result ``{"tools": [{"name", "description", "inputSchema"}]}``, or the
  whole JSON-RPC response ``{"jsonrpc": "2.0", "id": ..., "result": {"tools": [...]}}`` (Model Context
  Protocol specification, "Tools": tools/list);
- BFCL question files: JSON Lines whose lines are ``{"id", "question", "function": [...]}`` (the Berkeley
  Function Calling Leaderboard, ../shared/bfcl/README.md). Only the functions are read, never the
  questions (eval questions must not reach the index).

A function that appears twice with the same name and the same parameters schema (BFCL repeats a function
across the questions that use it) is one doc; the same name with another schema is another doc.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from gorilla_tui import jsontext
from gorilla_tui.pool.apidoc import Diagnostic, LoadResult, SourceRejected
from gorilla_tui.pool.files import MAX_SOURCE_BYTES, read_text
from gorilla_tui.pool.functions import function_doc
from gorilla_tui.pool.openapi_refs import Resolver

#: Diagnostics kept per file, as pool/doc.py MAX_DIAGNOSTICS (the others are counted in one closing note).
MAX_DIAGNOSTICS = 50


def is_function(entry: Any) -> bool:
    """True for one function definition: an OpenAI tool ``{"type": "function", "function": {...}}``, or a
    function object with a string "name" and a "parameters", "inputSchema" or "description" and none of
    the APIBench/APIZoo fields (api_call, api_name), so an APIZoo entry is never taken for one."""
    if not isinstance(entry, dict) or "api_call" in entry or "api_name" in entry:
        return False
    if entry.get("type") == "function" and isinstance(entry.get("function"), dict):
        return True
    keys = ("parameters", "inputSchema", "description")
    return isinstance(entry.get("name"), str) and any(k in entry for k in keys)


def is_tools_value(value: Any) -> bool:
    """True when a parsed JSON value (a whole file, or the first line of a JSON Lines file) is one of the
    shapes of this module: a list whose first entry is_function; an object with a "tools" list, a JSON-RPC
    response (a "jsonrpc" member with a "result" holding "tools", or an "error"); a BFCL line (a "function"
    list beside a "question"); or one function object."""
    if isinstance(value, list):
        return bool(value) and is_function(value[0])
    if not isinstance(value, dict):
        return False
    if isinstance(value.get("tools"), list):
        return True
    if "jsonrpc" in value:
        result = value.get("result")
        return "error" in value or (isinstance(result, dict) and isinstance(result.get("tools"), list))
    if isinstance(value.get("function"), list) and "question" in value:
        return True
    return is_function(value)


def functions_of(value: Any) -> tuple[list[Any], list[str]]:
    """The entries of a parsed value (a whole file's JSON value or one JSON Lines line: the shapes of
    is_tools_value) that should be functions, and notes on it.

    Returns:
        (entries, notes): each entry an OpenAI tool's "function" object or a function object as written
        (or whatever stands in its place, for the caller to count as not a doc); notes: "note" messages
        (an MCP result with a next page).

    Raises:
        SourceRejected: a JSON-RPC error response (the server refused tools/list), or a value of no
            shape of this module; the message says why, without the file (the caller names it).
    """
    notes: list[str] = []
    if isinstance(value, dict) and "jsonrpc" in value:
        if "error" in value:
            error = value.get("error")
            message = error.get("message") if isinstance(error, dict) else error
            raise SourceRejected(f"a JSON-RPC error response, not a tools/list result: {message}")
        value = value.get("result")
    if isinstance(value, dict) and isinstance(value.get("tools"), list):
        if value.get("nextCursor"):
            notes.append("an MCP tools/list page with a nextCursor: the tools of the next pages are not here")
        value = value["tools"]
    elif isinstance(value, dict) and isinstance(value.get("function"), list):
        value = value["function"]  # a BFCL line: its functions, never its question
    elif isinstance(value, dict) and is_function(value):
        value = [value]
    if not isinstance(value, list):
        raise SourceRejected(
            "not function definitions (an OpenAI tools list, an MCP tools/list result, a BFCL function list)"
        )
    entries = [e["function"] if is_function(e) and isinstance(e.get("function"), dict) else e for e in value]
    return entries, notes


def _values(text: str) -> tuple[bool, list[tuple[int, Any]]]:
    """(is JSON Lines, [(line, value)]): the whole text as one JSON value at line 1, else each non-blank
    line as one (JSON Lines; a line that does not parse is the value None, for the caller to count as not
    a doc)."""
    try:
        return False, [(1, jsontext.decode(text))]
    except (json.JSONDecodeError, RecursionError):
        pass
    out: list[tuple[int, Any]] = []
    for lineno, line in enumerate(jsontext.split_json_lines(text), start=1):
        if line.strip():
            try:
                out.append((lineno, jsontext.decode(line)))
            except (json.JSONDecodeError, RecursionError):
                out.append((lineno, None))
    return True, out


def _skip(result: LoadResult, path: Path, line: int, message: str) -> None:
    """Count an entry that is not a function; keep its diagnostic while the file has fewer than
    MAX_DIAGNOSTICS."""
    result.not_docs += 1
    result.first_not_doc = result.first_not_doc or f"{path}:{line}"
    if result.not_docs <= MAX_DIAGNOSTICS:
        result.diagnostics.append(Diagnostic(str(path), line, "skipped", message))


def _key(function: dict[str, Any]) -> str:
    """The de-duplication key of a function: its name and its parameters schema, canonical JSON."""
    schema = function.get("parameters", function.get("inputSchema"))
    return json.dumps([function.get("name"), schema], sort_keys=True, default=str)


def _resolved(path: Path, function: dict[str, Any]) -> dict[str, Any]:
    """`function` with the ``$ref``s of its parameters schema inlined (pool/openapi_refs.py Resolver.inline,
    the schema its own document, as JSON Schema reads a ``$ref``; the ``referencing`` library resolves
    them), so a parameter typed through ``{"$ref": "#/$defs/I"}`` is type-checked as one written inline
    (break-it round 27: any value passed). ``$defs`` / ``definitions`` stay as written.

    Raises:
        SourceRejected: a ``$ref`` that points outside the schema or nowhere, or one that comes back to
            itself (a ``$ref`` chain, or ``allOf``/``anyOf``... through itself: Resolver.check_refs, the
            OpenAPI rule), so such a file is refused whole with one line instead of indexed with a
            parameter whose type is never known (break-it rounds 26, 27).
    """
    key = "parameters" if "parameters" in function else "inputSchema"
    schema = function.get(key)
    if not isinstance(schema, dict) or "$ref" not in json.dumps(schema):
        return function
    try:
        resolver = Resolver(path, schema)
        resolver.check_refs()
        inlined = {k: v if k in _DEFINITIONS else resolver.inline(v) for k, v in schema.items()}
    except SourceRejected as e:
        name = str(function.get("name") or "?")[:80]
        raise SourceRejected(str(e).replace(f"{path}: ", f"{path}: function {name!r}: ", 1)) from None
    return {**function, key: inlined}


#: Where a schema keeps the subschemas its ``$ref``s name (JSON Schema 2020-12 ``$defs``; draft 7's name).
_DEFINITIONS = frozenset({"$defs", "definitions"})


def load_tools(path: str | Path, source: str, max_bytes: int = MAX_SOURCE_BYTES) -> LoadResult:
    """Load a file of function definitions (the shapes of this module's docstring) as ApiDocs, one per
    distinct function (name and parameters schema), ids "<source>:<n>" in file order.

    An entry that is not a function (no name, a name with no letter or digit) and a JSON Lines line that
    does not parse are counted in not_docs with a "skipped" diagnostic naming the line (pool/doc.py
    load_paths refuses the source when they outnumber the docs).

    Raises:
        SourceRejected: more than max_bytes, not a regular file, a JSON-RPC error response, a JSON value
            of no shape of this module, a function whose parameters schema has a ``$ref`` cycle, or one
            that points outside it or nowhere (_resolved, the OpenAPI rule).
    """
    path = Path(path)
    result = LoadResult()
    text = read_text(path, result, max_bytes)
    if text is None:
        return result
    seen: set[str] = set()
    lines, values = _values(text)
    for line, value in values:
        if value is None:
            _skip(result, path, line, "invalid JSON (a line of a JSON Lines file of function definitions)")
            continue
        try:
            entries, notes = functions_of(value)
        except SourceRejected as e:
            if not lines:  # the whole file is one value of no shape of this module, or an error response
                raise SourceRejected(f"{path}: {e}") from None
            _skip(result, path, line, str(e))
            continue
        result.diagnostics.extend(Diagnostic(str(path), line, "note", n) for n in notes)
        for function in entries:
            if not isinstance(function, dict):
                _skip(result, path, line, f"expected a function object, got {type(function).__name__}")
                continue
            key = _key(function)
            if key in seen:
                continue
            function = _resolved(path, function)  # a cycle: refused whole, as an OpenAPI document (R26)
            try:
                doc = function_doc(function, source=source, index=len(result.docs) + 1)
            except ValueError as e:
                _skip(result, path, line, str(e))
                continue
            seen.add(key)
            result.docs.append(doc)
    if result.not_docs > MAX_DIAGNOSTICS:
        more = result.not_docs - MAX_DIAGNOSTICS
        result.diagnostics.append(Diagnostic(str(path), 0, "note", f"{more} more entries not loaded"))
    return result
