"""``$ref`` resolution within one OpenAPI document (pool/openapi.py loads the document, pool/openapi_ops.py
makes its docs): the ``referencing`` library (the JSON Schema project's; openapi-spec-validator's own
resolver) with the document as its one resource, so a ``$ref`` outside it (a file, a URL) is refused,
never fetched."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

from gorilla_tui.pool.apidoc import SourceRejected

#: Nested ``$ref``s inlined into a parameters schema (the body's own schema, its properties' and theirs);
#: a deeper one stays a reference (``x-ref``), so a recursive schema ends and a large API's docs stay small.
MAX_REF_DEPTH = 3


class Resolver:
    """``$ref`` resolution within one document, by the ``referencing`` library: the document is one
    resource, so only refs inside it (``#/components/schemas/Pet``) resolve."""

    URI = "urn:gorilla-tui:openapi-document"

    def __init__(self, path: Path, spec: dict[str, Any]) -> None:
        from referencing import Registry, Resource  # deferred: only an OpenAPI source needs it

        self.path = path
        self.spec = spec
        self.resolver = Registry().with_resource(self.URI, Resource.opaque(spec)).resolver(base_uri=self.URI)

    def lookup(self, ref: str, where: str = "") -> Any:
        """The value `ref` points at; SourceRejected for a ref outside the document or pointing nowhere."""
        from referencing.exceptions import Unresolvable  # deferred: only an OpenAPI source needs it

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
        one), and refuse a ``$ref`` that comes back to itself without passing through a property or an
        item: a chain of ``$ref``s ("$ref cycle at #/components/schemas/A": the validator followed it until
        Python's recursion limit) or a schema that applies itself in place through ``allOf``, ``anyOf``,
        ``oneOf``, ``not`` or ``if``/``then``/``else`` (``A = {"allOf": [{"$ref": "#/$defs/A"}]}``: JSON
        Schema 2020-12, section 7.7.1.1, an infinite loop; break-it round 27). A recursive schema that
        nests (a tree node's ``children.items``) is no cycle. The document is refused whole before any doc
        is made."""
        done: set[str] = set()  # refs known to start no cycle
        for ref, where in _refs(self.spec, ()):
            target = self.lookup(ref, where)
            if ref in done:
                continue
            path, stack = [ref], [iter(_in_place(target))]
            while stack:
                nxt = next(stack[-1], None)
                if nxt is None:
                    done.add(path.pop())
                    stack.pop()
                elif nxt in path:
                    raise SourceRejected(f"{self.path}: $ref cycle at {nxt} ({' -> '.join(path)})")
                elif nxt not in done:
                    path.append(nxt)
                    stack.append(iter(_in_place(self.lookup(nxt, where))))

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


#: Keywords whose subschemas apply at the schema's own place (JSON Schema 2020-12, section 10.2: in-place
#: applicators), lists of schemas and single schemas.
_IN_PLACE_LISTS = ("allOf", "anyOf", "oneOf")
_IN_PLACE_ONE = ("not", "if", "then", "else")


def _in_place(node: Any) -> Iterator[str]:
    """The ``$ref``s schema `node` applies at its own place: its own, and those of its in-place
    applicators' subschemas, recursively (not those under properties or items: they nest)."""
    if not isinstance(node, dict):
        return
    if isinstance(node.get("$ref"), str):
        yield node["$ref"]
    for key in _IN_PLACE_LISTS:
        for sub in node.get(key) if isinstance(node.get(key), list) else ():
            yield from _in_place(sub)
    for key in _IN_PLACE_ONE:
        yield from _in_place(node.get(key))
