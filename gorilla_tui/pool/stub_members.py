"""Attribute chains through the standard library's type stubs (typeshed, read through pool/typeshed.py):
what a name's attributes are and what a method returns, so `check` follows ``sys.stdout.buffer.write``
(``stdout: TextIO`` -> ``TextIO.buffer: BinaryIO`` -> ``IO.write``) and ``','.join(x).jion()``
(``str.join -> str``: ``str().jion``) as mypy and pyright would, without importing or running anything.

Only what the stubs say for sure counts: an annotation that is one class (``X | None`` and typeshed's
``MaybeNone`` alias of Any read as X), a property's return type, a method's return type when every
overload returns the same class (``LiteralString`` is str, ``Self`` the class itself). Anything else (a
type variable, Any, a union of two classes, a class with a base the stubs cannot resolve, a module
``__getattr__``) is unknown: the caller then says nothing (the linter's rule: never a false alarm).
"""

from __future__ import annotations

import ast
import difflib
import functools
import operator
import sys

from gorilla_tui.pool.typeshed import _defined, _functions, later_versions

#: Annotation names that stand for "may also be nothing" beside a class (typeshed's _typeshed.MaybeNone is
#: an alias of Any used for attributes that are None in some runs: ``sys.stdout: TextIO | MaybeNone``).
_ALSO = frozenset({"None", "MaybeNone", "Incomplete"})
#: Bases that add no attributes a call chain reaches (typing's generic machinery).
_PLAIN_BASES = frozenset({"Generic", "Protocol", "object", "ABC", "metaclass"})
#: The classes builtins.pyi writes under another name in return types (PEP 675: LiteralString is a str).
_SAME_AS = {"LiteralString": "builtins.str"}
#: Classes the stubs define that stand for any value (typing.pyi: ``class Any: ...``).
_NO_CLASS = frozenset({"Any"})
#: Longest chain followed (attributes and calls): deeper chains are unknown.
_MAX_STEPS = 12


def _one_class(annotation: ast.expr | None) -> ast.expr | None:
    """The one class expression an annotation states, None/MaybeNone sides dropped and ``X[...]`` read as
    X; None for a union of two classes, a string that is no expression, or no annotation."""
    if isinstance(annotation, ast.Constant) and isinstance(annotation.value, str):
        try:
            annotation = ast.parse(annotation.value, mode="eval").body
        except SyntaxError:
            return None
    if isinstance(annotation, ast.Subscript):
        annotation = annotation.value
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [s for s in (annotation.left, annotation.right) if _name(s) not in _ALSO]
        return _one_class(sides[0]) if len(sides) == 1 else None
    return annotation if isinstance(annotation, (ast.Name, ast.Attribute)) else None


def _name(node: ast.expr) -> str:
    if isinstance(node, ast.Constant) and node.value is None:
        return "None"
    return ast.unparse(node) if isinstance(node, (ast.Name, ast.Attribute)) else ""


@functools.lru_cache(maxsize=2048)
def stub_class(module: str, written: str) -> tuple[str, ast.ClassDef] | None:
    """(dotted name where the stubs define it, its ClassDef) of class name `written` as module `module`'s
    stub spells it (``TextIO`` in sys is ``typing.TextIO``); None when it is no class of a stub."""
    if written in _SAME_AS:
        written, module = _SAME_AS[written].rsplit(".", 1)[1], "builtins"
    dotted = f"{module}.{written}" if "." not in written else written
    found = _defined(dotted) or (_defined(f"builtins.{written}") if "." not in written else None)
    for _ in range(4):  # a type alias of a class: ``_Date: TypeAlias = date`` (datetime.pyi)
        node = found[1] if found is not None else None
        alias = isinstance(node, ast.AnnAssign) and _name(node.annotation).rsplit(".", 1)[-1] == "TypeAlias"
        value = node.value if alias else None  # type: ignore[union-attr]
        if not isinstance(value, ast.Name | ast.Attribute) or found is None:
            break
        target = _name(value)
        found = _defined(target if "." in target else f"{found[0]}.{target}") or _defined(
            f"builtins.{target}"
        )
    if found is None or not isinstance(found[1], ast.ClassDef) or found[1].name in _NO_CLASS:
        return None  # typing.Any is a class in typeshed's stubs: no class a value has (_UrlopenRet = Any)
    return f"{found[0]}.{found[1].name}", found[1]


def _body(nodes: list[ast.stmt], version: tuple[int, int] | None = None) -> list[ast.stmt]:
    """The statements of a class body as Python `version` (None: the running one) reads them: under an
    ``if sys.version_info >= (3, 12):`` block (typeshed writes a method per Python version) the branch
    that version takes, under any other ``if`` both branches."""
    out: list[ast.stmt] = []
    for node in nodes:
        if isinstance(node, ast.If):
            taken = _version_test(node.test, version or sys.version_info[:2])
            out += _body(node.body, version) if taken is not False else []
            out += _body(node.orelse, version) if taken is not True else []
        else:
            out.append(node)
    return out


_COMPARE = {ast.GtE: operator.ge, ast.Gt: operator.gt, ast.Lt: operator.lt, ast.LtE: operator.le,
            ast.Eq: operator.eq, ast.NotEq: operator.ne}  # fmt: skip


def _version_test(test: ast.expr, version: tuple[int, int]) -> bool | None:
    """The value of a stub's ``sys.version_info OP (3, N)`` test for Python `version`; None for any other
    test (``sys.platform``), or a tuple of more than two numbers (a micro version)."""
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and type(test.ops[0]) in _COMPARE):
        return None
    right = test.comparators[0]
    if (
        ast.unparse(test.left) != "sys.version_info"
        or not isinstance(right, ast.Tuple)
        or len(right.elts) > 2
    ):
        return None
    numbers = [e.value for e in right.elts if isinstance(e, ast.Constant) and isinstance(e.value, int)]
    if len(numbers) != len(right.elts):
        return None
    return bool(_COMPARE[type(test.ops[0])](version[: len(numbers)], tuple(numbers)))


def _members(cls: ast.ClassDef, name: str, version: tuple[int, int] | None = None) -> list[ast.stmt]:
    out: list[ast.stmt] = []
    for node in _body(cls.body, version):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == name:
            out.append(node)
        elif isinstance(node, ast.AnnAssign) and isinstance(node.target, ast.Name) and node.target.id == name:
            out.append(node)
        elif isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            out.append(node)
    return out


def _member(
    where: str, cls: ast.ClassDef, name: str, seen: int = 0, version: tuple[int, int] | None = None
) -> tuple[str, list[ast.stmt]] | None:
    """(module of the class that defines it, its definitions) of attribute `name` of class `cls` (defined
    in module `where`) or of its bases, in order, as Python `version`'s stubs have it (None: the running
    Python's); None when a base cannot be read (then it may be there), ("", []) when the class and all its
    bases lack it."""
    found = _members(cls, name, version)
    if found:
        return where, found
    if seen > 16 or _members(cls, "__getattr__") or _members(cls, "__getattribute__"):
        return None  # a class with __getattr__ has any attribute (unittest.mock.call.foo, threading.local)
    for base in cls.bases:
        head = base.value if isinstance(base, ast.Subscript) else base
        written = _name(head)
        if written.rsplit(".", 1)[-1] in _PLAIN_BASES:
            continue
        resolved = stub_class(where, written) if written else None
        if resolved is None:
            return None
        deeper = _member(resolved[0].rsplit(".", 1)[0], resolved[1], name, seen + 1, version)
        if deeper is None or deeper[1]:
            return deeper
    if any(isinstance(k.value, ast.Name) and k.arg == "metaclass" for k in cls.keywords):
        return None  # an enum's members, a metaclass's attributes: not listed in the body
    return "", []


def _type_of(module: str, owner: str, node: ast.stmt, called: bool) -> tuple[str, ast.ClassDef] | None:
    """The class a member gives: an annotated attribute's, a property's return type, or (called) a
    method's return type; `owner` is the dotted class it belongs to (for ``Self``)."""
    if isinstance(node, ast.AnnAssign) and not called:
        annotation = _one_class(node.annotation)
    elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        is_property = any(_name(d).endswith("property") for d in node.decorator_list)
        if is_property == called:
            return None
        annotation = _one_class(node.returns)
    else:
        return None
    written = _name(annotation) if annotation is not None else ""
    if written == "Self":
        return stub_class(*owner.rsplit(".", 1))
    return stub_class(module, written) if written and written not in ("Any", "object") else None


def _step(cls: tuple[str, ast.ClassDef], name: str, called: bool) -> tuple[str, ast.ClassDef] | None | bool:
    """One step of a chain from class `cls`: the class attribute (or, called, method) `name` gives; False
    when the class lacks it for sure; None when unknown."""
    owner, node = cls
    found = _member(owner.rsplit(".", 1)[0], node, name)
    if found is None:
        return None
    module, defs = found
    if not defs:
        return False
    kinds = {_type_of(module, owner, d, called) for d in defs}
    results = {k[0] if k else None for k in kinds}
    if len(results) != 1 or None in results:
        return None
    return next(iter(kinds))


def chain_class(start: str, steps: tuple[tuple[str, bool], ...]) -> tuple[str, ast.ClassDef] | None:
    """The class reached from class `start` (dotted, ``builtins.str``) by `steps` ((name, called) each:
    ``(("join", True),)`` for ``.join(...)``), or None when a step is unknown or missing."""
    cls = stub_class(*start.rsplit(".", 1)) if "." in start else stub_class("builtins", start)
    for name, called in steps[:_MAX_STEPS] if len(steps) <= _MAX_STEPS else ():
        if cls is None:
            return None
        nxt = _step(cls, name, called)
        cls = nxt if isinstance(nxt, tuple) else None
    return cls


def returns_none(owner: str, method: str) -> bool:
    """Whether every overload of method `method` of class `owner` (dotted, ``builtins.list``) returns None by
    its stub, read through the class's bases (``collections.deque.reverse`` is typing.MutableSequence's):
    a method that changes the object in place (``list.sort``, ``dict.update``; the Python docs' "modify
    the sequence in place ... return None", library/stdtypes.html). False when a stub lacks it or says
    otherwise (``list.pop`` returns an item)."""
    cls = stub_class(*owner.rsplit(".", 1)) if "." in owner else stub_class("builtins", owner)
    found = _member(cls[0].rsplit(".", 1)[0], cls[1], method) if cls is not None else None
    defs = found[1] if found is not None else []
    return bool(defs) and all(
        isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))
        and isinstance(d.returns, ast.Constant)
        and d.returns.value is None
        for d in defs
    )


@functools.lru_cache(maxsize=4096)
def _walk(dotted: str) -> tuple[tuple[str, ast.ClassDef] | None, int]:
    """(the class the names of `dotted` reach before the last, or before the first one missing; the index
    of the name judged on it: the last, or the missing one). (None, 0) when a step is unknown (no stub, an
    unannotated or Any value, a union, an unreadable base) or `dotted` has fewer than three names."""
    parts = dotted.split(".")
    if len(parts) < 3 or len(parts) > _MAX_STEPS or not all(p.isidentifier() for p in parts):
        return None, 0
    for k in range(len(parts) - 2, 0, -1):  # the longest module prefix whose next name is an annotated value
        module, name = ".".join(parts[:k]), parts[k]
        found = _defined(f"{module}.{name}")
        if found is None:
            continue
        where, node = found
        if not isinstance(node, ast.AnnAssign):
            return None, 0
        annotation = _one_class(node.annotation)
        cls = stub_class(where, _name(annotation)) if annotation is not None else None
        for i in range(k + 1, len(parts) - 1):
            if cls is None:
                return None, 0
            nxt = _step(cls, parts[i], False)
            if nxt is False:
                return cls, i
            cls = nxt if isinstance(nxt, tuple) else None
        return cls, len(parts) - 1
    return None, 0


def attribute_chain(dotted: str) -> bool | None:
    """Whether ``module.name.attr...last`` exists by the stubs: the module-level name's annotated class,
    then each attribute's (a property's return type, an annotated attribute's class), and the last name a
    member of the class reached (``sys.stdout.buffer.write``: True; ``sys.stdout.buffer.wirte``: False).
    None when any step is unknown (no stub, an unannotated or Any value, a union, an unreadable base) or
    `dotted` has fewer than three parts (a module's own names are judged elsewhere)."""
    cls, at = _walk(dotted)
    if cls is None:
        return None
    member = _member(cls[0].rsplit(".", 1)[0], cls[1], dotted.split(".")[at])
    return None if member is None else bool(member[1])


def chain_near(dotted: str) -> tuple[str, str, list[str]]:
    """For a `dotted` chain with a name missing by the stubs (attribute_chain False): (the class that
    lacks it, dotted; the missing name; that class's public members, and its bases', nearest to the name
    first: at most 3 spelled as the chain with that name, ``sys.stdout.buffer.write`` for
    ``sys.stdout.buffer.wirte``); ("", "", []) when the chain is not missing."""
    cls, at = _walk(dotted)
    if cls is None:
        return "", "", []
    parts = dotted.split(".")
    names = sorted(_all_members(cls))
    near = difflib.get_close_matches(parts[at], names, n=3, cutoff=0.6)
    return cls[0], parts[at], [".".join([*parts[:at], n, *parts[at + 1 :]]) for n in near]


def _all_members(cls: tuple[str, ast.ClassDef], seen: int = 0) -> set[str]:
    """The public names class `cls` and the bases the stubs resolve define."""
    owner, node = cls
    out: set[str] = set()
    for stmt in _body(node.body):
        if isinstance(stmt, (ast.FunctionDef, ast.AsyncFunctionDef)):
            out.add(stmt.name)
        elif isinstance(stmt, ast.AnnAssign) and isinstance(stmt.target, ast.Name):
            out.add(stmt.target.id)
        elif isinstance(stmt, ast.Assign):
            out.update(t.id for t in stmt.targets if isinstance(t, ast.Name))
    for base in node.bases if seen <= 16 else ():
        written = _name(base.value if isinstance(base, ast.Subscript) else base)
        resolved = stub_class(owner.rsplit(".", 1)[0], written) if written else None
        if resolved is not None:
            out |= _all_members(resolved, seen + 1)
    return {n for n in out if not n.startswith("_")}


def chain_method(dotted: str) -> list[ast.FunctionDef | ast.AsyncFunctionDef]:
    """The stub's definitions (its overloads) of the method a `dotted` chain ends in, for judging a call's
    arguments (``sys.stdout.buffer.write``: typing.IO.write's); [] when the chain is unknown or missing,
    or ends in an attribute or a property rather than a method (its call then calls what it holds)."""
    cls, at = _walk(dotted)
    parts = dotted.split(".")
    if cls is None or at != len(parts) - 1:
        return []
    found = _member(cls[0].rsplit(".", 1)[0], cls[1], parts[-1])
    defs = found[1] if found is not None else []
    if not defs or not all(isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef)) for d in defs):
        return []
    functions = [d for d in defs if isinstance(d, (ast.FunctionDef, ast.AsyncFunctionDef))]
    if any(_name(dec).endswith("property") for d in functions for dec in d.decorator_list):
        return []
    return functions


@functools.lru_cache(maxsize=1024)
def keyword_added_in(function: str, keyword: str) -> str:
    """The later Python ("3.12") whose stubs first give module-level function or class `function` a
    parameter `keyword` this Python's stubs lack (``shutil.rmtree``'s ``onexc``: 3.12, ``typing.TypeVar``'s
    ``default``: 3.13), else "" (break-it round 29, F8): typeshed gates such parameters on
    ``sys.version_info``, at module level or inside a class (``__new__`` / ``__init__``, or the
    ``__call__`` of a callable object's class: ``rmtree: _RmtreeType``)."""
    if not keyword.isidentifier() or keyword in _parameters(function, None):
        return ""
    return next((f"3.{m}" for m in later_versions() if keyword in _parameters(function, (3, m))), "")


@functools.lru_cache(maxsize=1024)
def stub_takes_keyword(function: str, keyword: str) -> bool:
    """True when the running Python's typeshed stub of module-level function or class `function` has a
    parameter `keyword` (any overload; a class's ``__new__`` / ``__init__``), so a call that gives it runs
    even where the python-env doc names it otherwise: ``locale.setlocale(category, locale=...)``, whose doc
    was read from locale.py's first def, the ``value`` of its ``except ImportError`` fallback (break-it
    round 31, F6)."""
    return keyword.isidentifier() and keyword in _parameters(function, None)


def _parameters(function: str, version: tuple[int, int] | None) -> frozenset[str]:
    """The names a keyword may give to `function` (a function, a class's ``__new__`` / ``__init__``, a
    callable object's ``__call__``) in Python `version`'s stubs (None: the running Python's)."""
    found = _defined(function, version)
    if found is None:
        return frozenset()
    module, node = found
    if isinstance(node, ast.AnnAssign):  # rmtree: _RmtreeType, a Protocol with __call__
        annotation = _one_class(node.annotation)
        cls = stub_class(module, _name(annotation)) if annotation is not None else None
        node, wanted = (cls[1], ("__call__",)) if cls is not None else (node, ())
    else:
        wanted = ("__new__", "__init__")
    if isinstance(node, ast.ClassDef):
        defs = [d for d in _body(node.body, version) if isinstance(d, ast.FunctionDef) and d.name in wanted]
    else:
        defs = list(_functions(node))
    return frozenset(a.arg for d in defs for a in [*d.args.args, *d.args.kwonlyargs])
