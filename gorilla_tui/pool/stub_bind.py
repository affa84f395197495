"""A call's arguments bound against a standard-library function's type stub, every overload (break-it round
30, F-H5): ``datetime.date(2025)`` (month and day required), ``int('42', 10, 3)``, ``hashlib.sha256('abc')``
(a str where the stub says ReadableBuffer) raise TypeError at once, and were valid.

Binding is Python's own: each overload of the stub (typeshed's, through pool/typeshed.py) made an
inspect.Signature (the old ``__x`` spelling of a positional-only parameter too) and ``Signature.bind`` run
on the call's arguments, and a literal argument's type held to its annotation where that is certain
(pool/stub_accepts.py). The count is judged for compiled callables only (a builtin, a C module's function or
class): a function with Python source has its doc's signature read from that source (check/imports.py
argument_errors), and the stub's types of it only where it wants a container. A class's call is
bound to its ``__new__`` and its ``__init__`` (Python calls both with the same arguments), each where a
class below object defines it. The same reading picks the overloads a call chain goes on from
(pool/stub_results.py: ``check_output(['ls'])`` returns bytes, ``check_output([...], text=True)`` str).
"""

from __future__ import annotations

import ast
import builtins
import functools
import inspect

from gorilla_tui.pool.stub_accepts import Arg, accepts, literal_arg
from gorilla_tui.pool.stub_members import _member, _name
from gorilla_tui.pool.typeshed import _defined, _functions

Function = ast.FunctionDef | ast.AsyncFunctionDef


#: Importable from here (check/stub_types.py, pool/stub_results.py).
__all__ = ["Arg", "bind_problem", "call_problem", "callee_overloads", "literal_arg"]


@functools.lru_cache(maxsize=4096)
def _signature(fn: Function, drop_first: bool) -> inspect.Signature | None:
    """The inspect.Signature of stub definition `fn` (its first parameter left out for a method), or None
    when inspect refuses it."""
    a = fn.args
    kind = inspect.Parameter
    positional = [*a.posonlyargs, *a.args][1 if drop_first else 0 :]
    n_posonly = max(0, len(a.posonlyargs) - (1 if drop_first else 0))
    defaults = [None] * (len(a.posonlyargs) + len(a.args) - len(a.defaults)) + list(a.defaults)
    defaults = defaults[1 if drop_first else 0 :]
    params = []
    old_style = True  # PEP 484's positional-only spelling: leading parameters named __x
    for i, (arg, default) in enumerate(zip(positional, defaults, strict=True)):
        dunder = arg.arg.startswith("__") and not arg.arg.endswith("__")
        old_style = old_style and dunder
        only = i < n_posonly or old_style
        params.append((arg.arg, kind.POSITIONAL_ONLY if only else kind.POSITIONAL_OR_KEYWORD, default))
    if a.vararg is not None:
        params.append((a.vararg.arg, kind.VAR_POSITIONAL, None))
    params += [(p.arg, kind.KEYWORD_ONLY, d) for p, d in zip(a.kwonlyargs, a.kw_defaults, strict=True)]
    if a.kwarg is not None:
        params.append((a.kwarg.arg, kind.VAR_KEYWORD, None))
    try:
        return inspect.Signature([kind(n, k, default=kind.empty if d is None else ...) for n, k, d in params])
    except (ValueError, TypeError):
        return None


def _annotations(fn: Function) -> dict[str, ast.expr]:
    a = fn.args
    every = [*a.posonlyargs, *a.args, *a.kwonlyargs, *(x for x in (a.vararg, a.kwarg) if x is not None)]
    return {p.arg: p.annotation for p in every if p.annotation is not None}


def bind_problem(
    fn: Function,
    module: str,
    positional: tuple[Arg, ...],
    keywords: tuple[tuple[str, Arg], ...],
    drop_first: bool = False,
    by_value: bool = False,
    strict: bool = True,
) -> tuple[str, str] | None | bool:
    """(reason code, note) when overload `fn` (of stub module `module`) cannot take the arguments: too
    many positional ones, a keyword it has no parameter for, one given twice, a required one missing
    (Signature.bind's TypeError), or a literal its annotation cannot take (`accepts` False; by_value:
    Literal[...] by value too). True when it takes them for sure (every argument a literal its annotation
    surely takes), False when it may; a signature inspect refuses may take them (False). Not strict (a
    function with Python source, whose doc's signature is its source's: check/imports.py judges the
    count): the count is not judged, and a literal only where the stub wants a container (a str where it
    says Mapping or a Sequence of pairs: urlencode('a b&c=d')), never a scalar's class (a Python function
    may convert or keep what it is given: ``logging.disable('WARN')``)."""
    sig = _signature(fn, drop_first)
    if sig is None:
        return False
    params = sig.parameters
    spread = any(p.kind is p.VAR_KEYWORD for p in params.values())
    named = {  # Python puts a keyword naming a positional-only parameter into **kwargs (Counter(iterable=x))
        (f"{k} " if spread and k in params and params[k].kind is params[k].POSITIONAL_ONLY else k): ~i
        for i, (k, _) in enumerate(keywords)
    }
    try:
        bound = sig.bind(*range(len(positional)), **named)
    except TypeError as e:
        return (_arity_reason(str(e)), str(e)) if strict else False
    notes = _annotations(fn)
    sure = True
    for name, got in bound.arguments.items():
        param = sig.parameters[name]
        given = got if param.kind is param.VAR_POSITIONAL else (got,)
        if param.kind is param.VAR_KEYWORD:
            given = tuple(got.values())
        for index in given:
            arg = positional[index] if index >= 0 else keywords[~index][1]
            annotation = notes.get(name)
            if annotation is None or not arg.cls:
                sure = sure and annotation is None
                continue
            taken = accepts(annotation, module, arg, by_value, strict=strict)
            if taken is False:
                shown = repr(arg.value) if arg.value is not None else f"a {arg.cls.split('.')[-1]}"
                said = ast.unparse(annotation)
                return "wrong_args:wrong_type", f"{name}={shown} is given where its type stub says {said}"
            sure = sure and taken is True
    return sure


def _arity_reason(message: str) -> str:
    if "too many positional" in message:
        return "wrong_args:too_many_arguments"
    if "multiple values" in message:
        return "wrong_args:duplicate_argument"
    if "unexpected keyword" in message or "positional-only" in message:
        return "wrong_args:unknown_keyword"
    return "wrong_args:missing_argument"


#: Modules whose classes take their fields by keyword, each optional at run time (ast's node classes).
_FIELD_CLASSES = frozenset({"ast", "_ast"})


@functools.lru_cache(maxsize=4096)
def callee_overloads(callee: str) -> tuple[str, list[list[tuple[Function, bool]]]] | None:
    """(the stub module, the groups of overloads every one of which must take a call) of standard-library
    callee `callee` (``datetime.date``, ``int``, ``hashlib.sha256``): a function's overloads, one group; a
    class's ``__new__`` and ``__init__`` below object, a group each (bool: the first parameter is
    cls/self). None where no stub has it, or a class whose call is not a plain instance's making (a
    metaclass, an enum)."""
    found = _defined(callee if "." in callee else f"builtins.{callee}")
    if found is None:
        return _class_attribute(callee)
    module, node = found
    if not isinstance(node, ast.ClassDef):
        functions = list(_functions(node))
        return (module, [[(f, False) for f in functions]]) if functions else None
    if node.keywords or any(_name(b) in ("type", "builtins.type", "Enum", "enum.Enum") for b in node.bases):
        return None
    if module in _FIELD_CLASSES or any("dataclass" in _name(d) for d in node.decorator_list):
        return None  # ast.ImportFrom(module='m'): a node's fields may be left out, as a dataclass's defaults
    groups = []
    for method in ("__new__", "__init__"):
        where = _member(module, node, method)
        if where is None:
            return None
        defs = [d for d in where[1] if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)]
        if where[0] in ("", "builtins") and _object_method(where[1]):
            continue  # object's own: takes whatever the other takes
        if where[0] == "typing":
            return None  # a NamedTuple's fields (tokenize.TokenInfo): typing.NamedTuple's __new__ is no guide
        if len(defs) != len(where[1]):
            return None
        groups.append([(d, True) for d in defs])
    return (module, groups) if groups else None


def _class_attribute(callee: str) -> tuple[str, list[list[tuple[Function, bool]]]] | None:
    """callee_overloads of a method called on its class (``int.from_bytes``, ``datetime.date.fromisoformat``,
    ``str.upper('a')``: the instance given first): its overloads, the first parameter left out for a
    classmethod only; None for anything else (an attribute, a property, a class the stubs cannot read)."""
    owner, _, name = callee.rpartition(".")
    found = _defined(owner if "." in owner else f"builtins.{owner}") if owner else None
    if found is None or not isinstance(found[1], ast.ClassDef) or name.startswith("__"):
        return None
    member = _member(found[0], found[1], name)
    defs = member[1] if member is not None else []
    functions = [d for d in defs if isinstance(d, ast.FunctionDef | ast.AsyncFunctionDef)]
    if not defs or len(functions) != len(defs):
        return None
    decorators = [{_name(d) for d in fn.decorator_list} for fn in functions]
    if any(any(d.endswith("property") for d in ds) for ds in decorators):
        return None
    return member[0] or found[0], [
        [(fn, "classmethod" in ds) for fn, ds in zip(functions, decorators, strict=True)]
    ]  # type: ignore[index]


def _object_method(defs: list[ast.stmt]) -> bool:
    """True when `defs` are object's ``__new__`` / ``__init__`` (``(self) -> None``, no other parameter)."""
    return all(isinstance(d, ast.FunctionDef) and len(d.args.args) == 1 and not d.args.vararg for d in defs)


#: Sentinel: the callee has Python source (no compiled object).
_SOURCE = object()


@functools.lru_cache(maxsize=4096)
def _compiled(callee: str, module: str) -> object:
    """The compiled object `callee` names (a builtin, a C module's function or class, or a method of one),
    found where its stub defines it (``hashlib.sha256`` in _hashlib) or where its module takes it from
    (datetime.py's ``from _datetime import *``); _SOURCE for a callee with Python source. Nothing with
    Python source is imported."""
    from gorilla_tui.pool.pyenv.compiled_signature import _compiled_object  # deferred: pyenv, rare

    parts = callee.split(".")
    if module == "builtins" or len(parts) == 1:
        found_builtin = builtins
        for part in parts:
            found_builtin = getattr(found_builtin, part, None)
        return found_builtin if found_builtin is not None else _SOURCE
    for k in range(len(parts) - 1, 0, -1):  # the module, then a class's method: datetime.date.fromisocalendar
        obj = _compiled_object(".".join(parts[:k]), parts[k:])
        if obj is not None:
            return obj
    found = _defined(callee)
    node = found[1] if found is not None else None
    short = next((d.name for d in _functions(node)), parts[-1]) if node is not None else parts[-1]
    short = node.name if isinstance(node, ast.ClassDef) else short
    obj = _compiled_object(module, [short])
    return obj if obj is not None else _SOURCE


#: Reasons a stub states surely: a keyword it lacks or a parameter it names otherwise is often the stub's
#: gap (``str(errors='strict')``, tkinter's ``**options``), never judged.
_SURE_COUNTS = frozenset({"wrong_args:too_many_arguments", "wrong_args:missing_argument"})


@functools.lru_cache(maxsize=8192)
def call_problem(
    callee: str, positional: tuple[Arg, ...], keywords: tuple[tuple[str, Arg], ...]
) -> tuple[str, str] | None:
    """(reason code, note) when no overload of standard-library callee `callee`'s stub takes the call (a
    class: its ``__new__`` or its ``__init__`` takes none), the first overload's problem named; None when
    one takes it or no stub can say. What is judged (the module doc; bench/false_alarms.py measured each
    rule on CPython's Lib/): the count of arguments (too many, a required one missing) of a compiled
    callable without a text signature of its own (a C class, ``time.mktime``: the pool's doc reads its
    signature from a docstring; one with a text signature has it in its doc, check/imports.py judges
    it), a literal's class against a compiled callable's stub, and a scalar literal where a Python
    function's stub wants a container. A class with Python source is not judged (its constructor may
    keep or convert what it is given: ``calendar.LocaleTextCalendar(locale='')``)."""
    found = callee_overloads(callee)
    if found is None:
        return None
    module, groups = found
    obj = _compiled(callee, module)
    compiled = obj is not _SOURCE
    if not compiled and isinstance(_defined(callee), tuple) and isinstance(_defined(callee)[1], ast.ClassDef):
        return None
    counted = compiled and not getattr(obj, "__text_signature__", None)
    for group in groups:
        problems = [
            bind_problem(fn, module, positional, keywords, drop, strict=compiled) for fn, drop in group
        ]
        if not group or not all(isinstance(p, tuple) for p in problems):
            continue
        reason, note = problems[0]  # type: ignore[misc]
        sure = [p for p in problems if p[0] == "wrong_args:wrong_type" or (counted and p[0] in _SURE_COUNTS)]  # type: ignore[index]
        if len(sure) == len(problems):
            return reason, f"{callee}: {note} (its type stub, every overload)"
        typed = [p for p in problems if p[0] == "wrong_args:wrong_type"]  # type: ignore[index]
        if typed and all(p in typed or p[0] in _SURE_COUNTS for p in problems):  # type: ignore[index]
            # the overloads the call fits by count all refuse a literal's class, the rest do not fit it:
            # round('2.5') (its 2-argument overload wants ndigits; break-it round 31, F12)
            return typed[0][0], f"{callee}: {typed[0][1]} (its type stub, every overload)"  # type: ignore[index]
    return None
