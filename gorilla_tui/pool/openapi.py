"""OpenAPI 3 documents (JSON or YAML) as a source (format "openapi"): each operation one REST ApiDoc.

The document is parsed (JSON with json, YAML with PyYAML through jsonschema-path's loader, which leaves
dates as strings as JSON would have them), checked whole before any doc is made, and refused whole
(SourceRejected, one line naming the file) when it is not an OpenAPI 3.x document, has a ``$ref`` outside
the document (a file or a URL: never fetched; bundle the document first) or one that points nowhere, or
fails openapi-spec-validator's validation against the OpenAPI 3.0/3.1 schema. ``$ref``s are resolved
with the ``referencing`` library (the JSON Schema project's; openapi-spec-validator's own resolver).

Each operation becomes one ApiDoc (pool/openapi_ops.py says how); ``$ref``s are followed by
pool/openapi_refs.py."""

from __future__ import annotations

import io
import json
import re
import sys
from pathlib import Path
from typing import Any

from gorilla_tui import jsontext
from gorilla_tui.jsontext import nested_deeper
from gorilla_tui.pool.apidoc import Diagnostic, LoadResult, SourceRejected
from gorilla_tui.pool.files import MAX_SOURCE_BYTES, read_text
from gorilla_tui.pool.openapi_ops import operation_doc, operations
from gorilla_tui.pool.openapi_refs import Resolver

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
#: A top-level ``openapi:`` or ``swagger:`` key of a YAML document (detect: looks_like_openapi_yaml).
_YAML_KEY = re.compile(r"^(?:openapi|swagger|([\"'])(?:openapi|swagger)\1)[ \t]*:", re.MULTILINE)


def is_openapi_value(value: Any) -> bool:
    """True for a parsed JSON object with an "openapi" or "swagger" member (an OpenAPI or Swagger
    document; which version is checked when it is loaded)."""
    return isinstance(value, dict) and ("openapi" in value or "swagger" in value)


def looks_like_openapi_yaml(head: str) -> bool:
    """True when text (a file's first bytes) has a top-level ``openapi:`` or ``swagger:`` key."""
    return bool(_YAML_KEY.search(head))


def load_openapi(path: str | Path, source: str, max_bytes: int = MAX_SOURCE_BYTES) -> LoadResult:
    """Load an OpenAPI 3 document: one ApiDoc per operation (pool/openapi_ops.py says how), ids
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
    resolver = Resolver(path, spec)
    resolver.check_refs()
    _validate(path, spec, version)
    title = str((spec.get("info") or {}).get("title") or "")
    api_version = str((spec.get("info") or {}).get("version") or "")
    for route, method, item, operation in operations(resolver, spec, result, path):
        doc = operation_doc(resolver, spec, route, method, item, operation)
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
    SourceRejected for invalid JSON or YAML (a value Python cannot read included: an integer over 4,300
    digits), or a document that is not an object."""
    import yaml  # deferred: with jsonschema-path below, only an OpenAPI source needs them
    from jsonschema_path.loaders import JsonschemaSafeLoader  # deferred: see above

    if text.lstrip().startswith("{"):
        try:
            data = jsontext.decode(text)
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
        except (ValueError, OverflowError) as e:
            # PyYAML's constructors call int() and datetime() unchecked: an integer of more than
            # sys.get_int_max_str_digits() digits (4,300), `!!int x`, a date like 2001-02-30 (break-it round
            # 24, R24-6: "internal error: ValueError"); the JSON side refuses them in jsontext.decode
            why = (str(e).splitlines() or [type(e).__name__])[0][:200]
            if "integer string conversion" in why:  # as jsontext.decode says it for a JSON document
                why = f"a number of more than {sys.get_int_max_str_digits()} digits"
            raise SourceRejected(f"{path}: invalid YAML: a value Python cannot read: {why}") from None
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


def _check_nesting(path: Path, spec: Any) -> None:
    """SourceRejected when `spec` nests objects and lists deeper than MAX_NESTING (jsontext.nested_deeper)."""
    if nested_deeper(spec, MAX_NESTING):
        raise SourceRejected(
            f"{path}: nested deeper than {MAX_NESTING} levels (an OpenAPI document is read to that depth)"
        )
