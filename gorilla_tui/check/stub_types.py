"""A literal passed to a standard-library call where the parameter's type stub takes None alone (break-it
round 27): ``threading.Thread('14:00')`` binds the string to ``group: None`` ("group argument must be None
for now", AssertionError when run), and was valid.

This case is judged by the doc's parameters (a literal is never None, so the stub's rule holds whatever
the runtime does). A stub that types a parameter more narrowly than the runtime checks (``max(1, 2)``
against ``iterable``, ``inspect.getclasstree(classes, 1)`` for a bool, a locale name for calendar's
``tuple`` alias, ``classmethod(1)``, which fails only when called) made 206 false alarms over CPython's
Lib/ and the installed packages when every kind was judged (bench/false_alarms.py), so the kinds a
parameter admits (pool/stub_params.py) are for filling. What `check` holds to the stubs beyond it is
stub_call_errors (break-it round 30, F-H5): a call no overload of the stub takes, by Python's binding and
a literal's class only where that is certain (pool/stub_bind.py, pool/stub_accepts.py: the count of a
compiled callable, a literal's class for a compiled one, a scalar where a Python function's stub wants a
container). The None-alone fact is read once per function through pool/stub_cache.py (the cache filling
and check/file_args.py read too).
"""

from __future__ import annotations

import builtins
import sys
from collections.abc import Sequence
from typing import TYPE_CHECKING

from gorilla_tui.check.builtin_types import builtin_method
from gorilla_tui.check.callnodes import LITERAL_KINDS
from gorilla_tui.check.callsite import CallSite, Value
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import params_of
from gorilla_tui.pool.pyenv.compiled_signature import signature_unsure

if TYPE_CHECKING:
    from gorilla_tui.pool.stub_bind import Arg

#: The builtins, whose stubs are builtins.pyi's (``int``, ``dict``).
_BUILTINS = frozenset(dir(builtins))

#: The reason code of such a literal (types.REASONS).
REASON = "wrong_args:wrong_type"


def stub_type_errors(doc: ApiDoc, call: CallSite) -> tuple[str, list[str]]:
    """(REASON, one note per such argument) when `call` passes a literal (a string, a number, True or
    False) for a parameter its python-env doc's stub types as None alone, else ("", []). A call with
    ``*args``/``**kwargs`` or passed through a wrapper binds its arguments where this cannot see: not
    judged."""
    if call.splat or call.via:
        return "", []
    by_position = [p.name for p in params_of(doc) if p.kind in ("positional", "posonly")]
    given = [(by_position[i], v) for i, v in enumerate(call.positional) if i < len(by_position)]
    literal = [(name, v) for name, v in [*given, *call.keywords.items()] if _literal(v)]
    if not literal:
        return "", []
    from gorilla_tui.pool.stub_cache import takes_none_only  # deferred: read on a call with a literal only

    notes = [
        f"{doc.api_name}: {name}={v.text if not v.literal else repr(v.text)} is given where its type stub "
        "takes None alone"
        for name, v in literal
        if takes_none_only(doc.api_name, name)
    ]
    return (REASON if notes else ""), notes


def _written(value: Value) -> bool:
    """Whether `value` is a literal pool/stub_accepts.py may judge: _literal's, a bytes literal, a list,
    dict, set or tuple display."""
    return (
        _literal(value)
        or (value.text[:1] != "" and value.text[:1] in "[{(")
        or value.text[:2].lower() in ("b'", "f'")
    )


def _literal(value: Value) -> bool:
    """Whether `value` is written as a string literal, a number, True or False (never None)."""
    text = value.text
    return value.literal or text in ("True", "False") or text.lstrip("+-").replace(".", "", 1).isdigit()


def stub_arguments(call: CallSite) -> tuple[tuple[Arg, ...], tuple[tuple[str, Arg], ...]]:
    """`call`'s arguments as pool/stub_bind.py binds them: each literal's class (and value), else Arg()."""
    from gorilla_tui.pool.stub_accepts import Arg  # deferred: with stub_bind, read only on a stdlib call
    from gorilla_tui.pool.stub_bind import literal_arg  # deferred: typeshed_client, read on a stdlib call

    def arg(v: Value) -> Arg:  # a value whose kind is unknown or no literal's (LITERAL_KINDS) is not judged
        return literal_arg(v.text, v.literal) if v.kind in LITERAL_KINDS else Arg()

    positional = tuple(arg(v) for v in call.positional)
    return positional, tuple((k, arg(v)) for k, v in call.keywords.items())


def method_call_errors(owners: Sequence[str], method: str, call: CallSite) -> tuple[str, list[str]]:
    """stub_call_errors of a method `method` called on an object the stubs give one class (`owners`, one
    dotted class: ``_hashlib.HASH`` of ``hashlib.md5()``; several are not judged), the instance bound
    first: ``hashlib.md5().update('x')`` gives a str where the stub says ReadableBuffer (break-it round
    32). ("", []) otherwise."""
    if len(owners) != 1 or not any(_written(v) for v in (*call.positional, *call.keywords.values())):
        return "", []
    return stub_call_errors(f"{owners[0]}.{method}", call, instance=True)


def stub_call_errors(callee: str, call: CallSite, instance: bool = False) -> tuple[str, list[str]]:
    """(reason code, [note]) when no overload of standard-library callee `callee`'s type stub takes
    `call`'s arguments (pool/stub_bind.py call_problem: ``datetime.date(2025)``, ``int('42', 10, 3)``,
    ``hashlib.sha256('abc')``; break-it round 30, F-H5), else ("", []). A call with ``*args`` /
    ``**kwargs``, passed through a wrapper, or of a name outside the standard library and builtins is not
    judged. A method of a builtin type's instance (``str().split`` of ``','.split(1)``: a literal or a
    constructor's result, check/builtin_types.py) is judged as the method on its class with that
    instance first (``str.split``, its stub's self: break-it round 31, F12), as is `callee` when
    `instance` says it is a class's method called on an instance (method_call_errors)."""
    typed = builtin_method(callee)
    on_instance = typed is not None or instance
    if typed is not None:
        callee = f"{typed[0]}.{typed[1]}"
    root = callee.split(".", 1)[0]
    if (
        call.splat
        or call.via
        or "(" in callee
        or (root not in sys.stdlib_module_names and root not in _BUILTINS)
    ):
        return "", []
    values = [*call.positional, *call.keywords.values()]
    if not any(_written(v) for v in values) and not signature_unsure(callee, "wrong_args:missing_argument"):
        return "", []  # nothing the stub could say that the doc's own signature did not (typeshed not read)
    from gorilla_tui.pool.stub_bind import Arg, call_problem  # deferred: typeshed_client

    positional, keywords = stub_arguments(call)
    if on_instance:  # the instance is self: its class is known, its value not (any instance is taken)
        positional = (Arg(), *positional)
    found = call_problem(callee, positional, keywords)
    if found is None:
        return "", []
    reason, note = found
    return reason, [f"{call.line}:{call.col}: {note}"]
