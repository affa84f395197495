"""A def's or class's surface read from its tree-sitter node (pool/pyenv/module_api.py reads the module
around them): parameters with kinds and defaults, the decorators that keep a signature, a function's kind
in a class and the callee it returns, a class's bases, __init__ and methods; plus the node helpers both
modules use (node text, string literals, docstrings)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from gorilla_tui.pool.pyenv.surface import MAX_DEFAULT_CHARS, ClassDef, FuncDef, Param

if TYPE_CHECKING:
    from tree_sitter import Node


def node_text(node: Node | None) -> str:
    """The source text of `node` (UTF-8, bad bytes replaced); "" for None."""
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def string_value(node: Node) -> str | None:
    """The content of a string literal node (escapes left as written); None for f-strings or non-strings."""
    if node.type == "concatenated_string":
        parts = [string_value(c) for c in node.named_children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p)
    if node.type != "string":
        return None
    out = []
    for c in node.children:
        if c.type == "interpolation":
            return None
        if c.type in ("string_content", "escape_sequence"):
            out.append(node_text(c))
    return "".join(out)


def docstring(block: Node | None) -> str:
    """The docstring of a body `block` (or a module's root node): its first statement when that is a
    string literal (comments skipped), as written; "" otherwise."""
    if block is None:
        return ""
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children:
            value = string_value(child.named_children[0])
            return value or ""
        return ""
    return ""


def _default(node: Node | None) -> str:
    text = " ".join(node_text(node).split())
    return text if len(text) <= MAX_DEFAULT_CHARS else text[: MAX_DEFAULT_CHARS - 3] + "..."


def _params(node: Node | None) -> list[Param]:
    """Parameters of a `parameters` node in order, with kinds (see Param)."""
    if node is None:
        return []
    raw: list[Param] = []
    kind = "poskw"
    for c in node.named_children:
        t = c.type
        if t == "positional_separator":
            for p in raw:
                if p.kind == "poskw":
                    p.kind = "posonly"
        elif t == "keyword_separator":
            kind = "kwonly"
        elif t == "list_splat_pattern":
            raw.append(Param(node_text(c.named_children[0]) if c.named_children else "args", "var"))
            kind = "kwonly"
        elif t == "dictionary_splat_pattern":
            raw.append(Param(node_text(c.named_children[0]) if c.named_children else "kwargs", "varkw"))
        elif t == "identifier":
            raw.append(Param(node_text(c), kind))
        elif t == "typed_parameter":
            inner = c.named_children[0] if c.named_children else None
            if inner is not None and inner.type == "list_splat_pattern":
                raw.append(Param(node_text(inner.named_children[0]), "var"))
                kind = "kwonly"
            elif inner is not None and inner.type == "dictionary_splat_pattern":
                raw.append(Param(node_text(inner.named_children[0]), "varkw"))
            else:
                raw.append(Param(node_text(inner), kind))
        elif t in ("default_parameter", "typed_default_parameter"):
            raw.append(
                Param(
                    node_text(c.child_by_field_name("name")), kind, _default(c.child_by_field_name("value"))
                )
            )
    return raw


def decorators_of(node: Node) -> list[str]:
    """The decorator expressions of a decorated_definition `node`, as written (``functools.wraps(f)``)."""
    return [
        node_text(d.named_children[0]) for d in node.children if d.type == "decorator" and d.named_children
    ]


#: Decorators that keep the signature of the function they wrap (the last name of the decorator, before
#: any call): the standard library's (builtins, functools, contextlib, abc, typing, dataclasses, enum).
#: Any other decorator (``@overload``, kept only when no implementation def follows it;
#: ``@click.command()``, a registry's ``@register``) may change how the name is called: the parameters
#: are kept and ``*args`` / ``**kwargs`` end them, so the checker counts no argument against them
#: (check/imports.py argument_errors).
SIGNATURE_KEEPING = frozenset(
    {
        "staticmethod", "classmethod", "property", "setter", "getter", "deleter", "cached_property",
        "abstractmethod", "abstractclassmethod", "abstractstaticmethod", "abstractproperty",
        "lru_cache", "cache", "wraps", "singledispatch", "singledispatchmethod", "total_ordering",
        "contextmanager", "asynccontextmanager", "final", "override", "no_type_check", "unique",
        "dataclass", "runtime_checkable", "deprecated",
    }
)  # fmt: skip


def _open_ended(params: list[Param], decorators: list[str]) -> list[Param]:
    """`params`, ended by ``*args`` / ``**kwargs`` (those it lacks) when a decorator outside
    SIGNATURE_KEEPING may change the call's signature."""
    if all(d.split("(", 1)[0].rsplit(".", 1)[-1] in SIGNATURE_KEEPING for d in decorators):
        return params
    extra = [
        Param(n, k) for n, k in (("args", "var"), ("kwargs", "varkw")) if all(p.kind != k for p in params)
    ]
    return params + extra


def function_def(node: Node, decorators: list[str], in_class: bool) -> FuncDef:
    """The FuncDef of a function_definition `node` with its `decorators` (decorators_of). In a class
    (`in_class`): kind method / staticmethod / classmethod / property by decorator, and the first parameter
    (self, cls) left out except for a staticmethod; at module level, kind "function" with the callee of its
    first ``return Callee(...)``. Parameters end with *args / **kwargs after a decorator outside
    SIGNATURE_KEEPING."""
    params = _open_ended(_params(node.child_by_field_name("parameters")), decorators)
    kind = "function"
    if in_class:
        names = {d.rsplit(".", 1)[-1] for d in decorators}
        if "property" in names or any(d.endswith((".setter", ".getter", ".deleter")) for d in decorators):
            kind = "property"
        elif "staticmethod" in names:
            kind = "staticmethod"
        elif "classmethod" in names:
            kind = "classmethod"
        else:
            kind = "method"
        if kind != "staticmethod" and params and params[0].kind in ("posonly", "poskw"):
            params = params[1:]
    return FuncDef(
        name=node_text(node.child_by_field_name("name")),
        params=params,
        doc=docstring(node.child_by_field_name("body")),
        kind=kind,
        is_async=any(c.type == "async" for c in node.children),
        line=node.start_point[0] + 1,
        returns="" if in_class else _returned_callee(node.child_by_field_name("body")),
        overload=any(d.rsplit(".", 1)[-1] == "overload" for d in decorators),
    )


def _returned_callee(body: Node | None) -> str:
    """The callee text of the first ``return Callee(...)`` among a function body's statements (also inside
    if/try/with/for/while blocks; expressions and nested defs are not walked)."""
    stack = list(reversed(body.named_children)) if body is not None else []
    while stack:
        node = stack.pop()
        if node.type == "return_statement":
            value = node.named_children[0] if node.named_children else None
            if value is not None and value.type == "call":
                return node_text(value.child_by_field_name("function"))
        elif node.type in _BLOCKS:
            stack.extend(reversed(node.named_children))
    return ""


#: Statements whose blocks :func:`_returned_callee` walks.
_BLOCKS = frozenset(
    {"if_statement", "try_statement", "with_statement", "for_statement", "while_statement", "block"}
    | {"else_clause", "elif_clause", "except_clause", "finally_clause"}
)


def class_def(node: Node, decorators: list[str] | None = None) -> ClassDef:
    """The ClassDef of a class_definition `node` with its `decorators` (decorators_of): name, docstring,
    line, the bases written as names, whether the statement is plain (only names as bases, no keyword such
    as ``metaclass=``, no decorator: ClassDef.plain), its __init__ (else its __new__) and its other methods
    (the first def of a repeated name kept)."""
    body = node.child_by_field_name("body")
    cls = ClassDef(node_text(node.child_by_field_name("name")), docstring(body), line=node.start_point[0] + 1)
    supers = node.child_by_field_name("superclasses")
    written = [b for b in (supers.named_children if supers else []) if b.type != "comment"]
    cls.bases = [node_text(b) for b in written if b.type in ("identifier", "attribute")]
    cls.plain = not decorators and len(cls.bases) == len(written)
    seen: set[str] = set()
    for child in body.named_children if body is not None else []:
        decorators: list[str] = []
        if child.type == "decorated_definition":
            decorators = decorators_of(child)
            child = child.child_by_field_name("definition")
        if child is not None and child.type == "expression_statement" and _assigns_constructor(child):
            cls.plain = False  # ``__init__ = _other_init``: not read here
        if child is None or child.type != "function_definition":
            continue
        fn = function_def(child, decorators, in_class=True)
        if fn.name in seen:  # property setters and overload stubs repeat a name: keep the first, but the
            kept = next((m for m in cls.methods if m.name == fn.name), None)  # implementation after overloads
            if kept is not None and kept.overload and not fn.overload:
                cls.methods[cls.methods.index(kept)] = fn
            continue
        seen.add(fn.name)
        if fn.name == "__init__" or (fn.name == "__new__" and cls.init is None):
            cls.init = fn
        else:
            cls.methods.append(fn)
    return cls


def _assigns_constructor(statement: Node) -> bool:
    """Whether an expression_statement of a class body binds __init__ or __new__ by assignment."""
    for node in statement.named_children:
        if node.type == "assignment":
            left = node.child_by_field_name("left")
            if left is not None and node_text(left) in ("__init__", "__new__"):
                return True
    return False
