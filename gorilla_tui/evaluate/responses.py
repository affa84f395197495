"""The response file of `eval run`: one JSON line per answered task in Gorilla's format (question_id,
text, model_id) plus the run's identity, verdict, hits and timings; read back (and repaired) to resume.
load_resumable reads and repairs any such answer file (`eval bfcl`'s too)."""

from __future__ import annotations

import errno
import math
import os
import shutil
import tempfile
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate.apibench_files import read_capped
from gorilla_tui.evaluate.score import json_object
from gorilla_tui.evaluate.tasks import EvalTask
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.files import file_kind

if TYPE_CHECKING:
    from gorilla_tui.types import Proposal


@dataclass(frozen=True)
class RunInfo:
    """What identifies a run (k: hits per task; select_by: Pipeline.select_by(mode), "" in generate mode);
    every line of a response file carries it, and a resume must match it."""

    hub: str
    retriever: str
    mode: str
    model: str
    k: int
    select_by: str = ""

    def key(self) -> dict[str, Any]:
        return {
            "hub": self.hub,
            "retriever": self.retriever,
            "mode": self.mode,
            "select_by": self.select_by,
            "model": self.model,
            "k": self.k,
        }


def gorilla_text(api_call: str, domain: str = "", provider: str = "") -> str:
    """The answer in Gorilla's output format, the one its released scripts (and `eval score`) cut the call
    out of: ``<<<domain>>>: D, <<<api_call>>>: CALL, <<<api_provider>>>: P`` (arXiv 2305.15334, Fig. 3)."""
    return f"<<<domain>>>: {domain}, <<<api_call>>>: {api_call}, <<<api_provider>>>: {provider}"


def response_line(task: EvalTask, proposal: Proposal, info: RunInfo) -> dict[str, Any]:
    """One response line: Gorilla's keys (question_id, text, model_id) plus ours: run identity, api_call,
    verdict kind, hits as [call, score] pairs (the doc's call: its repaired call when flagged; best first;
    [call, score, lm_score] when select mode scored them by likelihood), the choice rule applied
    (Proposal.choice_rule, "" when none) and timings in seconds (ms precision)."""
    call = proposal.api_call.strip()
    doc = next((h.doc for h in proposal.hits if h.doc.call.strip() == call), None) if call else None
    doc = doc or proposal.verdict.matched
    return {
        "question_id": task.question_id,
        "text": gorilla_text(call, doc.domain if doc else "", doc.framework if doc else ""),
        "model_id": f"gorilla-tui:{info.model}:{info.retriever}:{info.mode}",
        **info.key(),
        "api_call": call,
        "verdict": proposal.verdict.kind,
        "choice_rule": proposal.choice_rule,
        "hits": [
            [h.doc.call.strip(), round(h.score, 3)] + ([] if h.lm_score is None else [round(h.lm_score, 3)])
            for h in proposal.hits
        ],
        "timings": {k: round(v, 3) for k, v in proposal.timings.items()},
    }


def failed_line(task: EvalTask, info: RunInfo, message: str) -> dict[str, Any]:
    """A line for a task the pipeline failed on (counted as an error; re-answered by the next resume)."""
    return {"question_id": task.question_id, "text": "", "model_id": f"gorilla-tui:{info.model}",
            **info.key(), "api_call": "", "verdict": "no_call", "hits": [], "timings": {},
            "error": message}  # fmt: skip


def rewrite(path: Path, lines: list[dict[str, Any]]) -> None:
    """Replace the answers file `path` by `lines` (written aside, then renamed in). Raises GorillaError
    (one line, exit 2) when it cannot be written, a full disk included; `path` is then left as it was."""
    try:
        _rewrite(path, lines)
    except OSError as e:
        full = e.errno in (errno.ENOSPC, errno.EDQUOT)
        why = "disk full" if full else (e.strerror or str(e))
        raise GorillaError(f"cannot write {path}: {why}; it is left as it was") from None


def _rewrite(path: Path, lines: list[dict[str, Any]]) -> None:
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}-", suffix=".tmp")
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            fh.writelines(json_text(x) + "\n" for x in lines)
        if path.exists():
            shutil.copymode(path, tmp)  # keep the file's permissions (mkstemp makes it 0600)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def damaged(path: str | Path, number: int, problem: str) -> UsageError:
    """The error (exit 2) for a line of an answer file whose field has the wrong type or value: an edited
    file, one cut short and mended by hand, or one another version wrote (break-it round 16)."""
    return UsageError(
        f"damaged answer file {path}, line {number}: {problem}",
        hint="fix or remove that line, or give --out a new file name; nothing was changed",
    )


def finite(value: Any) -> bool:
    """True for a JSON number that is a finite float's worth: not a bool, not NaN or Infinity (Python's
    json reads ``NaN``, ``Infinity`` and 1e400 (inf); none of them is valid JSON to print back, RFC 8259
    section 6), not an int beyond a float (math.isfinite of it raises OverflowError)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return False
    try:
        return math.isfinite(value)
    except OverflowError:
        return False


# What each field kind of an answer line accepts, and how the refusal names it (fields_problem).
_FIELD_KINDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "string": (lambda v: isinstance(v, str), "a string"),
    "string or null": (lambda v: v is None or isinstance(v, str), "a string or null"),
    "boolean": (lambda v: isinstance(v, bool), "true or false"),
    "list": (lambda v: isinstance(v, list), "a list"),
    "object or null": (lambda v: v is None or isinstance(v, dict), "an object"),
    "seconds or null": (lambda v: v is None or finite(v), "a finite number of seconds"),
}


def fields_problem(line: dict[str, Any], fields: dict[str, str]) -> str:
    """What is wrong with the named fields of an answer line, in words ("valid is a string, expected true
    or false"), or "" when each present field is of its kind. The one field-type rule of the answer files
    of `eval run` (answer_problem) and `eval bfcl` (bfcl.answer_problem); absent fields are not checked.

    Args:
        line: one decoded JSON line.
        fields: field name -> kind, a key of _FIELD_KINDS ("string", "string or null", "boolean",
            "list", "object or null", "seconds or null").

    Returns:
        The first problem found, or "".

    Raises:
        KeyError: a kind that is not in _FIELD_KINDS (a bug in the caller).
    """
    for name, kind in fields.items():
        accepts, expected = _FIELD_KINDS[kind]
        if name in line and not accepts(line[name]):
            return f"{name} is {_json_kind(line[name])}, expected {expected}"
    return ""


def answer_problem(line: dict[str, Any]) -> str:
    """What is wrong with the fields of an `eval run` answer line (response_line), in words, or "" when
    they have the types response_line writes: text and api_call strings, hits a list of [call, score] or
    [call, score, lm_score] lists, timings an object of finite numbers of seconds."""
    fields = {"text": "string", "api_call": "string", "hits": "list", "timings": "object or null"}
    if problem := fields_problem(line, fields):
        return problem
    for i, hit in enumerate(line.get("hits", [])):
        if not (isinstance(hit, list) and len(hit) in (2, 3) and isinstance(hit[0], str)
                and all(finite(x) for x in hit[1:])):  # fmt: skip
            return f"hits[{i}] is not a [call, score] pair"
    for name, value in (line.get("timings") or {}).items():
        if not finite(value):
            return f"timings.{name} is {_json_kind(value)}, expected a finite number of seconds"
    return ""


def _json_kind(value: Any) -> str:
    """What a JSON value is, in words ("a string", "NaN", "Infinity")."""
    if isinstance(value, float) and not math.isfinite(value):
        return "NaN" if math.isnan(value) else "Infinity (a number too large)"
    if isinstance(value, int) and not isinstance(value, bool) and not finite(value):
        return "a number too large"
    kinds = {bool: "a boolean", str: "a string", list: "a list", dict: "an object", type(None): "null"}
    return kinds.get(type(value), "a number")


def no_problem(line: dict[str, Any]) -> str:
    """Resumable.problem of a file whose fields are not checked on reading."""
    return ""


@dataclass(frozen=True)
class Resumable:
    """What the lines of a resumable answer file look like (load_resumable): `key` names each line's id
    field, of type `key_type` (int question_ids for `eval run`, str ids for `eval bfcl`); identity(line)
    gives the run identity a line carries, which must equal `expected`; a line holding `failed` (a
    non-empty value) records a failure and is answered again; `shape` describes a line for the message
    that refuses a file of another kind ("{question_id, text, ...}"); problem(line) says in words what
    is wrong with an answered line's fields ("" when nothing: answer_problem)."""

    key: str
    key_type: type
    identity: Callable[[dict[str, Any]], dict[str, Any]]
    expected: dict[str, Any]
    shape: str
    failed: str = "error"
    problem: Callable[[dict[str, Any]], str] = no_problem


def load_resumable(path: str | Path, kind: Resumable) -> tuple[dict[Any, dict[str, Any]], list[str]]:
    """The answered lines of an existing answer file (JSON Lines), by their id (kind.key), and notes on
    what was repaired.

    A resume never loses a saved line without a word. Repairs (the file is rewritten atomically, each said
    in a note): a partial last line (a kill in mid-write: not JSON), a whole last line without its line end
    (kept, its line end added), failed lines (kind.failed; they are answered again) and lines that repeat
    an answer word for word. Raises UsageError, the file left untouched, when a line is not an answer (not
    a JSON object with an id of kind.key_type: they were dropped, issue 42) or answers an id again
    differently, when a line belongs to another run (kind.identity(line) != kind.expected), when no line is
    an answer (the file is of another kind), when an answered line's field has the wrong type
    (kind.problem: "damaged answer file FILE, line N: ..."), the file cannot be read, is larger than the
    cap of every answer file read (apibench_files.read_capped, checked before reading) or `path` is not a
    regular file (a folder, a FIFO, a device). A missing file: ({}, [])."""
    path = Path(path)
    if not path.exists():
        return {}, []
    if path.is_dir():  # --out is where answers are written: say so, not "cannot read"
        raise UsageError(f"cannot write responses to {path}: it is a directory; give --out a file name")
    if not path.is_file():  # /dev/zero would be read forever, a FIFO blocks, and rewrite() replaces it
        kind_of = file_kind(path.stat().st_mode)
        raise UsageError(f"cannot write responses to {path}: it is {kind_of}, not a file; give --out a file")
    raw = read_capped(path, "responses").decode("utf-8", "replace")  # the cap `eval score` has
    notes: list[str] = []
    body, _, tail = raw.rpartition("\n")
    texts = body.split("\n") if body else []
    partial = bool(tail.strip()) and json_object(tail) is None
    if partial:
        notes.append("dropped a partial last line (the previous run was killed while writing it)")
    elif tail.strip():  # a whole line whose line end is missing (an editor): kept, so the next answer
        texts.append(tail)  # is not written onto it
        notes.append("added the line end its last line lacked")
    kept: dict[Any, dict[str, Any]] = {}
    where: dict[Any, int] = {}
    bad: list[int] = []
    failed = repeated = 0
    for number, text in enumerate(texts, start=1):
        if not text.strip():
            continue
        line = json_object(text)
        key = None if line is None else line.get(kind.key)
        if line is None or not isinstance(key, kind.key_type):
            bad.append(number)
            continue
        theirs = kind.identity(line)
        if theirs != kind.expected:
            raise UsageError(
                f"{path} holds answers of another run (line {number}: {theirs}, this run: {kind.expected})",
                hint="give a different --out file, or delete this one to start over",
            )
        problem = "" if line.get(kind.failed) else kind.problem(line)
        if problem:
            raise damaged(path, number, problem)
        if line.get(kind.failed):
            failed += 1
        elif key in kept and line != kept[key]:
            raise UsageError(
                f"{path} line {number} answers {kind.key} {key!r} again, unlike line {where[key]}: a resume "
                "keeps every saved answer, so nothing was changed",
                hint="remove one of the two lines, or give --out a new file name",
            )
        elif key in kept:
            repeated += 1
        else:
            kept[key], where[key] = line, number
    if not kept and not failed and not repeated and (bad or partial):
        if not (partial and tail.lstrip().startswith(f'{{"{kind.key}"')):
            raise UsageError(
                f"{path} is not a responses file: none of its lines is an answer ({kind.shape})",
                hint="give --out a new file name; nothing was changed",
            )
    if bad:
        more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
        raise UsageError(
            f"{path} line {bad[0]}{more} is not an answer ({kind.shape}): a resume keeps every saved line, "
            "so nothing was changed",
            hint="fix or remove that line, or give --out a new file name",
        )
    for count, what in ((failed, "failed (answered again)"), (repeated, "repeated (the same answer twice)")):
        if count:
            notes.append(f"dropped {count} {what} line(s)")
    if notes:
        rewrite(path, list(kept.values()))
    return kept, notes


def load_answers(path: str | Path, info: RunInfo) -> tuple[dict[int, dict[str, Any]], list[str]]:
    """The answered lines of an existing response file, by question_id, and notes on what was repaired.

    Repairs and refusals as load_resumable's (a line that is not an answer is refused, never dropped);
    a line belongs to another run when hub, retriever, mode, select_by, model or k differ (a select-mode
    line without select_by was written before it existed and counts as "grammar")."""

    def identity(line: dict[str, Any]) -> dict[str, Any]:
        theirs = {k: line.get(k) for k in info.key()}
        if "select_by" not in line:  # written before select_by existed: select mode was the grammar then
            theirs["select_by"] = "grammar" if line.get("mode") == "select" else ""
        return theirs

    return load_resumable(
        path,
        Resumable(key="question_id", key_type=int, identity=identity, expected=info.key(),
                  shape="{question_id, text, ...}", problem=answer_problem),
    )  # fmt: skip
