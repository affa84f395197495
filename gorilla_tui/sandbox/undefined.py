"""Why a run ended in NameError: the names the code reads but never defines, told in one line.

A proposal's code is often a doc's api_call with placeholders (`zipfile.ZipFile(file).mkdir(
zinfo_or_directory_name)`, from the python-env pool) or a hub call shown without its import (`hub.load(...)`
when the doc's example code does not pass the check). Running it ends in Python's bare `NameError: name
'file' is not defined`, which names only the first of them. Here the code is read, never run: the
standard library's `symtable` (the compiler's own symbol tables) says which global names it reads and
never binds, and `ast` gives the order they are first used in. Names the matched doc's example code or
its env requirements import ("import tensorflow_hub as hub") are told as the import to add, as are the
module names a doc lists (its env requirements, its example's import lines even when the example does not
parse: `torch` of a Torch Hub doc) and names the code uses as a module (`os.getcwd()`) that are the
standard library's or installed top-level modules; the rest as values to fill in (`string` in
`re.match(pattern, string)` stays a value).
"""

from __future__ import annotations

import ast
import builtins
import os
import re
import symtable
import sys
from dataclasses import dataclass
from importlib.machinery import PathFinder
from typing import Any

from gorilla_tui.pool.doc import ApiDoc

_NAME_ERROR = re.compile(r"^NameError: name '(\w+)' is not defined", re.MULTILINE)
_BUILTINS = frozenset(dir(builtins))
#: A requirement's leading distribution name ("tensorflow-hub>=0.12" -> "tensorflow-hub").
_REQUIREMENT = re.compile(r"\s*([A-Za-z_][A-Za-z0-9_.\-]*)")
#: An import line of a doc's example code, read alone when the example as a whole does not parse.
_IMPORT_LINE = re.compile(r"\s*(?:import|from)\s+[A-Za-z_]")
#: An import statement inside an env requirement: APIBench gives some as {distribution: import line}, which
#: pool/fields.py joins ("transformers from transformers import VideoMAEFeatureExtractor, ...").
_REQUIREMENT_IMPORT = re.compile(r"(?:^|\s)((?:from\s+[A-Za-z_][\w.]*\s+)?import\s+[A-Za-z_].*)$")
#: Most names the one line tells (a doc's placeholders are a handful; code with 100,000 undefined names
#: made a 789 KB line: break-it pass 11); `names` and `to_fill` keep them all.
_MAX_TOLD = 20
#: Most names looked up as modules on sys.path (in order of first use; the others are values to fill in).
_MAX_LOOKUPS = 100


@dataclass(frozen=True)
class UndefinedNames:
    """names: every name the code reads and never defines, in order of first use; imports: the import
    lines of the matched doc's example code that would define some of them (`import tensorflow_hub as
    hub`); to_fill: the others, values the person fills in (the doc's placeholders)."""

    names: tuple[str, ...]
    imports: tuple[str, ...]
    to_fill: tuple[str, ...]

    def message(self) -> str:
        """The one line shown after the run, e.g. "the example needs values filled in: file,
        zinfo_or_directory_name (used but never defined); set them before running it"."""
        parts = []
        if self.imports:
            parts.append("the code lacks its imports: add " + "; ".join(f"`{i}`" for i in self.imports))
        if self.to_fill:
            shown = ", ".join(self.to_fill[:_MAX_TOLD])
            if len(self.to_fill) > _MAX_TOLD:
                shown += f" and {len(self.to_fill) - _MAX_TOLD} more"
            parts.append(
                "the example needs values filled in: "
                + shown
                + " (used but never defined); set them before running it"
            )
        return "; ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        """JSON form for `run --json` / `ask --run --json`."""
        return {
            "names": list(self.names),
            "imports": list(self.imports),
            "to_fill": list(self.to_fill),
            "message": self.message(),
        }


def undefined_names(result: Any, code: str, doc: ApiDoc | None = None) -> UndefinedNames | None:
    """A sandbox RunResult (or its output text), the code that ran and the matched ApiDoc (or None) ->
    the names the code reads but never defines, or None when the output has no NameError, the code does
    not parse (or is nested too deeply to: MemoryError / RecursionError), or the name the NameError gives
    is not one of them (a name deleted or defined too late: Python's own message says it best then). With
    a star import (`from os import *`) only the name the NameError gives is told: which names it binds is
    known only by running it."""
    output = result if isinstance(result, str) else result.output
    m = _NAME_ERROR.search(output or "")
    if m is None:
        return None
    try:
        names = _unbound_globals(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        # MemoryError / RecursionError: a text nested too deeply for the parser or the compiler's symbol
        # tables ("-" * 100000 + "x", "a+" * 200000); a traceback here (break-it pass 11)
        return None
    if m.group(1) not in names:
        return None
    if _star_import(code):
        # `from os import *` binds names no symbol table knows (`path`): only the name Python gave is sure
        # (break-it pass 11: "values filled in: path, file" for `from os import *; print(path); file`)
        names = [m.group(1)]
    providers = _providers(code, names, doc)
    imports = tuple(dict.fromkeys(providers[n] for n in names if n in providers))
    to_fill = tuple(n for n in names if n not in providers)
    return UndefinedNames(tuple(names), imports, to_fill)


def with_imports(code: str, doc: ApiDoc | None = None) -> str:
    """`code` with the import lines it lacks put first: for each global name it reads and never binds
    (`time` of a generated ``time.sleep(2)``, `StableDiffusionPipeline` of a hub call shown alone), the
    import the matched doc's example code or env requirements give for it, or ``import NAME`` where the code
    uses it as a module that exists here (the rule of `undefined_names`, applied before the run instead of
    after its NameError: break-it round 25, generate mode's code failed `ask --run`). `code` unchanged when
    it lacks none, does not parse, or has a star import (which names it binds is known only by running
    it). Never raises for any text."""
    try:
        names = _unbound_globals(code)
        if not names or _star_import(code):
            return code
        providers = _providers(code, names, doc)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return code
    imports = list(dict.fromkeys(providers[n] for n in names if n in providers))
    if not imports:
        return code
    # after a module docstring and `from __future__` imports, which must come first (break-it R27-1:
    # `import os` before `from __future__ import annotations` is a SyntaxError)
    lines = code.splitlines(keepends=True)
    at = 0
    for node in ast.parse(code).body:
        docstring = at == 0 and isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
        if not (docstring and isinstance(node.value.value, str)) and not (
            isinstance(node, ast.ImportFrom) and node.module == "__future__"
        ):
            if node.lineno <= at:  # on the line of a `from __future__` import: no place to put them
                return code
            break
        at = node.end_lineno or at
    head, rest = "".join(lines[:at]), "".join(lines[at:])
    if head and not head.endswith("\n"):
        head += "\n"
    return head + "\n".join([*imports, rest]) if rest else head + "\n".join(imports)


def _providers(code: str, names: list[str], doc: ApiDoc | None) -> dict[str, str]:
    """{name: the import line that binds it} for the `names` `code` reads and never binds (see
    `undefined_names`): the matched doc's example imports and env requirements, then the modules the code
    uses as such. Raises SyntaxError for code that does not parse."""
    providers = _imports_of(doc.example_code if doc is not None else "")
    for req in doc.env_requirements if doc is not None else []:
        m = _REQUIREMENT_IMPORT.search(str(req))  # `from transformers import X` in the requirements
        for name, line in (_imports_of(m.group(1)) if m else {}).items():
            providers.setdefault(name, line)
    documented = _requirement_modules(doc.env_requirements if doc is not None else [])
    as_module = _attribute_roots(code)
    for k, n in enumerate(names):
        # `torch` of `torch.hub.load(...)` is an import, not a value to fill in (the example code that would
        # say so failed the check, or does not parse): a module the doc names, or one the code uses as a
        # module that exists here (the sandbox runs this interpreter: runner.py), looked up for the first
        # _MAX_LOOKUPS names only (100,000 names used as `vN.a` took twice as long with every one looked up)
        if n not in providers and (n in documented or k < _MAX_LOOKUPS and n in as_module and _is_module(n)):
            providers[n] = f"import {n}"
    return {n: line for n, line in providers.items() if n in names}


def _attribute_roots(code: str) -> set[str]:
    """Names `code` (which parses) reads an attribute of (`os` in `os.getcwd()`): used as a module."""
    return {
        n.value.id
        for n in ast.walk(ast.parse(code))
        if isinstance(n, ast.Attribute) and isinstance(n.value, ast.Name)
    }


def _requirement_modules(requirements: list[str]) -> set[str]:
    """The top-level module names a doc's env requirements name ("torch>=1.0" -> torch, "tensorflow-hub" ->
    tensorflow_hub, "a.b" -> a), as a distribution's name is most often its module's."""
    found = set()
    for req in requirements:
        m = _REQUIREMENT.match(str(req))
        if m:
            found.add(m.group(1).split(".")[0].replace("-", "_"))
    return found


def _is_module(name: str) -> bool:
    """Whether `name` is a top-level module of the standard library or one this interpreter can import
    (found on sys.path without the current folder, which the sandbox never shows; nothing is imported)."""
    if name in sys.stdlib_module_names:
        return True
    cwd = os.getcwd()
    paths = [p for p in sys.path if p and os.path.abspath(p) != cwd]
    try:
        return PathFinder.find_spec(name, paths) is not None
    except (ImportError, ValueError, OSError):
        return False


def _unbound_globals(code: str) -> list[str]:
    """Global names `code` reads (at module level or from a function, class or comprehension) that no
    statement of it binds and that are not builtins, in order of first use. Raises SyntaxError."""
    top = symtable.symtable(code, "<run>", "exec")
    bound = {s.get_name() for s in top.get_symbols() if s.is_assigned() or s.is_imported()}
    read: set[str] = set()
    tables = [top]
    while tables:
        table = tables.pop()
        for sym in table.get_symbols():
            name = sym.get_name()
            if table is not top and sym.is_declared_global() and sym.is_assigned():
                bound.add(name)  # `global x; x = ...` inside a function binds the module's x
            if sym.is_referenced() and (table is top or sym.is_global()):
                read.add(name)
        tables.extend(table.get_children())
    unbound = {
        n for n in read - bound if n not in _BUILTINS and not (n.startswith("__") and n.endswith("__"))
    }
    uses = [n for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Name) and n.id in unbound]
    # a dict keeps the first use of each name: a list's `in` made 100,000 names take 52 s (break-it pass 11)
    order = dict.fromkeys(n.id for n in sorted(uses, key=lambda n: (n.lineno, n.col_offset)))
    return list(order)


def _star_import(code: str) -> bool:
    """Whether `code` (which parses) has a `from MODULE import *` anywhere."""
    return any(
        isinstance(n, ast.ImportFrom) and any(a.name == "*" for a in n.names)
        for n in ast.walk(ast.parse(code))
    )


def _imports_of(example: str) -> dict[str, str]:
    """{name an import binds: the import line} for the top-level imports of a doc's example code
    ("import tensorflow_hub as hub" -> {"hub": ...}); when the example does not parse, its import lines
    read one by one (an example that fails the check often does not parse, yet says `import torch`)."""
    try:
        body = ast.parse(example or "").body
    except (SyntaxError, ValueError):
        body = []
        for line in (example or "").splitlines():
            if not _IMPORT_LINE.match(line):
                continue
            try:
                body += ast.parse(line.strip()).body
            except (SyntaxError, ValueError):
                continue
    found: dict[str, str] = {}
    for node in body:
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.asname or alias.name.split(".")[0]
                line = f"import {alias.name}" + (f" as {alias.asname}" if alias.asname else "")
                found.setdefault(name, line)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            for alias in node.names:
                if alias.name != "*":
                    line = f"from {node.module} import {alias.name}"
                    line += f" as {alias.asname}" if alias.asname else ""
                    found.setdefault(alias.asname or alias.name, line)
    return found
