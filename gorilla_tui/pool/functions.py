"""Function definitions as function calling writes them (a name, a description and a JSON Schema of the
parameters: OpenAI ``tools``, an MCP server's ``tools/list`` result, BFCL's ``function`` lists) made ApiDocs.

A function's doc proposes a keyword call whose required arguments are named placeholders
(``calculate_triangle_area(base=base, height=height)``); fill/ puts the task's values in them.
"""

from __future__ import annotations

import copy
import keyword
import re
from typing import Any

from gorilla_tui.jsontext import nested_deeper
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import TYPE_NAMES, schema_params

_IDENT = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def python_name(name: str) -> str:
    """`name` as a Python callee: a dotted name whose parts are identifiers (``math.factorial``) stays as
    it is; any other character becomes "_" (``get-weather`` -> ``get_weather``), a part that starts with a
    digit or is a keyword gets a trailing "_". Raises ValueError for a name with no letter, digit or "_"."""
    parts = []
    for part in name.strip().split("."):
        part = re.sub(r"\W", "_", part)
        if not part:
            continue
        if not _IDENT.fullmatch(part) or keyword.iskeyword(part):
            part = f"_{part}" if part[0].isdigit() else f"{part}_"
        parts.append(part)
    if not parts or not any(c.isalnum() for c in "".join(parts)):
        raise ValueError(f"not a function name: {name!r}")
    return ".".join(parts)


def normalise_schema(schema: Any) -> dict[str, Any]:
    """A parameters schema as JSON Schema: BFCL's type names (dict, float, tuple, any) become JSON Schema's
    (object, number, array), recursively in properties and items; the source's own name stays in
    "x-type". A schema that is not an object gives ``{"type": "object", "properties": {}}``."""
    if not isinstance(schema, dict):
        return {"type": "object", "properties": {}}
    out = copy.deepcopy(schema)

    def fix(node: Any) -> None:
        if not isinstance(node, dict):
            return
        raw = node.get("type")
        if isinstance(raw, str) and raw.lower() in TYPE_NAMES:
            new = {"float": "number", "dict": "object", "tuple": "array", "any": None}.get(raw.lower(), raw)
            if new != raw:
                node["x-type"] = raw
                if new is None:
                    del node["type"]
                else:
                    node["type"] = new
        for child in (
            (node.get("properties") or {}).values() if isinstance(node.get("properties"), dict) else ()
        ):
            fix(child)
        if isinstance(node.get("items"), dict):
            fix(node["items"])

    fix(out)
    out["type"] = "object"
    out.setdefault("properties", {})
    return out


def template_call(callee: str, parameters: dict[str, Any]) -> str:
    """The call a function's doc proposes before filling: each required parameter by keyword with its own
    name as the placeholder (``f(a=a, b=b)``); a required name that is not an identifier, or is a Python
    keyword ("class"), is left out (filling passes it as ``**{'class': 3}``)."""
    required = [
        p.name for p in schema_params(parameters)
        if p.required and _IDENT.fullmatch(p.name) and not keyword.iskeyword(p.name)
    ]  # fmt: skip
    return f"{callee}({', '.join(f'{n}={n}' for n in required)})"


#: Deepest nesting of objects and lists a function's parameters may have (the same rationale as
#: pool/openapi.py MAX_NESTING: normalise_schema's deepcopy and the validators recurse per level; a schema
#: 250 levels deep was "internal error: RecursionError", break-it round 8; real schemas nest a few levels).
MAX_SCHEMA_NESTING = 100


def function_doc(function: dict[str, Any], *, source: str, index: int, origin: str = "") -> ApiDoc:
    """The ApiDoc of one function definition.

    Args:
        function: ``{"name", "description"?, "parameters"?}`` (an OpenAI tool's "function" object, an MCP
            tool with "inputSchema" instead of "parameters", a BFCL function).
        source: the source name (ApiDoc.source); index: the 1-based entry number (ApiDoc.id is
            "<source>:<index>"); origin: the provider shown as the doc's framework ("" -> source).

    Raises:
        ValueError: no usable name (python_name), or parameters nested deeper than MAX_SCHEMA_NESTING.
    """
    name = str(function.get("name") or "")
    callee = python_name(name)
    schema = function.get("parameters", function.get("inputSchema"))
    if nested_deeper(schema, MAX_SCHEMA_NESTING):
        raise ValueError(f"{name or 'a function'}: parameters nested deeper than {MAX_SCHEMA_NESTING} levels")
    parameters = normalise_schema(schema)
    description = " ".join(str(function.get("description") or "").split())
    return ApiDoc(
        id=f"{source}:{index}",
        source=source,
        api_call=template_call(callee, parameters),
        api_name=name,
        framework=origin or source,
        functionality=description,
        description=description,
        api_arguments={p.name: p.description for p in schema_params(parameters)},
        parameters=parameters,
    )
