"""ApiDoc, the unit of the API pool, and tolerant loaders for APIBench JSONL, APIZoo JSON and user JSONL."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.parsing import parse, syntax_problem
from gorilla_tui.pool.lenient_json import entry_chunks, repair_json

#: Formats a loader understands. "apibench" and "jsonl" share one reader (one JSON object per line, the
#: APIBench field names); "apizoo" is a JSON list of APIZoo entries
#: (github.com/ShishirPatil/gorilla, data/apizoo).
FORMATS = ("apibench", "apizoo", "jsonl")

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

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (the inverse of :meth:`from_dict`)."""
        return asdict(self)

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

    @property
    def flagged(self) -> int:
        return sum(1 for d in self.docs if d.flagged)

    @property
    def skipped(self) -> int:
        return sum(1 for d in self.diagnostics if d.severity == "skipped")

    def extend(self, other: LoadResult) -> None:
        self.docs.extend(other.docs)
        self.diagnostics.extend(other.diagnostics)


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
    reason it does not parse as Python (tree-sitter-python: an ERROR or MISSING node)."""
    if _REST_RE.match(api_call):
        return "rest", None
    if not api_call.strip():
        return "python", "empty api_call"

    problem = syntax_problem(parse(api_call).root_node)
    if problem is None:
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
    )


# ---------------------------------------------------------------------------------------------------------
# readers


def _read_text(path: Path, result: LoadResult) -> str | None:
    """File text with a UTF-8 BOM removed; None (and a "skipped" diagnostic) for unreadable or binary
    files."""
    try:
        raw = path.read_bytes()
    except OSError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        return None
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


def _add(result: LoadResult, path: Path, line: int, rec: Any, source: str, apizoo: bool) -> None:
    if not isinstance(rec, dict):
        result.diagnostics.append(
            Diagnostic(str(path), line, "skipped", f"expected a JSON object, got {type(rec).__name__}")
        )
        return
    if _is_empty(rec.get("api_call")) or not _text(rec.get("api_call")).strip():
        result.diagnostics.append(Diagnostic(str(path), line, "skipped", "no api_call"))
        return
    doc = _make_doc(rec, source, line, apizoo)
    if doc.flagged:
        result.diagnostics.append(
            Diagnostic(str(path), line, "flagged", f"{doc.flagged}: {doc.api_call[:80]}")
        )
    result.docs.append(doc)


def doc_from_record(rec: dict[str, Any], source: str, line: int = 0) -> ApiDoc:
    """One APIBench-shaped record (e.g. an eval line's api_data) -> ApiDoc, normalised as load_jsonl does
    (id "<source>:<line>"). Raises ValueError when rec is not a dict or has no api_call."""
    if not isinstance(rec, dict) or not _text(rec.get("api_call")).strip():
        raise ValueError("an API record needs a non-empty api_call")
    return _make_doc(rec, source, line, apizoo=False)


def load_jsonl(path: str | Path, source: str) -> LoadResult:
    """Load a JSON Lines file of APIBench-shaped records (APIBench *_api.jsonl, or user docs).

    Each malformed or non-object line is skipped with a diagnostic naming file and line; blank lines are
    ignored. Never raises for bad content; an unreadable file yields a "skipped" diagnostic and no docs.
    """
    path = Path(path)
    result = LoadResult()
    text = _read_text(path, result)
    if text is None:
        return result
    for lineno, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            rec = json.loads(line)
        except json.JSONDecodeError as e:
            result.diagnostics.append(Diagnostic(str(path), lineno, "skipped", f"invalid JSON: {e.msg}"))
            continue
        _add(result, path, lineno, rec, source, apizoo=False)
    return result


def load_apizoo(path: str | Path, source: str) -> LoadResult:
    """Load an APIZoo file: a JSON list of entries (user_name, api_name, api_call, api_arguments, ...).

    Strict JSON first. Otherwise each top-level entry is parsed on its own after repairing the slips common
    in hand-written APIZoo files (trailing commas, a missing comma between entries, raw newlines in
    strings): repaired entries are loaded with a "flagged" diagnostic, an entry still broken is skipped
    with a diagnostic giving its line, and the rest of the file loads. A single object is accepted as a
    one-entry list. Doc ids use the 1-based entry index.
    """
    path = Path(path)
    result = LoadResult()
    text = _read_text(path, result)
    if text is None:
        return result
    try:
        data = json.loads(text)
    except json.JSONDecodeError as e:
        first_error = e
    else:
        if isinstance(data, dict):
            data = [data]
        if not isinstance(data, list):
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "expected a JSON list of entries"))
            return result
        if not data:
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty list"))
        for index, rec in enumerate(data, start=1):
            _add(result, path, index, rec, source, apizoo=True)
        return result
    chunks = entry_chunks(text)
    if not chunks:
        msg = f"invalid JSON: {first_error.msg} (column {first_error.colno})"
        result.diagnostics.append(Diagnostic(str(path), first_error.lineno, "skipped", msg))
        return result
    for index, (line, chunk) in enumerate(chunks, start=1):
        try:
            rec = json.loads(chunk)
        except json.JSONDecodeError:
            try:
                rec = json.loads(repair_json(chunk), strict=False)
            except json.JSONDecodeError as e:
                msg = f"entry {index}: invalid JSON at line {line + e.lineno - 1}: {e.msg}"
                result.diagnostics.append(Diagnostic(str(path), line, "skipped", msg))
                continue
            msg = f"entry {index}: repaired (trailing or missing commas, raw newlines in strings)"
            result.diagnostics.append(Diagnostic(str(path), line, "repaired", msg))
        _add(result, path, index, rec, source, apizoo=True)
    return result


def detect_format(path: Path) -> str:
    """Guess a file's format: "apizoo" when its first non-blank character is '[', else "jsonl"."""
    try:
        with path.open("rb") as fh:
            head = fh.read(4096).decode("utf-8-sig", "replace").lstrip()
    except OSError:
        return "jsonl"
    return "apizoo" if head.startswith("[") else "jsonl"


def is_question_set(path: Path) -> bool:
    """True when `path` is an APIBench question set (an eval or training split: JSON Lines whose objects have
    "code" and "api_data"), judged by its first non-empty line (read at most 1 MiB). Unreadable: False."""
    try:
        with path.open("rb") as fh:
            for raw in fh:
                line = raw.decode("utf-8", "replace").strip()
                if line:
                    break
            else:
                return False
    except OSError:
        return False
    if not line.startswith("{") or len(line) > 1 << 20:
        return False
    try:
        row = json.loads(line)
    except ValueError:
        return False
    return isinstance(row, dict) and "api_data" in row and "code" in row


def load_file(path: str | Path, source: str, fmt: str | None = None) -> LoadResult:
    """Load one file in `fmt` (one of FORMATS, or None to detect). Raises ValueError for an unknown fmt.

    An APIBench question set (is_question_set: an eval or training split) is never loaded as docs: eval
    questions must not reach the index (issue 7); the result is one "skipped" diagnostic saying so."""
    path = Path(path)
    fmt = fmt or detect_format(path)
    if fmt not in FORMATS:
        raise ValueError(f"unknown doc format {fmt!r} (expected one of {', '.join(FORMATS)})")
    if is_question_set(path):
        why = "an APIBench question set (eval or training split), not API docs: not indexed"
        return LoadResult(diagnostics=[Diagnostic(path.name, 0, "skipped", why)])
    return load_apizoo(path, source) if fmt == "apizoo" else load_jsonl(path, source)


def doc_files(folder: Path) -> list[Path]:
    """The doc files in a folder (*.json, *.jsonl, any case), sorted, not recursive."""
    return sorted(p for p in folder.iterdir() if p.is_file() and p.suffix.lower() in (".json", ".jsonl"))


def load_paths(paths: Iterable[str | Path], source: str, fmt: str | None = None) -> LoadResult:
    """Load files and folders (a folder: every *.json / *.jsonl inside) into one result under `source`.

    Doc ids stay unique across files: a file other than the first gets "<source>:<file stem>:<line>".
    """
    result = LoadResult()
    files: list[Path] = []
    for p in map(Path, paths):
        if p.is_dir():
            files.extend(doc_files(p))
        else:
            files.append(p)
    for f in files:
        part = load_file(f, source, fmt)
        if len(files) > 1:
            for d in part.docs:
                d.id = f"{source}:{f.stem}:{d.id.rsplit(':', 1)[1]}"
        result.extend(part)
    return result
