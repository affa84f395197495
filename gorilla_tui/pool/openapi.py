"""OpenAPI 3 documents (JSON or YAML) as a source (format "openapi"): each operation one REST ApiDoc.

The document is parsed (JSON with json, YAML with PyYAML through jsonschema-path's loader, which leaves
dates as strings as JSON would have them), checked whole before any doc is made, and refused whole
(SourceRejected, one line naming the file) when it is not an OpenAPI 3.x document, has a ``$ref`` outside
the document (a file or a URL: never fetched; bundle the document first) or one that points nowhere, or
fails openapi-spec-validator's validation against the OpenAPI 3.0/3.1 schema. ``$ref``s are resolved
with the ``referencing`` library (the JSON Schema project's; openapi-spec-validator's own resolver).

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

import io
import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gorilla_tui.pool.apidoc import ApiDoc, Diagnostic, LoadResult, SourceRejected
from gorilla_tui.pool.files import MAX_SOURCE_BYTES, read_text
from gorilla_tui.pool.functions import python_name

#: The HTTP methods of an OpenAPI path item that become docs (ApiDoc.REST_LINE's methods; "trace" is not
#: one of them and is left out with a note).
METHODS = ("get", "put", "post", "delete", "options", "head", "patch")
#: Nested ``$ref``s inlined into a parameters schema (the body's own schema, its properties' and theirs);
#: a deeper one stays a reference (``x-ref``), so a recursive schema ends and a large API's docs stay small.
MAX_REF_DEPTH = 3
#: Values a YAML document may have once its aliases are expanded, per byte of its text: without aliases a
#: document has fewer values than bytes (each takes one at least), so 10 leaves room for the aliases a
#: document shares parameters with, and refuses a "billion laughs" file (a few hundred bytes of nested
#: aliases that expand to billions of values) before it is expanded.
MAX_EXPANSION = 10
#: Deepest nesting of objects and lists an OpenAPI document may have. openapi-spec-validator recurses per
#: level and reached Python's recursion limit at 121 nested object schemas (JSON depth 247) and 162 nested
#: array schemas (depth 167) on CPython 3.11 (measured); 100 leaves room for the levels $refs add, and
#: real documents nest some tens deep. A deeper one is refused in one line, not with Python's "maximum
#: recursion depth exceeded" (break-it pass 4).
MAX_NESTING = 100
#: Longest description kept, in characters (a few operations carry whole pages of Markdown).
MAX_DESCRIPTION = 2000
#: A top-level ``openapi:`` or ``swagger:`` key of a YAML document (detect: looks_like_openapi_yaml).
_YAML_KEY = re.compile(r"^(?:openapi|swagger|([\"'])(?:openapi|swagger)\1)[ \t]*:", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.!?])\s")


def is_openapi_value(value: Any) -> bool:
    """True for a parsed JSON object with an "openapi" or "swagger" member (an OpenAPI or Swagger
    document; which version is checked when it is loaded)."""
    return isinstance(value, dict) and ("openapi" in value or "swagger" in value)


def looks_like_openapi_yaml(head: str) -> bool:
    """True when text (a file's first bytes) has a top-level ``openapi:`` or ``swagger:`` key."""
    return bool(_YAML_KEY.search(head))


def load_openapi(path: str | Path, source: str, max_bytes: int = MAX_SOURCE_BYTES) -> LoadResult:
    """Load an OpenAPI 3 document: one ApiDoc per operation (this module's docstring), ids
    "<source>:<n>" in document order.

    Raises:
        SourceRejected: one line naming the file and the problem: not a regular file, more than max_bytes,
            invalid JSON or YAML, not OpenAPI 3 (Swagger 2.0 included), an external or broken ``$ref``, a
            document openapi-spec-validator finds invalid. Nothing of it is loaded then.
    """
    path = Path(path)
    result = LoadResult()
    text = read_text(path, result, max_bytes)
    if text is None:
        return result
    spec = _parse(path, text)
    version = _version(path, spec)
    _check_nesting(path, spec)
    resolver = _Resolver(path, spec)
    resolver.check_refs()
    _validate(path, spec, version)
    title = str((spec.get("info") or {}).get("title") or "")
    api_version = str((spec.get("info") or {}).get("version") or "")
    for route, method, item, operation in _operations(resolver, spec, result, path):
        doc = _operation_doc(resolver, spec, route, method, item, operation)
        doc.id, doc.source = f"{source}:{len(result.docs) + 1}", source
        doc.framework, doc.api_version = title or source, api_version
        result.docs.append(doc)
    if not result.docs:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "no operation under paths"))
    return result


# ---------------------------------------------------------------------------------------------------------
# reading and checking the document


def _parse(path: Path, text: str) -> dict[str, Any]:
    """The document as JSON data (keys strings, YAML aliases expanded within MAX_EXPANSION). Raises
    SourceRejected for invalid JSON or YAML, or a document that is not an object."""
    import yaml  # deferred: with jsonschema-path below, only an OpenAPI source needs them
    from jsonschema_path.loaders import JsonschemaSafeLoader  # deferred: see above

    if text.lstrip().startswith("{"):
        try:
            data = json.loads(text)
        except json.JSONDecodeError as e:
            raise SourceRejected(
                f"{path}: invalid JSON at line {e.lineno} column {e.colno}: {e.msg}"
            ) from None
        except RecursionError:
            raise SourceRejected(
                f"{path}: invalid JSON: nested deeper than Python's recursion limit"
            ) from None
    else:
        try:
            data = yaml.load(io.StringIO(text), Loader=JsonschemaSafeLoader)  # noqa: S506 - a safe loader
        except yaml.YAMLError as e:
            mark = getattr(e, "problem_mark", None)
            where = f" at line {mark.line + 1} column {mark.column + 1}" if mark is not None else ""
            why = getattr(e, "problem", None) or str(e).splitlines()[0]
            raise SourceRejected(f"{path}: invalid YAML{where}: {why}") from None
        except RecursionError:
            raise SourceRejected(
                f"{path}: invalid YAML: nested deeper than Python's recursion limit"
            ) from None
        _check_expansion(path, data, MAX_EXPANSION * len(text) + 1000)
        data = _plain(data)
    if not isinstance(data, dict):
        raise SourceRejected(f"{path}: not an OpenAPI document (expected an object, got {_kind(data)})")
    return data


def _kind(value: Any) -> str:
    return {list: "a list", str: "a string", type(None): "nothing"}.get(type(value), type(value).__name__)


def _check_expansion(path: Path, data: Any, limit: int) -> None:
    """SourceRejected when YAML data would have more than `limit` values with its aliases expanded (each
    shared list or mapping counted once per use, computed once per object), or an alias that holds
    itself, or more nesting than Python's recursion limit allows."""
    sizes: dict[int, int] = {}

    def size(value: Any) -> int:
        if not isinstance(value, (dict, list)):
            return 1
        known = sizes.get(id(value))
        if known is not None:
            if known < 0:
                raise SourceRejected(f"{path}: invalid YAML for OpenAPI: an alias that contains itself")
            return known
        sizes[id(value)] = -1
        children = value.values() if isinstance(value, dict) else value
        total = 1 + sum(size(v) for v in children)
        sizes[id(value)] = total
        return total

    try:
        total = size(data)
    except RecursionError:
        raise SourceRejected(f"{path}: invalid YAML: nested deeper than Python's recursion limit") from None
    if total > limit:
        raise SourceRejected(
            f"{path}: {total:,} values once its YAML aliases are expanded, more than {MAX_EXPANSION} per "
            "byte of the file (a 'billion laughs' document?)"
        )


def _plain(value: Any) -> Any:
    """YAML data as JSON data (after _check_expansion): mapping keys made strings (``200:`` -> "200"),
    each alias a copy; a value JSON has no form for (bytes, a set) becomes its text."""
    if isinstance(value, dict):
        return {_key(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list):
        return [_plain(v) for v in value]
    if value is None or isinstance(value, (str, int, float, bool)):
        return value
    return str(value)


def _key(key: Any) -> str:
    """A YAML mapping key as JSON writes it (json.dumps: True -> "true", None -> "null", 200 -> "200")."""
    return key if isinstance(key, str) else json.dumps(key)


def _version(path: Path, spec: dict[str, Any]) -> str:
    """The document's OpenAPI version ("3.0.3"); SourceRejected for Swagger 2.0 and anything not 3.x."""
    version = spec.get("openapi")
    if "swagger" in spec and version is None:
        raise SourceRejected(
            f"{path}: a Swagger {spec.get('swagger')} (OpenAPI 2) document; only OpenAPI 3 is read "
            "(convert it first, e.g. with swagger2openapi)"
        )
    if not isinstance(version, str) or not version.startswith("3."):
        got = "no 'openapi' field" if version is None else f"openapi: {version!r}"
        raise SourceRejected(f"{path}: not an OpenAPI 3 document ({got})")
    return version


def _validate(path: Path, spec: dict[str, Any], version: str) -> None:
    """openapi-spec-validator's validation of the whole document; SourceRejected with its first error
    (one line: the message clipped, and where in the document)."""
    from openapi_spec_validator import validate  # deferred: ~0.3 s; only an OpenAPI source needs it
    from openapi_spec_validator.exceptions import OpenAPIError  # deferred: see above
    from openapi_spec_validator.validation.exceptions import OpenAPIValidationError  # deferred: see above

    try:
        validate(spec)
    except OpenAPIValidationError as e:
        where = ".".join(str(p) for p in e.absolute_path)
        message = " ".join(str(e.message).split())
        message = message if len(message) <= 200 else message[:199] + "…"
        at = f" (at {where})" if where else ""
        raise SourceRejected(f"{path}: not a valid OpenAPI {version} document: {message}{at}") from None
    except RecursionError:  # nesting under MAX_NESTING that $refs make deeper (a cycle through allOf...)
        raise SourceRejected(
            f"{path}: not a valid OpenAPI {version} document: its schemas and $refs nest deeper than the "
            "validator can follow (a $ref cycle?)"
        ) from None
    except (OpenAPIError, LookupError, TypeError, ValueError) as e:
        why = " ".join(str(e).split())[:200] or type(e).__name__
        raise SourceRejected(f"{path}: not a valid OpenAPI {version} document: {why}") from None


class _Resolver:
    """``$ref`` resolution within one document, by the ``referencing`` library: the document is one
    resource, so only refs inside it (``#/components/schemas/Pet``) resolve."""

    URI = "urn:gorilla-tui:openapi-document"

    def __init__(self, path: Path, spec: dict[str, Any]) -> None:
        from referencing import Registry, Resource  # deferred: see _parse

        self.path = path
        self.spec = spec
        self.resolver = Registry().with_resource(self.URI, Resource.opaque(spec)).resolver(base_uri=self.URI)

    def lookup(self, ref: str, where: str = "") -> Any:
        """The value `ref` points at; SourceRejected for a ref outside the document or pointing nowhere."""
        from referencing.exceptions import Unresolvable  # deferred: see _parse

        at = f" at {where}" if where else ""
        if not ref.startswith("#"):
            raise SourceRejected(
                f"{self.path}: $ref {ref!r}{at} points outside the document (files and URLs are not "
                "fetched; bundle the document into one file first)"
            )
        try:
            return self.resolver.lookup(ref).contents
        except (Unresolvable, LookupError, ValueError, TypeError):
            raise SourceRejected(f"{self.path}: broken $ref {ref!r}{at}: nothing there") from None

    def check_refs(self) -> None:
        """Resolve every ``$ref`` of the document once (SourceRejected for the first external or broken
        one, and for a chain of ``$ref``s that comes back to itself, "$ref cycle at #/components/schemas/A":
        the validator followed it until Python's recursion limit), so a document is refused whole before
        any doc is made."""
        for ref, where in _refs(self.spec, ()):
            node, seen = self.lookup(ref, where), [ref]
            while isinstance(node, dict) and isinstance(node.get("$ref"), str):
                if node["$ref"] in seen:
                    raise SourceRejected(f"{self.path}: $ref cycle at {node['$ref']} ({' -> '.join(seen)})")
                seen.append(node["$ref"])
                node = self.lookup(node["$ref"], where)

    def deref(self, node: Any) -> Any:
        """`node` with its own ``$ref`` chain followed (a parameter, a path item, a request body)."""
        seen: set[str] = set()
        while isinstance(node, dict) and isinstance(node.get("$ref"), str) and node["$ref"] not in seen:
            seen.add(node["$ref"])
            node = self.lookup(node["$ref"])
        return node

    def inline(self, node: Any, stack: tuple[str, ...] = ()) -> Any:
        """A copy of schema `node` with its ``$ref``s replaced by what they point at, MAX_REF_DEPTH
        deep; a deeper or recursive one is left as ``{"type"?, "description"?, "x-ref": ref}``. Members
        beside a ``$ref`` (OpenAPI 3.1 allows a description there) override the target's."""
        if isinstance(node, list):
            return [self.inline(v, stack) for v in node]
        if not isinstance(node, dict):
            return node
        ref = node.get("$ref")
        if not isinstance(ref, str):
            return {k: self.inline(v, stack) for k, v in node.items()}
        target = self.lookup(ref)
        rest = {k: self.inline(v, stack) for k, v in node.items() if k != "$ref"}
        if ref in stack or len(stack) >= MAX_REF_DEPTH or not isinstance(target, dict):
            cut = {k: target[k] for k in ("type", "description") if isinstance(target, dict) and k in target}
            return {**cut, "x-ref": ref, **rest}
        return {**self.inline(target, (*stack, ref)), **rest}


def _check_nesting(path: Path, spec: Any) -> None:
    """SourceRejected when `spec` nests objects and lists deeper than MAX_NESTING (walked without
    recursion)."""
    stack = [(spec, 1)]
    while stack:
        node, depth = stack.pop()
        if depth > MAX_NESTING:
            raise SourceRejected(
                f"{path}: nested deeper than {MAX_NESTING} levels (an OpenAPI document is read to that depth)"
            )
        children = node.values() if isinstance(node, dict) else node if isinstance(node, list) else ()
        stack += [(v, depth + 1) for v in children if isinstance(v, (dict, list))]


def _refs(node: Any, where: tuple[str, ...]) -> Iterator[tuple[str, str]]:
    """(ref, where) of every ``$ref`` string in `node` (where: the dotted path to it)."""
    if isinstance(node, dict):
        ref = node.get("$ref")
        if isinstance(ref, str):
            yield ref, ".".join(where)
        for k, v in node.items():
            if k != "$ref":
                yield from _refs(v, (*where, str(k)))
    elif isinstance(node, list):
        for i, v in enumerate(node):
            yield from _refs(v, (*where, str(i)))


# ---------------------------------------------------------------------------------------------------------
# operations -> docs


def _operations(
    resolver: _Resolver, spec: dict[str, Any], result: LoadResult, path: Path
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


def _operation_doc(
    resolver: _Resolver,
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
    resolver: _Resolver, item: dict[str, Any], operation: dict[str, Any]
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
    resolver: _Resolver, operation: dict[str, Any], properties: dict[str, Any], required: list[str]
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
