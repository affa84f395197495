"""Read one Python module's public surface (defs, signatures, docstrings, __all__) with tree-sitter; the
types it fills are pyenv/surface.py (re-exported here)."""

from __future__ import annotations

import inspect
from typing import TYPE_CHECKING

from gorilla_tui.parsing import parse
from gorilla_tui.pool.pyenv.surface import (  # noqa: F401 - re-exported: callers import them from here
    MAX_DEFAULT_CHARS,
    ClassDef,
    FuncDef,
    ImportFrom,
    ModuleInfo,
    Param,
)

if TYPE_CHECKING:
    from tree_sitter import Node


def _text(node: Node | None) -> str:
    return node.text.decode("utf-8", "replace") if node is not None and node.text is not None else ""


def _string_value(node: Node) -> str | None:
    """The content of a string literal node (escapes left as written); None for f-strings or non-strings."""
    if node.type == "concatenated_string":
        parts = [_string_value(c) for c in node.named_children]
        return None if any(p is None for p in parts) else "".join(p for p in parts if p)
    if node.type != "string":
        return None
    out = []
    for c in node.children:
        if c.type == "interpolation":
            return None
        if c.type in ("string_content", "escape_sequence"):
            out.append(_text(c))
    return "".join(out)


def _docstring(block: Node | None) -> str:
    if block is None:
        return ""
    for child in block.named_children:
        if child.type == "comment":
            continue
        if child.type == "expression_statement" and child.named_children:
            value = _string_value(child.named_children[0])
            return value or ""
        return ""
    return ""


def first_paragraph(doc: str) -> str:
    """The first paragraph of a docstring (PEP 257 indentation removed), joined into one line."""
    cleaned = inspect.cleandoc(doc).strip()
    para = cleaned.split("\n\n", 1)[0]
    return " ".join(line.strip() for line in para.splitlines() if line.strip())


def _default(node: Node | None) -> str:
    text = " ".join(_text(node).split())
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
            raw.append(Param(_text(c.named_children[0]) if c.named_children else "args", "var"))
            kind = "kwonly"
        elif t == "dictionary_splat_pattern":
            raw.append(Param(_text(c.named_children[0]) if c.named_children else "kwargs", "varkw"))
        elif t == "identifier":
            raw.append(Param(_text(c), kind))
        elif t == "typed_parameter":
            inner = c.named_children[0] if c.named_children else None
            if inner is not None and inner.type == "list_splat_pattern":
                raw.append(Param(_text(inner.named_children[0]), "var"))
                kind = "kwonly"
            elif inner is not None and inner.type == "dictionary_splat_pattern":
                raw.append(Param(_text(inner.named_children[0]), "varkw"))
            else:
                raw.append(Param(_text(inner), kind))
        elif t in ("default_parameter", "typed_default_parameter"):
            raw.append(
                Param(_text(c.child_by_field_name("name")), kind, _default(c.child_by_field_name("value")))
            )
    return raw


def _decorators(node: Node) -> list[str]:
    return [_text(d.named_children[0]) for d in node.children if d.type == "decorator" and d.named_children]


def _function(node: Node, decorators: list[str], in_class: bool) -> FuncDef:
    params = _params(node.child_by_field_name("parameters"))
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
        name=_text(node.child_by_field_name("name")),
        params=params,
        doc=_docstring(node.child_by_field_name("body")),
        kind=kind,
        is_async=any(c.type == "async" for c in node.children),
        line=node.start_point[0] + 1,
        returns="" if in_class else _returned_callee(node.child_by_field_name("body")),
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
                return _text(value.child_by_field_name("function"))
        elif node.type in _BLOCKS:
            stack.extend(reversed(node.named_children))
    return ""


#: Statements whose blocks :func:`_returned_callee` walks.
_BLOCKS = frozenset(
    {"if_statement", "try_statement", "with_statement", "for_statement", "while_statement", "block"}
    | {"else_clause", "elif_clause", "except_clause", "finally_clause"}
)


def _getattr_object(node: Node) -> str:
    """The object text X of the first ``getattr(X, ...)`` call inside node ("" if none)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "call" and _text(n.child_by_field_name("function")) == "getattr":
            args = n.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type in ("identifier", "attribute"):
                return _text(first)
        stack.extend(reversed(n.named_children))
    return ""


def _class(node: Node) -> ClassDef:
    body = node.child_by_field_name("body")
    cls = ClassDef(_text(node.child_by_field_name("name")), _docstring(body), line=node.start_point[0] + 1)
    supers = node.child_by_field_name("superclasses")
    cls.bases = [
        _text(b) for b in (supers.named_children if supers else []) if b.type in ("identifier", "attribute")
    ]
    seen: set[str] = set()
    for child in body.named_children if body is not None else []:
        decorators: list[str] = []
        if child.type == "decorated_definition":
            decorators = _decorators(child)
            child = child.child_by_field_name("definition")
        if child is None or child.type != "function_definition":
            continue
        fn = _function(child, decorators, in_class=True)
        if fn.name in seen:  # property setters and overload stubs repeat a name: keep the first
            continue
        seen.add(fn.name)
        if fn.name == "__init__" or (fn.name == "__new__" and cls.init is None):
            cls.init = fn
        else:
            cls.methods.append(fn)
    return cls


def _literal_strings(node: Node | None, env: dict[str, list[str]] | None = None) -> list[str] | None:
    """A list/tuple of string literals (also NAME of an earlier such assignment, and a + b) -> strings."""
    if node is not None and node.type == "identifier" and env is not None:
        return env.get(_text(node))
    if (
        node is not None
        and node.type == "binary_operator"
        and _text(node.child_by_field_name("operator")) == "+"
    ):
        left = _literal_strings(node.child_by_field_name("left"), env)
        right = _literal_strings(node.child_by_field_name("right"), env)
        return None if left is None or right is None else left + right
    if node is None or node.type not in ("list", "tuple", "parenthesized_expression"):
        return None
    children = node.named_children
    if node.type == "parenthesized_expression":
        return _literal_strings(children[0], env) if len(children) == 1 else None
    values = [_string_value(c) for c in children if c.type != "comment"]
    return None if any(v is None for v in values) else [v for v in values if v is not None]


def _resolve_relative(node: Node, info: ModuleInfo) -> str:
    """Absolute module name of an import_from_statement's module_name (relative or absolute)."""
    if node.type != "relative_import":
        return _text(node)
    dots = _text(node.named_children[0]).count(".") if node.named_children else 1
    rest = _text(node.named_children[1]) if len(node.named_children) > 1 else ""
    base = info.name.split(".") if info.is_package else info.name.split(".")[:-1]
    base = base[: max(0, len(base) - (dots - 1))]
    return ".".join([*base, rest] if rest else base)


class _AllTracker:
    """Follows __all__ through literal assignment, +=, .append and .extend; anything else makes it None."""

    def __init__(self) -> None:
        self.names: list[str] | None = None
        self.dynamic = False
        self.env: dict[str, list[str]] = {}  # module-level names bound to literal string sequences
        self.instances: dict[str, str] = {}  # _inst = Random()  -> {"_inst": "Random"}
        self.bound: dict[
            str, tuple[str, str]
        ] = {}  # shuffle = _inst.shuffle -> {"shuffle": ("_inst", "shuffle")}

    def assign(self, value: Node | None, augment: bool) -> None:
        lit = _literal_strings(value, self.env)
        if lit is None:
            self.dynamic = True
        elif augment and self.names is not None:
            self.names.extend(lit)
        else:
            self.names = list(lit)

    def call(self, method: str, args: Node | None) -> None:
        arg = args.named_children[0] if args is not None and args.named_children else None
        if self.names is None or arg is None:
            self.dynamic = True
        elif method == "append" and _string_value(arg) is not None:
            self.names.append(_string_value(arg) or "")
        elif method == "extend" and _literal_strings(arg) is not None:
            self.names.extend(_literal_strings(arg) or [])
        elif method == "remove" and _string_value(arg) in (self.names or []):
            self.names.remove(_string_value(arg) or "")
        else:
            self.dynamic = True

    @property
    def value(self) -> list[str] | None:
        return None if self.dynamic or self.names is None else list(dict.fromkeys(self.names))


def _statement(node: Node, info: ModuleInfo, tracker: _AllTracker) -> None:
    t = node.type
    if t in (
        "if_statement",
        "try_statement",
        "with_statement",
        "else_clause",
        "elif_clause",
        "except_clause",
        "finally_clause",
        "block",
    ):
        for child in node.named_children:
            if child.type in ("block", "else_clause", "elif_clause", "except_clause", "finally_clause") or (
                t == "block"
            ):
                _statement(child, info, tracker)
        return
    decorators: list[str] = []
    if t == "decorated_definition":
        decorators = _decorators(node)
        node = node.child_by_field_name("definition") or node
        t = node.type
    if t == "function_definition":
        fn = _function(node, decorators, in_class=False)
        info.defs.setdefault(fn.name, fn)
    elif t == "class_definition":
        cls = _class(node)
        info.defs.setdefault(cls.name, cls)
    elif t == "import_from_statement":
        module_node = node.child_by_field_name("module_name")
        if module_node is None:
            return
        imp = ImportFrom(_resolve_relative(module_node, info))
        for c in node.named_children:
            if c.type == "wildcard_import":
                imp.star = True
            elif c == module_node:
                continue
            elif c.type == "dotted_name":
                imp.names.append((_text(c), _text(c)))
            elif c.type == "aliased_import":
                imp.names.append(
                    (_text(c.child_by_field_name("name")), _text(c.child_by_field_name("alias")))
                )
        info.imports.append(imp)
    elif t == "expression_statement" and node.named_children:
        expr = node.named_children[0]
        if expr.type in ("assignment", "augmented_assignment"):
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            name = _text(left)
            if name == "__all__":
                tracker.assign(right, augment=expr.type == "augmented_assignment")
            elif (
                expr.type == "assignment"
                and left is not None
                and right is not None
                and left.type in ("pattern_list", "tuple_pattern")
                and right.type in ("expression_list", "tuple")
                and len(left.named_children) == len(right.named_children)
            ):  # dump, dumps = _dump, _dumps (pickle.py)
                for target, value in zip(left.named_children, right.named_children, strict=True):
                    if target.type == "identifier" and value.type == "identifier":
                        info.aliases.setdefault(_text(target), _text(value))
            elif expr.type == "assignment" and left is not None and left.type == "identifier":
                if right is not None and right.type == "identifier":
                    info.aliases.setdefault(name, _text(right))
                    return
                info.assigned.add(name)
                if (lit := _literal_strings(right, tracker.env)) is not None:
                    tracker.env[name] = lit
                elif right is not None and right.type == "call":
                    tracker.instances[name] = _text(right.child_by_field_name("function"))
                elif right is not None and right.type == "attribute":
                    obj = right.child_by_field_name("object")
                    if obj is not None and obj.type == "identifier":
                        tracker.bound[name] = (_text(obj), _text(right.child_by_field_name("attribute")))
        elif expr.type == "call":
            fn = expr.child_by_field_name("function")
            if _text(fn) == "globals().update":
                info.exported_object = info.exported_object or _getattr_object(expr)
            if (
                fn is not None
                and fn.type == "attribute"
                and _text(fn.child_by_field_name("object")) == "__all__"
            ):
                tracker.call(
                    _text(fn.child_by_field_name("attribute")), expr.child_by_field_name("arguments")
                )


def read_module(source: bytes, name: str, is_package: bool = False) -> ModuleInfo:
    """Parse Python source bytes with tree-sitter (never imports or runs it) into a ModuleInfo.

    name: the dotted module name (``json`` for json/__init__.py, with is_package=True). Syntax errors are
    tolerated: tree-sitter recovers and the well-formed definitions are still read.
    """
    root = parse(source).root_node
    info = ModuleInfo(name=name, is_package=is_package, doc=_docstring(root))
    tracker = _AllTracker()
    for child in root.named_children:
        _statement(child, info, tracker)
    info.all_names = tracker.value
    info.instances = dict(tracker.instances)
    for name, (
        var,
        attr,
    ) in tracker.bound.items():  # module functions that are bound methods (random.shuffle)
        cls = info.defs.get(tracker.instances.get(var, ""))
        method = next((m for m in cls.methods if m.name == attr), None) if isinstance(cls, ClassDef) else None
        if method is not None and method.kind == "method" and name not in info.defs:
            info.defs[name] = FuncDef(
                name, method.params, method.doc, "function", method.is_async, method.line
            )
            info.assigned.discard(name)
    return info
