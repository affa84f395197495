"""The arguments of a call of a function-calling pool entry, checked against the entry's JSON Schema
(ApiDoc.parameters, built by pool/functions.py function_doc from an OpenAI tool, an MCP tool or a BFCL
function): rule 2 of check/validator.py's verdict rule for those entries.

What is checked, in this order (the first problem found is the verdict's reason; every problem gets a note):
too many positional arguments (parameters may be given by position in declared order), a keyword that
names no parameter (with a did-you-mean among the parameters not given), a parameter given by position and
by keyword, a required parameter not given, a literal value of another type than declared, a literal value
outside the declared enum. Only literals are judged (``ast.literal_eval`` of the argument's node: numbers,
strings, lists, tuples, dicts, True/False/None, with no name in them); a name (``base=base``, a template's
placeholder) or any other expression may hold anything. The type rule is BFCL's AST checker's
(../shared/bfcl/README.md): an int is a number, a tuple is a list, a bool is neither an int nor a number.

python-env docs keep check/imports.py argument_errors (their parameters' types are unknown); the APIBench
hubs and APIZoo have no parameters schema (their calls are complete as written).
"""

from __future__ import annotations

import ast
import dataclasses
import math
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.check.callsite import MAX_NESTING, CallSite, scan
from gorilla_tui.check.suggest import nearest
from gorilla_tui.jsontext import nested_deeper
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of, type_name

#: How near (difflib ratio, check/suggest.py) an unknown keyword must be to a parameter's name for the
#: did-you-mean to name it: ``hieght`` / ``height`` = 0.83, ``colour`` / ``color`` = 0.91, ``colour`` /
#: ``unit`` = 0.2.
NEAR_NAME = 0.6
#: At most this many characters of a value's source text are quoted in a note.
SHOWN = 60
#: At most this many enum values are listed in a note.
ENUM_SHOWN = 8

#: What a value of each Param.type is, in words (notes).
_EXPECTED = {
    "string": "a string",
    "integer": "an integer",
    "number": "a number",
    "boolean": "True or False",
    "array": "a list",
    "object": "a dict",
}
_PLURAL = {
    "string": "strings",
    "integer": "integers",
    "number": "numbers",
    "boolean": "booleans",
    "array": "lists",
    "object": "dicts",
}


@dataclass
class ArgumentCheck:
    """The outcome of checking one call against one schema entry.

    reason: the first problem's reason code (types.REASONS), "" when the call fits; notes: one sentence per
    problem; suggestions: a corrected call when one is found (unknown keywords renamed to a near parameter
    or dropped, a numeric string made a number, an enum value in another case made the declared one) and it
    passes the check itself, else [].
    """

    reason: str = ""
    notes: list[str] = field(default_factory=list)
    suggestions: list[str] = field(default_factory=list)


@dataclass(frozen=True)
class Given:
    """One argument of a call as Python reads it: the source text, and the literal value when the
    argument is a literal (has_value False for names and other expressions)."""

    text: str
    has_value: bool = False
    value: Any = None


@dataclass(frozen=True)
class Arguments:
    """A call's arguments read with Python's ``ast``: the callee's source text, the positional arguments
    and the keywords (in source order; ``**kwargs`` left out, and the positional ones when there is a
    ``*args``)."""

    func: str
    positional: tuple[Given, ...]
    keywords: tuple[tuple[str, Given], ...]


def has_schema(doc: ApiDoc) -> bool:
    """True for a doc whose arguments are checked here (ApiDoc.parameters is a JSON Schema object)."""
    return isinstance(doc.parameters, dict)


def _given(node: ast.expr, text: str) -> Given:
    """The argument `node` of the call source `text`: its source, and its literal value unless that nests
    deeper than callsite.MAX_NESTING (measured once, without recursion: type_problem and enum_problem
    recurse per level of a value and its schema, so every value they see is bounded by Python's own
    limit on nested brackets)."""
    source = ast.get_source_segment(text, node) or ""
    try:
        value = ast.literal_eval(node)
    except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
        return Given(source)
    return Given(source) if nested_deeper(value, MAX_NESTING) else Given(source, True, value)


def read_arguments(call: CallSite) -> Arguments | None:
    """`call`'s arguments as Python reads them (``ast.parse`` of CallSite.text; nothing is evaluated),
    or None when the text is not one call whose arguments are those tree-sitter found (a text cut at
    callnodes.MAX_TEXT, a call passed through a wrapper). A call with ``*args`` gets no positional
    arguments here (their positions are unknown); ``**kwargs`` is left out of the keywords."""
    if call.via:
        return None
    text = call.text.strip()
    try:
        tree = ast.parse(text, mode="eval")
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return None
    node = tree.body
    if not isinstance(node, ast.Call):
        return None
    named = [k for k in node.keywords if k.arg is not None]
    plain = [a for a in node.args if not isinstance(a, ast.Starred)]
    if len(plain) != len(call.positional) or {k.arg for k in named} != set(call.keywords):
        return None
    func = ast.get_source_segment(text, node.func) or ""
    positional = () if len(plain) < len(node.args) else tuple(_given(a, text) for a in plain)
    keywords = tuple((str(k.arg), _given(k.value, text)) for k in named)
    return Arguments(func, positional, keywords)


def _shown(text: str) -> str:
    text = " ".join(text.split())
    return text if len(text) <= SHOWN else text[: SHOWN - 1] + "…"


def _fits(value: Any, kind: str) -> bool:
    """True when a literal `value` is of the Param.type `kind` (BFCL's rule: an int is a number, a tuple is
    a list, a bool is only a boolean)."""
    if kind == "string":
        return isinstance(value, str)
    if kind == "integer":
        return isinstance(value, int) and not isinstance(value, bool)
    if kind == "number":
        return isinstance(value, (int, float)) and not isinstance(value, bool)
    if kind == "boolean":
        return isinstance(value, bool)
    if kind == "array":
        return isinstance(value, (list, tuple))
    if kind == "object":
        return isinstance(value, dict)
    return True  # "any"


def _nullable(schema: dict[str, Any]) -> bool:
    raw = schema.get("type")
    return raw == "null" or (isinstance(raw, list) and "null" in raw)


def _what(value: Any) -> str:
    """What a literal is, in words: "a str", "None"."""
    if value is None:
        return "None"
    name = type(value).__name__
    return f"an {name}" if name[0] in "aeiou" else f"a {name}"


def type_problem(value: Any, schema: dict[str, Any], none_fits: bool = False) -> str:
    """How a literal `value` misses a JSON Schema's type, in words ("is a str, expected an integer"), or
    "" when it fits. An array's items are checked against its "items" schema, nested arrays too. None
    fits where `none_fits` (an optional parameter: None is Python's "not given") or the schema's type
    list names "null"."""
    if value is None:
        if none_fits or _nullable(schema):
            return ""
        kind = type_name(schema.get("type"))
        return "" if kind == "any" else f"is None, expected {_EXPECTED[kind]}"
    kind = type_name(schema.get("type"))
    if not _fits(value, kind):
        return f"is {_what(value)}, expected {_EXPECTED[kind]}"
    items = schema.get("items")
    if kind == "array" and isinstance(items, dict):
        item_kind = type_name(items.get("type"))
        for item in value:
            if type_problem(item, items):
                expected = f"a list of {_PLURAL[item_kind]}" if item_kind != "any" else "a list"
                return f"holds {_shown(repr(item))} ({_what(item)}), expected {expected}"
    return ""


def _same(a: Any, b: Any) -> bool:
    """Equal literals of the same kind: True is not 1 here, "1" is not 1; 1 and 1.0 are equal."""
    if isinstance(a, (bool, str)) or isinstance(b, (bool, str)):
        return type(a) is type(b) and a == b
    return a == b


def _member(value: Any, enum: tuple[Any, ...] | list[Any]) -> bool:
    return any(_same(value, e) for e in enum)


def enum_problem(value: Any, schema: dict[str, Any]) -> tuple[str, Any]:
    """("is not one of ...", the nearest declared value or None) when a literal `value`, or an item of an
    array value, is outside the schema's "enum" (its "items" enum for an array); ("", None) otherwise."""
    enum = schema.get("enum")
    if isinstance(enum, list) and enum and not _member(value, enum):
        listed = ", ".join(_shown(repr(e)) for e in enum[:ENUM_SHOWN]) + (
            ", …" if len(enum) > ENUM_SHOWN else ""
        )
        near = _near_value(value, enum)
        tip = f" (did you mean {near!r}?)" if near is not None else ""
        return f"is not one of the declared values: {listed}{tip}", near
    items = schema.get("items")
    if isinstance(value, (list, tuple)) and isinstance(items, dict):
        for item in value:
            problem, _ = enum_problem(item, items)
            if problem:
                return f"holds {_shown(repr(item))}, which {problem}", None
    return "", None


def _near_value(value: Any, enum: list[Any]) -> Any:
    """The declared string nearest to a string `value`: the same text in another case, else the nearest
    by difflib ratio (>= NEAR_NAME); None when there is none or `value` is no string."""
    if not isinstance(value, str):
        return None
    strings = [e for e in enum if isinstance(e, str)]
    same = [e for e in strings if e.casefold() == value.casefold()]
    if same:
        return same[0]
    found = nearest(value, strings, n=1, cutoff=NEAR_NAME)
    return found[0] if found else None


def _number(text: str, kind: str) -> Any:
    """The number a string literal holds when `kind` is integer or number ("10" -> 10, "2.5" -> 2.5), else
    None.

    An integer stays a Python int of any size, never passed through float(): ``math.isfinite`` of an int
    beyond 1.8e308 raises OverflowError. A "number" is a finite float, or the int when the text is an
    integer too large for a float; "1e400", "nan" and "inf" have no literal to write (None). int() refuses
    strings of more than ``sys.get_int_max_str_digits()`` digits (4,300 by default) with ValueError: None.
    """
    text = text.strip()
    try:
        whole: int | None = int(text)
    except ValueError:
        whole = None
    if kind == "integer":
        return whole
    try:
        number = float(text)
    except ValueError:
        return whole
    return number if math.isfinite(number) else whole


def schema_errors(
    doc: ApiDoc, call: CallSite, args: Arguments | None = None, suggest: bool = True
) -> ArgumentCheck:
    """Check `call` against a schema doc's parameters (see the module docstring).

    Args:
        doc: a pool entry with ApiDoc.parameters (has_schema).
        call: a call of that entry's callee.
        args: read_arguments(call), when the caller read it already (one parse for several entries of a
            callee); values are judged only when it is not None.
        suggest: look for a corrected call (ArgumentCheck.suggestions); False when checking one.

    Returns:
        ArgumentCheck: reason "wrong_args:too_many_arguments", "wrong_args:unknown_keyword",
        "wrong_args:duplicate_argument", "wrong_args:missing_argument", "wrong_args:wrong_type" or
        "wrong_args:not_in_enum" (the first problem in that order), or "" for a call that fits; notes such
        as "calculate_triangle_area: base='ten' is a str, expected an integer".
    """
    schema: dict[str, Any] = doc.parameters if isinstance(doc.parameters, dict) else {}
    params = params_of(doc)
    by_name = {p.name: p for p in params}
    name = doc.api_name or call.callee
    found: dict[str, list[str]] = {}

    def report(reason: str, note: str) -> None:
        found.setdefault(reason, []).append(note)

    extra = schema.get("additionalProperties")
    open_ended = extra is True or isinstance(extra, dict)
    renames: dict[str, str | None] = {}  # unknown keyword -> near parameter name, or None (drop it)
    if not call.splat and len(call.positional) > len(params):
        n, s = len(params), "s" if len(params) != 1 else ""
        got = len(call.positional)
        report(
            "wrong_args:too_many_arguments", f"{name} takes at most {n} positional argument{s}, {got} given"
        )
    by_position = [] if call.splat else [p.name for p in params[: len(call.positional)]]
    given = set(by_position) | set(call.keywords)
    if not open_ended:
        for key in call.keywords:
            if key in by_name:
                continue
            free = [p.name for p in params if p.name not in given]
            near = nearest(key, free, n=1, cutoff=NEAR_NAME)
            renames[key] = near[0] if near else None
            tip = f"did you mean {near[0]!r}?" if near else f"parameters: {', '.join(by_name) or 'none'}"
            report("wrong_args:unknown_keyword", f"{name} has no parameter {key!r} ({tip})")
            if near:
                given.add(near[0])
    for key in call.keywords:
        if key in by_position:
            report("wrong_args:duplicate_argument", f"{name} got multiple values for argument {key!r}")
    if not call.splat:
        for param in params:
            if param.required and param.name not in given:
                report("wrong_args:missing_argument", f"argument {param.name!r} is required by {name}")
    fixes: dict[str, Any] = {}  # parameter -> corrected literal
    if args is not None:
        values = list(zip(by_position, args.positional, strict=False)) + [
            (k, g) for k, g in args.keywords if k in by_name
        ]
        for pname, arg in values:
            if arg.has_value:
                _judge(name, by_name[pname], arg, report, fixes)
    reasons = [r for r in _ORDER if r in found]
    notes = [n for r in reasons for n in found[r]]
    result = ArgumentCheck(reasons[0] if reasons else "", notes)
    if suggest and reasons and args is not None and not call.splat and set(reasons) <= _FIXABLE:
        fixed = _fixed_call(args, by_position, renames, fixes)
        site = next(iter(scan(fixed).calls), None) if fixed is not None else None
        if fixed is not None and site is not None:
            site = dataclasses.replace(site, callee=call.callee)
            if not schema_errors(doc, site, read_arguments(site), suggest=False).reason:
                result.suggestions = [fixed]
    return result


#: Reason codes of schema_errors in the order the first one found is the verdict's reason.
_ORDER = (
    "wrong_args:too_many_arguments",
    "wrong_args:unknown_keyword",
    "wrong_args:duplicate_argument",
    "wrong_args:missing_argument",
    "wrong_args:wrong_type",
    "wrong_args:not_in_enum",
)
#: Problems a corrected call can mend without a value the task gave (see ArgumentCheck.suggestions).
_FIXABLE = frozenset({"wrong_args:unknown_keyword", "wrong_args:wrong_type", "wrong_args:not_in_enum"})


def _judge(name: str, param: Param, arg: Given, report: Any, fixes: dict[str, Any]) -> None:
    """Report a literal argument of another type than `param` declares, or outside its enum; note the
    fix where one is plain (a numeric string for a number, an enum value in another case)."""
    schema = param.schema or {"type": param.type}
    shown = f"{param.name}={_shown(arg.text)}"
    none_fits = not param.required or (param.has_default and param.default is None)
    problem = type_problem(arg.value, schema, none_fits)
    if problem:
        if isinstance(arg.value, str) and param.type in ("integer", "number"):
            number = _number(arg.value, param.type)
            if number is not None:
                fixes[param.name] = number
                problem += f" (did you mean {param.name}={_shown(repr(number))}?)"
        report("wrong_args:wrong_type", f"{name}: {shown} {problem}")
        return
    if arg.value is None:
        return
    problem, near = enum_problem(arg.value, schema)
    if problem:
        if near is not None:
            fixes[param.name] = near
        report("wrong_args:not_in_enum", f"{name}: {shown} {problem}")


def _fixed_call(
    args: Arguments, by_position: list[str], renames: dict[str, str | None], fixes: dict[str, Any]
) -> str | None:
    """The call with unknown keywords renamed (or dropped) and the plain fixes applied, as source text;
    None when there is nothing to change."""
    if not renames and not fixes:
        return None
    parts = []
    for pname, arg in zip(by_position, args.positional, strict=False):
        parts.append(repr(fixes[pname]) if pname in fixes else arg.text)
    for key, arg in args.keywords:
        target = renames[key] if key in renames else key
        if target is not None:
            parts.append(f"{target}={repr(fixes[key]) if key in fixes else arg.text}")
    return f"{args.func}({', '.join(parts)})"
