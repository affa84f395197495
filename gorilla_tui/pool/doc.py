"""Tolerant loaders of the API pool: APIBench JSONL, APIZoo JSON and user JSONL, one file or a source of
files and folders, each record checked for the fields its format requires; function definitions (OpenAI
tools, MCP tools/list, BFCL function lists: pool/tools.py) and OpenAPI 3 documents (pool/openapi.py) are
read by the modules of their own named in FORMAT_LOADERS. A file's format is told from its content
(detect_format).

The doc itself and the load report live in pool/apidoc.py (ApiDoc, Diagnostic, LoadResult,
SourceRejected), field normalisation in pool/fields.py, safe bounded file reading in pool/files.py; their
public names are importable from here as before."""

from __future__ import annotations

import json
import os
import stat
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from gorilla_tui import jsontext
from gorilla_tui.pool.apidoc import ApiDoc, Diagnostic, LoadResult, SourceRejected
from gorilla_tui.pool.fields import (
    check_python,
    doc_from_record,
    is_empty,
    make_doc,
    normalise_arguments,
    normalise_code,
    normalise_requirements,
)
from gorilla_tui.pool.files import (
    MAX_SOURCE_BYTES,
    checked_stat,
    doc_files,
    file_kind,
    jsonl_lines,
    open_regular,
    read_text,
    source_files,
    too_big,
)
from gorilla_tui.pool.lenient_json import entry_chunks, repair_json
from gorilla_tui.pool.openapi import is_openapi_value, load_openapi, looks_like_openapi_yaml
from gorilla_tui.pool.tools import is_function, is_tools_value, load_tools

__all__ = [
    "FORMATS",
    "FORMAT_LOADERS",
    "MAX_DIAGNOSTICS",
    "MAX_SOURCE_BYTES",
    "REQUIRED_FIELDS",
    "TOO_DEEP",
    "ApiDoc",
    "Diagnostic",
    "LoadResult",
    "SourceRejected",
    "check_python",
    "detect_format",
    "doc_files",
    "doc_from_record",
    "is_question_set",
    "load_apizoo",
    "load_file",
    "load_jsonl",
    "load_paths",
    "normalise_arguments",
    "normalise_code",
    "normalise_requirements",
    "source_files",
]

#: Formats read by a module of their own: format -> loader(path, source, max_bytes) -> LoadResult, raising
#: SourceRejected for a file refused whole. "tools": function definitions (pool/tools.py); "openapi": an
#: OpenAPI 3 document, JSON or YAML (pool/openapi.py). detect_format tells them from their content.
FORMAT_LOADERS: dict[str, Callable[[Path, str, int], LoadResult]] = {
    "tools": load_tools,
    "openapi": load_openapi,
}
#: Formats a loader understands. "apibench" and "jsonl" share one reader (one JSON object per line, the
#: APIBench field names); "apizoo" is a JSON list of APIZoo entries
#: (github.com/ShishirPatil/gorilla, data/apizoo); then FORMAT_LOADERS'.
FORMATS = ("apibench", "apizoo", "jsonl", *FORMAT_LOADERS)
#: Diagnostics kept per file; the others are counted in one closing diagnostic (a 2.76-million-line
#: garbage file once made a 491 MB meta.json, issue 17).
MAX_DIAGNOSTICS = 50
#: Fields a record needs to become a doc, per format: every one a non-empty string. "jsonl" (user docs)
#: needs only the call; "apibench": each of the 1,726 lines of the three APIBench *_api.jsonl pools
#: (gorilla-llm/APIBench) has api_call, api_name and domain as strings; "apizoo": every entry of the APIZoo
#: files (gorilla data/apizoo) names its API in api_name.
REQUIRED_FIELDS = {"apibench": ("api_call", "api_name", "domain"), "apizoo": ("api_call", "api_name"),
                   "jsonl": ("api_call",)}  # fmt: skip


def _not_doc(result: LoadResult, path: Path, line: int, message: str) -> None:
    """Count a line or entry that is not a doc; keep its diagnostic while the file has fewer than
    MAX_DIAGNOSTICS (a closing summary is added by _close_diagnostics)."""
    result.not_docs += 1
    result.first_not_doc = result.first_not_doc or f"{path}:{line}"
    if result.not_docs <= MAX_DIAGNOSTICS:
        result.diagnostics.append(Diagnostic(str(path), line, "skipped", message))


def _close_diagnostics(result: LoadResult, path: Path) -> LoadResult:
    if result.not_docs > MAX_DIAGNOSTICS:
        more = result.not_docs - MAX_DIAGNOSTICS
        result.diagnostics.append(
            Diagnostic(str(path), 0, "note", f"{more} more lines or entries not loaded")
        )
    return result


def _missing_fields(rec: dict[str, Any], fmt: str) -> list[str]:
    """The REQUIRED_FIELDS of `fmt` that `rec` lacks or has empty or not as a string."""
    return [
        f
        for f in REQUIRED_FIELDS[fmt]
        if not isinstance(rec.get(f), str) or is_empty(rec[f]) or not rec[f].strip()
    ]


def _add(result: LoadResult, path: Path, line: int, rec: Any, source: str, fmt: str) -> None:
    if not isinstance(rec, dict):
        _not_doc(result, path, line, f"expected a JSON object, got {type(rec).__name__}")
        return
    missing = _missing_fields(rec, fmt)
    if missing:
        what = (
            "no api_call" if missing == ["api_call"] else f"no {', '.join(missing)} (required in {fmt} docs)"
        )
        _not_doc(result, path, line, what)
        return
    doc = make_doc(rec, source, line, fmt == "apizoo")
    if doc.flagged:
        fixed = f" (repaired: {doc.repaired[:80]})" if doc.repaired else ""
        result.diagnostics.append(
            Diagnostic(str(path), line, "flagged", f"{doc.flagged}: {doc.api_call[:80]}{fixed}")
        )
    result.docs.append(doc)


def load_jsonl(
    path: str | Path, source: str, fmt: str = "jsonl", max_bytes: int = MAX_SOURCE_BYTES
) -> LoadResult:
    """Load a JSON Lines file of APIBench-shaped records (APIBench *_api.jsonl, or user docs), streamed.

    A line becomes a doc only with the REQUIRED_FIELDS of `fmt` ("jsonl" or "apibench"); every other
    non-blank line is counted in not_docs (a diagnostic names file and line for the first MAX_DIAGNOSTICS).
    Raises SourceRejected for a path that is not a regular file or holds more than max_bytes; an unreadable,
    binary or empty file yields a "skipped" diagnostic and no docs.
    """
    path = Path(path)
    result = LoadResult()
    for lineno, raw in jsonl_lines(path, result, max_bytes):
        if not raw.lstrip().startswith(b"{"):  # cheap: a garbage file has millions of these lines
            _not_doc(result, path, lineno, "not a JSON object (the line does not start with '{')")
            continue
        try:
            rec = jsontext.decode(raw.decode("utf-8"))
        except UnicodeDecodeError as e:
            _not_doc(result, path, lineno, f"not UTF-8 text (byte {e.start})")
            continue
        except json.JSONDecodeError as e:
            _not_doc(result, path, lineno, f"invalid JSON: {e.msg}")
            continue
        except RecursionError:  # json's C decoder recurses per nesting level
            _not_doc(result, path, lineno, TOO_DEEP)
            continue
        _add(result, path, lineno, rec, source, fmt if fmt in ("apibench", "jsonl") else "jsonl")
    return _close_diagnostics(result, path)


#: The diagnostic for JSON nested deeper than Python's recursion limit (json.loads raises RecursionError).
TOO_DEEP = "invalid JSON: nested deeper than Python's recursion limit"


def load_apizoo(path: str | Path, source: str, max_bytes: int = MAX_SOURCE_BYTES) -> LoadResult:
    """Load an APIZoo file: a JSON list of entries (user_name, api_name, api_call, api_arguments, ...).

    Strict JSON first. Otherwise each top-level entry is parsed on its own after repairing the slips common
    in hand-written APIZoo files (trailing commas, a missing comma between entries, raw newlines in
    strings): repaired entries are loaded with a "flagged" diagnostic, an entry still broken is skipped
    with a diagnostic giving its line, and the rest of the file loads. A single object is accepted as a
    one-entry list. Doc ids use the 1-based entry index. An entry becomes a doc only with the
    REQUIRED_FIELDS of "apizoo". Raises SourceRejected (not a regular file, more than max_bytes).
    """
    path = Path(path)
    result = LoadResult()
    text = read_text(path, result, max_bytes)
    if text is None:
        return result
    first_error: json.JSONDecodeError | None = None
    try:
        data = jsontext.decode(text)
    except json.JSONDecodeError as e:
        first_error = e
    except RecursionError:
        pass  # one entry nested too deep: the others are read one by one below
    else:
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "expected a JSON list of entries"))
            return result
        if not data:
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty list"))
        for index, rec in enumerate(data, start=1):
            _add(result, path, index, rec, source, "apizoo")
        return _close_diagnostics(result, path)
    chunks = entry_chunks(text)
    if not chunks:
        if first_error is None:
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", TOO_DEEP))
            return result
        msg = f"invalid JSON: {first_error.msg} (column {first_error.colno})"
        result.diagnostics.append(Diagnostic(str(path), first_error.lineno, "skipped", msg))
        return result
    for index, (line, chunk) in enumerate(chunks, start=1):
        try:
            rec = jsontext.decode(chunk)
        except RecursionError:
            _not_doc(result, path, line, f"entry {index}: {TOO_DEEP}")
            continue
        except json.JSONDecodeError:
            try:
                rec = jsontext.decode(repair_json(chunk), strict=False)
            except RecursionError:
                _not_doc(result, path, line, f"entry {index}: {TOO_DEEP}")
                continue
            except json.JSONDecodeError as e:
                msg = f"entry {index}: invalid JSON at line {line + e.lineno - 1}: {e.msg}"
                _not_doc(result, path, line, msg)
                continue
            msg = f"entry {index}: repaired (trailing or missing commas, raw newlines in strings)"
            result.diagnostics.append(Diagnostic(str(path), line, "repaired", msg))
        _add(result, path, index, rec, source, "apizoo")
    return _close_diagnostics(result, path)


#: Bytes of a file detect_format reads first: a JSON list's first entry, a JSON Lines file's first line and a
#: YAML document's top-level keys are in them (a file whose first entry or line is longer is read whole).
DETECT_BYTES = 1 << 16


def detect_format(path: Path, max_bytes: int = MAX_SOURCE_BYTES) -> str:
    """Tell a file's format from its content (never from its name):

    - "openapi": a JSON object with an "openapi" or "swagger" member, or text with a top-level
      ``openapi:`` or ``swagger:`` key (YAML) (pool/openapi.py);
    - "tools": function definitions (pool/tools.py is_tools_value): a JSON list whose first entry is a
      function, an object with a "tools" list, a JSON-RPC response, JSON Lines of BFCL questions;
    - "apizoo": any other JSON list (its first non-blank character is '[');
    - "jsonl": anything else (APIBench and user JSON Lines; lines that are not docs are counted there).

    A JSON file is judged by its first value: the first line, or the whole file (at most max_bytes) when
    the first line is not a JSON value on its own (an indented object). An unreadable file is "jsonl"
    (its load says why)."""
    try:
        with open_regular(path, max_bytes) as fh:
            head = fh.read(DETECT_BYTES).decode("utf-8-sig", "replace").lstrip()
    except (OSError, SourceRejected):
        return "jsonl"
    if head.startswith("["):
        first = _first_value(path, head, 1, max_bytes)
        return "tools" if is_function(first) else "apizoo"
    if head.startswith("{"):
        value = _first_value(path, head.split("\n", 1)[0], 0, max_bytes, whole=True)
        if is_openapi_value(value):
            return "openapi"
        return "tools" if is_tools_value(value) else "jsonl"
    return "openapi" if looks_like_openapi_yaml(head) else "jsonl"


def _first_value(path: Path, head: str, start: int, max_bytes: int, whole: bool = False) -> object:
    """The first JSON value of `head` from index `start` (after white space), else of the whole file (read
    at most max_bytes; decoded from `start`, or parsed whole when `whole`); None when neither parses."""
    decoder = json.JSONDecoder()
    for attempt in (0, 1):
        if attempt:
            try:
                with open_regular(path, max_bytes) as fh:
                    raw = fh.read(max_bytes + 1)
            except (OSError, SourceRejected):
                return None
            if len(raw) > max_bytes:
                return None
            head = raw.decode("utf-8-sig", "replace").lstrip()
        try:
            if whole and attempt:
                return jsontext.decode(head)
            text = head[start:].lstrip()
            return decoder.raw_decode(text)[0]
        except (ValueError, RecursionError):  # ValueError: a number longer than Python converts too
            continue
    return None


def is_question_set(path: Path) -> bool:
    """True when `path` is an APIBench question set (an eval or training split: JSON Lines whose objects have
    "code" and "api_data"), judged by its first non-empty line (read at most 1 MiB). Unreadable or over a
    source's size limit (MAX_SOURCE_BYTES): False."""
    try:
        with open_regular(path, MAX_SOURCE_BYTES) as fh:
            for _ in range(1000):  # a file of blank lines is not a question set
                raw = fh.readline((1 << 20) + 1)
                line = raw.decode("utf-8", "replace").strip()
                if line or not raw:
                    break
            if not line:
                return False
    except (OSError, SourceRejected):
        return False
    if not line.startswith("{") or len(line) > 1 << 20:
        return False
    try:
        row = jsontext.decode(line)
    except (ValueError, RecursionError):
        return False
    return isinstance(row, dict) and "api_data" in row and "code" in row


def load_file(
    path: str | Path, source: str, fmt: str | None = None, max_bytes: int = MAX_SOURCE_BYTES
) -> LoadResult:
    """Load one file in `fmt` (one of FORMATS, or None to detect), reading at most max_bytes.

    Raises ValueError for an unknown fmt, SourceRejected (a ValueError) for a path that is not a regular
    file (checked before it is opened: a FIFO never blocks, /dev/zero is never read) or a file over
    max_bytes; a missing or unreadable file gives a "skipped" diagnostic and no docs. An APIBench
    question set (is_question_set: an eval or training split) is never loaded as docs: eval questions
    must not reach the index (issue 7); the result is one "skipped" diagnostic."""
    path = Path(path)
    try:
        st = os.stat(path)
    except OSError as e:  # missing or unreadable: a "skipped" diagnostic, as for any unreadable file
        return LoadResult(
            diagnostics=[Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}")]
        )
    if not stat.S_ISREG(st.st_mode):
        raise SourceRejected(f"{path}: not a regular file ({file_kind(st.st_mode)}); only files are read")
    if st.st_size > max_bytes:
        raise too_big(path, max_bytes)
    fmt = fmt or detect_format(path, max_bytes)
    if fmt not in FORMATS:
        raise ValueError(f"unknown doc format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if is_question_set(path):
        why = "an APIBench question set (eval or training split), not API docs: not indexed"
        return LoadResult(diagnostics=[Diagnostic(path.name, 0, "skipped", why)])
    if fmt == "apizoo":
        return load_apizoo(path, source, max_bytes)
    if fmt in FORMAT_LOADERS:
        return FORMAT_LOADERS[fmt](path, source, max_bytes)
    return load_jsonl(path, source, fmt, max_bytes)


def load_paths(
    paths: Iterable[str | Path], source: str, fmt: str | None = None, max_bytes: int = MAX_SOURCE_BYTES
) -> LoadResult:
    """Load files and folders (a folder: every *.json / *.jsonl inside, symbolic links out of it left out
    and named as "skipped" diagnostics) into one result under `source`.

    Doc ids stay unique across files: a file other than the first gets "<source>:<file stem>:<line>".
    The source is validated before and while it is read, and refused whole (SourceRejected, one line):
    a path that is not a regular file or folder; more than max_bytes in all (sizes from os.stat, then
    bounded reads); more lines or entries that are not docs than docs (with their count and the first bad
    line), which is how a garbage file with a few valid lines is told from a doc file with a few slips.
    """
    skipped: list[Diagnostic] = []  # links out of a folder (pool/files.py doc_files): named, not read
    files = source_files(paths, skipped)
    total = sum(checked_stat(f).st_size for f in files)
    if total > max_bytes:
        what = files[0] if len(files) == 1 else f"{source} ({len(files)} files)"
        raise too_big(what, max_bytes)
    result = LoadResult(diagnostics=skipped)
    for f in files:
        part = load_file(f, source, fmt, max_bytes)
        if len(files) > 1:
            for d in part.docs:
                d.id = f"{source}:{f.stem}:{d.id.rsplit(':', 1)[1]}"
        result.extend(part)
    if result.not_docs > len(result.docs):
        units = result.not_docs + len(result.docs)
        raise SourceRejected(
            f"{source}: {result.not_docs} of {units} lines or entries are not docs"
            f" (first bad line: {result.first_not_doc})"
        )
    return result
