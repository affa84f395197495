"""BFCL's AST checker: whether decoded function calls answer a Berkeley Function Calling Leaderboard
question, for the single-turn Python categories (simple, multiple, parallel, parallel_multiple, and the
irrelevance / relevance rule).

Written after the published checker, in our own words: ShishirPatil/gorilla,
berkeley-function-call-leaderboard/bfcl_eval/eval_checker/ast_eval/ast_checker.py (ast_checker and its
simple, multiple and order-free parallel checkers, type_checker, standardize_string and the string, list,
dict and list-of-dict checkers), with the irrelevance rule of bfcl_eval/eval_checker/eval_runner.py
(_evaluate_single_relevance_entry) and the output-format check of bfcl_eval/utils.py
(is_function_calling_format_output, is_empty_output); read at commit 6ea5797 (2026-03-23). The same
outcomes on the same input, the published quirks included (they are what the leaderboard scores):

- Types by BFCL's names: string -> str, integer -> int, float -> float, boolean -> bool, array and tuple ->
  list, dict -> dict, any -> str (a type name it does not know counts as "any"). The value's type must be
  exactly that (``True`` is no integer); an int is accepted for a float, a tuple for a "tuple" (not for an
  "array"). A value of another type is still right when its type is the type of the acceptable values
  (the ground truth then names a variable); the value is then compared as it is.
- Arrays are type-checked one level deep: each item against the items' type, accepted as soon as one
  acceptable list fits (or when an acceptable value is not a list, e.g. ``""``).
- Strings, strings in lists and string values in dicts are compared standardised (bfcl_values.standardise).
- A call is right when its name is the function's, every required parameter is given, every given
  parameter is a declared one that the ground truth lists, each value is acceptable, and every parameter
  the ground truth lists but the call leaves out has ``""`` among its acceptable values.
- Parallel calls are matched to the ground truth in any order, greedily: each ground-truth call, in order,
  takes the first unmatched call it accepts (so a ground-truth call that accepts two of the calls can take
  the one a later ground-truth call needed: BFCL's parallel_178 answered in reverse order is wrong).
- Irrelevance: right when no call is proposed (``[]``, ``[{}]`` or anything not in the calls' format).

The calls are in BFCL's decoded form, ``[{"func_name": {"param": value}}]`` (Proposal.calls); a call may
name a function by its Python callee (pool.functions.python_name: ``get-weather`` -> ``get_weather``), which
bfcl_names maps back to BFCL's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from gorilla_tui.evaluate.bfcl_values import (
    NESTED,
    PY_TYPES,
    RIGHT,
    CheckResult,
    check_dict,
    check_dict_list,
    check_list,
    check_string,
    check_type,
    wrong,
)
from gorilla_tui.pool.functions import python_name

#: A call list, as Proposal.calls holds it.
Calls = list[dict[str, dict[str, Any]]]


def is_call_list(calls: Any) -> bool:
    """Whether `calls` has the calls' format: a list of one-key dicts whose value is a dict of arguments."""
    return isinstance(calls, list) and all(
        type(c) is dict and len(c) == 1 and type(next(iter(c.values()))) is dict for c in calls
    )


def no_call(calls: Any) -> bool:
    """Whether `calls` proposes no call: ``[]``, ``[{}]`` or anything not in the calls' format."""
    return not is_call_list(calls) or not calls or (len(calls) == 1 and not calls[0])


def bfcl_names(calls: Calls, functions: Sequence[dict[str, Any]]) -> Calls:
    """`calls` with each function named as BFCL names it: a call naming a function by its Python callee
    (python_name of a BFCL name, e.g. ``get_weather`` for ``get-weather``) gets BFCL's name back; other
    names stay as they are."""
    names = {str(f.get("name", "")) for f in functions}
    back: dict[str, str] = {}
    for name in names:
        try:
            back.setdefault(python_name(name), name)
        except ValueError:  # no usable name: nothing can call it
            continue
    return [{(n if n in names else back.get(n, n)): args for n, args in c.items()} for c in calls]


def check_call(
    function: dict[str, Any], call: dict[str, dict[str, Any]], answer: dict[str, Any]
) -> CheckResult:
    """One call against one function and its ground-truth call (BFCL's simple_function_checker).

    Args:
        function: the BFCL function definition (name, parameters: {properties, required}).
        call: ``{name: {param: value}}``, names as BFCL's (bfcl_names).
        answer: the ground-truth call ``{name: {param: [acceptable values]}}``; "" among a parameter's
            values means it may be left out.
    """
    acceptable: dict[str, list[Any]] = next(iter(answer.values()))
    name = function["name"]
    if name not in call:
        return wrong(
            "simple_function_checker:wrong_func_name", f"Function name {name!r} not found in the calls."
        )
    args = call[name]
    schema = function.get("parameters") or {}
    details: dict[str, Any] = schema.get("properties") or {}
    for param in schema.get("required") or []:
        if param not in args:
            return wrong(
                "simple_function_checker:missing_required", f"Missing required parameter: {param!r}."
            )
    for param, value in args.items():
        if param not in details or param not in acceptable:
            return wrong("simple_function_checker:unexpected_param", f"Unexpected parameter: {param!r}.")
        declared = str(details[param].get("type", "any"))
        expected = PY_TYPES.get(declared, str)
        items = details[param].get("items")
        inner = (
            PY_TYPES.get(items.get("type"), str) if declared in NESTED and isinstance(items, dict) else None
        )
        if declared == "tuple" and type(value) is tuple:
            value = list(value)  # JSON has no tuples: the ground truth's are lists
        if declared == "float" and type(value) is int:
            try:
                value = float(value)
            except OverflowError:  # beyond float's range: stays an int, a type error for this task alone
                pass
        problem, variable = check_type(param, value, acceptable[param], declared, expected, inner)
        if problem is not None:
            return problem
        if not variable:
            special = None
            if expected is dict:
                special = check_dict
            elif expected is list:
                special = check_dict_list if inner is dict else check_list
            elif expected is str:
                special = check_string
            if special is not None:
                result = special(param, value, acceptable[param])
                if not result.valid:
                    return result
                continue
        if value not in acceptable[param]:
            return wrong(
                "value_error:others",
                f"Invalid value for parameter {param!r}: {value!r}; expected one of {acceptable[param]!r}.",
            )
    for param, allowed in acceptable.items():
        if param not in args and "" not in allowed:
            return wrong(
                "simple_function_checker:missing_optional",
                f"Optional parameter {param!r} not provided and not marked as optional.",
            )
    return RIGHT


def _function(functions: Sequence[dict[str, Any]], name: str) -> dict[str, Any]:
    return next((f for f in functions if f.get("name") == name), functions[0])


def _check_parallel(
    functions: Sequence[dict[str, Any]], calls: Calls, truth: list[dict[str, Any]]
) -> CheckResult:
    """Order-free parallel calls: each ground-truth call in turn takes the first unmatched call it accepts."""
    if len(calls) != len(truth):
        return wrong(
            "parallel_function_checker_no_order:wrong_count",
            f"Wrong number of functions: {len(calls)}, expected {len(truth)}.",
        )
    matched: set[int] = set()
    for number, answer in enumerate(truth):
        function = _function(functions, next(iter(answer)))
        last = None
        for index, call in enumerate(calls):
            if index in matched:
                continue
            last = check_call(function, call, answer)
            if last.valid:
                matched.add(index)
                break
        else:
            why = f" (last: {last.error})" if last is not None else ""
            return wrong(
                "parallel_function_checker_no_order:cannot_find_match",
                f"No call matches ground-truth call {number} ({next(iter(answer))}){why}.",
            )
    return RIGHT


def check_calls(
    category: str, functions: Sequence[dict[str, Any]], calls: Any, truth: list[dict[str, Any]] | None
) -> CheckResult:
    """Whether `calls` answer a question of `category` (BFCL's ast_checker, with its relevance rule).

    Args:
        category: the BFCL category ("simple_python", "multiple", "parallel", "parallel_multiple",
            "irrelevance", ...): one containing "irrelevance" is right with no call, "relevance" (the live
            categories) with any call; "parallel" matches calls in any order; "multiple" checks one call
            of the right one of several functions; any other is "simple" (exactly one call).
        functions: the question's function definitions.
        calls: the proposed calls, ``[{"func_name": {"param": value}}]`` (Proposal.calls).
        truth: the ground truth (possible_answer's "ground_truth"); None for the relevance categories.

    Raises:
        ValueError: a category that needs a ground truth got None.
    """
    if "irrelevance" in category:
        if no_call(calls):
            return RIGHT
        return wrong(
            "irrelevance_error:decoder_success", "A call was proposed where none of the functions fits."
        )
    if "relevance" in category:
        return (
            RIGHT if not no_call(calls) else wrong("relevance_error:decoder_failed", "No call was proposed.")
        )
    if truth is None:
        raise ValueError(f"category {category!r} needs a ground truth")
    if not is_call_list(calls):
        return wrong("ast_decoder:decoder_wrong_output_format", "The calls are not [{name: {param: value}}].")
    calls = bfcl_names(calls, functions)
    if "parallel" in category:
        return _check_parallel(functions, calls, truth)
    if "multiple" in category:
        if len(calls) != len(truth):
            return wrong(
                "multiple_function_checker:wrong_count",
                f"Wrong number of functions: {len(calls)}, expected {len(truth)}.",
            )
        return check_call(_function(functions, next(iter(truth[0]))), calls[0], truth[0])
    if len(calls) != 1:
        return wrong(
            "simple_function_checker:wrong_count", f"Wrong number of functions: {len(calls)}, expected 1."
        )
    return check_call(functions[0], calls[0], truth[0])


def _chosen(acceptable: list[Any], give: bool) -> tuple[bool, Any]:
    """(whether to give the parameter, its value) for one parameter's acceptable values: left out when ""
    is among them and not `give`, else the first that is not "" (a dict's keys, and those of a list of
    dicts, chosen the same way: a dict parameter's ground truth is a dict of acceptable-value lists)."""
    chosen = [a for a in acceptable if a != ""]
    if not chosen or ("" in acceptable and not give):
        return False, None
    value = chosen[0]
    if type(value) is dict:
        return True, _chosen_args(value, (), give)
    if type(value) is list and value and all(type(x) is dict for x in value):
        return True, [_chosen_args(x, (), give) for x in value]
    return True, value


def _chosen_args(params: dict[str, Any], required: Sequence[str], give: bool) -> dict[str, Any]:
    args = {}
    for param, acceptable in params.items():
        values = acceptable if type(acceptable) is list else [acceptable]
        keep, value = _chosen(values, give or param in required)
        if keep:
            args[param] = value
    return args


def ground_truth_calls(
    truth: list[dict[str, Any]], functions: Sequence[dict[str, Any]], *, give_optional: bool = False
) -> Calls:
    """The ground truth made calls (what a right answer looks like): each required parameter with its
    first acceptable value that is not ""; an optional one left out when "" is among its values, else
    given its first value (in a dict value, each key chosen the same way).

    give_optional: give the optional parameters their first value too. BFCL's ground truth lists a few
    optional values under the wrong function (parallel_multiple_12 lists the magnetic field's
    "permeability" under calculate_voltage_difference), so those calls are wrong by its own checker."""
    required = {str(f.get("name")): (f.get("parameters") or {}).get("required") or () for f in functions}
    return [
        {name: _chosen_args(params, required.get(name, ()), give_optional)}
        for answer in truth
        for name, params in answer.items()
    ]
