"""The python-env source: ApiDocs of the standard library and installed distributions, via tree-sitter."""

from __future__ import annotations

import dataclasses
import os
import platform
import sys
import sysconfig
from collections.abc import Callable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from gorilla_tui.config import load_settings
from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import ApiDoc, Diagnostic, LoadResult
from gorilla_tui.pool.fingerprint import combine, stat_part
from gorilla_tui.pool.pyenv import SOURCE  # the source name of every doc this loader makes
from gorilla_tui.pool.pyenv.compiled import compiled_module_names, read_compiled
from gorilla_tui.pool.pyenv.module_api import (
    ClassDef,
    FuncDef,
    ModuleInfo,
    Param,
    first_paragraph,
    read_module,
)

STDLIB = "stdlib"
STDLIB_DOMAIN = "Python standard library"

#: Folders never indexed: tests, vendored copies, IDLE/turtle demos, the 2to3 tool, codecs, installers,
#: and distutils (deprecated by PEP 632, removed in Python 3.12).
SKIP_DIRS = frozenset(
    {
        "test",
        "tests",
        "idlelib",
        "turtledemo",
        "lib2to3",
        "_vendor",
        "vendor",
        "vendored",
        "ensurepip",
        "pydoc_data",
        "distutils",
        "encodings",
        "__pycache__",
        "site-packages",
        "dist-packages",
    }
)
#: Module file stems never indexed (entry points, test helpers, build scripts).
SKIP_STEMS = frozenset({"__main__", "conftest", "setup", "antigravity", "this"})

#: Module aliases fixed by the interpreter at import time: os.path is posixpath on POSIX, ntpath on Windows;
#: builtins are called by their bare names (open, sorted).
MODULE_ALIASES = {("posixpath" if os.name != "nt" else "ntpath"): "os.path", "builtins": ""}

#: progress(done, total, label): called after each file is parsed (done and total count files).
Progress = Callable[[int, int, str], None]


@dataclass(frozen=True)
class Group:
    """A set of module files indexed together: the standard library, or one installed distribution."""

    dist: str  # "python" for the standard library, else the distribution's name
    version: str
    files: tuple[tuple[str, bool, Path], ...]  # (module name, is_package, path)

    @property
    def is_stdlib(self) -> bool:
        return self.dist == "python"


def _module_name(parts: tuple[str, ...]) -> tuple[str, bool] | None:
    """Dotted module name and is_package for a path relative to its root, or None when it is skipped."""
    *dirs, filename = parts
    stem = filename[:-3]
    if any(d in SKIP_DIRS or not d.isidentifier() for d in dirs) or stem in SKIP_STEMS:
        return None
    if not stem.isidentifier() or stem.startswith("test_") or stem.endswith("_test"):
        return None
    if stem == "__init__":
        return (".".join(dirs), True) if dirs else None
    return ".".join([*dirs, stem]), False


def stdlib_group() -> Group:
    """The standard library's .py files under sysconfig.get_paths()["stdlib"] (pruned by SKIP_DIRS)."""
    root = Path(sysconfig.get_paths()["stdlib"])
    files = []
    for folder, dirnames, filenames in os.walk(root):
        rel = Path(folder).relative_to(root).parts
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d.isidentifier())
        for f in sorted(filenames):
            if f.endswith(".py") and (named := _module_name((*rel, f))):
                files.append((named[0], named[1], Path(folder, f)))
    return Group("python", platform.python_version(), tuple(files))


def dist_group(name: str) -> Group:
    """The .py files of installed distribution `name` (importlib.metadata RECORD; nothing is imported).

    Raises UsageError when the distribution is not installed or lists no files.
    """
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise UsageError(
            f"Python distribution {name!r} is not installed", hint="pip install it, or check the name"
        ) from None
    files = []
    for f in dist.files or []:
        parts = f.parts
        if f.suffix != ".py" or not parts or parts[0] == ".." or parts[0].endswith((".dist-info", ".data")):
            continue
        named = _module_name(tuple(parts))
        if named:
            files.append((named[0], named[1], Path(str(dist.locate_file(f)))))
    if not files:
        raise UsageError(f"distribution {name!r} has no Python source files to index")
    return Group(dist.metadata["Name"] or name, dist.version, tuple(sorted(files)))


def parse_spec(spec: str) -> list[str]:
    """ "stdlib", "stdlib,requests,numpy" or "requests,numpy" (an optional "python:" prefix is dropped)
    -> distribution names in order, "stdlib" for the standard library. An empty spec means "stdlib"."""
    spec = spec.strip().removeprefix("python:")
    names = list(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    return names or [STDLIB]


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

    def class_of(self, module: str, callee: str, depth: int = 0) -> ClassDef | None:
        """The class an object made by ``callee(...)`` in `module` has: a class of the module (or imported
        into it, or ``mod.Class``), or the class a function's ``return Class(...)`` names; else None."""
        if depth > 4 or not callee:
            return None
        if "." in callee:
            mod, _, attr = callee.rpartition(".")
            return self.class_of(mod, attr, depth + 1) if mod in self.modules else None
        target = self.exports(module).get(callee, (None, ""))[0] if module in self.modules else None
        if target is None:
            return None
        d = self.modules[target[0]].defs.get(target[1])
        if isinstance(d, FuncDef):
            return self.class_of(target[0], d.returns, depth + 1)
        if isinstance(d, ClassDef):
            return d
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


def _arguments(params: list[Param]) -> dict[str, str]:
    out = {}
    for p in params:
        if p.kind == "var":
            out["*" + p.name] = "optional"
        elif p.kind == "varkw":
            out["**" + p.name] = "optional"
        else:
            out[p.name] = p.default if p.default is not None else "required"
    return out


class _Builder:
    """Turns resolved definitions into ApiDocs for one group (ids unique across the whole result)."""

    def __init__(self, group: Group, result: LoadResult, seen: set[str]) -> None:
        self.group, self.result, self.seen = group, result, seen
        self.domain = STDLIB_DOMAIN if group.is_stdlib else ""
        self.requirements = [] if group.is_stdlib else [f"{group.dist}=={group.version}"]

    def add(self, qualname: str, module: str, kind: str, call: str, params: list[Param], doc: str) -> None:
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
                api_arguments=_arguments(params),
                env_requirements=list(self.requirements),
                example_code=f"import {module}\n{call}" if module else call,
                description=first_paragraph(doc) if doc else "",
                api_version=self.group.version,
            )
        )

    def function(self, qualname: str, module: str, fn: FuncDef) -> None:
        kind = "async function" if fn.is_async else "function"
        self.add(qualname, module, kind, f"{qualname}({_call_args(fn.params)})", fn.params, fn.doc)

    def klass(self, qualname: str, module: str, cls: ClassDef) -> None:
        init = cls.init.params if cls.init else []
        ctor = f"{qualname}({_call_args(init)})"
        self.add(qualname, module, "class", ctor, init, cls.doc or (cls.init.doc if cls.init else ""))
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
            )

    def bare(self, qualname: str, module: str) -> None:
        """A name in a literal __all__ whose definition is not in Python source (a C extension)."""
        self.add(qualname, module, "compiled callable", f"{qualname}()", [], "")


def _parse_group(
    group: Group, result: LoadResult, progress: Progress | None, done: int, total: int
) -> tuple[dict[str, ModuleInfo], int]:
    modules: dict[str, ModuleInfo] = {}
    for name, is_pkg, path in group.files:
        try:
            modules[name] = read_module(path.read_bytes(), name, is_pkg)
        except OSError as e:
            result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        done += 1
        if progress:
            progress(done, total, name)
    return modules, done


def _submodule_def(modules: dict[str, ModuleInfo], package: str, name: str) -> tuple[str, str] | None:
    """The one direct submodule of `package` defining `name` (lazy __getattr__ re-exports), else None."""
    found = [
        m
        for m, info in modules.items()
        if m.rsplit(".", 1)[0] == package and m != package and name in info.defs
    ]
    return (found[0], name) if len(found) == 1 else None


def _emit(
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
            qual = _qualify(shown, n)
            if target is None:
                if info.all_names is not None and n not in info.assigned and f"{mod}.{n}" not in modules:
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
            builder.klass(qual, module, d)
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
                builder.add(qual, shown, f"function (method of {cls.name})", call, m.params, m.doc)
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


def load_python_env(spec: str = STDLIB, progress: Progress | None = None) -> LoadResult:
    """Index the standard library and/or installed distributions (see :func:`parse_spec`) into ApiDocs.

    Source files are parsed with tree-sitter, never imported. One ApiDoc per public function, class and
    method (api_name = qualified name, api_call = call template with the required parameters by name;
    methods as ``mod.Class(init args).method(args)``, class/static methods as ``mod.Class.method(args)``),
    plus the methods of public module-level objects (``os.environ.get``, ``sys.stdout.write``) and the
    methods a module copies from an object into its globals (``multiprocessing.Pool``).
    Raises UsageError for a distribution that is not installed. Measured: the CPython 3.11 standard
    library (~870 files, ~8,500 docs) takes ~1.2 s on one core (bench/pyenv.py).
    """
    return _load_groups(
        [stdlib_group() if n == STDLIB else dist_group(n) for n in parse_spec(spec)], progress
    )


def _load_groups(
    groups: list[Group], progress: Progress | None, result: LoadResult | None = None
) -> LoadResult:
    total = sum(len(g.files) for g in groups)
    result = LoadResult() if result is None else result
    seen: set[str] = set()
    done = 0
    for group in groups:
        modules, done = _parse_group(group, result, progress, done, total)
        compiled: frozenset[str] = frozenset()
        if group.is_stdlib:
            for name in sorted(compiled_module_names() - modules.keys()):
                if (info := read_compiled(name)) is not None:
                    modules[name] = info
            compiled = frozenset(modules.keys() & compiled_module_names())
        _emit(group, modules, result, seen, compiled)
    return result


def configured_spec(manifest_packages: str = STDLIB) -> str:
    """The distributions to index: the manifest's ``packages`` (default "stdlib") plus every
    ``python:NAME[,NAME]`` entry of Settings.sources (config.toml), in order, without duplicates."""
    names = parse_spec(manifest_packages)
    for entry in load_settings().sources:
        if entry.startswith("python:"):
            names.extend(parse_spec(entry))
    return ",".join(dict.fromkeys(names))


def load_source(manifest: object, ctx: object = None) -> tuple[str, list[str], LoadResult]:
    """Loader of manifest kind "python-env" (pool/sources.py LOADERS): (origin, roots read, LoadResult).

    The manifest's ``packages`` key (in Manifest.extra) names what to index, plus config.toml's
    ``python:`` entries (see :func:`configured_spec`) unless ``exact`` is true (see :func:`with_spec`);
    `ctx` (a sources.FetchContext) is not used: nothing is fetched, so --from mirrors do not apply.
    A listed distribution that is not installed is left out with a "skipped" diagnostic.
    """
    spec = manifest_spec(manifest)
    result, groups, roots = LoadResult(), [], []
    for name in parse_spec(spec):
        try:
            groups.append(stdlib_group() if name == STDLIB else dist_group(name))
        except UsageError as e:  # one missing distribution must not sink the whole refresh
            result.diagnostics.append(Diagnostic(f"python:{name}", 0, "skipped", str(e)))
            continue
        roots.append(sysconfig.get_paths()["stdlib"] if name == STDLIB else name)
    _load_groups(groups, None, result)
    return f"python {platform.python_version()} ({spec})", roots, result


def manifest_spec(manifest: object) -> str:
    """What the python-env manifest indexes: its ``packages`` (Manifest.extra), plus config.toml's
    ``python:`` entries (configured_spec) unless ``exact`` is set (with_spec)."""
    extra = getattr(manifest, "extra", {}) or {}  # a sources.Manifest (typed loosely: no import cycle)
    packages = str(extra.get("packages", STDLIB))
    return packages if extra.get("exact") else configured_spec(packages)


def fingerprint(manifest: object, ctx: object = None) -> str:
    """Fingerprint of the python-env source (pool.fingerprint.combine; sources.FINGERPRINTS): the
    interpreter (sys.version, sys.executable), the spec (manifest_spec), the compiled modules' names and,
    per group (the standard library, each distribution), its name, version and each module file's name,
    size and mtime (stat only: about 900 stat calls for the standard library, no file is read)."""
    spec = manifest_spec(manifest)
    groups: list[object] = []
    for name in parse_spec(spec):
        try:
            group = stdlib_group() if name == STDLIB else dist_group(name)
        except UsageError as e:
            groups.append(["missing", name, str(e)])
            continue
        modules = [[m, pkg] for m, pkg, _ in group.files]
        groups.append([group.dist, group.version, modules, stat_part(p for _, _, p in group.files)])
    interpreter = [sys.version, sys.executable, sorted(compiled_module_names())]
    return combine("python-env", spec, interpreter, groups)


def with_spec(manifests: list, spec: str) -> list:
    """`--source python:SPEC` for a refresh: the manifests (sources.load_manifests()) with the python-env
    one set to index exactly SPEC ("stdlib", "requests,numpy", ...; config.toml entries are not added).
    Pass the result as refresh(manifests=..., only=["python-env"])."""
    return [
        dataclasses.replace(m, extra={**m.extra, "packages": spec.removeprefix("python:"), "exact": True})
        if getattr(m, "kind", "") == SOURCE
        else m
        for m in manifests
    ]
