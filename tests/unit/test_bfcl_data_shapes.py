"""BFCL data of the wrong shape for `eval bfcl --data DIR` (break-it round 16, R16-9): a function given as
a string, parameters as a list, a ground truth of strings were "internal error: AttributeError"; each is
now one line naming the file and line (UsageError, exit 2), and BFCL's own files still load
(tests/apibench/test_bfcl_apibench.py)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate.bfcl import load_questions

FUNCTION = {
    "name": "f",
    "description": "d",
    "parameters": {"type": "dict", "properties": {"x": {"type": "integer"}}, "required": ["x"]},
}
TRUTH = {"id": "simple_python_0", "ground_truth": [{"f": {"x": [5]}}]}
QUESTION = [[{"role": "user", "content": "call f with 5"}]]


def _folder(tmp_path: Path, functions: list, truth: dict) -> Path:
    (tmp_path / "possible_answer").mkdir()
    row = {"id": "simple_python_0", "question": QUESTION, "function": functions}
    (tmp_path / "BFCL_v4_simple_python.json").write_text(json.dumps(row) + "\n")
    (tmp_path / "possible_answer" / "BFCL_v4_simple_python.json").write_text(json.dumps(truth) + "\n")
    return tmp_path


@pytest.mark.parametrize(
    ("functions", "truth", "where"),
    [
        (["f"], TRUTH, "BFCL_v4_simple_python.json:1: not a BFCL question"),
        ([{"name": "f", "parameters": [1, 2]}], TRUTH, "BFCL_v4_simple_python.json:1: not a BFCL question"),
        ([{"name": "f", "parameters": {"properties": "x"}}], TRUTH, "not a BFCL question"),
        ([{"name": 5, "parameters": {}}], TRUTH, "not a BFCL question"),
        ([FUNCTION], {"id": "simple_python_0", "ground_truth": ["f", 5]}, "possible_answer"),
        ([FUNCTION], {"id": "simple_python_0", "ground_truth": [{"f": [5]}]}, "not a BFCL ground truth"),
    ],
)
def test_data_of_the_wrong_shape_is_one_line_naming_it(tmp_path, functions, truth, where):
    with pytest.raises(UsageError) as caught:
        load_questions(_folder(tmp_path, functions, truth), "simple")
    assert where in str(caught.value) and "\n" not in str(caught.value)


def test_the_right_shape_loads(tmp_path):
    (question,) = load_questions(_folder(tmp_path, [FUNCTION], TRUTH), "simple")
    assert question.functions == [FUNCTION] and question.truth == TRUTH["ground_truth"]
