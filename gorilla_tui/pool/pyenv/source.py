"""The python-env source: ApiDocs of the standard library and installed distributions, via tree-sitter.

Its files are pool/pyenv/groups.py, which of their names become docs pool/pyenv/names.py (what each name
is: pool/pyenv/resolve.py); this module loads them (the loader of manifest kind "python-env") and
fingerprints them.
"""

from __future__ import annotations

import dataclasses
import platform
import sys
import sysconfig
from collections.abc import Callable

from gorilla_tui.config import load_settings
from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import Diagnostic, LoadResult
from gorilla_tui.pool.fingerprint import combine, stat_part
from gorilla_tui.pool.manifest import SourceKind
from gorilla_tui.pool.pyenv import SOURCE
from gorilla_tui.pool.pyenv.compiled import compiled_module_names, read_compiled
from gorilla_tui.pool.pyenv.groups import SKIP_DIRS as SKIP_DIRS
from gorilla_tui.pool.pyenv.groups import SKIP_STEMS as SKIP_STEMS
from gorilla_tui.pool.pyenv.groups import STDLIB, Group, group_for, parse_spec
from gorilla_tui.pool.pyenv.module_api import ModuleInfo, read_module
from gorilla_tui.pool.pyenv.names import MODULE_ALIASES as MODULE_ALIASES
from gorilla_tui.pool.pyenv.names import STDLIB_DOMAIN as STDLIB_DOMAIN
from gorilla_tui.pool.pyenv.names import emit
from gorilla_tui.pool.pyenv.stubs import merge_stubs, newdoc_docs, read_stub

#: progress(done, total, label): called after each file is parsed (done and total count files).
Progress = Callable[[int, int, str], None]


def _parse_group(
    group: Group, result: LoadResult, progress: Progress | None, done: int, total: int
) -> tuple[dict[str, ModuleInfo], int]:
    modules: dict[str, ModuleInfo] = {}
    stubs: dict[str, ModuleInfo] = {}
    docs: dict[tuple[str, str], str] = {}
    for files, read in ((group.files, read_module), (group.stubs, read_stub)):
        for name, is_pkg, path in files:
            try:
                source = path.read_bytes()
            except OSError as e:
                result.diagnostics.append(
                    Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}")
                )
                continue
            finally:
                done += 1
                if progress:
                    progress(done, total, name)
            (modules if read is read_module else stubs)[name] = read(source, name, is_pkg)
            if read is read_module and b"add_newdoc(" in source:  # numpy's docstrings of its C objects
                for key, doc in newdoc_docs(source).items():
                    docs.setdefault(key, doc)
    if stubs:  # the names compiled modules provide, from the distribution's type stubs (pool/pyenv/stubs.py)
        merge_stubs(modules, stubs, docs=docs)
    return modules, done


def load_python_env(spec: str = STDLIB, progress: Progress | None = None) -> LoadResult:
    """Index the standard library, installed distributions and/or importable modules (see :func:`parse_spec`,
    groups.group_for) into ApiDocs.

    Source files are parsed with tree-sitter, never imported. One ApiDoc per public function, class and
    method (api_name = qualified name, api_call = call template with the required parameters by name;
    methods as ``mod.Class(init args).method(args)``, class/static methods as ``mod.Class.method(args)``),
    plus the methods of public module-level objects (``os.environ.get``, ``sys.stdout.write``) and the
    methods a module copies from an object into its globals (``multiprocessing.Pool``).
    Raises UsageError for a name that is neither an installed distribution nor an importable module.
    Measured: the CPython 3.11 standard library (~870 files, ~8,500 docs) takes ~1.2 s on one core
    (bench/pyenv.py).
    """
    return _load_groups([group_for(n) for n in parse_spec(spec)], progress)


def _load_groups(
    groups: list[Group], progress: Progress | None, result: LoadResult | None = None
) -> LoadResult:
    total = sum(len(g.files) + len(g.stubs) for g in groups)
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
        if not group.only:
            emit(group, modules, result, seen, compiled)
            continue
        # a module of it (python:json): its docs exactly as the whole group gives them (a name re-exported
        # from _csv or _collections_abc keeps its signature), the rest dropped and left unseen
        part = LoadResult()
        emit(group, modules, part, set(seen), compiled)
        for doc in part.docs:
            if group.covers(doc.api_name) and doc.api_name not in seen:
                seen.add(doc.api_name)
                result.docs.append(doc)
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
    """Loader of manifest kind "python-env" (PYTHON_ENV.load): (origin, roots read, LoadResult).

    The manifest's ``packages`` key (in Manifest.extra) names what to index, plus config.toml's
    ``python:`` entries (see :func:`configured_spec`) unless ``exact`` is true (see :func:`with_spec`);
    `ctx` (a sources.FetchContext) is not used: nothing is fetched, so --from mirrors do not apply.
    A listed name that is neither an installed distribution nor an importable module (groups.group_for) is
    left out with a "skipped" diagnostic.
    """
    spec = manifest_spec(manifest)
    result, groups, roots = LoadResult(), [], []
    for name in parse_spec(spec):
        try:
            groups.append(group_for(name))
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
    """Fingerprint of the python-env source (pool.fingerprint.combine; PYTHON_ENV.fingerprint): the
    interpreter (sys.version, sys.executable), the spec (manifest_spec), the compiled modules' names and,
    per group (the standard library, each distribution), its name, version and each module file's name,
    size and mtime (stat only: about 900 stat calls for the standard library, no file is read)."""
    spec = manifest_spec(manifest)
    groups: list[object] = []
    for name in parse_spec(spec):
        try:
            group = group_for(name)
        except UsageError as e:
            groups.append(["missing", name, str(e)])
            continue
        modules = [[m, pkg] for m, pkg, _ in group.files]
        files = [*group.files, *group.stubs]
        groups.append([group.dist, group.version, modules, stat_part(p for _, _, p in files)])
    interpreter = [sys.version, sys.executable, sorted(compiled_module_names())]
    return combine("python-env", spec, interpreter, groups)


#: The built-in kind "python-env" (the local Python environment, issue 9), declared as the
#: `gorilla_tui.sources` entry point "python-env" in pyproject.toml.
PYTHON_ENV = SourceKind(load=load_source, fingerprint=fingerprint)


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
