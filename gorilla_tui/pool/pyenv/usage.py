"""How widely each name of the standard library is used in real Python code: in how many source files of the
interpreter's own standard library it is referenced (issue 18: the usage feature of store/prior.py).

A popularity prior like this is standard in code search: os.makedirs is referenced in 10 of CPython
3.11's standard-library files, mailbox's class MH in none but mailbox.py. The files are the .py files under
sysconfig.get_paths()["stdlib"], without SKIP_DIRS (the test suites, IDLE, installed distributions). In
each file, with strings and comments masked by one regular expression (_TOKEN), a name is referenced when
it is an attribute (``os.makedirs``, ``self.sendmail``) or an imported name (``from shutil import
copytree``); a pair ``parent.name`` when the name follows that identifier (``os.makedirs``, ``path.exists``
of ``os.path.exists``, ``date.today``) or is imported from a module whose last component is parent (``from
os.path import exists``). Compared with the ast module on CPython 3.11's 673 files: the same names but
for 0.3 % (attributes inside f-string expressions, which the regex masks with the string), in 0.6-0.8 s
of CPU instead of 2.4-5 s (bench/prior_usage.py measures both; tests/unit/test_prior_usage.py checks the
names on real files).

The counts depend only on the interpreter's files, so they are cached per interpreter (cache_dir/FOLDER,
keyed by the interpreter's path and version, the stdlib folder, SCAN_VERSION and each scanned file's name,
size and mtime): a refresh reads them back in a few milliseconds. A standard library without .py sources
(an embedded Python shipping only .pyc) gives empty counts: the feature is then neutral.

The installed libraries python-env indexes (numpy, pandas, matplotlib...) are not used in the standard
library, so their names are counted the same way over the code of the installed packages instead
(site_usage: every .py file under the interpreter's site-packages, purelib and platlib, outside SKIP_DIRS:
pandas, matplotlib and scipy reference numpy.*, matplotlib pandas.*; issue 38). With the packages of this
project's environment (5,649 files) numpy.arange is referenced in 167 files, pandas.DataFrame in 75,
numpy.lib.recfunctions.rec_join in none. That scan is only made when a prior over a library's docs asks
for it (UsageCounts.installed), once per set of installed files (cached like the standard library's):
19 s wall on this project's loaded 2-core machine for those 5,649 files, at the first refresh of an
index with libraries (the refresh of the stdlib + numpy + pandas + matplotlib index took 59 s with it).
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import re
import sys
import sysconfig
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field, replace
from pathlib import Path

from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.paths import get_paths, read_regular_bytes
from gorilla_tui.pool.fingerprint import stat_part

#: Folders never scanned: the test suites and IDLE (the issue's rule: they are not code people write to
#: use the library), and installed distributions (not the standard library).
SKIP_DIRS = frozenset({"test", "tests", "idlelib", "site-packages", "dist-packages", "__pycache__"})
#: Bumped when what a scan counts changes (a cached scan of another version is not read).
SCAN_VERSION = 1
#: Folder of the cached counts inside the cache dir (paths.get_paths().cache).
FOLDER = "pyenv-usage"
#: Largest usage cache file read, bytes (the standard library's is about 0.9 MB, the 5,649 installed files
#: of this project's environment 7.3 MB); a larger one is rebuilt.
MAX_CACHE_BYTES = 64 * 2**20

# One pass over a file: a comment or a string (masked: its words are not code), a from-import (its names),
# or an identifier followed by "." and an attribute (the pair) or a "." and an attribute (the name). Strings
# may carry a prefix (r, b, f, u, rb, ...); an identifier must not follow a word character (no "bc" of
# "abc.d").
_TOKEN = re.compile(
    rb"""
      \#[^\n]*
    | [rRbBuUfF]{0,2}(?:'''(?:[^'\\]|\\.|'(?!''))*'''|\"\"\"(?:[^"\\]|\\.|"(?!""))*\"\"\"
                      |'(?:[^'\\\n]|\\.)*'|"(?:[^"\\\n]|\\.)*")
    | ^[ \t]*from[ \t]+([\w.]+)[ \t]+import[ \t]+(\([^)]*\)|(?:[^\n#\\]|\\\n)*)
    | (?<!\w)([A-Za-z_]\w*)(?=[ \t]*\.[ \t]*([A-Za-z_]\w*))
    | \.[ \t]*(?:\\\n[ \t]*)?(?=([A-Za-z_]\w*))
    """,
    re.X | re.M | re.S,
)
_WORD = re.compile(rb"[A-Za-z_]\w*")


@dataclass(frozen=True)
class UsageCounts:
    """The references found in the standard library's files.

    modules: the module name of each scanned file (file id = position; "os" for os.py, "json" for
    json/__init__.py). refs: key -> the sorted ids of the files that reference it; a key is a bare name
    ("makedirs") or a pair "parent.name" ("os.makedirs", "path.exists"). site: what reads the installed
    packages' counts (site_usage) when installed() is first asked, None for none (not compared).
    """

    modules: tuple[str, ...] = ()
    refs: dict[str, tuple[int, ...]] = field(default_factory=dict)
    site: Callable[[], UsageCounts] | None = field(default=None, compare=False, repr=False)

    def installed(self) -> UsageCounts:
        """The installed packages' counts (site_usage), read once on first use: a prior over the standard
        library alone never scans them. UsageCounts() when there is no `site`."""
        cached = self.__dict__.get("_installed")
        if cached is None:
            cached = self.site() if self.site is not None else UsageCounts()
            object.__setattr__(self, "_installed", cached)
        return cached

    def files_of(self, keys: Iterable[str]) -> int:
        """In how many scanned files at least one of `keys` is referenced ("numpy.arange" or "np.arange")."""
        ids: set[int] = set()
        for key in keys:
            ids.update(self.refs.get(key, ()))
        return len(ids)

    def files(self, key: str, exclude_module: str = "") -> int:
        """In how many scanned files `key` (a name or a pair) is referenced, not counting the file of
        module `exclude_module` (the doc's own module: a module's references to itself are not use)."""
        ids = self.refs.get(key, ())
        if not ids or not exclude_module:
            return len(ids)
        own = self._ids().get(exclude_module)
        return len(ids) - (own is not None and own in ids)

    def _ids(self) -> dict[str, int]:
        cached = self.__dict__.get("_by_module")
        if cached is None:
            cached = {m: i for i, m in enumerate(self.modules)}
            object.__setattr__(self, "_by_module", cached)
        return cached


def file_keys(source: bytes) -> set[str]:
    """The keys (bare names and "parent.name" pairs, see the module docstring) one file's source
    references, its strings and comments left out."""
    keys: set[str] = set()
    for m in _TOKEN.finditer(source):
        module, imported, parent, after, attr = m.groups()
        if attr is not None:
            keys.add(attr.decode())
        elif parent is not None:
            keys.add(f"{parent.decode()}.{after.decode()}")
        elif imported is not None:
            last = module.decode().rpartition(".")[2]
            words = _WORD.findall(imported)
            for i, w in enumerate(words):
                if w != b"as" and (i == 0 or words[i - 1] != b"as"):  # the imported name, not its alias
                    keys.add(w.decode())
                    if last:
                        keys.add(f"{last}.{w.decode()}")
    return keys


def stdlib_root() -> Path:
    """The standard library's folder (sysconfig.get_paths()["stdlib"])."""
    return Path(sysconfig.get_paths()["stdlib"])


def stdlib_files(root: Path | None = None) -> list[tuple[str, Path]]:
    """(module name, path) of every .py file under `root` (default stdlib_root()) outside SKIP_DIRS and
    folders that are no package name (config-3.11-x86_64-linux-gnu, lib-dynload), in a fixed order
    (os.walk with sorted names). Empty when the folder has no .py file or is missing."""
    root = stdlib_root() if root is None else root
    out = []
    for folder, dirnames, filenames in os.walk(root):
        rel = Path(folder).relative_to(root).parts
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and d.isidentifier())
        for f in sorted(filenames):
            if f.endswith(".py"):
                stem = f[:-3]
                parts = rel if stem == "__init__" else (*rel, stem)
                out.append((".".join(parts), Path(folder, f)))
    return out


def scan(files: Iterable[tuple[str, Path]]) -> UsageCounts:
    """Scan `files` ((module name, path) pairs; an unreadable one is skipped) into UsageCounts."""
    modules: list[str] = []
    refs: dict[str, list[int]] = {}
    for module, path in files:
        try:
            source = path.read_bytes()
        except OSError:
            continue
        fid = len(modules)
        modules.append(module)
        for key in file_keys(source):
            refs.setdefault(key, []).append(fid)
    return UsageCounts(tuple(modules), {k: tuple(v) for k, v in refs.items()})


def cache_key(files: list[tuple[str, Path]], root: Path) -> str:
    """SHA-256 over SCAN_VERSION, the interpreter (sys.executable, sys.version), `root` and each file's
    module name, size and mtime (stat only).

    Its own listing, not the python-env fingerprint's (pyenv/source.fingerprint, groups.stdlib_group): the
    files differ (673 scanned here with CPython 3.11, 396 indexed there: lib2to3, distutils, ensurepip...
    are code that uses the library but are not indexed), and the two are taken at different steps of a
    refresh (the plan, before the lock; the prior, when the version is written), so sharing one would mean
    carrying a listing through the refresh for ~7 ms of os.walk and stat (measured: 6.8-9.1 ms here,
    4.4-5.0 ms for the fingerprint's)."""
    payload = [SCAN_VERSION, sys.executable, sys.version, str(root), [m for m, _ in files]]
    payload.append(stat_part(p for _, p in files))
    return hashlib.sha256(json.dumps(payload).encode("utf-8", "surrogatepass")).hexdigest()


def stdlib_usage(cache_dir: Path | None, root: Path | None = None) -> UsageCounts:
    """UsageCounts of the standard library at `root` (default stdlib_root()): read from
    cache_dir/FOLDER/<cache_key>.json when it is there and readable, else scanned and written there
    (atomically; a cache that cannot be written is not an error). cache_dir None: no cache. Memoised per
    process by cache key."""
    root = stdlib_root() if root is None else root
    return _usage(stdlib_files(root), root, cache_dir)


def site_roots() -> list[Path]:
    """The interpreter's site-packages folders (sysconfig purelib and platlib, once each when they are one
    folder; lib and lib64 on some Linux distributions, numpy and pandas in the latter)."""
    paths = sysconfig.get_paths()
    return [Path(p) for p in dict.fromkeys((paths["purelib"], paths["platlib"]))]


def site_usage(cache_dir: Path | None, roots: Iterable[Path] | None = None) -> UsageCounts:
    """UsageCounts of the installed packages' code: the .py files under `roots` (default site_roots()),
    walked as stdlib_files walks the standard library, scanned and cached as stdlib_usage does."""
    roots = site_roots() if roots is None else list(roots)
    files = [f for root in roots for f in stdlib_files(root)]
    return _usage(files, Path(os.pathsep.join(map(str, roots))), cache_dir)


def _usage(files: list[tuple[str, Path]], root: Path, cache_dir: Path | None) -> UsageCounts:
    if not files:
        return UsageCounts()
    try:
        key = cache_key(files, root)
    except OSError:  # a file went away while it was listed: scan what is there, no cache
        return scan(files)
    if key not in _MEMO:
        while len(_MEMO) >= MEMO_SIZE:  # one interpreter per process: its stdlib's and its packages'
            del _MEMO[next(iter(_MEMO))]
        _MEMO[key] = _cached(key, files, cache_dir)
    return _MEMO[key]


def interpreter_usage() -> UsageCounts:
    """This interpreter's standard-library usage counts through the user's cache dir
    (stdlib_usage(paths.get_paths().cache)), with its installed packages' (site_usage) read when first
    asked (UsageCounts.installed): what store/prior.py's functions take as `counts`; read once per index by
    their callers (ApiIndex.prior, store.write_version), only when prior.needs_usage."""
    cache = get_paths().cache
    return replace(stdlib_usage(cache), site=lambda: site_usage(cache))


#: cache key -> the counts read or scanned in this process (MEMO_SIZE kept, the oldest dropped first).
_MEMO: dict[str, UsageCounts] = {}
MEMO_SIZE = 2


def _cached(key: str, files: list[tuple[str, Path]], cache_dir: Path | None) -> UsageCounts:
    path = Path(cache_dir, FOLDER, f"{key}.json") if cache_dir is not None else None
    if path is not None:
        try:
            # open_regular: a FIFO in its place blocked the refresh forever (break-it round 10, R10-4);
            # it is then replaced below like any unreadable cache (os.replace replaces a FIFO)
            data = json_value(read_regular_bytes(path, MAX_CACHE_BYTES))  # too deep: a ValueError too
            counts = UsageCounts(tuple(data["modules"]), {k: tuple(v) for k, v in data["refs"].items()})
            if _sound(counts):
                return counts
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass
    counts = scan(files)
    if path is not None:
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            tmp = path.with_suffix(f".{os.getpid()}.tmp")
            with contextlib.suppress(FileNotFoundError):
                os.unlink(tmp)  # a FIFO left there would block the write
            tmp.write_text(json.dumps({"modules": counts.modules, "refs": counts.refs}), encoding="utf-8")
            os.replace(tmp, path)
            _prune(path.parent)
        except OSError:
            pass
    return counts


#: Cached scans kept (the most recently written): one per interpreter that shares the cache dir.
KEEP = 4


def _sound(counts: UsageCounts) -> bool:
    """Whether cached `counts` have UsageCounts' shape: module names are strings, each ref a string key
    with file ids that are ints naming a module (a damaged cache is scanned again and replaced: the values
    of our own cache files are checked before use, break-it round 10, R10-1)."""
    n = len(counts.modules)
    return all(isinstance(m, str) for m in counts.modules) and all(
        isinstance(k, str) and all(type(i) is int and 0 <= i < n for i in ids)
        for k, ids in counts.refs.items()
    )


def _prune(folder: Path) -> None:
    """Remove all but the KEEP most recently written scans of `folder` (an upgraded Python leaves its old
    one behind)."""
    scans = sorted(folder.glob("*.json"), key=lambda p: p.stat().st_mtime_ns, reverse=True)
    for old in scans[KEEP:]:
        old.unlink(missing_ok=True)


__all__ = [
    "FOLDER",
    "KEEP",
    "SCAN_VERSION",
    "SKIP_DIRS",
    "UsageCounts",
    "cache_key",
    "file_keys",
    "scan",
    "site_roots",
    "site_usage",
    "stdlib_files",
    "stdlib_root",
    "stdlib_usage",
]
