"""Calls that run code or a shell command, or import a module named by a value (break-it round 24, R24-5).

Such a call is never "incidental" for the validator (check/validator.py rule 1) and never "part" of the pool
call whose arguments hold it: it gets its own row, and one the API pool does not hold decides the verdict
(``hallucination:unknown_callee``, named as what it is). ``__import__('os').system`` is read as
``os.system``. In generate mode the pipeline proposes only the judged call (pipeline_generate.py): another
statement of the model's answer is left out, and a call of this kind inside the proposed call's arguments
makes the verdict ``wrong_args:runs_code``.
"""

from __future__ import annotations

import ast
import dataclasses
import re
import warnings

from gorilla_tui.check.callnodes import CallSite

__all__ = ["RUNS_CODE_NOTE", "dynamic_import", "reaches_code", "runs_code"]

#: Callees that run Python source, a shell command or a program, or import a module by a name given as a
#: value (the Python documentation of builtins, os "Process Management", subprocess, pty, runpy, code and
#: importlib): what a model's answer must never slip past the check as a side call.
_RUNS = frozenset(
    {
        "exec", "eval", "compile", "__import__", "breakpoint", "execfile",
        "builtins.exec", "builtins.eval", "builtins.compile", "builtins.__import__",
        "os.system", "os.popen", "os.startfile", "os.fork", "os.forkpty",
        "pty.spawn", "pty.fork", "runpy.run_path", "runpy.run_module", "code.interact",
        "importlib.import_module", "importlib.__import__", "commands.getoutput", "commands.getstatusoutput",
    }
)  # fmt: skip
#: Callee prefixes of the same kind: every function of subprocess, os.exec*, os.spawn*, os.posix_spawn*.
_RUNS_PREFIX = ("subprocess.", "os.exec", "os.spawn", "os.posix_spawn", "asyncio.create_subprocess_")
#: What the verdict's note says of such a call.
RUNS_CODE_NOTE = "runs code or a command, or imports a module by name"

#: ``__import__('name')`` at the start of a call's text: the module it imports.
_IMPORT_CALL = re.compile(r"__import__\(\s*(['\"])([A-Za-z_][\w.]*)\1\s*\)")


def runs_code(callee: str) -> bool:
    """True when `callee` (a CallSite's callee, import-qualified) runs code or a command (_RUNS). A method
    on a call's result (``subprocess.check_output().decode``) is not one: the call that made the result is
    a CallSite of its own and judged so (session 13: ``subprocess.check_output(['ls']).decode()`` was a
    hallucination)."""
    if "()." in callee:
        return False
    return callee in _RUNS or callee.startswith(_RUNS_PREFIX)


def dynamic_import(call: CallSite) -> CallSite:
    """`call` with ``__import__('m').f`` read as ``m.f`` (its callee), the call itself otherwise: a module
    imported by name is the module, so ``__import__('os').system(...)`` is judged as ``os.system``, and
    ``__import__('os.path').path.join`` as ``os.path.join`` (a dotted name returns its top-level package)."""
    if not call.callee.startswith("__import__()."):
        return call
    m = _IMPORT_CALL.match(call.text)
    if m is None:
        return call
    # __import__('os.path') returns the top-level package, os (the Python docs of __import__): its
    # attributes are the package's (break-it R27-13: `__import__('os.path').path.join` was os.path.path.join)
    top = m.group(2).split(".", 1)[0]
    return dataclasses.replace(call, callee=f"{top}.{call.callee[len('__import__().') :]}")


#: Names that reach builtins, frames or any attribute by a value (break-it round 25, R25-1): a model's answer
#: that names one can run code under a name no list holds (``getattr(__builtins__, 'ex'+'ec')``,
#: ``breakpoint.__self__.exec``, ``f.__globals__``; the Python data model and inspect documentation).
_DUNDERS = frozenset(
    {
        "__builtins__", "__dict__", "__self__", "__globals__", "__subclasses__", "__import__", "__code__",
        "__class__", "__bases__", "__base__", "__mro__", "__getattribute__", "__closure__", "__func__",
        "__reduce__", "__reduce_ex__", "__loader__", "__spec__", "func_globals", "tb_frame",
        "f_globals", "f_locals", "f_builtins", "f_back", "f_code", "gi_frame", "cr_frame", "ag_frame",
    }
)  # fmt: skip
#: Dotted names (and their attributes) that run code by another route: reflection, the loaded modules,
#: deserialisers that run code (pickle, marshal, dill, shelve, yaml's unsafe loaders), C calls (ctypes,
#: cffi), interpreters (code), frames, and programs started by URL (webbrowser).
_REACHES = (
    "getattr", "setattr", "delattr", "vars", "globals", "locals", "builtins", "sys.modules", "sys._getframe",
    "operator.attrgetter", "operator.methodcaller", "inspect.currentframe", "inspect.stack", "gc.get_objects",
    "gc.get_referrers", "pickle.load", "pickle.loads", "pickle.Unpickler", "_pickle", "cPickle", "marshal",
    "dill", "shelve", "yaml.unsafe_load", "yaml.full_load", "yaml.UnsafeLoader", "yaml.Loader",
    "jsonpickle", "ctypes", "cffi", "code.interact", "code.InteractiveInterpreter", "code.InteractiveConsole",
    "code.compile_command", "webbrowser", "pty", "runpy", "importlib",
)  # fmt: skip


def _dotted(node: ast.expr) -> str | None:
    """``a.b.c`` for a Name/Attribute chain, None for anything else."""
    parts = []
    while isinstance(node, ast.Attribute):
        parts.append(node.attr)
        node = node.value
    if not isinstance(node, ast.Name):
        return None
    return ".".join([node.id, *reversed(parts)])


def _aliases(tree: ast.AST) -> dict[str, str]:
    """Local name -> module path for each import in `tree` (``import os as o``, ``from os import system``)."""
    names: dict[str, str] = {}
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update({a.asname or a.name.split(".")[0]: a.name if a.asname else a.name.split(".")[0]
                          for a in node.names})  # fmt: skip
        elif isinstance(node, ast.ImportFrom) and node.module:
            names.update({a.asname or a.name: f"{node.module}.{a.name}" for a in node.names})
    return names


def _safe_yaml(call: ast.Call) -> bool:
    """True for ``yaml.load(x, Loader=yaml.SafeLoader)`` (a safe loader named, by keyword or position)."""
    loaders = [k.value for k in call.keywords if k.arg == "Loader"] + call.args[1:2]
    return any("SafeLoader" in (_dotted(x) or "") or "BaseLoader" in (_dotted(x) or "") for x in loaders)


def reaches_code(text: str, skip_outer: bool = False) -> list[str]:
    """What in Python `text` can run code or a command by a route no callee list names (R25-1): a name of
    _DUNDERS, a reference (called or not: a decorator, a value) to a runs_code callee or to _REACHES (import
    aliases resolved), a call of a subscript of what is not a dotted name (``vars(b)['eval'](...)``; TF Hub's
    ``model.signatures['serving_default'](x)`` is fine), or of a call's result that is not a call of a
    dotted name. Used on generate-mode answers only (pipeline_generate.py); `check` on a person's
    code judges each call by the pool (check/validator.py).

    Args:
        text: Python code (text Python does not parse gives []).
        skip_outer: leave out the callee of the first statement's call (the judged call's own callee,
            which the pool judged).

    Returns:
        The findings' texts (at most 80 characters each), in source order, without repeats."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    aliases, skip, found = _aliases(tree), set(), []
    if skip_outer and tree.body and isinstance(tree.body[0], ast.Expr | ast.Assign | ast.AnnAssign):
        outer = tree.body[0].value
        outer = outer.value if isinstance(outer, ast.Await) else outer
        if isinstance(outer, ast.Call) and _dotted(outer.func):
            skip.add(id(outer.func))
    inner = {id(n.value) for n in ast.walk(tree) if isinstance(n, ast.Attribute)}  # not a whole chain
    safe = {id(n.func) for n in ast.walk(tree) if isinstance(n, ast.Call) and _safe_yaml(n)}
    for node in ast.walk(tree):
        said = None
        if isinstance(node, ast.Name | ast.Attribute) and id(node) not in skip:
            word = node.id if isinstance(node, ast.Name) else node.attr
            name = _dotted(node) if id(node) not in inner else None
            if name:
                head, _, rest = name.partition(".")
                name = ".".join(filter(None, [aliases.get(head, head), rest]))
            if word in _DUNDERS:
                said = word
            elif (
                name
                and id(node) not in safe
                and (runs_code(name) or any(name == p or name.startswith(p + ".") for p in _REACHES))
            ):
                said = name
        elif isinstance(node, ast.Call) and (
            (isinstance(node.func, ast.Subscript) and _dotted(node.func.value) is None)
            or (isinstance(node.func, ast.Call) and _dotted(node.func.func) is None)
            or not isinstance(node.func, ast.Name | ast.Attribute | ast.Call | ast.Subscript)
        ):
            said = f"a call of {ast.unparse(node.func)}"
        elif isinstance(node, ast.Call) and _dotted(node.func) in ("yaml.load", "yaml.load_all"):
            said = None if id(node.func) in safe else f"{_dotted(node.func)} without a safe Loader"
        if said and said[:80] not in found:
            found.append(said[:80])
    return found
