"""OpenAPI operations as docs (pool/openapi.py loads and checks the document first).

One operation (a method under ``paths``) -> one ApiDoc:

- kind "rest"; api_call ``"GET /pets/{petId}"`` (the method and the path template as written, like
  APIZoo's REST entries: check/rest.py matches requests against it); api_name the operationId, else
  ``"GET /pets/{petId}"``; functionality the summary (else the description's first sentence),
  description the summary and the description; domain the first tag; framework the API's title;
  api_version its version; env_requirements ``["requests"]``.
- parameters: one JSON Schema object of every argument (ApiDoc.parameters), its properties flattened:
  the path, query and header parameters (cookie parameters are left out), each the parameter's schema
  with its description, ``"x-in"`` saying where it goes (path, query, header); then the properties of a
  JSON request body's object schema (``"x-in": "body"``; an ``allOf`` of objects merged first), required
  when the body is and the schema requires them. A body that is not an object with properties (an array,
  a string, a ``oneOf``), or whose property names clash with a parameter's, is one property ``body``
  (``request_body`` when a parameter is named body) holding its whole schema. Flattened, because a
  model fills one flat set of named arguments best, as function calling writes them; x-in keeps where
  each one goes. A parameter named like an earlier one in another place is renamed ``<name>_<in>`` with
  ``"x-name"`` its real name. ``$ref``s are inlined, at most MAX_REF_DEPTH deep (a deeper or recursive one
  is left as ``{"type", "description", "x-ref"}``).
- example_code: a ``requests`` call (``requests.post("https://api.example.com/v1/pets/{petId}/toys",
  params={"limit": limit}, json={"name": name})``): the first server's URL (the operation's, else the path
  item's, else the document's; its variables at their defaults; ``{base_url}`` when there is none or it is
  relative) before the path template, whose ``{name}`` placeholders stay as written (as in APIZoo's REST
  examples: check/rest.py matches such a URL against the template); the other required parameters as
  placeholder variables named by their Python names (pool/functions.py python_name), ``params=`` for
  query, ``headers=`` for header, ``json=`` for a JSON body (``data=`` for another media type).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gorilla_tui.pool.apidoc import ApiDoc, Diagnostic, LoadResult
from gorilla_tui.pool.functions import python_name
from gorilla_tui.pool.openapi_refs import Resolver

#: The HTTP methods of an OpenAPI path item that become docs (ApiDoc.REST_LINE's methods; "trace" is not
#: one of them and is left out with a note).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
#: Longest description kept, in characters (a few operations carry whole pages of Markdown).
MAX_DESCRIPTION = 2000
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def operations(
    resolver: Resolver, spec: dict[str, Any], result: LoadResult, path: Path
) -> Iterator[tuple[str, str, dict[str, Any], dict[str, Any]]]:
    """(route, METHOD, path item, operation) of each operation in document order; a "trace" operation
    gets a note (ApiDoc.REST_LINE has no TRACE)."""
    for route, item in (spec.get("paths") or {}).items():
        item = resolver.deref(item)
        if not isinstance(item, dict):
            continue
        for method, operation in item.items():
            if method == "trace":
                msg = f"TRACE {route}: not indexed (no TRACE in REST api_calls)"
                result.diagnostics.append(Diagnostic(str(path), 0, "note", msg))
            if method in METHODS and isinstance(operation, dict):
                yield route, method.upper(), item, operation


def _text(value: Any) -> str:
    return " ".join(str(value or "").split())


def _clip(text: str, limit: int) -> str:
    return text if len(text) <= limit else text[: limit - 1].rstrip() + "…"


def operation_doc(
    resolver: Resolver,
    spec: dict[str, Any],
    route: str,
    method: str,
    item: dict[str, Any],
    operation: dict[str, Any],
) -> ApiDoc:
    """The ApiDoc of one operation (id, source, framework and api_version are set by the caller)."""
    summary, about = _text(operation.get("summary")), _text(operation.get("description"))
    functionality = summary or (_SENTENCE_END.split(about, maxsplit=1)[0] if about else "")
    if operation.get("deprecated") is True:
        functionality = f"{functionality} (deprecated)".strip()
    description = summary if not about or about == summary else f"{summary}. {about}" if summary else about
    tags = operation.get("tags")
    parameters, body = _parameters(resolver, item, operation)
    api_call = f"{method} {route}"
    return ApiDoc(
        id="",
        source="",
        api_call=api_call,
        api_name=str(operation.get("operationId") or api_call),
        domain=str(tags[0]) if isinstance(tags, list) and tags else "",
        functionality=_clip(functionality, 300),
        description=_clip(description, MAX_DESCRIPTION),
        api_arguments={name: str(p.get("description") or "") for name, p in parameters["properties"].items()},
        env_requirements=["requests"],
        example_code=_example(_base_url(spec, item, operation), method, route, parameters, body),
        kind="rest",
        parameters=parameters,
    )


def _parameters(
    resolver: Resolver, item: dict[str, Any], operation: dict[str, Any]
) -> tuple[dict[str, Any], tuple[str, str | None]]:
    """(the operation's parameters schema, how its body is sent: _body); see the module docstring."""
    declared: dict[tuple[str, str], dict[str, Any]] = {}
    for raw in [*(item.get("parameters") or []), *(operation.get("parameters") or [])]:
        param = resolver.deref(raw)  # the operation's own override the path item's (same name and "in")
        if isinstance(param, dict) and isinstance(param.get("name"), str) and param.get("in") != "cookie":
            declared[(param["name"], str(param.get("in")))] = param
    properties: dict[str, Any] = {}
    required: list[str] = []
    for (name, where), param in declared.items():
        schema = param.get("schema")
        if schema is None and isinstance(param.get("content"), dict) and param["content"]:
            schema = next(iter(param["content"].values())).get("schema")
        prop = resolver.inline(schema) if isinstance(schema, dict) else {}
        if param.get("description"):
            prop["description"] = _text(param["description"])
        prop["x-in"] = where
        key = name if name not in properties else f"{name}_{where}"
        if key != name:
            prop["x-name"] = name
        properties[key] = prop
        if param.get("required") is True or where == "path":
            required.append(key)
    body = _body(resolver, operation, properties, required)
    return {"type": "object", "properties": properties, "required": required}, body


def _body(
    resolver: Resolver, operation: dict[str, Any], properties: dict[str, Any], required: list[str]
) -> tuple[str, str | None]:
    """Add the request body's properties (flattened, or one ``body`` property) to `properties` and
    `required`. Returns (how it is sent: "json" for a JSON media type, "data" for another, "" for no
    body; the property holding the whole body, None when flattened)."""
    body = resolver.deref(operation.get("requestBody"))
    content = body.get("content") if isinstance(body, dict) else None
    if not isinstance(content, dict) or not content:
        return "", None
    media = next((m for m in content if "json" in m.lower()), next(iter(content)))
    mode = "json" if "json" in media.lower() else "data"
    entry = content[media] if isinstance(content[media], dict) else {}
    schema = resolver.inline(entry.get("schema")) if isinstance(entry.get("schema"), dict) else {}
    body_required = body.get("required") is True
    merged = _merge_all_of(schema)
    props = merged.get("properties") if merged.get("type", "object") == "object" else None
    if mode == "json" and isinstance(props, dict) and props and not set(props) & set(properties):
        needed = set(merged.get("required") or []) if body_required else set()
        for name, spec in props.items():
            properties[name] = {**(spec if isinstance(spec, dict) else {}), "x-in": "body"}
            if name in needed:
                required.append(name)
        return mode, None
    key = "body" if "body" not in properties else "request_body"
    prop = {**schema, "x-in": "body"}
    if body.get("description") and "description" not in prop:
        prop["description"] = _text(body["description"])
    properties[key] = prop
    if body_required:
        required.append(key)
    return mode, key


def _merge_all_of(schema: dict[str, Any]) -> dict[str, Any]:
    """`schema` with a top-level ``allOf`` of object schemas merged into one (properties and required
    joined); any other schema as it is."""
    parts = schema.get("allOf")
    if not isinstance(parts, list) or not all(isinstance(p, dict) for p in parts):
        return schema
    merged: dict[str, Any] = {k: v for k, v in schema.items() if k != "allOf"}
    props: dict[str, Any] = dict(merged.get("properties") or {})
    needed: list[str] = list(merged.get("required") or [])
    for part in map(_merge_all_of, parts):
        if part.get("type", "object") != "object":
            return schema
        props.update(part.get("properties") or {})
        needed += [r for r in part.get("required") or [] if r not in needed]
    return {**merged, "type": "object", "properties": props, "required": needed}


def _base_url(spec: dict[str, Any], item: dict[str, Any], operation: dict[str, Any]) -> str:
    """The URL of the first server (the operation's, else the path item's, else the document's), its
    variables at their defaults, without a trailing "/"; "" when there is none or it is relative."""
    for node in (operation, item, spec):
        servers = node.get("servers")
        if isinstance(servers, list) and servers and isinstance(servers[0], dict):
            server = servers[0]
            url = str(server.get("url") or "")
            variables = server.get("variables") if isinstance(server.get("variables"), dict) else {}
            for name, var in variables.items():
                if isinstance(var, dict) and "default" in var:
                    url = url.replace("{" + name + "}", str(var["default"]))
            return url.rstrip("/") if "://" in url else ""
    return ""


def _placeholder(name: str) -> str:
    """The Python name a parameter's placeholder has (python_name, dots made "_"; "value" for a name it
    cannot take; a trailing "_" on the names the example code itself uses: requests, response)."""
    try:
        out = python_name(name).replace(".", "_")
    except ValueError:
        return "value"
    return f"{out}_" if out in ("requests", "response") else out


def _example(
    base: str, method: str, route: str, parameters: dict[str, Any], body: tuple[str, str | None]
) -> str:
    """The ``requests`` call of an operation (module docstring): required parameters as placeholders.
    body: (how the body is sent: "json", "data" or "" for none; the property holding the whole body, or
    None when its properties are flattened)."""
    mode, whole = body
    props, required = parameters["properties"], parameters["required"]
    args = [json.dumps((base or "{base_url}") + route)]
    groups = {"query": "params", "header": "headers"}
    for where, keyword in groups.items():
        items = [(props[k].get("x-name", k), k) for k in required if props[k].get("x-in") == where]
        if items:
            args.append(f"{keyword}={{{', '.join(f'{json.dumps(n)}: {_placeholder(k)}' for n, k in items)}}}")
    fields = [k for k in required if props[k].get("x-in") == "body"]
    if mode and fields:
        value = (
            _placeholder(whole)
            if whole
            else "{" + ", ".join(f"{json.dumps(k)}: {_placeholder(k)}" for k in fields) + "}"
        )
        args.append(f"{mode}={value}")
    return f"import requests\n\nresponse = requests.{method.lower()}({', '.join(args)})\n"
