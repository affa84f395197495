"""Which files the python-env source reads: the standard library's modules, an installed distribution's, or
one importable module's (a Group each), and the spec naming them ("stdlib,requests,json")."""

from __future__ import annotations

import dataclasses
import importlib.util
import os
import platform
import sys
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.pyenv.compiled import compiled_module_names

STDLIB = "stdlib"
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


class _NotInstalled(UsageError):
    """dist_group's error for a distribution that is not installed (group_for then tries a module)."""


@dataclass(frozen=True)
class Group:
    """A set of module files indexed together: the standard library, or one installed distribution."""

    dist: str  # "python" for the standard library, else the distribution's name
    version: str
    files: tuple[tuple[str, bool, Path], ...]  # (module name, is_package, path)
    #: the modules named by the spec ("json", "xml.etree") when only their docs (their submodules' too) are
    #: kept of the whole standard library or distribution read; () = all of them
    only: tuple[str, ...] = ()
    #: the type stubs (``.pyi``) shipped in the distribution, (module name, is_package, path) as files: read
    #: for the names compiled modules provide (pool/pyenv/stubs.py); () for the standard library
    stubs: tuple[tuple[str, bool, Path], ...] = ()

    def covers(self, module: str) -> bool:
        """Whether dotted `module` is in this group's part (always, for a whole group)."""
        return not self.only or any(module == m or module.startswith(m + ".") for m in self.only)

    @property
    def is_stdlib(self) -> bool:
        return self.dist == "python"


def _module_name(parts: tuple[str, ...]) -> tuple[str, bool] | None:
    """Dotted module name and is_package for a path relative to its root, or None when it is skipped."""
    *dirs, filename = parts
    stem = filename.rsplit(".", 1)[0]
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
    """The .py files of installed distribution `name` (importlib.metadata RECORD; nothing is imported), and
    its .pyi type stubs (Group.stubs).

    Raises UsageError when the distribution is not installed or lists no files.
    """
    try:
        dist = metadata.distribution(name)
    except metadata.PackageNotFoundError:
        raise _NotInstalled(
            f"Python distribution {name!r} is not installed", hint="pip install it, or check the name"
        ) from None
    files, stubs = [], []
    for f in dist.files or []:
        parts = f.parts
        if f.suffix not in (".py", ".pyi") or not parts or parts[0] == "..":
            continue
        if parts[0].endswith((".dist-info", ".data")):
            continue
        named = _module_name(tuple(parts))
        if named:
            (files if f.suffix == ".py" else stubs).append(
                (named[0], named[1], Path(str(dist.locate_file(f))))
            )
    if not files:
        raise UsageError(f"distribution {name!r} has no Python source files to index")
    return Group(
        dist.metadata["Name"] or name, dist.version, tuple(sorted(files)), stubs=tuple(sorted(stubs))
    )


def module_group(name: str) -> Group:
    """The group a python:NAME that names an importable module reads ("json", "xml.etree", "yaml"), found
    without importing anything: a standard-library module (sys.stdlib_module_names) is read from the whole
    standard library (stdlib_group; compiled ones such as "math" by pool/pyenv/compiled.py), any other
    from the installed distribution that provides it (importlib.metadata.packages_distributions, e.g.
    "yaml" -> PyYAML, whose docs then require it); Group.only keeps the docs of `name` and its submodules.
    The whole group is read so that a name re-exported from another module (csv.writer from _csv) keeps
    the signature it has in the whole group: `python:json` costs what `python:stdlib` does (~1.2 s).

    Raises UsageError (one line) when `name` is neither a standard-library module nor provided by an
    installed distribution, or has no Python source file and is not a compiled module."""
    top = name.split(".")[0]
    if top in sys.stdlib_module_names:
        whole = stdlib_group()
        if not _has_module(whole, name) and name not in compiled_module_names():
            raise UsageError(_no_stdlib_module(name))
        return dataclasses.replace(whole, only=(name,))
    dists = metadata.packages_distributions().get(top)
    if not dists:
        raise UsageError(_unknown(name))
    whole = dist_group(dists[0])
    if not _has_module(whole, name):
        raise UsageError(f"module {name!r} of {whole.dist!r} has no Python source files to index")
    return dataclasses.replace(whole, only=(name,))


def _has_module(group: Group, name: str) -> bool:
    return any(f[0] == name or f[0].startswith(name + ".") for f in group.files)


def _no_stdlib_module(name: str) -> str:
    """Why python:NAME under a standard-library package reads nothing: "os.path.nosuch" names no module
    file of the standard library (it said "has no Python source files to index", as if it were one)."""
    top = name.split(".")[0]
    if name == top:
        return f"standard-library module {name!r} has no Python source files to index"
    return (
        f"{name!r} is not a module file of the standard library (an attribute or alias such as os.path is "
        f"not one): python:{top} reads {top!r} and its submodules"
    )


def _unknown(name: str) -> str:
    """Why python:NAME names nothing to read. A module Python can import that no installed distribution
    provides (a loose file on PYTHONPATH) is named with its file: it was called "neither ... nor an
    importable module" although `import NAME` works; only distributions and the standard library are
    read. importlib.util.find_spec on a top-level name searches the path without importing anything."""
    top = name.split(".")[0]
    try:
        spec = importlib.util.find_spec(top)
    except (ImportError, ValueError):
        spec = None
    if spec is not None and spec.origin and spec.has_location:
        return (
            f"{name!r} is importable ({spec.origin}) but no installed distribution provides it, and only "
            "distributions and the standard library are read (pip install its project, or check the name)"
        )
    return (
        f"{name!r} is neither an installed distribution nor an importable module "
        "(python:stdlib for the standard library; pip install it, or check the name)"
    )


def check_name(name: str) -> None:
    """Raise UsageError (one line, group_for's message) when python:NAME names nothing group_for reads:
    not "stdlib", not an installed distribution, not a standard-library module and not a module of an
    installed distribution. Cheap (no file listing): for `--source python:...` before a refresh starts."""
    if name == STDLIB:
        return
    if name.split(".")[0] in sys.stdlib_module_names:
        if "." in name and not _has_module(stdlib_group(), name) and name not in compiled_module_names():
            raise UsageError(_no_stdlib_module(name))  # a file listing, ~0.05 s: before the refresh starts
        return
    try:
        metadata.distribution(name)
        return
    except metadata.PackageNotFoundError:
        pass
    if not metadata.packages_distributions().get(name.split(".")[0]):
        raise UsageError(_unknown(name))


def group_for(name: str) -> Group:
    """The Group a python:NAME names, as a person types it: "stdlib" (the standard library), an installed
    distribution ("requests", "PyYAML"; dist_group), else an importable module ("json", "xml.etree",
    "yaml"; module_group). Raises UsageError (one line) when it is none of these (module_group's error),
    or names a distribution with no Python source file."""
    if name == STDLIB:
        return stdlib_group()
    try:
        return dist_group(name)
    except _NotInstalled:
        return module_group(name)


def parse_spec(spec: str) -> list[str]:
    """ "stdlib", "stdlib,requests,numpy" or "requests,numpy" (an optional "python:" prefix is dropped)
    -> distribution names in order, "stdlib" for the standard library. An empty spec means "stdlib"."""
    spec = spec.strip().removeprefix("python:")
    names = list(dict.fromkeys(n.strip() for n in spec.split(",") if n.strip()))
    return names or [STDLIB]
