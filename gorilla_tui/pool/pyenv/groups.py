"""Which files the python-env source reads: the standard library's modules and an installed distribution's
(a Group each), and the spec naming them ("stdlib,requests")."""

from __future__ import annotations

import os
import platform
import sysconfig
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from gorilla_tui.errors import UsageError

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
