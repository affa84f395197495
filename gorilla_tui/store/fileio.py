"""The primitives the index store's modules share (its npy and npz files are read by store/arrays.py):

- how a missing, damaged or refused index is said: the fixes (NO_INDEX_FIX, REBUILD_HINT, DAMAGED_HINT),
  what reading a damaged file raises (DAMAGED), a file that cannot be read (cannot_read, read_refused,
  unreadable_index, refused_read);
- the index root and what stands in place of a folder or a file of it (index_root, not_a_folder,
  root_damaged, not_a_file, reclaim_root, own_folder);
- JSON read under the byte limit its caller names (json_of, read_json), a regular file opened by name
  (regular), fsync'ed writes (write_synced), and whether a lock's owner lives (pid_alive).
"""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
import zipfile
import zlib
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import (
    FileTooLargeError,
    NotRegularFileError,
    file_kind,
    get_paths,
    open_regular,
    permission_fix,
)

#: How to rebuild a missing or unreadable index (the hint of the errors raised by the store and by
#: ApiIndex.load).
#: The one wording of how to build an index that does not exist yet (here, `doctor`, `index --status`, search
#: and ask say it the same way; pool/remedies.py words the fix of each missing source): a plain refresh
#: works offline too (it builds the standard library), local copies add the hubs and APIZoo.
NO_INDEX_FIX = (
    "gorilla-tui index --refresh (online it fetches the APIBench hubs; offline it builds the standard "
    "library, and --from DIR / --source apizoo=DIR add the hubs and APIZoo from local copies)"
)
REBUILD_HINT = f"build it with: {NO_INDEX_FIX}"
#: How to rebuild a live index that is damaged or was built by another version: a refresh reads every
#: source again from where it was built (build/previous.py reread), so no --from is needed.
DAMAGED_HINT = "rebuild it with: gorilla-tui index --refresh (it reads the sources the index was built from)"
_HINT = DAMAGED_HINT

#: What reading a truncated or overwritten docs.json / vocab.json / tf.npz raises (numpy's npz reader:
#: BadZipFile, EOFError, zlib.error, KeyError for a missing array; from_dict: TypeError, AttributeError).
DAMAGED = (
    OSError,
    ValueError,
    TypeError,
    KeyError,
    AttributeError,
    EOFError,
    zipfile.BadZipFile,
    zlib.error,
)


def index_root(path: Path | None = None) -> Path:
    """The folder holding CURRENT, the version folders and the lock (default get_paths().index_dir)."""
    return Path(path) if path is not None else get_paths().index_dir


def not_a_folder(root: Path | None = None) -> tuple[Path, str] | None:
    """(path, what it is in words) when the index root or its parent (the data folder) exists but is not a
    folder (a file, a FIFO, a link to a file or to nothing); None when both are folders or missing (made by
    the first refresh). A file there was read as "no index", and the refresh that message offered failed
    ("File exists"; break-it round 6)."""
    root = index_root(root)
    for path in (root.parent, root):
        try:
            mode = os.stat(path).st_mode
        except FileNotFoundError:
            return (path, "a broken symbolic link") if os.path.islink(path) else None
        except OSError as e:
            if e.errno == errno.ELOOP and os.path.islink(path):  # a link to itself (or a cycle of links)
                return path, "a symbolic link loop"
            return None  # not reachable (a folder above is not one, no permission): the read or write says
        if not stat.S_ISDIR(mode):
            return path, "a file" if stat.S_ISREG(mode) else file_kind(mode)
    return None


class RootDamagedError(GorillaError):
    """The index root or the data folder is not a folder (root_damaged): damaged state, exit 2; its hint is
    the fix (`doctor` shows it as such)."""


def root_damaged(found: tuple[Path, str]) -> RootDamagedError:
    """The one error of an index root (or data folder) that is not a folder (`found`: not_a_folder's pair):
    damaged state (exit 2), naming the path and the fix (a refresh moves it aside: reclaim_root). Returns
    it (the caller raises it)."""
    path, kind = found
    return RootDamagedError(
        f"{path} is {kind}, not a folder: the index cannot be read there (damaged state)", hint=hint_of(found)
    )


#: The errno strings of a read its permissions refuse (mode 000, another user's file): such a file is there
#: and sound as far as anyone knows, and its fix is a chmod, not a rebuild (break-it round 14, R14-5).
_REFUSED = tuple(f"({os.strerror(n)})" for n in (errno.EACCES, errno.EPERM))


def cannot_read(rel: str, e: OSError) -> str:
    """How an index file that is there but cannot be read is said (one reader rule: with its OSError, never
    "missing"): "meta.json cannot be read (Permission denied)"; `rel`: its name in the version folder."""
    if isinstance(e, FileNotFoundError):
        return f"{rel} is missing"
    return f"{rel} cannot be read ({e.strerror or type(e).__name__})"


def read_refused(why: str) -> bool:
    """Whether a damage line (cannot_read's) says the file's permissions refuse it."""
    return why.endswith(_REFUSED)


class IndexUnreadableError(GorillaError):
    """An index file its permissions refuse (read_refused): exit 2 as damaged state, but nothing needs
    rebuilding; its hint is the fix (`doctor` shows it as such)."""


def unreadable_index(folder: Path, why: str) -> IndexUnreadableError:
    """The one error of the version `folder` holding a file that cannot be read (`why`: cannot_read's line),
    with the chmod fix. Returns it (the caller raises it)."""
    return IndexUnreadableError(
        f"the index at {folder} cannot be read ({why}): its permissions refuse it",
        hint=f"chmod -R u+rwX {folder}  # or run as the user who built it; nothing needs rebuilding",
    )


def refused_read(path: Path, e: OSError) -> IndexUnreadableError | None:
    """The error of an index file (or CURRENT) whose read its permissions refused, "cannot read PATH:
    Permission denied" with paths.permission_fix's chmod as hint; None for any other OSError (the caller's
    own words: damaged, rebuild it)."""
    if e.errno not in (errno.EACCES, errno.EPERM):
        return None
    return IndexUnreadableError(f"cannot read {path}: {e.strerror}", hint=permission_fix(path))


def hint_of(found: tuple[Path, str]) -> str:
    """The fix of root_damaged: what a refresh does with the path of `found`."""
    aside = found[0].name + ASIDE_SUFFIX + "TIME"
    return f"gorilla-tui index --refresh moves it aside (to {aside}) and builds a new index there"


#: Suffix of the name a non-folder in place of the index root is moved to (reclaim_root), before the time.
#: The file naming the live version folder (store/versions.py publish replaces it atomically).
POINTER = "CURRENT"
ASIDE_SUFFIX = ".damaged-"


def not_a_file(root: Path, names: tuple[str, ...]) -> list[tuple[Path, str]]:
    """(path, what it is in words) of each of `names` in the folder `root` that exists but is not a regular
    file (os.lstat: a folder, a FIFO, a link): a folder in place of CURRENT was "cannot read", and the
    refresh then failed to replace it ("Is a directory") after building the whole index."""
    found = []
    for name in names:
        try:
            mode = os.lstat(root / name).st_mode
        except OSError:
            continue
        if not stat.S_ISREG(mode):
            found.append((root / name, "a symbolic link" if stat.S_ISLNK(mode) else file_kind(mode)))
    return found


def reclaim_root(root: Path | None = None, files: tuple[str, ...] = ()) -> str:
    """Move aside what not_a_folder finds in place of the index root or the data folder, and each of the
    store's own `files` in the root (CURRENT, the lock) that is not a regular file (not_a_file): each
    renamed to NAME.damaged-TIME beside it, never deleted, so a refresh can build there. "" when there is
    nothing to move, else the note to show ("... moved aside ..."). Nothing else is touched (the history
    and config live beside it, the version folders stay). Raises GorillaError when one cannot be renamed."""
    root = index_root(root)
    found = not_a_folder(root)
    moves = [found] if found is not None else not_a_file(root, files)
    notes = []
    for path, kind in moves:
        aside = path.with_name(path.name + ASIDE_SUFFIX + time.strftime("%Y%m%dT%H%M%S") + f"-{os.getpid()}")
        try:
            os.rename(path, aside)
        except FileNotFoundError:
            continue  # another refresh moved it first
        except OSError as e:
            raise GorillaError(
                f"cannot move {path} aside: {e.strerror or e}", hint=hint_of((path, kind))
            ) from None
        what = "not a folder" if found is not None else "not a file"
        notes.append(f"{path} was {kind}, {what}: moved aside to {aside.name}")
    return "; ".join(notes) + ("; a new index is built there" if notes else "")


def own_folder(folder: Path, own: bool, what: str = "the vector cache folder") -> str:
    """Make the optional folder `folder` (`what`: its name in the note) when it is missing. Something else
    in its place (a file, a FIFO, a link to one or to nothing: os.stat) is moved aside to
    NAME.damaged-TIME when `own` (the app's own folder, e.g. the vector cache's), returning the note that
    says so ("" when nothing was moved); when not `own` (a folder the user named) NotADirectoryError is
    raised naming what it is. Raises OSError when the folder cannot be made or moved."""
    if not os.path.lexists(folder) or folder.is_dir():
        folder.mkdir(parents=True, exist_ok=True)
        return ""
    try:
        mode = os.stat(folder).st_mode
        kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
    except OSError:
        kind = "a link that leads nowhere"
    if os.path.islink(folder) and kind != "a link that leads nowhere":
        kind = f"a link to {kind}"
    if not own:
        raise NotADirectoryError(errno.ENOTDIR, f"{kind}, not a folder", str(folder))
    aside = folder.with_name(f"{folder.name}{ASIDE_SUFFIX}{time.strftime('%Y%m%dT%H%M%S')}-{os.getpid()}")
    os.rename(folder, aside)
    folder.mkdir(parents=True, exist_ok=True)
    return f"{what} {folder} was {kind}, not a folder: moved aside to {aside.name}"


#: Largest JSON file of the index store read (meta.json, vocab.json, dense.json, a version 1 docs.json),
#: bytes. The default index's are a few MB; a larger one (a sparse file of gigabytes put in its place) is
#: damaged and never read: read whole, 8 GiB took `index --status` over a minute and 8-23 GB of memory.
MAX_JSON_BYTES = 512 * 2**20
#: Largest meta.json read, bytes: the default index's is about 120 kB (its sources' rows and the sizes of
#: its ~570 files); 16 MiB is over a hundred times that. A larger one is damaged, never read.
MAX_META_BYTES = 16 * 2**20


def json_of(path: Path, limit: int) -> Any:
    """The JSON value of the regular file `path`, read only when it holds at most `limit` bytes (required:
    each caller names its file's, e.g. MAX_META_BYTES, vectors.MAX_DENSE_JSON_BYTES; MAX_JSON_BYTES for a
    file that grows with the pool).

    Raises:
        OSError: missing or unreadable.
        ValueError: not a regular file (a FIFO would block), over `limit` (never read), not JSON,
            or nested too deeply to parse.
    """
    try:
        with open_regular(path, limit) as fh:
            data = fh.read(limit + 1)  # a file grown since the fstat is still read no further
    except NotRegularFileError:
        raise ValueError("not a regular file") from None
    except FileTooLargeError as e:
        raise ValueError(f"{e.strerror} (an index file)") from None
    if len(data) > limit:
        raise ValueError(f"more than {limit} bytes, more than an index file may hold")
    try:
        return json.loads(data)
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def read_json(path: Path) -> Any:
    """The JSON value of `path` (json_of). Raises GorillaError (with the rebuild hint) when missing,
    unreadable, not a regular file, over MAX_JSON_BYTES (then never read) or not JSON."""
    try:
        return json_of(path, MAX_JSON_BYTES)
    except FileNotFoundError:
        raise GorillaError(f"{path} is missing; rebuild the index", hint=_HINT) from None
    except (OSError, ValueError) as e:
        if isinstance(e, OSError) and (refused := refused_read(path, e)) is not None:
            raise refused from None
        raise GorillaError(f"cannot read {path} ({e}); rebuild the index", hint=_HINT) from None


def regular(path: Path) -> Path:
    """`path` itself, once os.stat says it is a regular file: for the readers that must open it by name
    (numpy's memory map); every other read of the store's own files opens it with paths.open_regular. A FIFO
    in place of a file blocked the reader forever (break-it round 10, R10-4).

    Raises:
        OSError: missing or unreadable (os.stat's).
        ValueError: not a regular file (the caller reads it as damaged).
    """
    mode = os.stat(path).st_mode
    if not stat.S_ISREG(mode):
        raise ValueError(f"{path.name} is {file_kind(mode)}, not a file")
    return path


def write_synced(path: Path, data: bytes) -> None:
    """Write `data` to `path` and fsync it (the file is replaced, unlinked first: a FIFO left in its place
    blocked the open; OSError propagates)."""
    with contextlib.suppress(FileNotFoundError):
        os.unlink(path)
    with open(path, "xb") as fh:
        fh.write(data)
        fh.flush()
        os.fsync(fh.fileno())


def pid_alive(pid: int) -> bool:
    """Whether process `pid` exists (os.kill(pid, 0); a process of another user counts as alive)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True
