"""Whether a standard-library module binds a name, read from its source without importing it (issue 39).

The python-env docs (names.py) cover the public functions, classes and methods of the standard library
as their source defines them; a module binds more names than that: ``random.random = _inst.random`` (a
bound method of a hidden instance), ``threading.get_ident = _thread.get_ident`` (a C function),
``linecache.getlines`` (public, left out of ``__all__``), ``codecs.utf_8_decode`` (``from _codecs import
*``). `check` asks module_binds before it calls a standard-library callee the pool lacks a
hallucination: a name the module binds is real (not judged), a name it cannot bind is a finding.

A module's top-level bindings: def, class, assignment targets (plain, annotated, augmented, unpacked),
imports, ``for``/``with`` targets, names declared ``global`` in a function, enums made by
``Enum._convert_('Name', __name__, ...)`` (ssl.Options), and its submodules (files of a package). A
star import is followed into the module it names (``posixpath`` reads ``genericpath``); a star import of
a compiled module (``from _codecs import *``), a module ``__getattr__`` (PEP 562) or a write through
``globals()`` make the answer unknown (None). Compiled modules (``sys``, ``math``,
``_thread``) have no source: None.
"""

from __future__ import annotations

import ast
import functools
import importlib.util
import os
import re
import sys
import sysconfig
import threading
from pathlib import Path
from typing import NamedTuple

#: Module names fixed by the interpreter at import time (names.py MODULE_ALIASES): os.path is posixpath.
_ALIASES = {"os.path": "posixpath" if os.name != "nt" else "ntpath"}


def stdlib_root() -> Path:
    """The running interpreter's standard-library folder (sysconfig "stdlib", Lib/)."""
    return Path(sysconfig.get_paths()["stdlib"])


def module_file(module: str) -> Path | None:
    """The source file of standard-library module `module` (``json`` -> json/__init__.py, ``os.path`` ->
    posixpath.py), or None for a compiled module, a name of no module, or a non-stdlib root."""
    module = _ALIASES.get(module, module)
    if module.split(".")[0] not in sys.stdlib_module_names:
        return None
    base = stdlib_root().joinpath(*module.split("."))
    for candidate in (base / "__init__.py", base.with_name(base.name + ".py")):
        if candidate.is_file():
            return candidate
    return None


def split_callee(qualified: str) -> tuple[str, list[str]] | None:
    """(module, attribute names) of a standard-library callee by its longest module prefix with a source
    file (``os.path.join`` -> ("os.path", ["join"]); ``logging.Handler.close`` -> ("logging", ["Handler",
    "close"])); for a compiled module (``math.sqrt``) its root: ("math", ["sqrt"]). None when the root is no
    standard-library module or the callee has no attribute (``zip``)."""
    parts = qualified.replace("()", "").split(".")
    if parts[0] not in sys.stdlib_module_names or len(parts) < 2:
        return None
    for k in range(len(parts) - 1, 0, -1):
        module = ".".join(parts[:k])
        if module_file(module) is not None:
            return module, parts[k:]
    return parts[0], parts[1:]


def top_level_names(module: str) -> frozenset[str] | None:
    """The names module `module`'s source binds at top level (see the module doc), or None when they
    cannot be known from source (compiled, star import of a compiled module, module __getattr__,
    globals() writes, unreadable)."""
    found = source_names(module)
    return found[0] if found is not None and found[1] else None


class SourceNames(NamedTuple):
    """What a module's source says of its names: names it binds at top level; complete: whether that is
    all of them; dynamic: some are made at run time (a module ``__getattr__``, a write through
    ``globals()``: multiprocessing's ``globals().update(...)`` of its context's methods), so no list of
    names, the pool's included, knows the rest."""

    names: frozenset[str]
    complete: bool
    dynamic: bool = False


@functools.lru_cache(maxsize=256)
def source_names(module: str) -> SourceNames | None:
    """The SourceNames of module `module`, or None for a module without source. Not complete when the
    source also takes names it does not spell: a star import of a compiled module (``from posix import
    *``; a star import of a Python module that itself has one brings its spelled names and not all: sqlite3's
    ``from sqlite3.dbapi2 import *`` gives ``Date``), a module ``__getattr__``, a write through globals()."""
    path = module_file(module)
    return None if path is None else _file_names(module, path)


@functools.lru_cache(maxsize=256)
def installed_file(module: str) -> Path | None:
    """The file that lists the names of `module` of an installed distribution (not the standard library):
    its type stub (``numpy/__init__.pyi``: PEP 484 stubs describe a module whole, its compiled names too)
    when it has one, else its source; found under the top-level package's folder, which
    importlib.util.find_spec gives for a top-level name without importing anything. None for a
    standard-library module, a module not installed, or a compiled one without a stub."""
    top, *rest = module.split(".")
    if top in sys.stdlib_module_names or not all(p.isidentifier() for p in (top, *rest)):
        return None
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        return None
    if spec is None:
        return None
    if spec.submodule_search_locations:
        base = Path(next(iter(spec.submodule_search_locations))).joinpath(*rest)
        candidates = [base / "__init__.pyi", base / "__init__.py"]
        if rest:
            candidates += [base.with_name(base.name + ".pyi"), base.with_name(base.name + ".py")]
    elif not rest and spec.origin and spec.origin.endswith(".py"):
        candidates = [Path(spec.origin).with_suffix(".pyi"), Path(spec.origin)]
    else:
        return None
    return next((c for c in candidates if c.is_file()), None)


@functools.lru_cache(maxsize=256)
def installed_names(module: str) -> SourceNames | None:
    """source_names for a module of an installed distribution (installed_file: its stub, else its
    source), None when no file lists its names."""
    path = installed_file(module)
    return None if path is None else _file_names(module, path)


#: Most modules a chain of star imports is followed through (each a frame of recursion); a longer chain is
#: unknown (the standard library follows a few: ``posixpath`` reads ``genericpath``).
MAX_STAR_CHAIN = 32

#: The modules whose names this thread is reading now, outermost first (the cycle guard of _star_names).
_reading = threading.local()


def _names(module: str) -> SourceNames | None:
    """source_names for a standard-library module, installed_names for any other."""
    if module.split(".")[0] in sys.stdlib_module_names:
        return source_names(module)
    return installed_names(module)


def _file_names(module: str, path: Path) -> SourceNames | None:
    """The SourceNames of `module` read from its file `path` (source_names' rules; a ``.pyi`` stub too)."""
    path_now: list[str] = _reading.__dict__.setdefault("modules", [])
    path_now.append(module)
    try:
        return _read_names(module, path)
    finally:
        path_now.pop()


def _read_names(module: str, path: Path) -> SourceNames | None:
    """_file_names' work, with `module` on the current chain of star imports."""
    try:
        tree = ast.parse(path.read_bytes())
    except (OSError, SyntaxError, ValueError):
        return None
    complete, dynamic = True, False
    names: set[str] = set()
    stack: list[ast.AST] = list(tree.body)
    while stack:
        node = stack.pop()
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
            if node.name == "__getattr__" and not isinstance(node, ast.ClassDef):
                complete, dynamic = False, True
            for inner in ast.walk(node):  # `global x` in a function binds a module name
                if isinstance(inner, ast.Global):
                    names.update(inner.names)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            for alias in node.names:
                if alias.name == "*":  # followed into standard-library source; compiled: unknown
                    theirs = _star_names(module, path, node)
                    complete = complete and theirs is not None and theirs.complete
                    dynamic = dynamic or (theirs is not None and theirs.dynamic)
                    names.update(theirs.names if theirs is not None else ())
                    continue
                names.add(alias.asname or alias.name.split(".")[0])
        elif isinstance(node, (ast.Assign, ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(_writes_globals(t) for t in targets):  # globals()[name] = ... (hashlib)
                complete, dynamic = False, True
            for t in targets:
                names.update(_target_names(t))
            if isinstance(node, (ast.For, ast.AsyncFor)):
                stack += [*node.body, *node.orelse]
        elif isinstance(node, (ast.With, ast.AsyncWith)):
            for item in node.items:
                if item.optional_vars is not None:
                    names.update(_target_names(item.optional_vars))
            stack += node.body
        elif isinstance(node, (ast.If, ast.While)):
            stack += [*node.body, *node.orelse]
        elif isinstance(node, ast.Try) or type(node).__name__ == "TryStar":
            stack += [*node.body, *node.orelse, *node.finalbody]
            stack += [s for h in node.handlers for s in h.body]
            names.update(h.name for h in node.handlers if h.name)
        elif isinstance(node, ast.Expr) and _writes_globals(node.value):
            complete, dynamic = False, True
        elif isinstance(node, ast.Expr) and (made := _converted_enum(node.value)):
            names.add(made)  # _IntEnum._convert_('Options', __name__, ...): ssl.Options, signal.Signals
        elif isinstance(node, ast.Match):
            stack += [s for case in node.cases for s in case.body]
    if path.stem == "__init__":  # a package's submodules are its attributes once imported
        names.update(
            p.stem
            for p in path.parent.iterdir()
            if p.suffix in (".py", ".pyi") or (p / "__init__.py").is_file()
        )
    return SourceNames(frozenset(names), complete, dynamic)


def _star_names(module: str, path: Path, node: ast.ImportFrom) -> SourceNames | None:
    """What ``from X import *`` in `module` (source `path`) binds: X's SourceNames (all its top-level
    names, not only its __all__: a name too many only spares a finding), None when X is compiled or
    unknown, or is being read on this chain of star imports (a cycle: ``pkg/__init__.py``'s ``from pkg.x
    import *`` and ``pkg/x.py``'s ``from pkg import *`` made `check` a RecursionError, break-it round 16;
    lru_cache fills its cache only on return) or the chain is longer than MAX_STAR_CHAIN."""
    source = node.module or ""
    if node.level:
        package = module if path.stem == "__init__" else module.rpartition(".")[0]
        for _ in range(node.level - 1):
            package = package.rpartition(".")[0]
        source = f"{package}.{source}" if source else package
    chain = _reading.__dict__.get("modules", [])
    if source == module or _ALIASES.get(source) == module or source in chain or len(chain) >= MAX_STAR_CHAIN:
        return None
    return _names(source)


@functools.lru_cache(maxsize=256)
def enum_classes(module: str) -> frozenset[str]:
    """The top-level classes of standard-library module `module` that are enums: a base or a decorator
    names an Enum or Flag (``class Color(IntEnum)``, ``@_simple_enum(IntEnum) class HTTPStatus``). Calling
    one with a value looks its member up (``HTTPStatus(404)``), whatever its ``__new__`` takes. Empty for
    a module without source."""
    path = module_file(module)
    try:
        tree = ast.parse(path.read_bytes()) if path is not None else None
    except (OSError, SyntaxError, ValueError):
        tree = None
    out = set()
    for node in tree.body if tree is not None else ():
        if isinstance(node, ast.ClassDef):
            heads = [ast.unparse(e) for e in [*node.bases, *node.decorator_list]]
            if any(re.search(r"(Enum|Flag)\b", h) for h in heads):
                out.add(node.name)
    return frozenset(out)


def _target_names(target: ast.AST) -> list[str]:
    """The names an assignment target binds: ``a`` and ``a, (b, *c)``; ``x.y`` and ``d[k]`` bind none."""
    if isinstance(target, ast.Name):
        return [target.id]
    if isinstance(target, ast.Starred):
        return _target_names(target.value)
    if isinstance(target, (ast.Tuple, ast.List)):
        return [n for e in target.elts for n in _target_names(e)]
    return []


def _converted_enum(expr: ast.AST) -> str:
    """The name ``Enum._convert_('Name', __name__, ...)`` binds in the calling module (enum.py: it sets
    the module's global), else ""."""
    if (
        isinstance(expr, ast.Call)
        and isinstance(expr.func, ast.Attribute)
        and expr.func.attr == "_convert_"
        and expr.args
        and isinstance(expr.args[0], ast.Constant)
        and isinstance(expr.args[0].value, str)
    ):
        return expr.args[0].value
    return ""


def _writes_globals(expr: ast.AST) -> bool:
    """True for ``globals().update(...)`` and other calls through ``globals()`` (hashlib's constructors)."""
    return any(
        isinstance(n, ast.Call) and isinstance(n.func, ast.Name) and n.func.id in ("globals", "vars")
        for n in ast.walk(expr)
    )


def module_binds(module: str, name: str) -> bool | None:
    """True when standard-library module `module`'s source binds `name` at top level, False when its
    source binds all its names and not this one, None when that cannot be known from source (no source;
    or the name is not spelled but the module also takes names it does not spell: source_names)."""
    found = source_names(module)
    if found is None:
        return None
    names, complete, _ = found
    if name in names:
        return True
    return False if complete else None
