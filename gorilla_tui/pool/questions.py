"""APIBench question lines: the task text of an eval or training line's "code" field.

Both the eval sets (evaluate/run.py: the tasks of `eval run`) and the training splits (pool/expansion.py:
questions attached to their docs) write the question inside "code"; the formats are described in the
APIBench README (shared/apibench/README.md).
"""

from __future__ import annotations

import re

#: The task is the text between these markers of an eval line's "code" (APIBench README).
TASK_RE = re.compile(r"###\s*Instruction:\s*(.*?)\s*###\s*Output", re.DOTALL)
#: The training split writes its "code" as a Python dict string instead: {'Instruction': ..., 'Output': ...}.
TRAIN_TASK_RE = re.compile(r"^\{'Instruction':\s*(.*?),\s*'Output':", re.DOTALL)


def task_text(code: str) -> str:
    """The instruction of an eval line's "code": text between ``###Instruction:`` and ``###Output``, or of a
    training-split line's ``{'Instruction': ..., 'Output': ...}`` (whitespace-normalised); the whole text
    when neither form is there."""
    m = TASK_RE.search(code or "") or TRAIN_TASK_RE.search(code or "")
    return " ".join((m.group(1) if m else code or "").split())
