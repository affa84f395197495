"""The parameters of a pool entry's call, one shape for every source: `Param` and `params_of`.

Function-calling sources give a JSON Schema object (ApiDoc.parameters: OpenAI tools, an MCP server's
tools/list, BFCL function lists, OpenAPI operations); python-env docs give api_arguments as name -> default
source text or "required" (pool/pyenv/names.py); the APIBench hubs give complete calls whose api_arguments
only describe them, so they have no parameter to fill.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.pool.apidoc import ApiDoc

#: Type names as the sources write them -> the JSON Schema name Param.type uses. BFCL's names (string,
#: integer, float, boolean, array, tuple, dict, any: ../shared/bfcl/README.md) and JSON Schema's.
TYPE_NAMES: dict[str, str] = {
    "string": "string",
    "str": "string",
    "integer": "integer",
    "int": "integer",
    "number": "number",
    "float": "number",
    "double": "number",
    "boolean": "boolean",
    "bool": "boolean",
    "array": "array",
    "list": "array",
    "tuple": "array",
    "object": "object",
    "dict": "object",
    "any": "any",
    "null": "any",
}
#: The parameter types Param.type takes.
PARAM_TYPES = ("string", "integer", "number", "boolean", "array", "object", "any")
#: Python's signature separators in python-env api_arguments (pool/pyenv/__init__.py).
_MARKS = ("/", "*")


def type_name(raw: Any) -> str:
    """The Param.type of a schema's "type" value (a name or a list of names, JSON Schema's nullable form
    ``["string", "null"]``): TYPE_NAMES of the first known name, "any" when none is known."""
    names = raw if isinstance(raw, list) else [raw]
    for name in names:
        if isinstance(name, str) and TYPE_NAMES.get(name.strip().lower(), "any") != "any":
            return TYPE_NAMES[name.strip().lower()]
    return "any"


@dataclass(frozen=True)
class Param:
    """One parameter of a call.

    name: as the call spells it; type: one of PARAM_TYPES ("any" when the source does not say);
    required: the call is incomplete without it; description: the source's text ("" when none);
    enum: the allowed values (empty: any); has_default / default: the default value (a Python value read
    from JSON, or from the source text of a python-env default, or the source text itself where Python's
    parser cannot read it as a literal); items: the element type of an array ("" when not said);
    kind: "keyword" (may be given by keyword; function-calling sources), "positional" (positional or
    keyword), "posonly", "kwonly", "var" (*args), "varkw" (**kwargs); raw_type: the type as the source
    wrote it (BFCL's "float", "tuple", "dict", kept by pool/functions.py in "x-type"; "" when not said);
    schema: the property's own JSON Schema ({} for python-env).
    """

    name: str
    type: str = "any"
    required: bool = False
    description: str = ""
    enum: tuple[Any, ...] = ()
    has_default: bool = False
    default: Any = None
    items: str = ""
    kind: str = "keyword"
    raw_type: str = ""
    schema: dict[str, Any] = field(default_factory=dict, compare=False, repr=False)


def params_of(doc: ApiDoc) -> list[Param]:
    """The parameters of `doc`'s call in declared order: from doc.parameters (a JSON Schema object) when
    the source gave one, else from a python-env doc's api_arguments; [] for a doc whose call is complete as
    written (the APIBench hubs, APIZoo) or whose parameters are unknown."""
    if isinstance(doc.parameters, dict):
        return schema_params(doc.parameters)
    if doc.source == "python-env":
        return _pyenv_params(doc.api_arguments)
    return []


def schema_params(schema: dict[str, Any]) -> list[Param]:
    """Params of a JSON Schema object (``properties`` in their order, ``required``); a property that is
    not an object is taken as a parameter of unknown type."""
    props = schema.get("properties") if isinstance(schema, dict) else None
    if not isinstance(props, dict):
        return []
    required = schema.get("required")
    required = {r for r in required if isinstance(r, str)} if isinstance(required, list) else set()
    out = []
    for name, spec in props.items():
        spec = spec if isinstance(spec, dict) else {}
        enum = spec.get("enum")
        items = spec.get("items")
        raw = spec.get("type")
        out.append(
            Param(
                name=str(name),
                type=type_name(raw),
                required=name in required,
                description=str(spec.get("description") or ""),
                enum=tuple(enum) if isinstance(enum, list) else (),
                has_default="default" in spec,
                default=spec.get("default"),
                items=type_name(items.get("type")) if isinstance(items, dict) and "type" in items else "",
                raw_type=str(spec.get("x-type") or (raw if isinstance(raw, str) else "")),
                schema=spec,
            )
        )
    return out


def _literal(text: str) -> tuple[Any, str]:
    """(value, Param.type) of a default's source text: the literal Python reads, else the text and "any"."""
    try:
        value = ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return text, "any"
    kinds = ((bool, "boolean"), (int, "integer"), (float, "number"), (str, "string"),
             ((list, tuple), "array"), (dict, "object"))  # fmt: skip
    return value, next((name for t, name in kinds if isinstance(value, t)), "any")


def _pyenv_params(arguments: dict[str, str]) -> list[Param]:
    """Params of a python-env doc's api_arguments (pool/pyenv/names.py _arguments): name -> default source
    text or "required", "*name" / "**name" -> "optional", and the separators "/" and "*"."""
    names = list(arguments)
    posonly_end = names.index("/") if "/" in names else -1
    kwonly_start = names.index("*") if "*" in names else len(names)
    out = []
    for i, (name, value) in enumerate(arguments.items()):
        if name in _MARKS:
            continue
        if name.startswith("**"):
            out.append(Param(name=name[2:], kind="varkw"))
            continue
        if name.startswith("*"):
            out.append(Param(name=name[1:], kind="var"))
            kwonly_start = min(kwonly_start, i)
            continue
        kind = "posonly" if i < posonly_end else "kwonly" if i > kwonly_start else "positional"
        if value == "required":
            out.append(Param(name=name, required=True, kind=kind))
            continue
        default, kind_of_default = _literal(value)
        # a default of None says nothing of the type; the default's own type is the best guess otherwise
        out.append(Param(name=name, type="any" if default is None else kind_of_default, has_default=True,
                         default=default, kind=kind))  # fmt: skip
    return out
