"""Calls that run code or a shell command, or import a module named by a value (break-it round 24, R24-5).

Such a call is never "incidental" for the validator (check/validator.py rule 1) and never "part" of the pool
call whose arguments hold it: it gets its own row, and one the API pool does not hold decides the verdict
(``hallucination:unknown_callee``, named as what it is). ``__import__('os').system`` is read as
``os.system``. In generate mode the pipeline proposes only the judged call (pipeline_generate.py): another
statement of the model's answer is left out, and a call of this kind inside the proposed call's arguments
makes the verdict ``wrong_args:runs_code``.
"""

from __future__ import annotations

import dataclasses
import re

from gorilla_tui.check.callnodes import CallSite

__all__ = ["RUNS_CODE_NOTE", "dynamic_import", "runs_code"]

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
    """True when `callee` (a CallSite's callee, import-qualified) runs code or a command (_RUNS)."""
    return callee in _RUNS or callee.startswith(_RUNS_PREFIX)


def dynamic_import(call: CallSite) -> CallSite:
    """`call` with ``__import__('m').f`` read as ``m.f`` (its callee), the call itself otherwise: a module
    imported by name is the module, so ``__import__('os').system(...)`` is judged as ``os.system``."""
    if not call.callee.startswith("__import__()."):
        return call
    m = _IMPORT_CALL.match(call.text)
    if m is None:
        return call
    return dataclasses.replace(call, callee=f"{m.group(2)}.{call.callee[len('__import__().') :]}")
