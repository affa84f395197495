"""Type stubs (PEP 484 ``.pyi`` files shipped beside a distribution's modules) as a source of the names a
compiled module provides: numpy's ``array``, ``zeros``, ``arange``, ``ndarray`` are C code re-exported from
``numpy._core._multiarray_umath``, which python-env never imports, so its .py sources do not show them;
``numpy/_core/multiarray.pyi`` and ``numpy/__init__.pyi`` do. Read statically (tree-sitter, never imported).

read_stub reads one stub as a ModuleInfo (module_api.read_module, then what stubs write differently:
``@overload``s merged into one signature, ``zeros: Final[_ConstructorEmpty]`` a function with the callable
class's ``__call__`` signature, ``rand = _rand.rand`` with ``_rand: RandomState`` a bound method);
merge_stubs adds to a group's modules, before names.emit, only what their sources cannot resolve: a stub's
definitions of names the source binds from a compiled module (or not at all), its ``from X import a as a``
re-exports (PEP 484's spelling of a re-export), and whole modules that are compiled (``mtrand.pyi``).
newdoc_docs reads docstrings a package attaches to C objects with literal ``add_newdoc(module, name,
doc)`` calls (numpy's ``_add_newdocs.py``), as stubs carry none.
"""

from __future__ import annotations

import ast
import re
from typing import TYPE_CHECKING

from gorilla_tui.parsing import parse
from gorilla_tui.pool.pyenv.defs import function_def, node_text
from gorilla_tui.pool.pyenv.module_api import ClassDef, FuncDef, ImportFrom, ModuleInfo, Param, read_module
from gorilla_tui.pool.pyenv.resolve import Resolver

if TYPE_CHECKING:
    from tree_sitter import Node

#: Parameter kinds in the order Python's signatures allow them (a merged signature is sorted by it).
_KIND_ORDER = {"posonly": 0, "poskw": 1, "var": 2, "kwonly": 3, "varkw": 4}
#: Annotations around the type of a module-level stub variable: ``Final[T]``, ``ClassVar[T]``.
_WRAPPER = re.compile(r"^(?:[\w.]*\.)?(?:Final|ClassVar|Annotated)\[(.*)\]$", re.DOTALL)
#: Docstrings with no more than this many characters are read by newdoc_docs (a guard on odd files).
MAX_NEWDOC_FILE = 4_000_000


def merge_overloads(defs: list[FuncDef]) -> FuncDef:
    """One FuncDef for the ``@overload``s of one name: the parameters of all of them, in the widest
    overload's order (the one with most parameters; the first on a tie) then the others' new ones, sorted by
    kind; a parameter is required only when every overload requires it, its kind the first overload's that
    has it (``poskw`` when overloads give it different kinds), one ``*args`` and one ``**kwargs`` at most.
    numpy.array's overloads: ``subok`` required in one of them, optional in the merged doc."""
    widest = max(defs, key=lambda d: len(d.params))
    order = [p.name for p in widest.params]
    first: dict[str, Param] = {}
    kinds: dict[str, set[str]] = {}
    for d in defs:
        for p in d.params:
            first.setdefault(p.name, p)
            kinds.setdefault(p.name, set()).add(p.kind)
            if p.name not in order:
                order.append(p.name)
    params: list[Param] = []
    seen_var = {"var": False, "varkw": False}
    for name in order:
        p = first[name]
        kind = p.kind if len(kinds[name]) == 1 else "poskw"
        if kind in seen_var:
            if seen_var[kind]:
                continue
            seen_var[kind] = True
        required = all(any(q.name == name and q.required for q in d.params) for d in defs)
        default = None if required or kind in ("var", "varkw") else (p.default or "...")
        params.append(Param(name, kind, default))
    params.sort(key=lambda p: _KIND_ORDER[p.kind])
    doc = next((d.doc for d in defs if d.doc), "")
    base = defs[0]
    return FuncDef(base.name, params, doc, base.kind, base.is_async, base.line, base.returns)


def _statements(block: Node | None) -> list[Node]:
    """The statements of a module or class body, those inside ``if``/``else``/``try`` blocks too (stubs
    write ``if sys.version_info >= (3, 12):``)."""
    out: list[Node] = []
    for child in block.named_children if block is not None else []:
        if child.type in ("if_statement", "try_statement", "else_clause", "elif_clause", "block"):
            out += _statements(child)
        elif child.type in ("except_clause", "finally_clause"):
            out += _statements(child)
        else:
            out.append(child)
    return out


def _functions(block: Node | None, in_class: bool) -> dict[str, list[FuncDef]]:
    """name -> every def of that name in `block`, for the names defined more than once (overloads; the
    others are read once, by read_module)."""
    nodes: dict[str, list[tuple[Node, list[str]]]] = {}
    for node in _statements(block):
        decorators = []
        if node.type == "decorated_definition":
            decorators = [d for d in _decorators(node) if d.rsplit(".", 1)[-1] != "overload"]
            node = node.child_by_field_name("definition") or node
        if node.type == "function_definition":
            nodes.setdefault(node_text(node.child_by_field_name("name")), []).append((node, decorators))
    return {
        name: [function_def(n, d, in_class) for n, d in found]
        for name, found in nodes.items()
        if len(found) > 1
    }


def _decorators(node: Node) -> list[str]:
    return [
        node_text(d.named_children[0]) for d in node.children if d.type == "decorator" and d.named_children
    ]


def _type_name(annotation: str) -> str:
    """The class an annotation names: ``Final[_ConstructorEmpty]`` -> "_ConstructorEmpty", ``RandomState``
    -> "RandomState", a generic one's ``_UFunc_Nin1_Nout1[...]`` -> "_UFunc_Nin1_Nout1"; "" for anything
    else (a union, a literal)."""
    text = annotation.strip()
    while (m := _WRAPPER.match(text)) is not None:
        text = m.group(1).strip()
    text = text.split("[", 1)[0].strip()  # a generic class: _UFunc_Nin1_Nout1[L["log2"], L[8], None]
    return text if re.fullmatch(r"[A-Za-z_]\w*", text) else ""


def read_stub(source: bytes, name: str, is_package: bool = False) -> ModuleInfo:
    """A stub's ModuleInfo (see the module doc): read_module's, its imports kept only where they re-export
    (PEP 484: ``from X import a as a``, a star import, or a name its ``__all__`` lists), with overloads
    merged (module functions and class methods), annotated callable objects made functions and bound
    methods of annotated objects made functions. Never raises for any bytes (tree-sitter recovers from
    syntax errors)."""
    root = parse(source).root_node
    info = read_module(source, name, is_package, root)
    imported = {alias: (imp.module, orig) for imp in info.imports for orig, alias in imp.names}
    listed = set(info.all_names or ())
    explicit = {
        node_text(c.child_by_field_name("alias"))
        for node in _statements(root)
        if node.type == "import_from_statement"
        for c in node.named_children
        if c.type == "aliased_import"
        and node_text(c.child_by_field_name("alias")) == node_text(c.child_by_field_name("name"))
    }
    for imp in info.imports:  # PEP 484: a stub re-exports ``import a as a`` and what __all__ lists only
        imp.names = [(o, a) for o, a in imp.names if a in explicit or a in listed]
    for fname, defs in _functions(root, in_class=False).items():
        if len(defs) > 1 and isinstance(info.defs.get(fname), FuncDef):
            info.defs[fname] = merge_overloads(defs)
    for node in _statements(root):
        if node.type == "decorated_definition":
            node = node.child_by_field_name("definition") or node
        cls = (
            info.defs.get(node_text(node.child_by_field_name("name")))
            if node.type == "class_definition"
            else None
        )
        if isinstance(cls, ClassDef):
            merged = {
                n: merge_overloads(d) for n, d in _functions(node.child_by_field_name("body"), True).items()
            }
            cls.methods = [merged.get(m.name, m) if m.kind != "property" else m for m in cls.methods]
            if cls.init is not None and cls.init.name in merged:
                cls.init = merged[cls.init.name]
    bound: dict[str, tuple[str, str]] = {}
    for node in _statements(root):
        expr = node.named_children[0] if node.type == "expression_statement" and node.named_children else None
        if expr is None or expr.type != "assignment":
            continue
        left, right, typ = (expr.child_by_field_name(f) for f in ("left", "right", "type"))
        if left is None or left.type != "identifier":
            continue
        target = node_text(left)
        if typ is not None:
            head = _type_name(node_text(typ))
            if head in imported and target not in info.defs:
                info.typed[target] = imported[head]  # a class of another module: merge_stubs reads it
            cls = info.defs.get(head)
            if isinstance(cls, ClassDef) and target not in info.defs:
                call = next((m for m in cls.methods if m.name == "__call__"), None)
                if (
                    call is not None
                ):  # zeros: Final[_ConstructorEmpty]: a callable object, called as a function
                    info.defs[target] = FuncDef(target, call.params, call.doc, "function", line=call.line)
                    info.assigned.discard(target)
                else:
                    info.instances[target] = cls.name
        elif right is not None and right.type == "attribute":
            obj = right.child_by_field_name("object")
            if obj is not None and obj.type == "identifier":
                bound[target] = (node_text(obj), node_text(right.child_by_field_name("attribute")))
    for target, (obj, attr) in bound.items():  # rand = _rand.rand, with _rand: RandomState
        cls = info.defs.get(info.instances.get(obj, ""))
        method = next((m for m in cls.methods if m.name == attr), None) if isinstance(cls, ClassDef) else None
        if method is not None and method.kind == "method" and target not in info.defs:
            info.defs[target] = FuncDef(target, method.params, method.doc, "function", line=method.line)
            info.assigned.discard(target)
    return info


def _find_class(
    module: str, name: str, stubs: dict[str, ModuleInfo], modules: dict[str, ModuleInfo], depth: int = 0
) -> ClassDef | None:
    """Class `name` of `module` in the stubs or sources, followed through their imports (``from
    numpy._typing import _UFunc_Nin1_Nout1``: defined in ``numpy._typing._ufunc``); None when not found."""
    for info in (stubs.get(module), modules.get(module)):
        found = info.defs.get(name) if info is not None else None
        if isinstance(found, ClassDef):
            return found
    for info in (stubs.get(module), modules.get(module)) if depth < 4 else ():
        for imp in info.imports if info is not None else ():
            orig = next((o for o, a in imp.names if a == name), None if not imp.star else name)
            found = _find_class(imp.module, orig, stubs, modules, depth + 1) if orig else None
            if found is not None:
                return found
    return None


def _call_method(
    cls: ClassDef, stubs: dict[str, ModuleInfo], modules: dict[str, ModuleInfo], depth: int = 0
) -> FuncDef | None:
    """The ``__call__`` of stub class `cls`, its own or (by base name, in any stub) a base class's."""
    own = next((m for m in cls.methods if m.name == "__call__"), None)
    if own is not None or depth > 4:
        return own
    for base in cls.bases:
        name = base.rsplit(".", 1)[-1]
        for info in (*stubs.values(), *modules.values()):
            parent = info.defs.get(name)
            if isinstance(parent, ClassDef) and parent is not cls:
                return _call_method(parent, stubs, modules, depth + 1)
    return None


def _binds(info: ModuleInfo, name: str) -> bool:
    return (
        name in info.defs
        or name in info.aliases
        or name in info.assigned
        or any(name == alias for imp in info.imports for _, alias in imp.names)
    )


def merge_stubs(
    modules: dict[str, ModuleInfo],
    stubs: dict[str, ModuleInfo],
    compiled: frozenset[str] = frozenset(),
    docs: dict[tuple[str, str], str] | None = None,
) -> int:
    """Add the stubs' names to a group's `modules` (changed in place) where the sources cannot resolve them
    (see the module doc): a stub of a module without source is the module; else each stub definition whose
    name the module's source resolves to no definition (resolve.Resolver.exports: bound from a compiled
    module, or not at all) is added to the module's defs, and each ``from X import a as a`` of a name the
    source does not bind is added to its imports. `docs` (newdoc_docs) gives a docstring to an added
    definition, and to its methods, that has none. Returns how many names were added."""
    docs = docs or {}
    added = 0
    for name, stub in stubs.items():
        if name not in modules:
            modules[name] = stub
            added += len(stub.defs)
            _document(stub.defs.values(), docs)
    for stub in stubs.values():  # sqrt: _UFunc_Nin1_Nout1[...], a callable class of numpy._typing._ufunc
        for target, (module, cls_name) in stub.typed.items():
            cls = _find_class(module, cls_name, stubs, modules)
            call = _call_method(cls, stubs, modules) if cls is not None else None
            if call is not None and target not in stub.defs:
                stub.defs[target] = FuncDef(target, call.params, "", "function", line=call.line)
                stub.assigned.discard(target)
    resolver = Resolver(modules, compiled)
    plan: list[tuple[ModuleInfo, str, FuncDef | ClassDef | ImportFrom]] = []
    for name, stub in stubs.items():
        info = modules[name]
        if info is stub:
            continue
        exports = resolver.exports(name)
        for n, d in stub.defs.items():
            if n not in info.defs and exports.get(n, (None, ""))[0] is None:
                plan.append((info, n, d))
        for imp in stub.imports:
            for orig, alias in imp.names:
                if (
                    orig == alias
                    and not _binds(info, alias)
                    and not imp.module.startswith(("typing", "_typeshed"))
                ):
                    plan.append((info, alias, ImportFrom(imp.module, [(orig, alias)])))
    for info, n, d in plan:
        if isinstance(d, ImportFrom):
            info.imports.append(d)
        else:
            info.defs[n] = d
            info.assigned.discard(n)
            _document([d], docs)
        added += 1
    return added


def _document(defs, docs: dict[tuple[str, str], str]) -> None:
    """Fill empty docstrings of stub definitions (and of their methods) from `docs` (newdoc_docs)."""
    for d in defs:
        if not d.doc:
            d.doc = docs.get((d.name, ""), "")
        if isinstance(d, ClassDef):
            for m in d.methods:
                if not m.doc:
                    m.doc = docs.get((d.name, m.name), "")


def newdoc_docs(source: bytes) -> dict[tuple[str, str], str]:
    """(object name, attribute or "") -> docstring, from a module's literal ``add_newdoc(module, name, doc)``
    calls at top level (numpy: ``add_newdoc('numpy._core.multiarray', 'array', '''array(object, ...)
    Create an array...''')``, and ``(attribute, doc)`` or a list of them for methods; _NEWDOC_CALLS).
    The docs keep their signature lines (names.py's description drops them). Parsed with ast, never run;
    {} for a module Python refuses."""
    if len(source) > MAX_NEWDOC_FILE:
        return {}
    try:
        tree = ast.parse(source)
    except (SyntaxError, ValueError):
        return {}
    out: dict[tuple[str, str], str] = {}
    for stmt in tree.body:
        call = stmt.value if isinstance(stmt, ast.Expr) else None
        if not isinstance(call, ast.Call) or len(call.args) < 3:
            continue
        func = call.func
        fname = (
            func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
        )
        if fname not in _NEWDOC_CALLS:
            continue
        try:
            args = [ast.literal_eval(a) for a in call.args[:3]]
        except (ValueError, SyntaxError, TypeError):
            continue
        if fname == "_array_method_doc":  # numpy's ndarray methods: _array_method_doc(name, signature, doc)
            args = ["", "ndarray", (args[0], args[2])]
        obj, value = args[1], args[2]
        if not isinstance(obj, str):
            continue
        items = [value] if isinstance(value, (str, tuple)) else value if isinstance(value, list) else []
        for item in items:
            if isinstance(item, str):
                out.setdefault((obj, ""), item)
            elif isinstance(item, tuple) and len(item) == 2 and all(isinstance(x, str) for x in item):
                out.setdefault((obj, item[0]), item[1])
    return out


#: The calls newdoc_docs reads: numpy's ``add_newdoc(place, obj, doc)`` (numpy/_core/function_base.py,
#: also used by packages built on numpy) and its ``_array_method_doc(name, signature, doc)`` for ndarray's
#: methods (numpy/_core/_add_newdocs.py).
_NEWDOC_CALLS = frozenset({"add_newdoc", "_array_method_doc"})
