"""The BFCL checker with an integer beyond float's range for a "float" parameter (break-it round 16):
BFCL's rule float()s an int given for a float, which raised OverflowError and aborted a whole `eval
bfcl`; the value now stays an int, a type error for that question alone."""

from __future__ import annotations

from gorilla_tui.evaluate.bfcl_checker import check_calls

FUNCTION = {
    "name": "f",
    "description": "d",
    "parameters": {"type": "dict", "properties": {"x": {"type": "float"}}, "required": ["x"]},
}


def test_an_int_for_a_float_is_still_accepted():
    assert check_calls("simple_python", [FUNCTION], [{"f": {"x": 5}}], [{"f": {"x": [5.0]}}]).valid


def test_an_int_beyond_floats_range_is_a_wrong_answer_not_an_error():
    result = check_calls("simple_python", [FUNCTION], [{"f": {"x": int("9" * 400)}}], [{"f": {"x": [5.0]}}])
    assert not result.valid
    assert "type_error" in result.error_type
