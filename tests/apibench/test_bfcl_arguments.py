"""Issue 37, part 3, on real data: one Validator over all 400 functions of BFCL v4's simple category
(../shared/bfcl, pool/functions.function_doc) finds every ground-truth answer valid, bar the one whose
ground truth is itself off its schema, and finds the answers mutated three ways wrong_args with the reason
of the mutation (check/arguments.py)."""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.functions import function_doc, python_name
from gorilla_tui.pool.params import params_of

#: The simple category's questions and answers, under the bfcl_data fixture's folder.
QUESTIONS = "BFCL_v4_simple_python.json"
ANSWERS = "possible_answer/BFCL_v4_simple_python.json"
#: Ground truths off their own schema: simple_python_200 lists "" (may be left out) first for
#: fuel_efficiency, which its function declares required.
OFF_SCHEMA = {"simple_python_200": "wrong_args:missing_argument"}


def _lines(path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def bfcl(bfcl_data) -> list[tuple[str, ApiDoc, str, dict[str, Any]]]:
    """(id, the function's doc, its callee, the answer's arguments) per question: each parameter's first
    acceptable value, parameters whose first one is "" (may be left out) omitted."""
    answers = {a["id"]: a["ground_truth"][0] for a in _lines(bfcl_data / ANSWERS)}
    rows = []
    for i, q in enumerate(_lines(bfcl_data / QUESTIONS), 1):
        doc = function_doc(q["function"][0], source="bfcl", index=i)
        ((name, params),) = answers[q["id"]].items()
        given = {k: values[0] for k, values in params.items() if values and values[0] != ""}
        rows.append((q["id"], doc, python_name(name), given))
    return rows


@pytest.fixture(scope="module")
def validator(bfcl) -> Validator:
    return Validator([doc for _, doc, _, _ in bfcl])


def _call(callee: str, arguments: dict[str, Any]) -> str:
    return f"{callee}({', '.join(f'{k}={v!r}' for k, v in arguments.items())})"


def test_every_ground_truth_answer_is_valid(bfcl, validator: Validator):
    assert len(bfcl) == 400 and not validator.skipped
    assert sum(1 for _, doc, _, _ in bfcl if not params_of(doc)) == 0
    invalid = {}
    for qid, doc, callee, given in bfcl:
        verdict = validator.check(_call(callee, given), prefer=doc.id)
        if verdict.kind != "valid":
            invalid[qid] = verdict.reason
        else:
            assert verdict.matched is not None and verdict.matched.api_name == doc.api_name
    assert invalid == OFF_SCHEMA  # 399 of 400 valid
    names = Counter(callee for _, _, callee, _ in bfcl)
    assert sum(1 for n in names.values() if n > 1) == 27  # names given twice or more: any of them may match


def test_mutated_answers_are_wrong_args_with_the_mutation_s_reason(bfcl, validator: Validator):
    tried: Counter[str] = Counter()
    missed = []
    for qid, doc, callee, given in bfcl:
        if qid in OFF_SCHEMA:
            continue
        params = params_of(doc)
        required = [p.name for p in params if p.required and p.name in given]
        integers = [p.name for p in params if p.type == "integer" and p.name in given]
        mutations = [("unknown", {**given, "zz_not_a_parameter": 1}, "wrong_args:unknown_keyword")]
        if required:
            dropped = {k: v for k, v in given.items() if k != required[0]}
            mutations.append(("drop", dropped, "wrong_args:missing_argument"))
        if integers:
            as_text = {**given, integers[0]: str(given[integers[0]])}
            mutations.append(("string", as_text, "wrong_args:wrong_type"))
        for name, arguments, reason in mutations:
            tried[name] += 1
            verdict = validator.check(_call(callee, arguments), prefer=doc.id)
            if (verdict.kind, verdict.reason) != ("wrong_args", reason):
                missed.append((qid, name, verdict.reason))
    assert missed == []
    assert tried == {"unknown": 399, "drop": 399, "string": 212}
