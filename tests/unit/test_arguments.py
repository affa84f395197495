"""Issue 37, part 3: the arguments of a call of a function-calling pool entry (ApiDoc.parameters, a JSON
Schema) are checked against the schema (check/arguments.py), with the real tree-sitter and the real
Validator over a hand-written pool of function definitions (pool/functions.function_doc); and the sixth
verdict, incomplete (check/verdicts.py). The same rule over BFCL's 400 simple functions:
tests/apibench/test_bfcl_arguments.py."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.check.verdicts import RANK, incomplete
from gorilla_tui.pool.functions import function_doc
from gorilla_tui.types import NEEDS_NOTE, REASONS, VERDICTS, Verdict

#: BFCL's simple_python_0 function, with an enum added to "unit".
TRIANGLE = {
    "name": "calculate_triangle_area",
    "description": "Calculate the area of a triangle given its base and height.",
    "parameters": {
        "type": "dict",
        "properties": {
            "base": {"type": "integer", "description": "The base of the triangle."},
            "height": {"type": "integer", "description": "The height of the triangle."},
            "unit": {"type": "string", "description": "The unit of measure.", "enum": ["units", "cm", "m"]},
        },
        "required": ["base", "height"],
    },
}
#: BFCL's types (float, tuple, array items, dict, boolean) in one function.
POLYGON = {
    "name": "geometry.polygon_area",
    "description": "Area of a polygon.",
    "parameters": {
        "type": "dict",
        "properties": {
            "sides": {"type": "array", "items": {"type": "integer"}, "description": "Side lengths."},
            "scale": {"type": "float", "description": "A factor."},
            "origin": {"type": "tuple", "items": {"type": "float"}, "description": "The origin."},
            "options": {"type": "dict", "description": "More options."},
            "exact": {"type": "boolean", "description": "Exact arithmetic."},
            "shapes": {
                "type": "array",
                "items": {"type": "string", "enum": ["square", "circle"]},
                "description": "Shapes to compare.",
            },
        },
        "required": ["sides"],
    },
}
#: An MCP tool (inputSchema, JSON Schema's own names) whose schema allows other properties.
OPEN = {
    "name": "search-notes",
    "description": "Search notes.",
    "inputSchema": {
        "type": "object",
        "properties": {"query": {"type": "string"}},
        "required": ["query"],
        "additionalProperties": True,
    },
}
#: A second function named calculate_triangle_area (BFCL's simple category has 27 names given twice or more).
TRIANGLE_2 = {
    "name": "calculate_triangle_area",
    "description": "Area from three sides.",
    "parameters": {
        "type": "dict",
        "properties": {"a": {"type": "float"}, "b": {"type": "float"}, "c": {"type": "float"}},
        "required": ["a", "b", "c"],
    },
}


@pytest.fixture(scope="module")
def validator() -> Validator:
    functions = [TRIANGLE, POLYGON, OPEN]
    return Validator([function_doc(f, source="tools", index=i + 1) for i, f in enumerate(functions)])


def check(validator: Validator, code: str) -> Verdict:
    return validator.check(code)


@pytest.mark.parametrize(
    "code",
    [
        "calculate_triangle_area(base=10, height=5)",
        "calculate_triangle_area(10, 5)",  # by position, in declared order
        "calculate_triangle_area(10, height=5, unit='cm')",
        "calculate_triangle_area(base=base, height=height)",  # the doc's own template: names are not judged
        "calculate_triangle_area(base=len(xs), height=n + 1)",  # expressions are not judged
        "area = calculate_triangle_area(base=10, height=5)\nprint(area)",
        "geometry.polygon_area(sides=[3, 4, 5], scale=2, origin=(0.0, 1), options={'a': 1}, exact=False)",
        "geometry.polygon_area(sides=(3, 4), scale=0.5, shapes=['square', 'circle'])",  # a tuple is a list
        "geometry.polygon_area(sides=[1, 2], scale=None)",  # None: an optional parameter not given
        "search_notes(query='milk', limit=3)",  # additionalProperties: other names are allowed
        '[{"name": "calculate_triangle_area", "arguments": {"base": 10, "height": 5}}]',  # a JSON tool call
    ],
)
def test_calls_that_meet_the_schema_are_valid(validator: Validator, code: str):
    verdict = check(validator, code)
    assert verdict.kind == "valid", verdict
    assert verdict.reason == "" and verdict.matched is not None and verdict.matched.parameters


def test_a_string_for_an_integer_is_wrong_type_with_the_parameter_value_and_type(validator: Validator):
    verdict = check(validator, "calculate_triangle_area(base='ten', height=5)")
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:wrong_type")
    assert verdict.diagnostics == ["calculate_triangle_area: base='ten' is a str, expected an integer"]
    assert verdict.suggestions == []  # no value to put there: the task must give one
    assert verdict.matched is not None and verdict.matched.api_name == "calculate_triangle_area"
    row = next(c for c in verdict.calls if c.callee == "calculate_triangle_area")
    assert (row.kind, row.reason, row.role) == ("wrong_args", "wrong_args:wrong_type", "pool")


def test_a_numeric_string_suggests_the_number(validator: Validator):
    verdict = check(validator, "calculate_triangle_area(base='10', height=5)")
    assert verdict.reason == "wrong_args:wrong_type"
    assert "did you mean base=10?" in verdict.diagnostics[0]
    assert verdict.suggestions == ["calculate_triangle_area(base=10, height=5)"]
    assert check(validator, verdict.suggestions[0]).kind == "valid"


@pytest.mark.parametrize("param", ["base", "scale"])  # an "integer" and a "float" (BFCL's number) parameter
@pytest.mark.parametrize("json_call", [False, True])
def test_a_string_of_a_huge_integer_suggests_the_same_int(validator: Validator, param: str, json_call: bool):
    """Break-it round 16, R16-1: 400 digits are past a float's 1.8e308; _number once ran math.isfinite on
    the int (OverflowError: an internal error). The int is kept whole, for a number parameter too."""
    digits = "9" * 400
    name, extra = (
        ("calculate_triangle_area", ", height=5") if param == "base" else ("geometry.polygon_area", "")
    )
    if json_call:
        args = {param: digits, **({"height": 5} if param == "base" else {"sides": [1]})}
        code = json.dumps([{"name": name, "arguments": args}])
    else:
        code = f"{name}({param}='{digits}'{extra}" + (")" if param == "base" else ", sides=[1])")
    verdict = check(validator, code)
    assert verdict.reason == "wrong_args:wrong_type", verdict
    assert f"(did you mean {param}=99999" in verdict.diagnostics[0] and "…?)" in verdict.diagnostics[0]
    assert len(verdict.suggestions) == 1 and f"{param}={digits}" in verdict.suggestions[0]
    assert check(validator, verdict.suggestions[0]).kind == "valid"


def test_a_string_beyond_a_float_gets_no_number(validator: Validator):
    for value in ("1e400", "nan", "-inf"):
        verdict = check(validator, f"geometry.polygon_area(sides=[1], scale='{value}')")
        assert verdict.reason == "wrong_args:wrong_type" and "did you mean" not in verdict.diagnostics[0]


@pytest.mark.parametrize(
    ("code", "note"),
    [
        ("calculate_triangle_area(base=True, height=5)", "base=True is a bool, expected an integer"),
        ("calculate_triangle_area(base=10.5, height=5)", "base=10.5 is a float, expected an integer"),
        ("calculate_triangle_area(base=None, height=5)", "base=None is None, expected an integer"),
        ("geometry.polygon_area(sides=3)", "sides=3 is an int, expected a list"),
        ("geometry.polygon_area(sides=[3, 'four'])", "holds 'four' (a str), expected a list of integers"),
        ("geometry.polygon_area(sides=[3], scale='2x')", "scale='2x' is a str, expected a number"),
        ("geometry.polygon_area(sides=[3], exact=1)", "exact=1 is an int, expected True or False"),
        ("geometry.polygon_area(sides=[3], options=[1])", "options=[1] is a list, expected a dict"),
        (
            "geometry.polygon_area(sides=[3], origin=(0, 'y'))",
            "holds 'y' (a str), expected a list of numbers",
        ),
    ],
)
def test_literals_of_another_type_are_wrong_type(validator: Validator, code: str, note: str):
    verdict = check(validator, code)
    assert verdict.reason == "wrong_args:wrong_type", verdict
    assert any(note in d for d in verdict.diagnostics), verdict.diagnostics


def test_a_required_parameter_left_out_is_missing_argument(validator: Validator):
    verdict = check(validator, "calculate_triangle_area(height=5)")
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:missing_argument")
    assert verdict.diagnostics == ["argument 'base' is required by calculate_triangle_area"]
    both = check(validator, "calculate_triangle_area()")
    assert len(both.diagnostics) == 2 and both.reason == "wrong_args:missing_argument"


def test_an_unknown_keyword_is_named_with_a_did_you_mean(validator: Validator):
    far = check(validator, "calculate_triangle_area(base=10, height=5, colour='red')")
    assert (far.kind, far.reason) == ("wrong_args", "wrong_args:unknown_keyword")
    assert far.diagnostics == [
        "calculate_triangle_area has no parameter 'colour' (parameters: base, height, unit)"
    ]
    assert far.suggestions == ["calculate_triangle_area(base=10, height=5)"]  # dropped: nothing is near
    near = check(validator, "calculate_triangle_area(base=10, hieght=5)")
    assert near.reason == "wrong_args:unknown_keyword"  # and not missing_argument: it is height, misspelt
    assert near.diagnostics == ["calculate_triangle_area has no parameter 'hieght' (did you mean 'height'?)"]
    assert near.suggestions == ["calculate_triangle_area(base=10, height=5)"]


def test_too_many_positional_arguments_and_a_parameter_given_twice(validator: Validator):
    many = check(validator, "calculate_triangle_area(1, 2, 'cm', 4)")
    assert many.reason == "wrong_args:too_many_arguments"
    assert many.diagnostics == ["calculate_triangle_area takes at most 3 positional arguments, 4 given"]
    twice = check(validator, "calculate_triangle_area(10, 5, base=3)")
    assert twice.reason == "wrong_args:duplicate_argument"
    assert twice.diagnostics == ["calculate_triangle_area got multiple values for argument 'base'"]


def test_a_value_outside_the_enum_is_not_in_enum(validator: Validator):
    verdict = check(validator, "calculate_triangle_area(base=10, height=5, unit='CM')")
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:not_in_enum")
    assert verdict.diagnostics == [
        "calculate_triangle_area: unit='CM' is not one of the declared values: 'units', 'cm', 'm' "
        "(did you mean 'cm'?)"
    ]
    assert verdict.suggestions == ["calculate_triangle_area(base=10, height=5, unit='cm')"]
    items = check(validator, "geometry.polygon_area(sides=[3], shapes=['square', 'triangle'])")
    assert items.reason == "wrong_args:not_in_enum"
    assert "holds 'triangle', which is not one of the declared values" in items.diagnostics[0]


def test_every_problem_has_a_note_and_the_first_in_order_is_the_reason(validator: Validator):
    verdict = check(validator, "calculate_triangle_area(height='5', unit='km', size=2)")
    assert verdict.reason == "wrong_args:unknown_keyword"
    assert [d.split(" ", 1)[1][:12] for d in verdict.diagnostics] == [
        "has no param",  # unknown_keyword
        "'base' is re",  # missing_argument
        "height='5' i",  # wrong_type
        "unit='km' is",  # not_in_enum
    ]
    assert verdict.suggestions == []  # base is missing: no corrected call without a value from the task


def test_a_call_may_meet_any_function_of_its_name():
    docs = [function_doc(f, source="bfcl", index=i) for i, f in enumerate([TRIANGLE, TRIANGLE_2], 1)]
    validator = Validator(docs)
    assert validator.check("calculate_triangle_area(a=3, b=4, c=5)").matched is docs[1]
    assert validator.check("calculate_triangle_area(base=3, height=4)").matched is docs[0]
    assert validator.check("calculate_triangle_area(base=3, height=4)", prefer=docs[1].id).matched is docs[0]
    wrong = validator.check("calculate_triangle_area(a=3, b=4)", prefer=docs[1].id)
    assert wrong.reason == "wrong_args:missing_argument" and wrong.matched is docs[1]
    assert wrong.diagnostics == ["argument 'c' is required by calculate_triangle_area"]


def test_calls_with_splats_are_held_to_what_they_spell_out(validator: Validator):
    assert check(validator, "calculate_triangle_area(**kw)").kind == "valid"
    positions_unknown = check(validator, "calculate_triangle_area(*xs, 'x', unit='m')")
    assert positions_unknown.kind == "valid"
    unknown = check(validator, "calculate_triangle_area(*xs, colour=1)")
    assert unknown.reason == "wrong_args:unknown_keyword" and unknown.suggestions == []  # *xs is kept
    typed = check(validator, "calculate_triangle_area(**kw, unit=3)")
    assert typed.diagnostics == ["calculate_triangle_area: unit=3 is an int, expected a string"]


def test_reason_codes_and_verdict_kinds_agree():
    assert {r.split(":", 1)[0] for r in REASONS} == set(VERDICTS) - {"valid"}
    assert set(RANK) == set(VERDICTS)
    for code in ("wrong_args:wrong_type", "wrong_args:not_in_enum", "incomplete:missing_value"):
        assert code in REASONS


def test_incomplete_turns_a_valid_verdict_into_its_own_state(validator: Validator):
    valid = check(validator, "calculate_triangle_area(base=base, height=height)")
    assert valid.kind == "valid"
    verdict = incomplete(valid, ["base", "height", "base"])
    assert (verdict.kind, verdict.reason) == ("incomplete", "incomplete:missing_value")
    assert verdict.diagnostics[0] == NEEDS_NOTE + "base, height" == "needs: base, height"
    assert verdict.matched is valid.matched and verdict.api_call == valid.api_call
    assert verdict.to_dict()["verdict"] == "incomplete" and valid.kind == "valid"  # a copy, not an edit
    assert incomplete(valid, []) is valid
    wrong = check(validator, "calculate_triangle_area(height=5)")
    assert incomplete(wrong, ["base"]) is wrong  # a worse verdict says more than the placeholders
