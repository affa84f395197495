"""Calls read from tree-sitter nodes: a call node made a CallSite with its callee as a dotted name and its
argument values normalised for matching (Value). check/callsite.py's scan() walks the code and uses these."""

from __future__ import annotations

import re
import threading
import unicodedata
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

from gorilla_tui.check.builtin_types import literal_type, through_returns

if TYPE_CHECKING:
    from tree_sitter import Node

#: Longest callee / argument text kept (characters); longer ones are cut (hostile input stays cheap).
MAX_TEXT = 400

_SPACE = re.compile(r"\s+")
_STRING_PREFIX = re.compile(r"^[rRbBuUfF]{0,2}")
_local = threading.local()


@dataclass(frozen=True)
class Value:
    """One argument value, normalised for comparison.

    text: a plain string literal's content (quotes and prefix removed, ``\\'``/``\\"`` unescaped), else the
    source text with whitespace removed and double quotes turned into single quotes.
    literal: it is a plain string literal (no f-string interpolation). has_literal: a string literal occurs
    somewhere in it (e.g. ``cached_download(hf_hub_url('a/b'))``). kind: the tree-sitter node type of the
    value ("string", "integer", "generator_expression", ...; "" when not known), not compared: with its
    whitespace removed a generator expression reads as a tuple (``(v for k, v in items)`` ->
    ``(vfork,vinitems)``), so the type check of pool/stub_bind.py reads only literal kinds (LITERAL_KINDS).
    """

    text: str
    literal: bool = False
    has_literal: bool = False
    kind: str = field(default="", compare=False)


#: Node types whose text (whitespace removed) Python reads as the value it is: the arguments whose type the
#: stub check judges (check/stub_types.py stub_arguments); a name, call, generator expression or
#: comprehension is never judged by its text (break-it round 31: ``next(v for k, v in items)`` was "a tuple
#: is given where its type stub says SupportsNext").
LITERAL_KINDS = frozenset(
    {
        "string",
        "concatenated_string",
        "integer",
        "float",
        "true",
        "false",
        "none",
        "list",
        "dictionary",
        "set",
        "tuple",
        "unary_operator",
    }  # fmt: skip
)


@dataclass(frozen=True)
class CallSite:
    """One call found in code. callee: the function expression with argument lists emptied and whitespace
    removed (``torch.hub.load``, ``service.users().list``); "" when it is not a name chain (a lambda, a
    subscript result...). positional / keywords: normalised argument values in source order; splat: the
    call has ``*args`` or ``**kwargs``. text: the call's source. line, col: 1-based start position.
    tail: the attribute read from the call's result (``dividends`` in ``Ticker(t).dividends``), or "".
    via: for a call passed as a value (``functools.partial(f, a)``, ``pool.submit(f, a)``), the wrapper's
    callee as written; the CallSite is then the call of ``f`` with the arguments given (see WRAPPERS).
    span: (start, end) byte offsets of the call in the code (a call inside another lies within its span)."""

    callee: str
    positional: tuple[Value, ...]
    keywords: dict[str, Value]
    text: str
    line: int
    col: int
    splat: bool = False
    tail: str = ""
    via: str = ""
    span: tuple[int, int] = (0, 0)


def bind_source(data: bytes) -> None:
    """The source (UTF-8 bytes) that node_text's bounded reads of this thread come from: the code being
    scanned (one scan at a time per thread)."""
    _local.source = data


def node_text(node: Node, limit: int | None = None) -> str:
    """A node's source text; with limit, at most that many bytes are read (node.text copies them all, so
    a huge node would cost its full size every time)."""
    if limit is not None and node.end_byte - node.start_byte > limit:
        end = node.start_byte + limit
        src = _local.source
        return src[node.start_byte : end].decode("utf-8", "replace") if src else ""
    return (node.text or b"").decode("utf-8", "replace")


def python_name(text: str) -> str:
    """An identifier (or a dotted name) as Python reads it: NFKC-normalised (PEP 3131): ``ｓｈｕｔｉｌ``,
    ``𝔠𝔰𝔳`` are ``shutil``, ``csv`` to `check` as they are when the code runs (break-it round 18, P4:
    ``import ｓｈｕｔｉｌ; ｓｈｕｔｉｌ.copy()`` passed check). ASCII text is returned as it is."""
    return text if text.isascii() else unicodedata.normalize("NFKC", text)


def name_text(node: Node) -> str:
    """The text of an identifier, attribute name or dotted name node as Python reads it (python_name)."""
    return python_name(node_text(node, MAX_TEXT))


def string_value(node: Node) -> str | None:
    """Content of a plain string literal node (or an implicit concatenation of them); None if it is an
    f-string with interpolation, a bytes literal or not a string."""
    if node.type == "concatenated_string":
        parts = [string_value(c) for c in node.children if c.type == "string"]
        return None if any(p is None for p in parts) else "".join(p or "" for p in parts)
    if node.type != "string":
        return None
    if any(c.type == "interpolation" for c in node.children):
        return None
    text = node_text(node, MAX_TEXT * 4)
    prefix = _STRING_PREFIX.match(text)
    if prefix is not None and "b" in prefix.group().lower():
        return None  # b'resnet50' is bytes: it never equals the str 'resnet50' an API takes
    body = _STRING_PREFIX.sub("", text, count=1)
    for q in ('"""', "'''", '"', "'"):
        if body.startswith(q) and body.endswith(q) and len(body) >= 2 * len(q):
            body = body[len(q) : -len(q)]
            break
    return body.replace("\\'", "'").replace('\\"', '"')


def value_of(node: Node) -> Value:
    """Normalise one argument value node (see Value)."""
    s = string_value(node)
    if s is not None:
        return Value(s[:MAX_TEXT], literal=True, has_literal=True, kind=node.type)
    text = node_text(node, MAX_TEXT * 4)
    squeezed = _SPACE.sub("", text).replace('"', "'")[:MAX_TEXT]
    return Value(squeezed, has_literal="'" in squeezed, kind=node.type)


def _getattr_name(node: Node) -> tuple[Node, str] | None:
    """For a ``getattr(obj, "name")`` call node with a plain string literal and no default: (obj, name);
    else None. The function's text is read no further than "getattr" needs: in ``f()()()...`` each
    callee is the call before it, and reading them whole made a 90 KB chain cost 8 s (break-it round 7)."""
    function = node.child_by_field_name("function")
    args = node.child_by_field_name("arguments")
    if function is None or args is None or node_text(function, len("getattr") + 1) != "getattr":
        return None
    items = [c for c in args.named_children if c.type != "comment"]
    if len(items) != 2 or items[0].type not in ("identifier", "attribute"):
        return None
    name = string_value(items[1])
    return (items[0], name) if name and name.isidentifier() else None


def _literal_receiver(node: Node) -> str | None:
    """The builtin type of a literal receiver node (builtin_types.literal_type; parentheses around it are
    read through: ``('a' 'b').join``), else None."""
    while node.type == "parenthesized_expression" and node.named_child_count == 1:
        inner = node.named_children[0]
        if inner.type == "comment":
            return None
        node = inner
    first = node.children[0] if node.type == "concatenated_string" and node.children else node
    start = first.children[0] if first.type == "string" and first.children else None
    prefix = node_text(start, 8).rstrip("'\"") if start is not None else ""  # string_start: b' rb""" f"
    if node.type in ("integer", "float"):
        prefix = node_text(node, 64)  # its suffix tells a complex number (1j)
    return literal_type(node.type, prefix)


def callee_of(function: Node) -> str:
    """Canonical callee text of a call's function node, built iteratively (no recursion on long chains):
    identifiers and attributes as dotted names, inner calls as ``()``, a literal receiver as its builtin
    type's constructor call (``','.join`` is ``str().join``, ``[].append`` is ``list().append``:
    check/builtin_types.py); "" for anything else."""
    parts: list[str] = []
    node: Node | None = function
    while node is not None:
        if len(parts) > 64:
            return ""
        if node.type == "identifier":
            parts.append(name_text(node))
            break
        if parts and (typed := _literal_receiver(node)) is not None:
            parts += ["()", typed]
            break
        if node.type == "attribute":
            attr = node.child_by_field_name("attribute")
            parts.append("." + (name_text(attr) if attr is not None else ""))
            node = node.child_by_field_name("object")
        elif node.type == "call":
            named = _getattr_name(node)
            if named is not None:  # getattr(torch.hub, "load")(...) is torch.hub.load(...)
                obj, attr = named
                parts.append("." + attr)
                node = obj
                continue
            parts.append("()")
            node = node.child_by_field_name("function")
        else:
            return ""
    return through_returns("".join(reversed(parts))[:MAX_TEXT])


def call_site(node: Node) -> CallSite:
    """Build a CallSite from a tree-sitter ``call`` node."""
    function = node.child_by_field_name("function")
    callee = callee_of(function) if function is not None else ""
    positional: list[Value] = []
    keywords: dict[str, Value] = {}
    splat = False
    args = node.child_by_field_name("arguments")
    if args is not None and args.type == "argument_list":
        for child in args.named_children:
            if child.type == "comment":
                continue
            if child.type == "keyword_argument":
                name = child.child_by_field_name("name")
                value = child.child_by_field_name("value")
                if name is not None and value is not None:
                    keywords.setdefault(name_text(name), value_of(value))
            elif child.type in ("list_splat", "dictionary_splat"):
                splat = True
            else:
                positional.append(value_of(child))
    elif args is not None:  # generator_expression as the only argument: f(x for x in y)
        positional.append(value_of(args))
    tail = ""
    parent = node.parent
    if parent is not None and parent.type == "attribute":
        obj, attr = parent.child_by_field_name("object"), parent.child_by_field_name("attribute")
        if obj is not None and attr is not None and obj.id == node.id:
            tail = name_text(attr)
    row, col = node.start_point
    return CallSite(
        callee,
        tuple(positional),
        keywords,
        node_text(node, MAX_TEXT * 4),
        row + 1,
        col + 1,
        splat,
        tail,
        span=(node.start_byte, node.end_byte),
    )
