"""Doc expansion: attach a source's training-split questions to the API docs they were written for.

Each APIBench training line holds a question (its "code": ``{'Instruction': ..., 'Output': ...}``) and the
pool entry it was generated from ("api_data"). Adding the questions to their doc gives BM25 the words people
use for that API, which a doc's own description often lacks (the idea of document expansion, Nogueira et al.
2019, "Document Expansion by Query Prediction", arXiv 1904.08375, here with real questions). Issue 7 allows
it for training splits only: an eval set must never be indexed, and manifests cannot name one
(sources.parse_manifest refuses a questions file whose name contains "eval").

On APIBench Torch Hub (the one training split in the shared data) BM25 domain@1 on held-out training
questions went from 64.2 % to 88.3 % when the other half of the split was attached (bench/rerank_dev.py).

Sources without a training split can ship hand-written questions instead (a manifest's `hand_questions`:
TOML files in the package's index/questions/ folder, read by read_hand_questions): each entry names the
docs it is for by api_call (and domain) or by api_name, and its questions are attached like a training
split's.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from gorilla_tui import jsontext
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import read_regular_bytes, toml_of
from gorilla_tui.pool.doc import ApiDoc, Diagnostic
from gorilla_tui.pool.files import MAX_SOURCE_BYTES
from gorilla_tui.pool.questions import task_text

#: Questions kept per doc (the first ones in file order); APIBench has about 9 per Torch Hub API.
MAX_QUESTIONS_PER_DOC = 10


def _squeeze(value: object) -> str:
    return "".join(str(value or "").split())


def doc_key(domain: object, api_name: object, functionality: object, api_call: object) -> tuple[str, ...]:
    """The identity a training line's api_data shares with its pool doc: domain, api_name, functionality
    and api_call, whitespace removed (the loaders normalise whitespace; the pool has no two docs alike)."""
    return (_squeeze(domain), _squeeze(api_name), _squeeze(functionality), _squeeze(api_call))


def read_questions(
    path: Path, max_bytes: int = MAX_SOURCE_BYTES
) -> tuple[list[tuple[tuple[str, ...], str]], list[Diagnostic]]:
    """(doc_key, question) per usable line of a training file (JSON Lines with "code" and "api_data"), and a
    diagnostic per unusable line (severity "note": the docs load either way). Raises OSError when the file
    cannot be read, is no regular file (paths.NotRegularFileError) or holds more than `max_bytes` (counted
    as read: a file of st_size 0 may never end, errno EFBIG)."""
    out: list[tuple[tuple[str, ...], str]] = []
    diags: list[Diagnostic] = []
    raw = read_regular_bytes(path, max_bytes)  # more: paths.FileTooLargeError (errno EFBIG)
    text = raw.decode("utf-8", "replace")
    for number, line in enumerate(jsontext.split_json_lines(text), start=1):
        if not line.strip():
            continue
        try:
            row = jsontext.decode(line)
        except json.JSONDecodeError as e:
            diags.append(Diagnostic(path.name, number, "note", f"question line is not JSON ({e.msg})"))
            continue
        except RecursionError:  # nested deeper than json's decoder can follow
            diags.append(Diagnostic(path.name, number, "note", "question line is not JSON (nested too deep)"))
            continue
        data = row.get("api_data") if isinstance(row, dict) else None
        code = row.get("code") if isinstance(row, dict) else None
        question = task_text(code) if isinstance(code, str) else ""
        if not isinstance(data, dict) or not question or question.startswith("{"):
            diags.append(Diagnostic(path.name, number, "note", "question line without api_data or text"))
            continue
        key = doc_key(
            data.get("domain"), data.get("api_name"), data.get("functionality"), data.get("api_call")
        )
        out.append((key, question))
    return out, diags


def attach_questions(
    docs: Sequence[ApiDoc],
    questions: Iterable[tuple[tuple[str, ...], str]],
    limit: int = MAX_QUESTIONS_PER_DOC,
) -> int:
    """Append each question to the doc with its key (doc.questions, in place; duplicates and questions over
    `limit` per doc are dropped). Returns how many questions were attached."""
    by_key = {doc_key(d.domain, d.api_name, d.functionality, d.api_call): d for d in docs}
    attached = 0
    for key, question in questions:
        doc = by_key.get(key)
        if doc is None or question in doc.questions or len(doc.questions) >= limit:
            continue
        doc.questions.append(question)
        attached += 1
    return attached


#: The fields an entry of a hand-written questions file may name its docs by (read_hand_questions).
HAND_KEYS = ("api_call", "domain", "api_name")


def read_hand_questions(text: str, name: str) -> tuple[list[tuple[dict[str, str], str]], list[Diagnostic]]:
    """(selector, question) per question of a hand-written questions file, and a diagnostic per unusable
    entry (severity "note").

    The file (`text`, TOML; `name` labels the diagnostics) holds ``[[api]]`` tables, each with a list of
    `questions` and the docs they are for: ``api_call`` (with an optional ``domain``) or ``api_name``; the
    selector maps those fields to their values, whitespace removed. Raises ValueError when the text is not
    TOML or is nested too deeply (paths.toml_of)."""
    try:
        data = toml_of(text, name)
    except UsageError as e:
        raise ValueError(str(e)) from None
    out: list[tuple[dict[str, str], str]] = []
    diags: list[Diagnostic] = []
    entries = data.get("api", [])
    for number, entry in enumerate(entries if isinstance(entries, list) else [], start=1):
        if not isinstance(entry, dict):
            diags.append(Diagnostic(name, number, "note", "an [[api]] entry that is not a table"))
            continue
        selector = {k: _squeeze(entry[k]) for k in HAND_KEYS if isinstance(entry.get(k), str) and entry[k]}
        questions = entry.get("questions")
        if not ("api_call" in selector or "api_name" in selector) or not isinstance(questions, list):
            diags.append(Diagnostic(name, number, "note", "entry without api_call or api_name and questions"))
            continue
        out.extend((selector, " ".join(q.split())) for q in questions if isinstance(q, str) and q.strip())
    return out, diags


def attach_hand_questions(
    docs: Sequence[ApiDoc],
    questions: Iterable[tuple[dict[str, str], str]],
    limit: int = MAX_QUESTIONS_PER_DOC,
) -> int:
    """Append each question to every doc its selector matches (read_hand_questions: all the named fields
    equal, whitespace removed; doc.questions, in place; duplicates and questions over `limit` per doc are
    dropped). Returns how many questions were attached, over all docs."""
    index: dict[tuple[str, str], list[ApiDoc]] = {}
    for doc in docs:
        for key in HAND_KEYS:
            index.setdefault((key, _squeeze(getattr(doc, key))), []).append(doc)
    attached = 0
    for selector, question in questions:
        first = "api_call" if "api_call" in selector else "api_name"
        for doc in index.get((first, selector[first]), []):
            if any(_squeeze(getattr(doc, k)) != v for k, v in selector.items()):
                continue
            if question in doc.questions or len(doc.questions) >= limit:
                continue
            doc.questions.append(question)
            attached += 1
    return attached
