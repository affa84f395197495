"""The Torch Hub dev split the bench scripts share (retrieval.py, choice_dev.py, field_weights.py,
rerank_dev.py): APIBench's Torch Hub *training* split (eval/torchhub_train.json, the one training split in
the shared data) cut in two, so no dev task is ever in the index it is searched in.

- tasks: the training questions whose question_id is even (evaluate/run.py load_tasks);
- questions attached to the docs (doc expansion, pool/expansion.py): the odd ones of the training file's
  usable lines (read_questions), by position, 1-based;
- docs: the Torch Hub pool (api/torchhub_api.jsonl), a fresh copy per call, bare or expanded.

Before this module each script built the split itself, in near-copies; the docs and tasks are the same.
"""

from __future__ import annotations

import copy
from pathlib import Path

from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.pool.expansion import attach_questions, read_questions

HUB = "torchhub"


def train_file(apibench: Path) -> Path:
    """The training split: APIBENCH/eval/torchhub_train.json."""
    return apibench / "eval" / "torchhub_train.json"


def pool_file(apibench: Path) -> Path:
    """The Torch Hub API pool: APIBENCH/api/torchhub_api.jsonl."""
    return apibench / "api" / "torchhub_api.jsonl"


def dev_tasks(apibench: Path) -> list[evalrun.EvalTask]:
    """The dev tasks: the training split's tasks with an even question_id, in file order."""
    return [t for t in evalrun.load_tasks(train_file(apibench), HUB) if t.question_id % 2 == 0]


def held_in(apibench: Path) -> list[tuple[tuple[str, ...], str]]:
    """The (doc key, question) pairs attached to the docs: the odd ones (1-based) of read_questions."""
    pairs, _ = read_questions(train_file(apibench))
    return [p for line, p in enumerate(pairs, start=1) if line % 2 == 1]


def bare_docs(apibench: Path) -> list[ApiDoc]:
    """The Torch Hub pool's docs, unexpanded; a deep copy, so a caller may change them."""
    return copy.deepcopy(load_jsonl(pool_file(apibench), HUB).docs)


def expanded_docs(apibench: Path) -> tuple[list[ApiDoc], int]:
    """(the Torch Hub pool's docs with held_in's questions attached, how many were attached); a fresh copy."""
    docs = bare_docs(apibench)
    attached = attach_questions(docs, held_in(apibench))
    return docs, attached
