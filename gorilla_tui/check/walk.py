"""The files under a folder `check` names, and the paths a glob pattern names, without recursion.

Python 3.11's ``os.walk`` and ``glob.glob(recursive=True)`` call themselves once per folder level, so a
tree nested 1,500 folders deep (a legal 3,000-character path) was "internal error: RecursionError", exit 1,
and an empty SARIF log (break-it round 9, R2). Both are done here with an explicit stack: no recursion
limit is reachable by input. A folder deeper than MAX_DEPTH below the folder named (or the pattern's fixed
start) is not entered and said in `skipped`; a folder that cannot be listed is said there too (os.walk
passed it over in silence), and the rest is checked. Both are errors (exit 2), as a file that cannot be
read is: the files in them were asked for and not checked, so the run may not say it is clean (a
folder too deep was a note, exit 0 when it held the only file; issue 42).

Links to folders are never entered (os.walk's default, and what ``**`` now does too: a link loop
``sub/up -> ..`` gave each file 40 times, issue 42); a link to a file, or one that leads nowhere, is a file
(run_lint refuses the latter in one line). Hidden names (a leading ".") match only a pattern part that
starts with "." and are never entered by ``**``, as glob does.
"""

from __future__ import annotations

import fnmatch
import glob
import os
from collections.abc import Container, Iterator

#: Folder levels entered below a folder `check` names (or a pattern's fixed start). Real trees are far
#: shallower (measured here: CPython 3.11's standard library 13 levels, this project's venv site-packages
#: 7); deeper is generated or hostile, and near 2,000 one-letter names a path passes the kernel's PATH_MAX
#: (4,096 bytes) anyway.
MAX_DEPTH = 100
#: The note of a folder not entered because it is deeper than MAX_DEPTH.
TOO_DEEP = f"folders nested more than {MAX_DEPTH} deep below the folder checked: not checked"

#: (path, why) of a folder not walked: too deep or not listable, each an error (exit 2).
Skipped = list[tuple[str, str]]


def walk(
    folder: str, suffixes: tuple[str, ...], skip_dirs: Container[str], skipped: Skipped | None = None
) -> Iterator[str]:
    """The files under `folder` whose names end with one of `suffixes`, in os.walk's top-down order with
    sorted names (a folder's files, then each sub-folder's in turn); hidden folders and `skip_dirs` not
    entered, nor links to folders. skipped: (folder, why) appended for each folder deeper than
    MAX_DEPTH (TOO_DEEP) or that cannot be listed ("cannot read (Permission denied)"), each an error."""
    stack = [(folder, 0)]
    while stack:
        root, depth = stack.pop()
        listed = _listed(root, skipped)
        if listed is None:
            continue
        dirs = []
        for entry, is_dir in listed:
            if is_dir:
                if not entry.is_symlink() and not entry.name.startswith(".") and entry.name not in skip_dirs:
                    dirs.append(entry.path)
            elif entry.name.endswith(suffixes):
                yield os.path.join(root, entry.name)
        if depth >= MAX_DEPTH and dirs:
            if skipped is not None:
                skipped.append((root, TOO_DEEP))
            continue
        stack.extend((d, depth + 1) for d in reversed(dirs))


def expand(pattern: str, skipped: Skipped | None = None) -> list[str]:
    """The paths glob pattern `pattern` names, sorted, as ``glob.glob(pattern, recursive=True)`` gives them
    (``*``, ``?``, ``[...]`` within one name, ``**`` for any number of folder levels, the pattern's
    fixed start kept as written), without its recursion: links to folders are neither entered nor
    matched, nor folders deeper than MAX_DEPTH below the fixed start (said in `skipped`, as walk says
    it)."""
    parts = [p for p in pattern.split(os.sep) if p]
    fixed = next((i for i, part in enumerate(parts) if glob.has_magic(part)), len(parts))
    lead = os.sep if pattern.startswith(os.sep) else ""
    base = lead + os.sep.join(parts[:fixed])
    rest = parts[fixed:]
    if not rest:
        return [pattern] if os.path.lexists(pattern) else []
    if base and not os.path.isdir(base):
        return []
    out = [base] if base and _matches([], rest) else []
    deep = "**" in rest
    hidden = any(p.startswith(".") for p in rest)
    stack: list[tuple[str, list[str]]] = [(base, [])]
    while stack:
        root, rel = stack.pop()
        listed = _listed(root or os.curdir, skipped)
        if listed is None:
            continue
        for entry, is_dir in listed:
            if entry.name.startswith(".") and not hidden:
                continue
            path, names = os.path.join(root, entry.name), [*rel, entry.name]
            linked_dir = is_dir and entry.is_symlink()
            if not linked_dir and _matches(names, rest):
                out.append(path)
            inside = deep or (len(names) < len(rest) and _matches(names, rest, prefix=True))
            if not is_dir or linked_dir or not inside:
                continue
            if len(names) > MAX_DEPTH:
                if skipped is not None:
                    skipped.append((root, TOO_DEEP))
                continue
            stack.append((path, names))
    return sorted(out)


def _listed(folder: str, skipped: Skipped | None) -> list[tuple[os.DirEntry[str], bool]] | None:
    """The entries of `folder` sorted by name, each with whether it is a folder (a link to one too, as
    os.walk counts it); None when it cannot be listed (said in `skipped`)."""
    try:
        with os.scandir(folder) as it:
            entries = sorted(it, key=lambda e: e.name)
    except OSError as e:
        if skipped is not None:
            skipped.append((folder, f"cannot read ({e.strerror or e})"))
        return None
    out = []
    for entry in entries:
        try:
            is_dir = entry.is_dir()
        except OSError:  # as os.walk: a name it cannot stat is a file
            is_dir = False
        out.append((entry, is_dir))
    return out


def _matches(names: list[str], parts: list[str], prefix: bool = False) -> bool:
    """True when path components `names` match pattern components `parts` (``**`` any number of
    components, others fnmatch within one name); prefix: when `names` could begin a match (used without
    ``**``, where each level must match its own part). A table over (names, parts), no recursion."""
    if prefix:
        return all(fnmatch.fnmatchcase(n, p) for n, p in zip(names, parts, strict=False))
    # can[j]: names[:i] matches parts[:j], row by row over i
    can = [True] + [False] * len(parts)
    for j, p in enumerate(parts, 1):
        can[j] = can[j - 1] and p == "**"
    for name in names:
        row = [False] * (len(parts) + 1)
        for j, p in enumerate(parts, 1):
            if p == "**":
                row[j] = row[j - 1] or can[j]
            else:
                row[j] = can[j - 1] and fnmatch.fnmatchcase(name, p)
        can = row
    return can[-1]
