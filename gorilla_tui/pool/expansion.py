"""Doc expansion: attach a source's training-split questions to the API docs they were written for.

Each APIBench training line holds a question (its "code": ``{'Instruction': ..., 'Output': ...}``) and the
pool entry it was generated from ("api_data"). Adding the questions to their doc gives BM25 the words people
use for that API, which a doc's own description often lacks (the idea of document expansion, Nogueira et al.
2019, "Document Expansion by Query Prediction", arXiv 1904.08375, here with real questions). Issue 7 allows
it for training splits only: an eval set must never be indexed, and manifests cannot name one
(sources.parse_manifest refuses a questions file whose name contains "eval").

On APIBench Torch Hub (the one training split in the shared data) BM25 domain@1 on held-out training
questions went from 64.2 % to 88.3 % when the other half of the split was attached (bench/rerank_dev.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from pathlib import Path

from gorilla_tui.pool.doc import ApiDoc, Diagnostic
from gorilla_tui.pool.questions import task_text

#: Questions kept per doc (the first ones in file order); APIBench has about 9 per Torch Hub API.
MAX_QUESTIONS_PER_DOC = 10


def _squeeze(value: object) -> str:
    return "".join(str(value or "").split())


def doc_key(domain: object, api_name: object, functionality: object, api_call: object) -> tuple[str, ...]:
    """The identity a training line's api_data shares with its pool doc: domain, api_name, functionality
    and api_call, whitespace removed (the loaders normalise whitespace; the pool has no two docs alike)."""
    return (_squeeze(domain), _squeeze(api_name), _squeeze(functionality), _squeeze(api_call))


def read_questions(path: Path) -> tuple[list[tuple[tuple[str, ...], str]], list[Diagnostic]]:
    """(doc_key, question) per usable line of a training file (JSON Lines with "code" and "api_data"), and a
    diagnostic per unusable line (severity "note": the docs load either way). Raises OSError when the file
    cannot be read (IsADirectoryError for a folder)."""
    out: list[tuple[tuple[str, ...], str]] = []
    diags: list[Diagnostic] = []
    text = path.read_bytes().decode("utf-8", "replace")
    for number, line in enumerate(text.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
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
