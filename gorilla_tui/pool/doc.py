"""ApiDoc, the unit of the API pool, and tolerant loaders for APIBench JSONL, APIZoo JSON and user JSONL."""

from __future__ import annotations

import ast
import copy
import json
import os
import re
import stat
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field, fields
from pathlib import Path
from typing import Any

from gorilla_tui.parsing import parse, syntax_problem
from gorilla_tui.pool.lenient_json import entry_chunks, repair_json
from gorilla_tui.pool.repair import repair_call, unquoted_ids

#: Formats a loader understands. "apibench" and "jsonl" share one reader (one JSON object per line, the
#: APIBench field names); "apizoo" is a JSON list of APIZoo entries
#: (github.com/ShishirPatil/gorilla, data/apizoo).
FORMATS = ("apibench", "apizoo", "jsonl")

#: Default size limit of one source (all its files together), in bytes; `index --refresh --max-source-mb`
#: raises it. The largest APIBench pool (huggingface_api.jsonl) is 1.06 MB, so 64 MB is 60 times that;
#: a 200 MB garbage file once took a refresh to 5.2 GB of memory (issue 17).
MAX_SOURCE_BYTES = 64_000_000
#: Diagnostics kept per file; the others are counted in one closing diagnostic (a 2.76-million-line
#: garbage file once made a 491 MB meta.json, issue 17).
MAX_DIAGNOSTICS = 50
#: Fields a record needs to become a doc, per format: every one a non-empty string. "jsonl" (user docs)
#: needs only the call; "apibench": each of the 1,726 lines of the three APIBench *_api.jsonl pools
#: (gorilla-llm/APIBench) has api_call, api_name and domain as strings; "apizoo": every entry of the APIZoo
#: files (gorilla data/apizoo) names its API in api_name.
REQUIRED_FIELDS = {"apibench": ("api_call", "api_name", "domain"), "apizoo": ("api_call", "api_name"),
                   "jsonl": ("api_call",)}  # fmt: skip

_REST_RE = re.compile(r"^\s*(GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS)\s+(/\S*)", re.IGNORECASE)
_EMPTY_MARKERS = {"", "n/a", "na", "none", "null", "not provided", "-"}


@dataclass
class ApiDoc:
    """One API of the pool.

    Fields follow APIBench (Patil et al. 2023, arXiv 2305.15334, dataset gorilla-llm/APIBench), normalised:
    api_arguments is always a dict name -> description/default (a list of names maps each name to ""),
    env_requirements a list of strings, example_code one string. performance keeps the source's raw JSON
    value (numbers, strings or nested dicts; issue "constraints" normalises it). `id` is "<source>:<line>"
    (line = 1-based line of a JSONL file, or 1-based entry index of a JSON list) and is unique in a pool.
    kind: "python" (a Python call), "rest" (an HTTP method and path template, e.g. ``GET /v1/users/{id}``).
    flagged: None, or why the api_call is not valid Python (the doc stays searchable).
    repaired: for a flagged doc, a Python-valid call of the same API (pool/repair.py: the api_call without a
    trailing ".", or the call of its example_code with the entry's own values), else None. The validator
    matches it, select mode proposes it, the doc view shows api_call (the original) beside it.
    """

    id: str
    source: str
    api_call: str
    api_name: str = ""
    domain: str = ""
    framework: str = ""
    functionality: str = ""
    api_arguments: dict[str, str] = field(default_factory=dict)
    env_requirements: list[str] = field(default_factory=list)
    example_code: str = ""
    performance: Any = None
    description: str = ""
    questions: list[str] = field(default_factory=list)
    api_version: str = ""
    kind: str = "python"
    flagged: str | None = None
    repaired: str | None = None

    @property
    def call(self) -> str:
        """The call to match and propose: the repaired call of a flagged doc, else api_call."""
        return self.repaired or self.api_call

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the inverse of :meth:`from_dict`): the fields in declaration order, as
        dataclasses.asdict gives them, but built directly (asdict's recursive deep copy was a fifth of a
        refresh's time: writing docs.json and the validator lookup call this twice per doc)."""
        out = {name: getattr(self, name) for name in _FIELDS}
        out["api_arguments"] = dict(self.api_arguments)
        out["env_requirements"] = list(self.env_requirements)
        out["questions"] = list(self.questions)
        if isinstance(self.performance, (dict, list)):
            out["performance"] = copy.deepcopy(self.performance)
        return out

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> ApiDoc:
        """Rebuild an ApiDoc from :meth:`to_dict` output (unknown keys are ignored)."""
        names = cls.__dataclass_fields__.keys()
        return cls(**{k: v for k, v in d.items() if k in names})

    @property
    def rest(self) -> tuple[str, str] | None:
        """(METHOD, path template) for a REST doc, else None."""
        m = _REST_RE.match(self.api_call)
        return (m.group(1).upper(), m.group(2)) if m else None


#: ApiDoc's field names in declaration order (ApiDoc.to_dict).
_FIELDS = tuple(f.name for f in fields(ApiDoc))


@dataclass(frozen=True)
class Diagnostic:
    """A problem found while loading. severity: "skipped" (entry or file not loaded), "flagged" (loaded, but
    its api_call is not valid Python), "repaired" (loaded after fixing non-strict JSON) or "note" (for
    information, e.g. a source's training questions were not found). line is 1-based,
    0 for the whole file."""

    file: str
    line: int
    severity: str
    message: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line else self.file
        return f"{where}: {self.severity}: {self.message}"


@dataclass
class LoadResult:
    """What a loader returns: the docs it kept and every diagnostic, in file order."""

    docs: list[ApiDoc] = field(default_factory=list)
    diagnostics: list[Diagnostic] = field(default_factory=list)
    #: lines (JSONL) or entries (APIZoo) that did not become a doc, counted even past MAX_DIAGNOSTICS
    not_docs: int = 0
    #: "file:line" of the first of them ("" when none)
    first_not_doc: str = ""

    @property
    def flagged(self) -> int:
        return sum(1 for d in self.docs if d.flagged)

    @property
    def repaired(self) -> int:
        """Flagged docs that have a repaired call (ApiDoc.repaired)."""
        return sum(1 for d in self.docs if d.flagged and d.repaired)

    @property
    def skipped(self) -> int:
        """Lines or entries not loaded plus whole files not loaded (empty, binary, unreadable)."""
        return self.not_docs + sum(1 for d in self.diagnostics if d.severity == "skipped" and not d.line)

    def extend(self, other: LoadResult) -> None:
        self.docs.extend(other.docs)
        self.diagnostics.extend(other.diagnostics)
        self.not_docs += other.not_docs
        self.first_not_doc = self.first_not_doc or other.first_not_doc


class SourceRejected(ValueError):
    """A source refused whole before it reaches the index: a path that is not a regular file or a folder
    of them (a FIFO, /dev/zero), a source over its size limit, or one whose lines are mostly not docs. The
    message is one line naming the path and why."""


# ---------------------------------------------------------------------------------------------------------
# field normalisation


def _text(value: Any) -> str:
    """Any JSON value as display text: strings as they are, lists joined by newlines, dicts as k: v lines."""
    if value is None:
        return ""
    if isinstance(value, str):
        return value
    if isinstance(value, list):
        return "\n".join(_text(v) for v in value)
    if isinstance(value, dict):
        return "\n".join(f"{k}: {_text(v)}" for k, v in value.items())
    return str(value)


def _is_empty(value: Any) -> bool:
    return value is None or (isinstance(value, str) and value.strip().lower() in _EMPTY_MARKERS)


def normalise_arguments(value: Any) -> dict[str, str]:
    """api_arguments of any APIBench shape -> {name: description or default}.

    dict: keys kept, values as text; list: each string is a name, each dict with "name" gives name ->
    the rest; a string: one name (or comma-separated names); null / "N/A" / "": {}.
    """
    if _is_empty(value):
        return {}
    if isinstance(value, dict):
        return {str(k): _text(v) for k, v in value.items()}
    if isinstance(value, list):
        out: dict[str, str] = {}
        for item in value:
            if isinstance(item, dict) and "name" in item:
                rest = {k: v for k, v in item.items() if k != "name"}
                out[str(item["name"])] = _text(rest)
            elif isinstance(item, dict):
                out.update({str(k): _text(v) for k, v in item.items()})
            elif not _is_empty(item):
                out[_text(item)] = ""
        return out
    text = _text(value).strip()
    if "(" not in text and "," in text:
        return {part.strip(): "" for part in text.split(",") if part.strip()}
    return {text: ""}


def normalise_requirements(value: Any) -> list[str]:
    """python_environment_requirements / env_requirements -> list of requirement strings.

    A string is split on commas; a dict {name: version} becomes "name version" items.
    """
    if _is_empty(value):
        return []
    if isinstance(value, list):
        return [t for t in (_text(v).strip() for v in value) if t]
    if isinstance(value, dict):
        return [f"{k} {_text(v)}".strip() if not _is_empty(v) else str(k) for k, v in value.items()]
    return [p.strip() for p in _text(value).split(",") if p.strip()]


def normalise_code(value: Any) -> str:
    """example_code (string, list of lines, dict of snippets, null, "N/A") -> one string."""
    if _is_empty(value):
        return ""
    if isinstance(value, dict):
        return "\n".join(_text(v) for v in value.values())
    return _text(value)


def check_python(api_call: str) -> tuple[str, str | None]:
    """Classify an api_call: returns (kind, flag) where kind is "python" or "rest" and flag is None or the
    reason it is not valid Python (tree-sitter-python: an ERROR or MISSING node; then ``ast.parse``, the
    running Python's parser) or holds a repo id without quotes (pool/repair.py unquoted_ids)."""
    if _REST_RE.match(api_call):
        return "rest", None
    if not api_call.strip():
        return "python", "empty api_call"

    problem = syntax_problem(parse(api_call).root_node)
    if problem is None:
        try:  # Python's own parser is the last word (tree-sitter recovers from some errors silently)
            ast.parse(api_call)
        except SyntaxError as e:
            return "python", f"not valid Python ({e.lineno}:{e.offset}: {e.msg})"
        except (ValueError, RecursionError, MemoryError) as e:
            return "python", f"not valid Python ({e})"
        unquoted = unquoted_ids(api_call)
        if unquoted:
            return "python", f"model id not quoted: {unquoted[0][2]} (Python reads it as arithmetic)"
        return "python", None
    if re.match(r"^\s*(\./|[\w.-]+\s+--)", api_call):
        return "python", "not valid Python (a shell command)"
    return "python", f"not valid Python ({problem})"


def _make_doc(rec: dict[str, Any], source: str, line: int, apizoo: bool) -> ApiDoc:
    api_call = _text(rec.get("api_call")).strip()
    kind, flag = check_python(api_call)
    if apizoo:
        meta = rec.get("meta_data") or rec.get("metadata") or {}
        meta = meta if isinstance(meta, dict) else {"description": meta}
        description = _text(meta.get("description") or rec.get("description"))
        domain = _text(meta.get("category") or rec.get("domain"))
        framework = _text(rec.get("framework") or rec.get("user_name"))
        requirements = rec.get("env_requirements")
        performance = meta.get("performance") if "performance" in meta else rec.get("performance")
        questions = rec.get("questions") or []
    else:
        description = _text(rec.get("description"))
        domain = _text(rec.get("domain"))
        framework = _text(rec.get("framework") or rec.get("provider"))
        requirements = rec.get("python_environment_requirements", rec.get("env_requirements"))
        performance = rec.get("performance")
        questions = rec.get("questions") or []
    return ApiDoc(
        id=f"{source}:{line}",
        source=source,
        api_call=api_call,
        api_name=_text(rec.get("api_name")).strip(),
        domain=domain.strip(),
        framework=framework.strip(),
        functionality=_text(rec.get("functionality")).strip(),
        api_arguments=normalise_arguments(rec.get("api_arguments")),
        env_requirements=normalise_requirements(requirements),
        example_code=normalise_code(rec.get("example_code")),
        performance=performance,
        description=description.strip(),
        questions=[_text(q).strip() for q in questions if not _is_empty(q)]
        if isinstance(questions, list)
        else [_text(questions)],
        api_version=_text(rec.get("api_version")).strip(),
        kind=kind,
        flagged=flag,
        repaired=_repaired(api_call, rec.get("example_code")) if flag else None,
    )


def _repaired(api_call: str, example_code: Any) -> str | None:
    fixed = repair_call(api_call, normalise_code(example_code))
    return fixed[0] if fixed else None


# ---------------------------------------------------------------------------------------------------------
# readers


def _open_regular(path: Path):
    """Open `path` for binary reading only when it is a regular file (checked with os.stat first, so a FIFO
    is never opened: opening one blocks until a writer comes). Raises SourceRejected or OSError."""
    st = os.stat(path)
    if not stat.S_ISREG(st.st_mode):
        raise SourceRejected(f"{path}: not a regular file ({_file_kind(st.st_mode)}); only files are read")
    return open(path, "rb")  # noqa: SIM115 - the caller closes it


def _file_kind(mode: int) -> str:
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def _too_big(what: Path | str, max_bytes: int) -> SourceRejected:
    limit = f"{max_bytes / 1e6:g} MB"
    return SourceRejected(
        f"{what}: more than {limit}, the size limit of one source (raise it with --max-source-mb)"
    )


def _read_text(path: Path, result: LoadResult, max_bytes: int = MAX_SOURCE_BYTES) -> str | None:
    """File text with a UTF-8 BOM removed, reading at most max_bytes (SourceRejected beyond: a file that
    grew after it was measured); None (and a "skipped" diagnostic) for unreadable, binary or empty files."""
    try:
        with _open_regular(path) as fh:
            raw = fh.read(max_bytes + 1)
    except OSError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        return None
    if len(raw) > max_bytes:
        raise _too_big(path, max_bytes)
    if b"\x00" in raw[:8192]:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "binary file (NUL bytes), not JSON"))
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"not UTF-8 text (byte {e.start})"))
        return None
    if not text.strip():
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty file"))
        return None
    return text


def _lines(path: Path, result: LoadResult, max_bytes: int) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw line) of a JSONL file, streamed: memory holds one line, and at most
    max_bytes are read (SourceRejected beyond). A binary (NUL bytes in the first 8 KiB), unreadable or
    empty file yields nothing and leaves a "skipped" diagnostic."""
    try:
        fh = _open_regular(path)
    except OSError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        return
    with fh:
        if b"\x00" in fh.peek(8192)[:8192]:
            result.diagnostics.append(
                Diagnostic(str(path), 0, "skipped", "binary file (NUL bytes), not JSON")
            )
            return
        left, lineno, any_text = max_bytes, 0, False
        while True:
            raw = fh.readline(left + 1)
            if not raw:
                break
            left -= len(raw)
            if left < 0:
                raise _too_big(path, max_bytes)
            lineno += 1
            if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                raw = raw[3:]
            if raw.strip():
                any_text = True
                yield lineno, raw
        if not any_text:
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty file"))


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
        if not isinstance(rec.get(f), str) or _is_empty(rec[f]) or not rec[f].strip()
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
    doc = _make_doc(rec, source, line, fmt == "apizoo")
    if doc.flagged:
        fixed = f" (repaired: {doc.repaired[:80]})" if doc.repaired else ""
        result.diagnostics.append(
            Diagnostic(str(path), line, "flagged", f"{doc.flagged}: {doc.api_call[:80]}{fixed}")
        )
    result.docs.append(doc)


def doc_from_record(rec: dict[str, Any], source: str, line: int = 0) -> ApiDoc:
    """One APIBench-shaped record (e.g. an eval line's api_data) -> ApiDoc, normalised as load_jsonl does
    (id "<source>:<line>"). Raises ValueError when rec is not a dict or has no api_call."""
    if not isinstance(rec, dict) or not _text(rec.get("api_call")).strip():
        raise ValueError("an API record needs a non-empty api_call")
    return _make_doc(rec, source, line, apizoo=False)


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
    for lineno, raw in _lines(path, result, max_bytes):
        if not raw.lstrip().startswith(b"{"):  # cheap: a garbage file has millions of these lines
            _not_doc(result, path, lineno, "not a JSON object (the line does not start with '{')")
            continue
        try:
            rec = json.loads(raw.decode("utf-8"))
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
    text = _read_text(path, result, max_bytes)
    if text is None:
        return result
    first_error: json.JSONDecodeError | None = None
    try:
        data = json.loads(text)
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
            rec = json.loads(chunk)
        except RecursionError:
            _not_doc(result, path, line, f"entry {index}: {TOO_DEEP}")
            continue
        except json.JSONDecodeError:
            try:
                rec = json.loads(repair_json(chunk), strict=False)
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


def detect_format(path: Path) -> str:
    """Guess a file's format: "apizoo" when its first non-blank character is '[', else "jsonl"."""
    try:
        with _open_regular(path) as fh:
            head = fh.read(4096).decode("utf-8-sig", "replace").lstrip()
    except (OSError, SourceRejected):
        return "jsonl"
    return "apizoo" if head.startswith("[") else "jsonl"


def is_question_set(path: Path) -> bool:
    """True when `path` is an APIBench question set (an eval or training split: JSON Lines whose objects have
    "code" and "api_data"), judged by its first non-empty line (read at most 1 MiB). Unreadable: False."""
    try:
        with _open_regular(path) as fh:
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
        row = json.loads(line)
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
        raise SourceRejected(f"{path}: not a regular file ({_file_kind(st.st_mode)}); only files are read")
    if st.st_size > max_bytes:
        raise _too_big(path, max_bytes)
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown doc format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if is_question_set(path):
        why = "an APIBench question set (eval or training split), not API docs: not indexed"
        return LoadResult(diagnostics=[Diagnostic(path.name, 0, "skipped", why)])
    if fmt == "apizoo":
        return load_apizoo(path, source, max_bytes)
    return load_jsonl(path, source, fmt, max_bytes)


def _stat(path: Path) -> os.stat_result:
    """os.stat of a doc file; SourceRejected when it is missing, unreadable or not a regular file."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise SourceRejected(f"{path}: cannot read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceRejected(f"{path}: not a regular file ({_file_kind(st.st_mode)}); only files are read")
    return st


def doc_files(folder: Path) -> list[Path]:
    """The doc files in a folder (*.json, *.jsonl, any case, regular files only), sorted, not recursive."""
    return sorted(p for p in folder.iterdir() if p.suffix.lower() in (".json", ".jsonl") and _regular(p))


def _regular(path: Path) -> bool:
    try:
        return stat.S_ISREG(os.stat(path).st_mode)
    except OSError:
        return False


def source_files(paths: Iterable[str | Path]) -> list[Path]:
    """The files a source reads: each path a regular file, or a folder (its doc_files). Checked with
    os.stat, never opened. Raises SourceRejected for anything else (FIFO, device, socket, missing)."""
    files: list[Path] = []
    for p in map(Path, paths):
        try:
            st = os.stat(p)
        except OSError as e:
            raise SourceRejected(f"{p}: cannot read ({e.strerror or e})") from None
        if stat.S_ISDIR(st.st_mode):
            files.extend(doc_files(p))
        elif stat.S_ISREG(st.st_mode):
            files.append(p)
        else:
            raise SourceRejected(f"{p}: not a regular file ({_file_kind(st.st_mode)}); only files are read")
    return files


def load_paths(
    paths: Iterable[str | Path], source: str, fmt: str | None = None, max_bytes: int = MAX_SOURCE_BYTES
) -> LoadResult:
    """Load files and folders (a folder: every *.json / *.jsonl inside) into one result under `source`.

    Doc ids stay unique across files: a file other than the first gets "<source>:<file stem>:<line>".
    The source is validated before and while it is read, and refused whole (SourceRejected, one line):
    a path that is not a regular file or folder; more than max_bytes in all (sizes from os.stat, then
    bounded reads); more lines or entries that are not docs than docs (with their count and the first bad
    line), which is how a garbage file with a few valid lines is told from a doc file with a few slips.
    """
    files = source_files(paths)
    total = sum(_stat(f).st_size for f in files)
    if total > max_bytes:
        what = files[0] if len(files) == 1 else f"{source} ({len(files)} files)"
        raise _too_big(what, max_bytes)
    result = LoadResult()
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
