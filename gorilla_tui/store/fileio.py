"""The primitives the index store's modules share: the index root, fsync'ed writes, JSON reads that name a
damaged file, and what reading a damaged file raises."""

from __future__ import annotations

import contextlib
import errno
import json
import os
import stat
import time
import zipfile
import zlib
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import (
    FileTooLargeError,
    NotRegularFileError,
    file_kind,
    get_paths,
    open_regular,
    permission_fix,
)

if TYPE_CHECKING:
    import numpy as np

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


#: Largest npy or npz file of the store or its caches read (postings.npz, prior.npy, mask.npy, vectors.npy,
#: the vector cache, a legacy vectors.npz, the packaged seed), bytes, on disk and, for an npz, its arrays
#: inflated: the default index's largest is its vector cache, ~22 MB for 14,000 vectors; 2 GiB holds 1.4
#: million 384-wide float32 vectors, far beyond any pool a refresh builds (10,963 docs take ~6 minutes).
MAX_ARRAY_BYTES = 2**31
#: npy format versions numpy.save writes (numpy.lib.format: 1.0, or 2.0 for a header over 64 KiB).
NPY_VERSIONS = ((1, 0), (2, 0))


class ArraySpec(NamedTuple):
    """What an array of one of our npy files must be before its data is read: `kinds` the numpy dtype kinds
    accepted ("f" float, "b" bool, "i"/"u" integers, "U" str) and `ndim` its number of dimensions."""

    kinds: str
    ndim: int


#: (shape, dtype) of an array, from its npy header alone.
Header = tuple[tuple[int, ...], "np.dtype[Any]"]


def npy_header(fh: IO[bytes], stored: int, name: str, spec: ArraySpec) -> tuple[Header, bool]:
    """((shape, dtype), fortran order) of the npy array at the start of `fh` (a file or an npz member),
    read from its header alone (numpy.lib.format read_magic, read_array_header_1_0 / 2_0) and checked
    before a byte of data is read: a version numpy.save writes, no object dtype (a pickle), `spec`'s
    dtype kinds and ndim, and the data its shape promises (shape x itemsize) exactly the `stored` bytes of
    the file that follow the header (numpy.save writes nothing else). A 2 MB vector cache whose array
    inflated to 1.5 GB was decompressed whole before it was judged (break-it round 11, R11-4).

    Raises ValueError (the file is damaged) naming `name`."""
    from numpy.lib import format as npy  # deferred: numpy; `check` reads CURRENT through this module

    version = npy.read_magic(fh)
    if version not in NPY_VERSIONS:
        raise ValueError(f"{name}: npy format {version[0]}.{version[1]}, not one numpy.save writes here")
    read = npy.read_array_header_1_0 if version == (1, 0) else npy.read_array_header_2_0
    shape, fortran, dtype = read(fh)
    if dtype.hasobject or dtype.kind not in spec.kinds or len(shape) != spec.ndim:
        raise ValueError(f"{name}: an array of {dtype} {shape}, not the one written there")
    size = dtype.itemsize
    for n in shape:
        size *= n
    if fh.tell() + size != stored:
        raise ValueError(
            f"{name}: its header promises {size:,} bytes of data, the file holds {stored - fh.tell():,}"
        )
    return (tuple(shape), dtype), fortran


def _shape_fits(name: str, shape: tuple[int, ...], want: tuple[int | None, ...] | None) -> None:
    if want is not None and any(w is not None and w != n for n, w in zip(shape, want, strict=True)):
        raise ValueError(
            f"{name}: an array of shape {shape}, not {tuple('n' if w is None else w for w in want)}"
        )


def read_npy(
    path: Path, spec: ArraySpec, shape: tuple[int | None, ...] | None = None, mmap: bool = False
) -> np.ndarray:
    """The array of the npy file `path` (ours: written by numpy.save), its header checked first (npy_header,
    and `shape`: each size or None for any), so a file that lies about its size is never read: at most
    MAX_ARRAY_BYTES on disk (paths.open_regular: a FIFO never blocks, a sparse file of gigabytes is refused
    unread). `mmap`: memory-mapped read-only from the open file (a search touches only the rows it scores).

    Raises:
        OSError: missing, unreadable, no regular file or over MAX_ARRAY_BYTES (paths.FileTooLargeError).
        ValueError: its header does not fit (damaged).
    """
    import numpy as np  # deferred: numpy; `check` reads CURRENT through this module

    with open_regular(path, MAX_ARRAY_BYTES) as fh:
        (got, dtype), fortran = npy_header(fh, os.fstat(fh.fileno()).st_size, path.name, spec)
        _shape_fits(path.name, got, shape)
        if mmap and dtype.itemsize and all(got):
            order = "F" if fortran else "C"
            return np.memmap(fh, dtype, "r", offset=fh.tell(), shape=got, order=order)
        fh.seek(0)
        return np.lib.format.read_array(fh, allow_pickle=False)


def read_npz(
    path: Path,
    specs: Mapping[str, ArraySpec],
    fits: Callable[[dict[str, Header]], str | None] | None = None,
    compressed: bool = False,
    limit: int = MAX_ARRAY_BYTES,
) -> dict[str, np.ndarray]:
    """The arrays `specs` names of the npz file `path` (ours: written by numpy.savez), each read only once
    every one's zip entry and npy header is checked (npy_header), so a damaged file costs its headers, never
    its inflated size (break-it round 11, R11-4: 2.3 GB for a 2 MB cache).

    Args:
        path: the file (paths.open_regular: at most `limit` bytes on disk).
        specs: array name -> what it must be (its dtype kinds and ndim).
        fits: the arrays' (shape, dtype) from their headers -> why they do not fit each other (rows per
            hash, width), or None when they do; run before any data is read.
        compressed: whether a compressed entry may be read (a file written by numpy.savez_compressed or
            scipy); False for the files we write with numpy.savez, whose entries are stored, so no entry
            holds more than the file does.
        limit: most bytes of the file on disk and of its arrays inflated together.

    Raises:
        OSError: missing, unreadable, no regular file or over `limit` bytes.
        ValueError: not a zip file, an array missing, compressed where it must not be, over `limit`
            inflated, or a header that does not fit (damaged).
    """
    import numpy as np  # deferred: numpy; `check` reads CURRENT through this module

    with open_regular(path, limit) as fh:
        if fh.read(2) != b"PK":  # no zip at all (numpy's own message advised loading a pickle: pass 10)
            raise ValueError(f"{path.name} is not a NumPy archive (it holds other data)")
        try:
            zf = zipfile.ZipFile(fh)
        except (zipfile.BadZipFile, EOFError) as e:
            raise ValueError(f"{path.name} is not a NumPy archive ({e})") from None
        with zf:
            infos = {}
            for name in specs:
                try:
                    infos[name] = info = zf.getinfo(f"{name}.npy")
                except KeyError:
                    raise ValueError(f"{path.name} has no array {name!r}") from None
                if info.compress_type != zipfile.ZIP_STORED and not compressed:
                    raise ValueError(
                        f"{path.name}: its array {name!r} is compressed (written uncompressed here)"
                    )
            inflated = sum(info.file_size for info in infos.values())
            if inflated > limit:
                raise ValueError(
                    f"{path.name}: its arrays inflate to {inflated:,} bytes, more than {limit:,}"
                )
            headers = {}
            for name, info in infos.items():
                with zf.open(info) as member:
                    headers[name] = npy_header(member, info.file_size, f"{path.name}:{name}", specs[name])[0]
            why = fits(headers) if fits is not None else None
            if why:
                raise ValueError(f"{path.name}: {why}")
            out = {}
            for name, info in infos.items():
                with zf.open(info) as member:
                    out[name] = np.lib.format.read_array(member, allow_pickle=False)
    return out
