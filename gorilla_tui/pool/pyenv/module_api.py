"""Read one Python module's public surface (defs, signatures, docstrings, __all__) with tree-sitter: the
module's statements, imports, aliases and __all__ here, each def and class by pyenv/defs.py; the types it
fills are pyenv/surface.py (re-exported here)."""

from __future__ import annotations

import inspect
import re
from typing import TYPE_CHECKING

from gorilla_tui.parsing import captures, parse
from gorilla_tui.pool.pyenv.defs import (  # noqa: F401 - SIGNATURE_KEEPING re-exported (its old home)
    SIGNATURE_KEEPING,
    class_def,
    decorators_of,
    docstring,
    function_def,
    node_text,
    string_value,
)
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


def first_paragraph(doc: str) -> str:
    """The first paragraph of a docstring (PEP 257 indentation removed), joined into one line."""
    cleaned = inspect.cleandoc(doc).strip()
    para = cleaned.split("\n\n", 1)[0]
    return " ".join(line.strip() for line in para.splitlines() if line.strip())


#: The start of a signature line: ``name(``, ``a.name(``, ``out = module.name(`` (group 1: the dotted name).
_SIGNATURE_HEAD = re.compile(r"(?:[A-Za-z_][\w.]*\s*=\s*)?([A-Za-z_][\w.]*)\(")


def description(name: str, doc: str) -> str:
    """The first paragraph (first_paragraph) of docstring `doc` of `name` after the signature lines it may
    start with, as numpy's do (``concatenate(arrays, /, axis=0, ...)``, ``a.reshape(shape, /, *, ...)``
    then ``a.reshape(*shape, ...)``, spread over lines) and the ``--`` line that ends a C text signature;
    before, such a doc's description was its signature or "--"."""
    text = inspect.cleandoc(doc).strip()
    while True:
        m = _SIGNATURE_HEAD.match(text)
        if m is not None and (m.group(1) == name or m.group(1).endswith("." + name)):
            depth, end = 0, len(text)
            for i in range(m.end() - 1, len(text)):
                depth += {"(": 1, ")": -1}.get(text[i], 0)
                if depth == 0:
                    end = i
                    break
            newline = text.find("\n", end)
            text = "" if newline == -1 else text[newline:].strip()
        elif text == "--" or text.startswith("--\n"):
            text = text[2:].strip()
        else:
            return first_paragraph(text)


def _getattr_object(node: Node) -> str:
    """The object text X of the first ``getattr(X, ...)`` call inside node ("" if none)."""
    stack = [node]
    while stack:
        n = stack.pop()
        if n.type == "call" and node_text(n.child_by_field_name("function")) == "getattr":
            args = n.child_by_field_name("arguments")
            first = args.named_children[0] if args is not None and args.named_children else None
            if first is not None and first.type in ("identifier", "attribute"):
                return node_text(first)
        stack.extend(reversed(n.named_children))
    return ""


#: Most names a sequence of literal strings (``__all__``, a list it is built from) may hold before it is
#: read as unknown, and most such names _AllTracker keeps in all: of the 2,098 literal ``__all__`` under
#: Python 3.11.7's lib folder (its site-packages too) the longest has 902 names (sympy/__init__.py); without
#: a cap a module doubling a list per line (``A1 = A0 + A0``) held 2**lines names (break-it round 16: 26
#: lines, 1 GB).
MAX_SEQUENCE_NAMES = 10_000
MAX_HELD_NAMES = 100_000


def _literal_strings(node: Node | None, env: dict[str, list[str]] | None = None) -> list[str] | None:
    """A list/tuple of string literals (also NAME of an earlier such assignment, and a + b) -> strings;
    None when not such a sequence or longer than MAX_SEQUENCE_NAMES. A chain of ``+`` is read with a stack,
    not recursion (``["f"] + ["f"] + ...`` of 2,000 terms raised RecursionError, break-it round 16)."""
    out: list[str] = []
    stack = [node]
    while stack:
        n = stack.pop()
        if n is None:
            return None
        if n.type == "binary_operator" and node_text(n.child_by_field_name("operator")) == "+":
            stack += [n.child_by_field_name("right"), n.child_by_field_name("left")]
            continue
        children = n.named_children
        if n.type == "parenthesized_expression" and len(children) == 1:
            stack.append(children[0])
            continue
        if n.type == "identifier" and env is not None:
            part = env.get(node_text(n))
        elif n.type in ("list", "tuple"):
            values = [string_value(c) for c in children if c.type != "comment"]
            part = None if any(v is None for v in values) else [v for v in values if v is not None]
        else:
            return None
        if part is None or len(out) + len(part) > MAX_SEQUENCE_NAMES:
            return None
        out += part
    return out


def _resolve_relative(node: Node, info: ModuleInfo) -> str:
    """Absolute module name of an import_from_statement's module_name (relative or absolute)."""
    if node.type != "relative_import":
        return node_text(node)
    dots = node_text(node.named_children[0]).count(".") if node.named_children else 1
    rest = node_text(node.named_children[1]) if len(node.named_children) > 1 else ""
    base = info.name.split(".") if info.is_package else info.name.split(".")[:-1]
    base = base[: max(0, len(base) - (dots - 1))]
    return ".".join([*base, rest] if rest else base)


class _AllTracker:
    """Follows __all__ through literal assignment, +=, .append and .extend; anything else makes it None."""

    def __init__(self) -> None:
        self.names: list[str] | None = None
        self.dynamic = False
        self.env: dict[str, list[str]] = {}  # module-level names bound to literal string sequences
        self.held = 0  # names in env, at most MAX_HELD_NAMES
        self.instances: dict[str, str] = {}  # _inst = Random()  -> {"_inst": "Random"}
        self.bound: dict[
            str, tuple[str, str]
        ] = {}  # shuffle = _inst.shuffle -> {"shuffle": ("_inst", "shuffle")}
        self.writers: set[str] = set()  # module-level functions whose body writes globals()
        self.makers: list[tuple[str, str, str]] = []  # (function, list name, class name) of f(LIST, Cls, ...)

    def assign(self, value: Node | None, augment: bool) -> None:
        lit = _literal_strings(value, self.env)
        if lit is None or (
            augment and self.names is not None and len(self.names) + len(lit) > MAX_SEQUENCE_NAMES
        ):
            self.dynamic, self.names = True, None
        elif augment and self.names is not None:
            self.names.extend(lit)
        else:
            self.names = list(lit)

    def bind(self, name: str, lit: list[str]) -> None:
        """Keep `name` bound to the literal strings `lit` while the tracker holds at most MAX_HELD_NAMES."""
        self.held -= len(self.env.pop(name, ()))
        if self.held + len(lit) <= MAX_HELD_NAMES:
            self.env[name] = lit
            self.held += len(lit)

    def call(self, method: str, args: Node | None) -> None:
        arg = args.named_children[0] if args is not None and args.named_children else None
        if self.names is None or arg is None:
            self.dynamic = True
        elif method == "append" and string_value(arg) is not None:
            self.names.append(string_value(arg) or "")
        elif method == "extend" and (lit := _literal_strings(arg)) is not None:
            self.names.extend(lit)
            if len(self.names) > MAX_SEQUENCE_NAMES:
                self.dynamic, self.names = True, None
        elif method == "remove" and string_value(arg) in (self.names or []):
            self.names.remove(string_value(arg) or "")
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
        decorators = decorators_of(node)
        node = node.child_by_field_name("definition") or node
        t = node.type
    if t == "function_definition":
        fn = function_def(node, decorators, in_class=False)
        kept = info.defs.get(fn.name)
        if kept is None or (isinstance(kept, FuncDef) and kept.overload and not fn.overload):
            info.defs[fn.name] = fn  # the first def, or the implementation after @overload stubs
        if "globals()" in node_text(node.child_by_field_name("body")):
            tracker.writers.add(fn.name)
    elif t == "class_definition":
        cls = class_def(node, decorators)
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
                imp.names.append((node_text(c), node_text(c)))
            elif c.type == "aliased_import":
                imp.names.append(
                    (node_text(c.child_by_field_name("name")), node_text(c.child_by_field_name("alias")))
                )
        info.imports.append(imp)
    elif t == "expression_statement" and node.named_children:
        expr = node.named_children[0]
        if expr.type in ("assignment", "augmented_assignment"):
            left, right = expr.child_by_field_name("left"), expr.child_by_field_name("right")
            name = node_text(left)
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
                        info.aliases.setdefault(node_text(target), node_text(value))
            elif expr.type == "assignment" and left is not None and left.type == "identifier":
                if right is not None and right.type == "identifier":
                    info.aliases.setdefault(name, node_text(right))
                    return
                info.assigned.add(name)
                if (lit := _literal_strings(right, tracker.env)) is not None:
                    tracker.bind(name, lit)
                elif right is not None and right.type == "call":
                    tracker.instances[name] = node_text(right.child_by_field_name("function"))
                elif right is not None and right.type == "attribute":
                    obj = right.child_by_field_name("object")
                    if obj is not None and obj.type == "identifier":
                        tracker.bound[name] = (
                            node_text(obj),
                            node_text(right.child_by_field_name("attribute")),
                        )
        elif expr.type == "call":
            fn = expr.child_by_field_name("function")
            if node_text(fn) == "globals().update":
                info.exported_object = info.exported_object or _getattr_object(expr)
            args = expr.child_by_field_name("arguments")
            given = args.named_children[:2] if args is not None else []
            if fn is not None and fn.type == "identifier" and [a.type for a in given] == ["identifier"] * 2:
                tracker.makers.append((node_text(fn), node_text(given[0]), node_text(given[1])))
            if (
                fn is not None
                and fn.type == "attribute"
                and node_text(fn.child_by_field_name("object")) == "__all__"
            ):
                tracker.call(
                    node_text(fn.child_by_field_name("attribute")), expr.child_by_field_name("arguments")
                )


#: The module names of ``import X`` and ``import X as Y`` statements (ModuleInfo.imported).
_IMPORTED = """
(import_statement name: (dotted_name) @module)
(import_statement name: (aliased_import name: (dotted_name) @module))
"""


def read_module(source: bytes, name: str, is_package: bool = False, root: Node | None = None) -> ModuleInfo:
    """Parse Python source bytes with tree-sitter (never imports or runs it) into a ModuleInfo.

    name: the dotted module name (``json`` for json/__init__.py, with is_package=True). Syntax errors are
    tolerated: tree-sitter recovers and the well-formed definitions are still read. root: the tree's root
    when the caller has parsed `source` already (pool/pyenv/stubs.py).
    """
    root = parse(source).root_node if root is None else root
    info = ModuleInfo(name=name, is_package=is_package, doc=docstring(root))
    tracker = _AllTracker()
    for child in root.named_children:
        _statement(child, info, tracker)
    info.all_names = tracker.value
    for maker, names, cls in tracker.makers:  # turtle.forward: made from Turtle.forward at import time
        if maker in tracker.writers and isinstance(info.defs.get(cls), ClassDef):
            for n in tracker.env.get(names, ()):
                info.made_from.setdefault(n, cls)
    info.instances = dict(tracker.instances)
    bound = (
        info.defs.keys() | info.aliases.keys() | info.assigned | {a for i in info.imports for _, a in i.names}
    )
    if any(n not in bound for n in info.all_names or ()):
        # a name of __all__ bound only at import time (hashlib.md5): which modules may bind it (ModuleInfo)
        info.imported = {node_text(n) for n in captures(root, _IMPORTED).get("module", [])}
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
