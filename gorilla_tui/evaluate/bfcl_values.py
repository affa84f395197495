"""The value checks of BFCL's AST checker (evaluate/bfcl_checker.py): a parameter's type, and its value
against the acceptable ones for strings, lists, dicts and lists of dicts, with BFCL's string
standardisation. After ShishirPatil/gorilla, berkeley-function-call-leaderboard/bfcl_eval/eval_checker/
ast_eval/ast_checker.py (type_checker, standardize_string, string_checker, list_checker, dict_checker,
list_dict_checker; commit 6ea5797, 2026-03-23), in our own words; the rules are listed in bfcl_checker's
docstring."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

#: BFCL's parameter type names -> the Python type a value must have (ast_checker.py PYTHON_TYPE_MAPPING).
PY_TYPES: dict[str, type] = {
    "string": str,
    "integer": int,
    "float": float,
    "boolean": bool,
    "array": list,
    "tuple": list,
    "dict": dict,
    "any": str,
}
#: Types whose items are type-checked too (one level deep).
NESTED = ("array", "tuple")
#: What standardise drops: spaces and the punctuation , . / - _ * ^ (ast_checker.py standardize_string).
_DROPPED = re.compile(r"[ ,./\-_*^]")


@dataclass(frozen=True)
class CheckResult:
    """The checker's verdict on one question: valid, and for a wrong answer the reason (`error`, one line)
    and its code (`error_type`, BFCL's: e.g. "simple_function_checker:missing_required",
    "value_error:string", "parallel_function_checker_no_order:cannot_find_match")."""

    valid: bool
    error: str = ""
    error_type: str = ""


RIGHT = CheckResult(True)


def wrong(error_type: str, error: str) -> CheckResult:
    """A wrong result with its BFCL error code and our one-line reason."""
    return CheckResult(False, error, error_type)


def standardise(text: str) -> str:
    """`text` as BFCL compares strings: spaces and ``, . / - _ * ^`` removed, lower case, single quotes
    made double ("April 1, 2024" and "april 1 2024" are one)."""
    return _DROPPED.sub("", text).lower().replace("'", '"')


def _std(value: Any) -> Any:
    return standardise(value) if type(value) is str else value


def _answer_type(acceptable: Sequence[Any]) -> type | None:
    """The type of the first acceptable value that is not "" (the optional mark), or None."""
    return next((type(a) for a in acceptable if a != ""), None)


def check_type(
    param: str, value: Any, acceptable: Sequence[Any], declared: str, expected: type, inner: type | None
) -> tuple[CheckResult | None, bool]:
    """Whether `value` has the type parameter `param` declares (BFCL's type_checker).

    Args:
        acceptable: the parameter's acceptable values (the ground truth).
        declared: BFCL's type name (for the message); expected: its Python type (PY_TYPES); inner: the
            Python type of an array's items (NESTED types), else None.

    Returns:
        (None when the type is right, else the wrong result; whether the ground truth names a variable
        here: its acceptable values are of another type than the declared one, so the value is compared
        as it is, without the string, list and dict rules).
    """
    answer_type = _answer_type(acceptable)
    variable = answer_type is not None and answer_type is not expected
    if type(value) is expected:
        if inner is None:
            return None, variable
        for option in acceptable:
            if type(option) is not list or all(
                check_type(param, item, option, inner.__name__, inner, None)[0] is None for item in value
            ):
                return None, variable
        kind = "type_error:nested" if type(value) is answer_type else "type_error:simple"
        return wrong(
            kind,
            f"Nested type checking failed for parameter {param!r}: expected {declared} of "
            f"{inner.__name__}, got {value!r}.",
        ), variable
    if answer_type is not None and type(value) is answer_type:
        return None, True
    return wrong(
        "type_error:simple",
        f"Incorrect type for parameter {param!r}: expected {declared}, got "
        f"{type(value).__name__} ({value!r}).",
    ), variable


def check_string(param: str, value: str, acceptable: Sequence[Any]) -> CheckResult:
    """Right when `value` standardised is one of the acceptable strings standardised."""
    if standardise(value) in [standardise(a) for a in acceptable if type(a) is str]:
        return RIGHT
    return wrong(
        "value_error:string",
        f"Invalid value for parameter {param!r}: {value!r}; expected one of "
        f"{list(acceptable)!r} (case and punctuation ignored).",
    )


def check_list(param: str, value: list, acceptable: Sequence[Any]) -> CheckResult:
    """Right when `value` equals one acceptable list item by item, string items standardised (nested
    lists compared as they are). An acceptable "" reads as [] (an empty list matches it, as in BFCL)."""
    options = [[_std(x) for x in a] for a in acceptable if isinstance(a, (list, str))]
    if [_std(x) for x in value] in options:
        return RIGHT
    return wrong(
        "value_error:list/tuple",
        f"Invalid value for parameter {param!r}: {value!r}; expected one of {list(acceptable)!r}.",
    )


def _listed(values: Any) -> list[Any]:
    return values if isinstance(values, list) else [values]


def check_dict(param: str, value: dict, acceptable: Sequence[Any]) -> CheckResult:
    """Right when one acceptable dict (not "") takes every key of `value` with an acceptable value
    (strings standardised) and every key it lists that `value` leaves out has "" among its values."""
    result = wrong("dict_checker:unclear", f"No acceptable value for parameter {param!r}: {value!r}.")
    for option in acceptable:
        if option == "":
            continue
        if type(option) is not dict:
            result = wrong("value_error:dict_value", f"Invalid value for parameter {param!r}: {value!r}.")
            continue
        problem = None
        for key, item in value.items():
            if key not in option:
                problem = wrong("value_error:dict_key", f"Unexpected dict key parameter: {key!r}.")
                break
            allowed = [_std(a) for a in _listed(option[key])]
            if _std(item) not in allowed:
                problem = wrong(
                    "value_error:dict_value",
                    f"Invalid value for parameter {key!r}: {item!r}; expected one of {allowed!r}.",
                )
                break
        missing = next((k for k, ok in option.items() if k not in value and "" not in _listed(ok)), None)
        if missing is not None:  # BFCL checks this after a wrong key too, and reports it last
            problem = wrong("value_error:dict_key", f"Missing dict key parameter: {missing!r}.")
        if problem is None:
            return RIGHT
        result = problem
    return result


def check_dict_list(param: str, value: list, acceptable: Sequence[Any]) -> CheckResult:
    """Right when one acceptable list of dicts has as many dicts as `value` and each dict of `value` is
    right against the dict at its position (check_dict)."""
    result = wrong("list_dict_checker:unclear", f"No acceptable value for parameter {param!r}.")
    for option in acceptable:
        if not isinstance(option, (list, str)) or len(value) != len(option):  # "" holds no dict
            result = wrong("value_error:list_dict_count", "Wrong number of dictionaries in the list.")
            continue
        for item, expected in zip(value, option, strict=True):
            if type(item) is not dict:
                result = wrong("value_error:dict_value", f"Not a dict in parameter {param!r}: {item!r}.")
                break
            result = check_dict(param, item, [expected])
            if not result.valid:
                break
        else:
            return RIGHT
    return result
