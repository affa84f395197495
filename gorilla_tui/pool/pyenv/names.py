"""Which names of a group's modules become ApiDocs of the python-env source: re-exports followed to each
definition's shortest public name (_Resolver), then one doc per public function, class, method and
method of a module-level object (_Builder, emit)."""

from __future__ import annotations

import os
import re

from gorilla_tui.pool.doc import ApiDoc, LoadResult
from gorilla_tui.pool.pyenv import (  # the source name of every doc this loader makes; signature separators
    KEYWORD_ONLY_MARK,
    POSITIONAL_ONLY_MARK,
    SOURCE,
)
from gorilla_tui.pool.pyenv.groups import Group
from gorilla_tui.pool.pyenv.module_api import ClassDef, FuncDef, ModuleInfo, Param, first_paragraph

STDLIB_DOMAIN = "Python standard library"

#: Module aliases fixed by the interpreter at import time: os.path is posixpath on POSIX, ntpath on Windows;
#: builtins are called by their bare names (open, sorted).
MODULE_ALIASES = {("posixpath" if os.name != "nt" else "ntpath"): "os.path", "builtins": ""}

#: A name written in capitals (PEP 8's style for constants: ``QUOTE_ALL``, ``CO_NESTED``, ``A``), which
#: no name of the standard library bound outside Python source and callable is (Python 3.11: 268 such
#: names, 114 of them values, all 107 in capitals values).
_CONSTANT = re.compile(r"_*[A-Z][A-Z0-9_]*")


class _Resolver:
    """Follows re-exports (``from .x import *``, ``from ._impl import name``, ``a = b``) inside one group so
    each definition gets its shortest public name (asyncio.tasks.gather -> asyncio.gather)."""

    def __init__(self, modules: dict[str, ModuleInfo], compiled: frozenset[str] = frozenset()) -> None:
        self.modules = modules
        self.compiled = compiled
        self._exports: dict[str, dict[str, tuple[tuple[str, str] | None, str]]] = {}

    def _follows(self, importer: str, target: str) -> bool:
        return target in self.modules and (
            target.split(".")[0] == importer.split(".")[0]
            or any(p.startswith("_") for p in target.split("."))
            or target in self.compiled
        )

    def exports(self, name: str) -> dict[str, tuple[tuple[str, str] | None, str]]:
        """name -> ((defining module, def name) or None when defined outside the group's source, origin);
        origin is "def", "star" or "import"."""
        if name in self._exports:
            return self._exports[name]
        out: dict[str, tuple[tuple[str, str] | None, str]] = {}
        self._exports[name] = out  # cycle guard: a re-entrant call sees the partial table
        info = self.modules[name]
        for d in info.defs:
            out[d] = ((name, d), "def")
        for alias, target in info.aliases.items():
            if target in info.defs:
                out.setdefault(alias, ((name, alias), "def"))
        for imp in info.imports:
            if not self._follows(name, imp.module):
                for _orig, alias in imp.names:
                    out.setdefault(alias, (None, "import"))
                continue
            theirs = self.exports(imp.module)
            if imp.star:
                for n in self.public(imp.module):
                    if n in theirs:
                        out.setdefault(n, (theirs[n][0], "star"))
            for orig, alias in imp.names:
                if orig in theirs:
                    out.setdefault(alias, (theirs[orig][0], "import"))
        return out

    def public(self, name: str) -> list[str]:
        """The public names of a module: its literal __all__, else non-underscore defs and star imports
        (and, in a package __init__, explicit imports)."""
        info = self.modules[name]
        if info.all_names is not None:
            return info.all_names
        exp = self.exports(name)
        return [n for n, (target, origin) in exp.items() if self._exported(info, n, target, origin)]

    def _exported(self, info: ModuleInfo, n: str, target: tuple[str, str] | None, origin: str) -> bool:
        """Public without a literal __all__: a def, a star import, or an explicit import in a package or from
        a private / compiled implementation module (``from _pickle import dumps``, ``from posix import
        _exit``); single-underscore names only when they are functions of a public compiled module
        (sys._getframe, os._exit: the interpreter's documented underscore functions)."""
        if target is None or n.startswith("__"):
            return False
        if origin == "import" and not (
            info.is_package or not _is_public(target[0]) or target[0] in self.compiled
        ):
            return False
        return not n.startswith("_") or self.compiled_function(target)

    def compiled_function(self, target: tuple[str, str] | None) -> bool:
        """Whether target (module, name) is a function of a public compiled module (sys._getframe,
        posix._exit; not _abc._abc_init)."""
        return (
            target is not None
            and target[0] in self.compiled
            and _is_public(target[0])
            and isinstance(self.modules[target[0]].defs.get(target[1]), FuncDef)
        )

    def is_value(self, module: str, name: str, depth: int = 0) -> bool:
        """Whether `name` of `module`, bound outside its own defs, is a value and not a function or class:
        a name in capitals (_CONSTANT: ``csv.QUOTE_ALL``, ``re.IGNORECASE``), plain data of a compiled
        module (an int, str, tuple...; not ``_io.BlockingIOError``, a builtin class), or an object a
        module's source makes by a call (``defaultTestLoader = TestLoader()``), in this module or the one
        it is imported from or aliased to (``from .loader import defaultTestLoader``). Other assignments
        may bind a function (``_allocate_lock = _thread.allocate_lock``, which threading.Lock names)."""
        info = self.modules.get(module)
        if _CONSTANT.fullmatch(name):
            return True
        if info is None or depth > 4 or name in info.defs:
            return False
        plain = module in self.compiled and name not in info.objects  # compiled.py: int, str, tuple...
        if name in info.assigned and (plain or name in info.instances):
            return True
        if name in info.aliases:
            return self.is_value(module, info.aliases[name], depth + 1)
        for imp in info.imports:
            for orig, alias in imp.names:
                if alias == name:
                    return self.is_value(imp.module, orig, depth + 1)
        return False

    def class_of(self, module: str, callee: str, depth: int = 0) -> ClassDef | None:
        """The class an object made by ``callee(...)`` in `module` has: a class of the module (or imported
        into it, or ``mod.Class``), or the class a function's ``return Class(...)`` names; else None."""
        found = self.class_where(module, callee, depth)
        return found[1] if found is not None else None

    def class_where(self, module: str, callee: str, depth: int = 0) -> tuple[str, ClassDef] | None:
        """(defining module, class) of :meth:`class_of`, so that the class's own bases are read in the
        module that defines it; None when not resolved."""
        if depth > 4 or not callee:
            return None
        if "." in callee:
            mod, _, attr = callee.rpartition(".")
            return self.class_where(mod, attr, depth + 1) if mod in self.modules else None
        target = self.exports(module).get(callee, (None, ""))[0] if module in self.modules else None
        if target is None:
            return None
        d = self.modules[target[0]].defs.get(target[1])
        if isinstance(d, FuncDef):
            return self.class_where(target[0], d.returns, depth + 1)
        if isinstance(d, ClassDef):
            return target[0], d
        return None

    def mro(self, module: str, cls: ClassDef, depth: int = 0) -> list[tuple[str, ClassDef]] | None:
        """cls's method resolution order (C3 linearization, as Python computes it; ``object`` left out) as
        (defining module, class), when every class in it is read from Python source with a plain class
        statement (ClassDef.plain: names as bases, no metaclass or other keyword, no decorator); else None
        (a base outside this group's source, a compiled class, a metaclass that may change the call)."""
        if depth > 12 or not cls.plain or not cls.line:
            return None
        heads: list[list[tuple[str, ClassDef]]] = []
        for base in cls.bases:
            if base in ("object", "builtins.object"):
                continue
            found = self.class_where(module, base)
            chain = self.mro(*found, depth + 1) if found is not None else None
            if chain is None:
                return None
            heads.append(chain)
        if not heads:
            return [(module, cls)]
        merged = _c3_merge(heads + [[chain[0] for chain in heads]])
        return [(module, cls)] + merged if merged is not None else None

    def constructor(self, module: str, cls: ClassDef) -> FuncDef | None:
        """The __init__ (else __new__) that ``cls(...)`` runs: the class's own, else the first one along its
        method resolution order (:meth:`mro`; ``http.server.BaseHTTPRequestHandler`` inherits
        ``socketserver.BaseRequestHandler.__init__(self, request, client_address, server)``); None when
        the class defines none and its MRO is not known, or no class in it defines one."""
        if cls.init is not None:
            return cls.init
        for _, c in (self.mro(module, cls) or [])[1:]:
            if c.init is not None:
                return c.init
        return None

    def methods(self, module: str, cls: ClassDef, depth: int = 0) -> list[FuncDef]:
        """cls's public methods, then those inherited through the bases this group can resolve."""
        out = [m for m in cls.methods if not m.name.startswith("_") and m.kind != "property"]
        for base in cls.bases if depth < 6 else []:
            where = base.rpartition(".")[0] or module
            parent = self.class_of(module, base)
            if parent is not None:
                have = {m.name for m in out}
                out += [m for m in self.methods(where, parent, depth + 1) if m.name not in have]
        return out


def _c3_merge(seqs: list[list[tuple[str, ClassDef]]]) -> list[tuple[str, ClassDef]] | None:
    """The C3 merge of `seqs` (Python's MRO rule, https://docs.python.org/3/howto/mro.html), classes
    compared by (module, name); None when no consistent order exists (Python raises TypeError)."""
    key = lambda item: (item[0], item[1].name)  # noqa: E731
    seqs = [list(s) for s in seqs if s]
    out: list[tuple[str, ClassDef]] = []
    while seqs:
        for seq in seqs:
            head = key(seq[0])
            if not any(head in {key(x) for x in other[1:]} for other in seqs):
                break
        else:
            return None
        out.append(seq[0])
        seqs = [[x for x in s if key(x) != head] for s in seqs]
        seqs = [s for s in seqs if s]
    return out


def _display_module(name: str) -> str:
    for real, alias in MODULE_ALIASES.items():
        if name == real or name.startswith(real + "."):
            return alias + name[len(real) :]
    return name


def _qualify(module: str, name: str) -> str:
    return f"{module}.{name}" if module else name


def _is_public(module: str) -> bool:
    return not any(p.startswith("_") for p in module.split("."))


def _call_args(params: list[Param]) -> str:
    parts = [p.name if p.kind != "kwonly" else f"{p.name}={p.name}" for p in params if p.required]
    return ", ".join(parts)


def _arguments(params: list[Param], known: bool = False) -> dict[str, str]:
    """api_arguments of a python-env doc: name -> default source text or "required"; "*name" / "**name"
    -> "optional" for ``*args`` / ``**kwargs``; the separators "/" and "*" (value "") where Python's
    signature has them (``json.loads(s, *, cls=None, ...)``, ``len(obj, /)``), so the checker
    (check/imports.py argument_errors) knows which parameters may be given by position or by keyword.
    A function `known` to take no parameter (``os.getcwd()``, ``time.time()``) gets the separator "/"
    alone, so ``os.getcwd(1)`` is wrong_args; an empty dict means its parameters are unknown."""
    if not params and known:
        return {POSITIONAL_ONLY_MARK: ""}
    out: dict[str, str] = {}
    var_seen = False
    for i, p in enumerate(params):
        if p.kind == "kwonly" and not var_seen and KEYWORD_ONLY_MARK not in out:
            out[KEYWORD_ONLY_MARK] = ""
        if p.kind == "var":
            var_seen = True
            out["*" + p.name] = "optional"
        elif p.kind == "varkw":
            out["**" + p.name] = "optional"
        else:
            out[p.name] = p.default if p.default is not None else "required"
        if p.kind == "posonly" and (i + 1 == len(params) or params[i + 1].kind != "posonly"):
            out[POSITIONAL_ONLY_MARK] = ""
    return out


class _Builder:
    """Turns resolved definitions into ApiDocs for one group (ids unique across the whole result)."""

    def __init__(self, group: Group, result: LoadResult, seen: set[str]) -> None:
        self.group, self.result, self.seen = group, result, seen
        self.domain = STDLIB_DOMAIN if group.is_stdlib else ""
        self.requirements = [] if group.is_stdlib else [f"{group.dist}=={group.version}"]

    def add(
        self,
        qualname: str,
        module: str,
        kind: str,
        call: str,
        params: list[Param],
        doc: str,
        known: bool = False,
    ) -> None:
        """One doc. known: its params are read from a signature (an empty list then means "takes none");
        False for a class (an __init__ not in the class body may take any) and a compiled callable."""
        if qualname in self.seen:
            return
        self.seen.add(qualname)
        self.result.docs.append(
            ApiDoc(
                id=f"{SOURCE}:{qualname}",
                source=SOURCE,
                api_call=call,
                api_name=qualname,
                domain=self.domain or module.split(".")[0],
                framework=self.group.dist,
                functionality=f"{kind} in {module or 'builtins'}",
                api_arguments=_arguments(params, known),
                env_requirements=list(self.requirements),
                example_code=f"import {module}\n{call}" if module else call,
                description=first_paragraph(doc) if doc else "",
                api_version=self.group.version,
            )
        )

    def function(self, qualname: str, module: str, fn: FuncDef) -> None:
        kind = "async function" if fn.is_async else "function"
        call = f"{qualname}({_call_args(fn.params)})"
        self.add(qualname, module, kind, call, fn.params, fn.doc, known=fn.params_known)

    def klass(self, qualname: str, module: str, cls: ClassDef, constructor: FuncDef | None = None) -> None:
        """The doc of a class and of its public methods; `constructor`: the __init__ (or __new__) its calls
        run (_Resolver.constructor: its own, or the one it inherits), cls.init when None."""
        made_by = constructor or cls.init
        init = made_by.params if made_by else []
        ctor = f"{qualname}({_call_args(init)})"
        self.add(qualname, module, "class", ctor, init, cls.doc or (made_by.doc if made_by else ""))
        for m in cls.methods:
            if m.name.startswith("_") or m.kind == "property":
                continue
            owner = ctor if m.kind == "method" else qualname
            self.add(
                f"{qualname}.{m.name}",
                module,
                m.kind,
                f"{owner}.{m.name}({_call_args(m.params)})",
                m.params,
                m.doc,
                known=m.params_known,
            )

    def bare(self, qualname: str, module: str) -> None:
        """A name in a literal __all__ whose definition is not in Python source (a C extension)."""
        self.add(qualname, module, "compiled callable", f"{qualname}()", [], "")


def _submodule_def(modules: dict[str, ModuleInfo], package: str, name: str) -> tuple[str, str] | None:
    """The one direct submodule of `package` defining `name` (lazy __getattr__ re-exports), else None."""
    found = [
        m
        for m, info in modules.items()
        if m.rsplit(".", 1)[0] == package and m != package and name in info.defs
    ]
    return (found[0], name) if len(found) == 1 else None


def _made_at_import(
    modules: dict[str, ModuleInfo], compiled: frozenset[str], info: ModuleInfo, name: str
) -> tuple[str, str] | None:
    """(compiled module, name) for a name of a literal __all__ that the module's source binds only at
    import time, from the one private compiled module it imports (an implementation module, as _follows
    reads them: ``_md5``; never ``math``, whose ``degrees`` is not turtle's ``degrees``) that defines a
    function or class of that name; else None. hashlib's constructors: ``globals()[name] =
    __get_hash(name)`` makes ``hashlib.md5`` from OpenSSL (``_hashlib.openssl_md5``) or from
    ``_md5.md5``, the one of the same name, with the same signature ``(string=b'', *,
    usedforsecurity=True)`` and docstring; without it hashlib.md5 was a doc with no description or
    parameters, and "compute the md5 of a file" found uuid.uuid3 first."""
    found = [
        m
        for m in sorted(info.imported & compiled)
        if m.startswith("_") and isinstance(modules[m].defs.get(name), (FuncDef, ClassDef))
    ]
    return (found[0], name) if len(found) == 1 else None


def emit(
    group: Group,
    modules: dict[str, ModuleInfo],
    result: LoadResult,
    seen: set[str],
    compiled: frozenset[str] = frozenset(),
) -> None:
    resolver = _Resolver(modules, compiled)
    best: dict[tuple[str, str], tuple[tuple[int, int, int, str], str]] = {}  # def -> (rank key, qualname)
    bare: list[tuple[str, str]] = []
    for mod in sorted(modules):
        if not _is_public(mod):
            continue
        exp, info, shown = resolver.exports(mod), modules[mod], _display_module(mod)
        for n in resolver.public(mod):
            target = exp.get(n, (None, ""))[0]
            if n.startswith("_") and not resolver.compiled_function(target):
                continue
            if target is None and info.is_package:
                target = _submodule_def(modules, mod, n)
            if target is None and info.all_names is not None and n not in info.assigned:
                target = _made_at_import(modules, compiled, info, n)
            qual = _qualify(shown, n)
            if target is None:
                if (
                    info.all_names is not None
                    and n not in info.assigned
                    and f"{mod}.{n}" not in modules
                    and not resolver.is_value(mod, n)
                ):
                    bare.append((qual, shown))
                continue
            # shortest name first; a source module beats a compiled one; the defining module breaks ties
            key = (qual.count("."), int(mod in compiled), int(target != (mod, n)), qual)
            if target not in best or key < best[target][0]:
                best[target] = (key, qual)
    builder = _Builder(group, result, seen)
    for (mod, name), (_, qual) in sorted(best.items(), key=lambda kv: kv[1][1]):
        defs = modules[mod].defs
        d = defs.get(name) or defs.get(modules[mod].aliases.get(name, ""))
        module = qual.rsplit(".", 1)[0] if "." in qual else ""
        if isinstance(d, ClassDef):
            builder.klass(qual, module, d, resolver.constructor(mod, d))
        elif isinstance(d, FuncDef) and d.kind == "function":
            builder.function(qual, module, d)
    for qual, module in bare:
        builder.bare(qual, module)
    _emit_objects(modules, resolver, builder)


def _emit_objects(modules: dict[str, ModuleInfo], resolver: _Resolver, builder: _Builder) -> None:
    """Methods of public module-level objects: ``os.environ.get`` (environ = _createenviron(), which
    returns an _Environ, a MutableMapping), ``sys.stdout.write`` (compiled: the interpreter's type)."""
    for mod in sorted(modules):
        info = modules[mod]
        if not _is_public(mod):
            continue
        shown = _display_module(mod)
        listed = set(info.all_names) if info.all_names is not None else None
        objects: dict[str, tuple[str, ClassDef]] = {n: (mod, cls) for n, cls in info.objects.items()}
        for n, callee in info.instances.items():
            if n in info.assigned and (cls := resolver.class_of(mod, callee)) is not None:
                objects.setdefault(n, (mod, cls))
        if info.exported_object and (found := _exported_object(modules, resolver, mod)) is not None:
            where, cls = found
            for m in resolver.methods(where, cls):  # multiprocessing.Pool: DefaultContext().Pool
                qual = _qualify(shown, m.name)
                call = f"{qual}({_call_args(m.params)})"
                kind = f"function (method of {cls.name})"
                builder.add(qual, shown, kind, call, m.params, m.doc, known=m.params_known)
        for n, (where, cls) in sorted(objects.items()):
            if n.startswith("_") or (listed is not None and n not in listed):
                continue
            qual = _qualify(shown, n)
            methods = (
                resolver.methods(where, cls)
                if cls.line
                else [m for m in cls.methods if not m.name.startswith("_")]
            )
            for m in methods:
                builder.add(
                    f"{qual}.{m.name}",
                    shown,
                    f"method of {qual} ({cls.name})",
                    f"{qual}.{m.name}({_call_args(m.params)})",
                    m.params,
                    m.doc,
                    known=m.params_known,
                )


def _exported_object(
    modules: dict[str, ModuleInfo], resolver: _Resolver, mod: str
) -> tuple[str, ClassDef] | None:
    """(defining module, class) of the object whose attributes module `mod` copies into its globals
    (``context._default_context``: a submodule's module-level object), or None when it cannot be resolved."""
    owner, _, name = modules[mod].exported_object.rpartition(".")
    for candidate in (f"{mod}.{owner}" if owner else mod, owner):
        info = modules.get(candidate)
        if info is not None and name in info.instances:
            cls = resolver.class_of(candidate, info.instances[name])
            return (candidate, cls) if cls is not None else None
    return None
