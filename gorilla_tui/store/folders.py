"""The version folders of the index root and the atomically replaced CURRENT pointer naming the live one:
a build folder made aside, published by renaming it and replacing CURRENT, the versions and builds left
behind removed (store/versions.py writes and reads what a version folder holds, and re-exports these).
"""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import stat
import tempfile
import time
from pathlib import Path

from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.paths import FileTooLargeError, NotRegularFileError, file_kind, read_regular_bytes
from gorilla_tui.store.fileio import (
    DAMAGED_HINT,
    POINTER,
    REBUILD_HINT,
    hint_of,
    index_root,
    not_a_folder,
    reclaim_root,
    refused_read,
    root_damaged,
)
from gorilla_tui.store.fileio import pid_alive as _alive
from gorilla_tui.store.fileio import write_synced as _write

BUILD_PREFIX = ".build-"
#: Version folders kept besides the live one (a reader that read CURRENT just before a swap still finds its
#: folder; older ones are removed by the next refresh).
KEEP_PREVIOUS = 1


#: The name of a version folder as publish makes it: v-TIME-PID-XXXXXX (the build folder's random tail).
VERSION_NAME = re.compile(r"v-[0-9]{8}T[0-9]{6}-[0-9]{1,10}-[A-Za-z0-9_]{1,16}")
#: Bytes of CURRENT read: a sound one holds a name of about 40 (VERSION_NAME). A larger file is damaged and
#: never read whole (a 20 MB one was printed whole by `doctor`: break-it round 10, R10-9).
POINTER_BYTES = 256


def current_version(root: Path | None = None) -> Path | None:
    """The live version folder named by root/CURRENT, or None when no index has been published. Raises
    GorillaError (damaged state, hint: a refresh) when the root or the data folder is not a folder
    (root_damaged) or CURRENT is unreadable or does not hold a version folder's name (VERSION_NAME, read
    at most POINTER_BYTES: NUL bytes, a path, a name over the file system's limit are shown cut short; a
    refresh replaces it)."""
    root = index_root(root)
    if (found := not_a_folder(root)) is not None:
        raise root_damaged(found)
    try:
        raw = read_regular_bytes(root / POINTER, POINTER_BYTES)
    except (FileNotFoundError, NotADirectoryError):
        return None
    except NotRegularFileError as e:  # a folder or a FIFO: damaged; a refresh moves it aside (reclaim_root)
        found = (root / POINTER, str(e.strerror or "not a file"))
        raise GorillaError(f"cannot read {root / POINTER}: {e.strerror or e}", hint=hint_of(found)) from None
    except FileTooLargeError as e:  # never read whole (a 20 MB one was printed whole: R10-9)
        raise GorillaError(
            f"{root / POINTER} is corrupt ({e.strerror}, no version folder's name); rebuild the index",
            hint=DAMAGED_HINT,
        ) from None
    except OSError as e:
        if (refused := refused_read(root / POINTER, e)) is not None:  # a chmod, not a rebuild (round 14)
            raise refused from None
        raise GorillaError(f"cannot read {root / POINTER}: {e.strerror or e}", hint=DAMAGED_HINT) from None
    name = raw.decode("utf-8", "replace").strip()
    if not VERSION_NAME.fullmatch(name):
        shown = repr(name)
        shown = shown[:48] + "..." if len(shown) > 48 else shown
        raise GorillaError(
            f"{root / POINTER} is corrupt ({shown} is no version folder's name); rebuild the index",
            hint=DAMAGED_HINT,
        )
    return root / name


def new_build_dir(root: Path | None = None) -> Path:
    """A fresh hidden temp folder inside root for building a version aside (same file system as root, so
    the final rename is atomic), named .build-<PID>-... so remove_stale_builds can tell whose it is.
    Callers must hold refresh_lock."""
    root = index_root(root)
    root.mkdir(parents=True, exist_ok=True)
    return Path(tempfile.mkdtemp(prefix=f"{BUILD_PREFIX}{os.getpid()}-", dir=root))


def remove_stale_builds(root: Path | None = None) -> list[Path]:
    """Remove the build folders left by refreshes whose process is gone (killed, power loss): those whose
    PID is not alive, or that carry no PID (older releases). Callers must hold refresh_lock, so no live
    refresh is building. Returns the folders removed."""
    root = index_root(root)
    removed = []
    for child in root.glob(BUILD_PREFIX + "*") if root.is_dir() else ():
        pid = child.name[len(BUILD_PREFIX) :].split("-", 1)[0]
        if pid.isdigit() and int(pid) != os.getpid() and _alive(int(pid)):
            continue
        shutil.rmtree(child, ignore_errors=True)
        removed.append(child)
    return removed


def remove_old_versions(root: Path | None = None) -> list[Path]:
    """Remove every version folder but the live one (publish keeps KEEP_PREVIOUS of them for readers in
    the middle of a swap); used to make room when a refresh finds the disk full. Callers must hold
    refresh_lock. Returns the folders removed."""
    root = index_root(root)
    live = current_version(root)
    old = [c for c in root.glob("v-*") if c.is_dir() and (live is None or c.name != live.name)]
    for child in old:
        shutil.rmtree(child, ignore_errors=True)
    return old


def publish(folder: Path, root: Path | None = None) -> Path:
    """Make the built `folder` the live index: rename it to a version folder, then replace CURRENT
    atomically (temp file + os.replace). Old versions beyond KEEP_PREVIOUS and the build folders of dead
    processes (remove_stale_builds) are removed. Callers must hold refresh_lock. Returns the version
    folder. A corrupt CURRENT (emptied, a path, a FIFO) is replaced like a sound one, and a folder in its
    place is moved aside first (fileio.reclaim_root): the refresh that publishes is how the error says to
    repair it."""
    root = index_root(root)
    try:
        previous = current_version(root)
    except GorillaError:  # corrupt: no previous version is known; the new one replaces it
        previous = None
    name = time.strftime("v-%Y%m%dT%H%M%S") + f"-{os.getpid()}-{folder.name[-6:]}"
    final = root / name
    os.replace(folder, final)
    reclaim_root(root, (POINTER,))  # a folder in its place is moved aside (os.replace cannot replace one)
    _write(root / (POINTER + ".tmp"), name.encode())
    os.replace(root / (POINTER + ".tmp"), root / POINTER)
    _fsync_dir(root)
    keep = {final.name} | (
        {previous.name} if previous is not None and KEEP_PREVIOUS and previous.is_dir() else set()
    )
    for child in root.iterdir():
        if child.name.startswith("v-") and child.name not in keep:
            if child.is_dir() and not child.is_symlink():
                shutil.rmtree(child, ignore_errors=True)
            else:  # a file (or a link) put in place of a version folder: damaged, replaced now
                with contextlib.suppress(OSError):
                    child.unlink()
    remove_stale_builds(root)
    return final


def folder_size(folder: Path) -> int:
    """Total bytes of the files in `folder` (not recursive)."""
    return sum(p.stat().st_size for p in folder.iterdir() if p.is_file())


def live_folder(root: Path | None = None) -> Path:
    """The live version folder of `root` (default the user's index root). Raises IndexMissingError when no
    index is published, GorillaError (damaged state) when CURRENT names a folder that is missing or no
    folder."""
    folder = current_version(root)
    if folder is None:
        raise IndexMissingError(f"no index at {index_root(root)}", hint=REBUILD_HINT)
    try:
        mode = os.stat(folder).st_mode
    except OSError:
        raise GorillaError(
            f"the live index folder {folder} is missing; rebuild the index", hint=DAMAGED_HINT
        ) from None
    if not stat.S_ISDIR(mode):
        kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
        raise GorillaError(
            f"the live index folder {folder} is {kind}, not a folder; rebuild the index", hint=DAMAGED_HINT
        )
    return folder


def _fsync_dir(folder: Path) -> None:
    if os.name == "nt":  # pragma: no cover - directories cannot be opened on Windows
        return
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)
