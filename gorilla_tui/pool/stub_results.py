"""What a standard-library call's result has, by typeshed's stubs (break-it round 29, F5): the chain
``sqlite3.connect('a.db').exeucte('x')`` goes on from the class the call returns (``connect -> Connection``,
which has no ``exeucte``), as pool/stub_members.py goes on from an annotated value (``sys.stdout.buffer``).

The first call of the chain is a module-level function (every overload that takes the call's arguments
must return a class: ``open('a')`` binds only the overload returning ``TextIOWrapper``, ``open('a', m)``
all seven, from ``TextIOWrapper`` to ``IO[Any]``), a class (its instance, unless its ``__new__`` returns
something else or a metaclass makes it: ``enum.Enum('Color', 'RED')`` is a class), or a class's method
(``datetime.datetime.now()``: Self). Each further step is read on every class the object may be: a name
none of them has is missing for sure (``open('a').raed``), one some have is real; any step the stubs
cannot follow (a type variable, Any, a union, an unreadable base, a private name, ``type(x)``,
``super()``) leaves the chain unknown, and the caller says nothing (the linter's rule: no false alarm);
so does a name the stubs leave out that the running class has (``re.compile(p).scanner``, _runtime_has).
"""

from __future__ import annotations

import ast
import difflib
import functools
import importlib
import inspect
import sys
import warnings
from collections.abc import Callable
from typing import NamedTuple

from typeshed_client import OverloadedName

from gorilla_tui.pool.pyenv.compiled_signature import compiled_modules
from gorilla_tui.pool.stub_bind import Arg, bind_problem
from gorilla_tui.pool.stub_members import _all_members, _member, _name, _one_class, _step, stub_class
from gorilla_tui.pool.typeshed import _defined, _functions, later_versions

#: Classes whose call gives no plain instance: ``type(x)`` is any class, ``super()`` any base's methods,
#: ``object()`` a placeholder whose attributes code never calls; ``typing.NamedTuple('P', [...])`` and
#: ``TypedDict`` make a class.
_NOT_INSTANCES = frozenset(
    {"builtins.type", "builtins.super", "builtins.object", "typing.NamedTuple", "typing.TypedDict"}
)
#: The metaclass a class's stub may name whose classes' call still gives a plain instance.
_PLAIN_METACLASSES = frozenset({"ABCMeta", "abc.ABCMeta"})

Classes = tuple[tuple[str, ast.ClassDef], ...]
Function = ast.FunctionDef | ast.AsyncFunctionDef
#: Whether an overload of the chain's first call takes its arguments (None: every overload does).
Takes = Callable[[Function], bool] | None
#: One call's arguments as pool/stub_bind.py binds them: (positional, ((keyword, Arg), ...)).
CallArgs = tuple[tuple[Arg, ...], tuple[tuple[str, Arg], ...]]
#: The arguments of each part of a callee that is called (None: not known, every overload kept).
ChainArgs = tuple[CallArgs | None, ...]


class Reached(NamedTuple):
    """What the stubs say of a call chain's last name: state "found" (some class the object may be has
    it), "missing" (none has it) or "unknown"; owners: the dotted classes asked (missing), or those that
    have it (found on an instance); at: the index of
    the name judged among the callee's parts; near: did-you-mean callees, spelled as the chain (missing);
    later: the later Python ("3.12") whose stubs give one of those classes the name, else ""."""

    state: str
    owners: tuple[str, ...] = ()
    at: int = 0
    near: tuple[str, ...] = ()
    later: str = ""


_UNKNOWN = Reached("unknown")


def _parts(callee: str) -> list[tuple[str, bool]] | None:
    """(name, called) per part of a callee as check/callsite.py spells it (``open().read().upper``); None
    when a part is no name (``f()()``, a subscript)."""
    out = []
    for part in callee.split("."):
        name = part.removesuffix("()")
        if not name.isidentifier() or name.startswith("_"):
            return None
        out.append((name, name != part))
    return out


def _head(parts: list[tuple[str, bool]]) -> tuple[int, str, ast.AST | OverloadedName] | None:
    """(index of the part, module that defines it, its stub node) of the module-level name the chain starts
    with: the longest module prefix, up to the first call, whose next name a stub defines (a builtin:
    ``open``); None when no stub has one."""
    first = next(i for i, (_, called) in enumerate(parts) if called)
    names = [n for n, _ in parts]
    for k in range(first, -1, -1):
        found = _defined(".".join(names[: k + 1]) if k else f"builtins.{names[0]}")
        if found is not None:
            return k, found[0], found[1]
    return None


def _start(
    parts: list[tuple[str, bool]], overloads: tuple[int, ...] | None, args: ChainArgs = ()
) -> tuple[Classes, bool, int] | None:
    """(the classes the object after the chain's first name may be, whether they are class objects rather
    than instances, the index of the next part) when the stubs can say; overloads: the indexes of the
    first call's overloads kept (None: all, or those its arguments in `args` bind)."""
    head = _head(parts)
    if head is None:
        return None
    k, module, node = head
    called = parts[k][1]
    if isinstance(node, ast.ClassDef):
        cls = (f"{module}.{node.name}", node)
        if not called:
            return (cls,), True, k + 1
        return ((cls,), False, k + 1) if _instance_of(cls) else None
    if isinstance(node, ast.AnnAssign) and not called:  # os.environ: _Environ[str]
        one = _one_class(node.annotation)
        found = stub_class(module, _name(one)) if one is not None and _name(one) != "TypeAlias" else None
        return ((found,), False, k + 1) if found is not None and found[0] not in _NOT_INSTANCES else None
    owner = None
    if isinstance(node, ast.Assign) and isinstance(node.value, ast.Attribute):  # tarfile.open = TarFile.open
        owner = stub_class(module, _name(node.value.value))
        found = _member(owner[0].rsplit(".", 1)[0], owner[1], node.value.attr) if owner else None
        defs = [
            d for d in (found[1] if found else []) if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)
        ]
        if not defs or not _classmethods(defs):
            return None
        module = found[0]  # type: ignore[index]
    else:
        defs = list(_functions(node))
    if not called or not defs:
        return None
    if overloads is not None:
        kept = [fn for i, fn in enumerate(defs) if i in overloads]
    else:
        kept = _pick(defs, module, args[k] if k < len(args) else None, owner is not None)
    classes = _results(module, owner, kept)
    return (classes, False, k + 1) if classes else None


def _classmethods(defs: list[Function]) -> bool:
    return all(any(_name(d) == "classmethod" for d in fn.decorator_list) for fn in defs)


def _pick(defs: list[Function], module: str, args: CallArgs | None, drop_first: bool) -> list[Function]:
    """The overloads among `defs` (of stub module `module`) a call with `args` may bind, in order, up to
    the first that surely binds (pool/stub_bind.py bind_problem, Literal[...] by value: ``text=True``
    leaves out ``text: Literal[False]``); every one when the arguments are unknown. drop_first: methods
    whose first parameter is the instance or class (a staticmethod's is not)."""
    if args is None:
        return defs
    positional, keywords = args
    kept = []
    for fn in defs:
        drop = drop_first and not any(_name(d) == "staticmethod" for d in fn.decorator_list)
        taken = bind_problem(fn, module, positional, keywords, drop, by_value=True)
        if isinstance(taken, tuple):
            continue
        kept.append(fn)
        if taken is True:
            break
    return kept


def _results(module: str, owner: tuple[str, ast.ClassDef] | None, defs: list[Function]) -> Classes:
    """The classes calls of `defs` (stub module `module`; `owner`: the class of a method, for ``Self``)
    may return: each overload's class, a union's classes, a constrained type variable's (``AnyStr``: str
    or bytes); () when one returns something else (Any, an unconstrained type variable, a class that makes
    no plain instance)."""
    classes: list[tuple[str, ast.ClassDef]] = []
    for fn in defs:
        found = _returned(module, owner, fn.returns)
        if not found or any(c[0] in _NOT_INSTANCES for c in found):
            return ()
        classes += found
    return _unique(classes)


def _returned(
    module: str, owner: tuple[str, ast.ClassDef] | None, annotation: ast.expr | None, depth: int = 0
) -> list[tuple[str, ast.ClassDef]]:
    """The classes a return annotation names (see _results); [] when it names something else."""
    if annotation is None or depth > 4:
        return []
    if isinstance(annotation, ast.BinOp) and isinstance(annotation.op, ast.BitOr):
        sides = [s for s in (annotation.left, annotation.right) if _name(s) not in ("None", "MaybeNone")]
        found = [_returned(module, owner, s, depth + 1) for s in sides]
        return [] if not sides or not all(found) else [c for f in found for c in f]
    one = _one_class(annotation)
    written = _name(one) if one is not None else ""
    if not written or written in ("Any", "object", "Incomplete"):
        return []
    if written == "Self":
        return [owner] if owner is not None else []
    cls = stub_class(module, written)
    if cls is not None:
        return [cls]
    found = _defined(f"{module}.{written}") if "." not in written else _defined(written)
    value = found[1].value if found and isinstance(found[1], ast.Assign) else None
    if isinstance(value, ast.Call) and _name(value.func).endswith("TypeVar") and len(value.args) > 2:
        constraints = [_returned(found[0], owner, c, depth + 1) for c in value.args[1:]]  # type: ignore[index]
        return [c for f in constraints for c in f] if all(constraints) else []
    return []


def _instance_of(cls: tuple[str, ast.ClassDef]) -> bool:
    """Whether calling class `cls` gives a plain instance of it (no metaclass but ABCMeta, no ``__new__``
    returning another type, not a metaclass itself, not one of _NOT_INSTANCES)."""
    dotted, node = cls
    if dotted in _NOT_INSTANCES or any(ast.unparse(b) in ("type", "builtins.type") for b in node.bases):
        return False  # a metaclass's call makes a class (abc.ABCMeta('X', (), {}))
    if any(k.arg == "metaclass" and ast.unparse(k.value) not in _PLAIN_METACLASSES for k in node.keywords):
        return False
    for item in node.body:
        if isinstance(item, ast.FunctionDef) and item.name == "__new__":
            returned = ast.unparse(item.returns) if item.returns is not None else ""
            if returned not in ("Self", node.name):
                return False
    return True


def _unique(classes: list[tuple[str, ast.ClassDef]]) -> Classes:
    return tuple({c[0]: c for c in classes}.values())


def _has(cls: tuple[str, ast.ClassDef], name: str, version: tuple[int, int] | None = None) -> bool | None:
    """Whether class `cls` (or a base) has attribute `name` in Python `version`'s stubs; None: unknown."""
    found = _member(cls[0].rsplit(".", 1)[0], cls[1], name, version=version)
    return None if found is None else bool(found[1])


@functools.lru_cache(maxsize=4096)
def _reach(callee: str, overloads: tuple[int, ...] | None, args: ChainArgs = ()) -> Reached:
    """result_chain's answer, cached by callee, the overloads of its first call kept (their indexes) and
    the arguments of each call (which overloads each step may take)."""
    parts = _parts(callee)
    if parts is None or len(parts) < 2 or not any(c for _, c in parts[:-1]):
        return _UNKNOWN
    start = _start(parts, overloads, args)
    if start is None:
        return _UNKNOWN
    classes, is_class, i = start
    for at in range(i, len(parts)):
        name, called = parts[at]
        last = at == len(parts) - 1
        given = args[at] if at < len(args) else None
        if is_class:  # a class object's attribute: its metaclass may have it (Path.mro), so never missing
            if last or len(classes) != 1:
                return Reached("found") if last and _has(classes[0], name) else _UNKNOWN
            step = _step_classes(classes[0], name, called, given)
            if not step:
                return _UNKNOWN
            classes, is_class = step, False
            continue
        has = [_has(c, name) for c in classes]
        if last and any(has):
            return Reached("found", tuple(c[0] for c, h in zip(classes, has, strict=True) if h))
        if any(h is None for h in has):
            return _UNKNOWN
        if not any(has):
            if any(_runtime_has(c[0], name) for c in classes):
                return _UNKNOWN  # a name the stubs leave out (re.Pattern's scanner)
            return _missing(parts, at, classes)
        steps = [_step_classes(c, name, called, given) for c, h in zip(classes, has, strict=True) if h]
        if not all(steps):
            return _UNKNOWN
        classes = _unique([c for step in steps for c in step])
    return _UNKNOWN


def _step_classes(cls: tuple[str, ast.ClassDef], name: str, called: bool, args: CallArgs | None) -> Classes:
    """The classes attribute (or, called, method) `name` of class `cls` gives: a method's overloads the
    call's `args` may bind (_pick), each one's class (_results); () when unknown or missing."""
    owner, node = cls
    found = _member(owner.rsplit(".", 1)[0], node, name) if called else None
    defs = found[1] if found is not None else []
    functions = [d for d in defs if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)]
    plain = functions and len(functions) == len(defs)
    if not plain or any(_name(d).endswith("property") for fn in functions for d in fn.decorator_list):
        step = _step(cls, name, called)  # an attribute, a property: its annotation
        return (step,) if isinstance(step, tuple) else ()
    kept = _pick(functions, found[0], args, drop_first=True)  # type: ignore[index]
    return _results(found[0], cls, kept) if kept else ()  # type: ignore[index]


def _runtime_has(dotted: str, name: str) -> bool:
    """True when the running Python's class `dotted` (a stub's ``module.Class``) has attribute `name`
    though its stub lacks it (``re.Pattern.scanner``, undocumented). The class is looked up only where no
    Python source runs for it: in a module already imported, or a compiled one (``_sqlite3``, ``_io``),
    imported as pool/pyenv/compiled.py does; elsewhere the stub alone decides."""
    module, _, short = dotted.rpartition(".")
    for home in dict.fromkeys((module, "_" + module.lstrip("_"), module.lstrip("_"))):
        found = sys.modules.get(home)
        if found is None and home in compiled_modules():
            try:
                with warnings.catch_warnings():  # PEP 594 modules warn on import
                    warnings.simplefilter("ignore", DeprecationWarning)
                    found = importlib.import_module(home)
            except Exception:  # noqa: BLE001 - a module that does not import here tells nothing
                found = None
        cls = inspect.getattr_static(found, short, None) if found is not None else None
        if isinstance(cls, type) and hasattr(cls, name):
            return True
    return False


def _missing(parts: list[tuple[str, bool]], at: int, classes: Classes) -> Reached:
    """The Reached of name `at` that every class of `classes` lacks: did-you-mean from their members."""
    name = parts[at][0]
    members = sorted(set().union(*(_all_members(c) for c in classes)))
    spelled = [n + "()" * c for n, c in parts]
    near = tuple(
        ".".join([*spelled[:at], n + "()" * parts[at][1], *spelled[at + 1 :]])
        for n in difflib.get_close_matches(name, members, n=3, cutoff=0.6)
    )
    later = next((f"3.{m}" for m in later_versions() if any(_has(c, name, (3, m)) for c in classes)), "")
    return Reached("missing", tuple(c[0] for c in classes), at, near, later)


def result_chain(callee: str, takes: Takes = None, args: ChainArgs = ()) -> Reached:
    """What the stubs say of the last name of standard-library chain `callee` (check/callsite.py's
    spelling, a call in it: ``sqlite3.connect().exeucte``, ``pathlib.Path().read_txt``,
    ``open().read().upper``); see the module doc. takes: whether an overload of the chain's first call
    takes the call's arguments as given (None: all are kept, or those `args` bind). args: per part of the
    callee, the arguments of its call where known (``check_output(['ls'])`` returns bytes: its overloads
    with ``text: Literal[True]`` are left out). Never raises for any str."""
    parts = _parts(callee)
    if parts is None or not any(c for _, c in parts[:-1]):
        return _UNKNOWN
    head = _head(parts) if takes is not None else None
    if head is None or not isinstance(head[2], ast.FunctionDef | ast.AsyncFunctionDef | OverloadedName):
        return _reach(callee, None, args)
    return _reach(callee, tuple(i for i, fn in enumerate(_functions(head[2])) if takes(fn)), args)
