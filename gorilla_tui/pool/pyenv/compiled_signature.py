"""Whether the python-env doc of a compiled callable has a signature Python states, or one read from a
docstring (R26-4): the one rule `check CODE`, `check -` and `check FILE` judge an argument count by.

The python-env docs read a compiled callable's parameters from its ``__text_signature__`` (Argument
Clinic: ``os.listdir($module, /, path=None)``, exact) when it has one; otherwise from its docstring's
first line (``time.ctime(seconds)``, yet ``time.ctime()`` works: the line lists every parameter, not
always which are optional) or, for a class without its own, its base's (``os.stat_result``: tuple's
``(iterable=(), /)``). A count judged against the first is what Python itself would raise; a missing
argument against a docstring line, or any count against an inherited signature, may be a false alarm.
Before, `check FILE` skipped the count of every name a module takes from a compiled one
(``os.listdir('/x', 1)`` passed) while `check CODE` judged every one (``time.ctime()`` failed).

Compiled standard-library modules are imported to read them (they run no Python source, as
pool/pyenv/compiled.py does); a Python module's names from a compiled star import (``from posix import
*`` in os.py) are looked up in that compiled module. Nothing else is imported.
"""

from __future__ import annotations

import ast
import builtins
import functools
import importlib
import inspect
import warnings

from gorilla_tui.pool.pyenv.binds import module_file, split_callee

#: Why an argument count of such a callable is not judged (`check --explain`, the Validator's note).
UNSURE_SIGNATURE = (
    "compiled, without a signature of its own (its doc's is read from a docstring or a base class)"
)


@functools.lru_cache(maxsize=1)
def compiled_modules() -> frozenset[str]:
    """The compiled standard-library modules that may be imported (pool/pyenv/compiled.py's list):
    importing one runs no Python source."""
    from gorilla_tui.pool.pyenv.compiled import EXCLUDED, compiled_module_names  # deferred: only on a count

    return frozenset(compiled_module_names()) - EXCLUDED


@functools.lru_cache(maxsize=256)
def _star_sources(module: str) -> tuple[str, ...]:
    """The compiled modules a standard-library module's source star-imports (os.py: posix, nt), in order;
    () when it has no source file or none."""
    path = module_file(module)
    if path is None:
        return ()
    try:
        tree = ast.parse(path.read_text(encoding="utf-8"))
    except (OSError, SyntaxError, ValueError, UnicodeDecodeError, RecursionError):
        return ()
    found = [
        n.module
        for n in ast.walk(tree)
        if isinstance(n, ast.ImportFrom) and n.module and not n.level and any(a.name == "*" for a in n.names)
    ]
    return tuple(m for m in dict.fromkeys(found) if m in compiled_modules())


def _compiled_object(module: str, attrs: list[str]) -> object | None:
    """The object ``module.attrs...`` names when it comes from a compiled module (the module itself, or a
    compiled module it star-imports), else None (a Python definition: its signature is its source's)."""
    homes = [module] if module_file(module) is None else list(_star_sources(module))
    for home in homes:
        if home not in compiled_modules():
            continue
        try:
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                obj: object = importlib.import_module(home)
        except Exception:  # noqa: BLE001 - a module that does not import here names nothing
            continue
        for attr in attrs:
            obj = inspect.getattr_static(obj, attr, None)
            if obj is None:
                break
        else:
            return obj
    return None


@functools.lru_cache(maxsize=4096)
def signature_unsure(callee: str, reason: str) -> bool:
    """True when an argument count `reason` ("wrong_args:missing_argument" or
    "wrong_args:too_many_arguments") of standard-library callee `callee` is not judged: the callee is a
    compiled callable without a ``__text_signature__`` of its own. A class's signature is then its base's
    (``os.stat_result``: tuple's ``(iterable=(), /)``): neither count is sure. A function's is its
    docstring's first line, which lists every parameter (optional ones in brackets, ``time.sleep(seconds)``,
    ``time.time()``: one more is a TypeError) but not always which may be left out (``time.ctime(seconds)``
    works as ``time.ctime()``): a missing argument is not sure, too many is. False for a Python
    definition, a compiled callable with its own text signature (``os.listdir``, ``math.sqrt``), a name not
    found, or another reason."""
    if reason not in ("wrong_args:missing_argument", "wrong_args:too_many_arguments"):
        return False
    if "." not in callee and "(" not in callee:  # a builtin: bool(x) is documented, bool() is False
        obj = inspect.getattr_static(builtins, callee, None) if not callee.startswith("_") else None
    else:
        split = split_callee(callee.replace("()", ""))
        obj = _compiled_object(*split) if split is not None else None
    if obj is None:
        return False
    if isinstance(obj, (staticmethod, classmethod)):
        obj = obj.__func__
    if isinstance(obj, type):
        return not vars(obj).get("__text_signature__")
    if not callable(obj) and not inspect.ismethoddescriptor(obj):
        return False
    return reason == "wrong_args:missing_argument" and not getattr(obj, "__text_signature__", None)
