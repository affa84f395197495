"""The vector cache: each embedder's doc vectors by content hash (retrieve.embed.content_hash) across index
versions, one npz per embedder in the index root's CACHE_DIR (or the folder CACHE_ENV names), read and
written by the embedding of a refresh (build/dense_vectors.py) behind the packaged seed (build/seed.py)."""

from __future__ import annotations

import contextlib
import os
from pathlib import Path
from typing import TYPE_CHECKING

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import FileTooLargeError, NotRegularFileError, expand_user
from gorilla_tui.store.arrays import ArraySpec, Header, read_npz
from gorilla_tui.store.fileio import DAMAGED as _DAMAGED
from gorilla_tui.store.fileio import index_root, own_folder

if TYPE_CHECKING:
    import numpy as np

#: Folder of the index root holding the vector caches (one npz per embedder name).
CACHE_DIR = "embeddings"
#: Environment variable naming another folder for the vector caches (shared by several index roots, e.g.
#: a test session's many temporary homes).
CACHE_ENV = "GORILLA_TUI_VECTOR_CACHE"


def _cache_path(name: str, root: Path | None) -> Path:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in name)[:120]
    shared = os.environ.get(CACHE_ENV, "")
    folder = expand_user(shared) if shared else index_root(root) / CACHE_DIR  # UsageError for "~nosuchuser"
    return folder / f"{safe}.npz"


def read_vector_cache(
    name: str, root: Path | None = None, dim: int | None = None, notes: list[str] | None = None
) -> dict[str, np.ndarray]:
    """Cached vectors of embedder `name` (in root/CACHE_DIR, or the folder CACHE_ENV names): content hash
    (embed.content_hash) -> float32 vector of width `dim` (any width when None).

    Empty when there is no cache or it is unreadable; it is then rebuilt (the next write_vector_cache
    replaces it). Unreadable includes a file numpy reads whose arrays do not fit (vector_cache_fault:
    another width, fewer vector rows than hashes, a vector that is not finite; break-it round 9, R8: a
    refresh was "internal error: ValueError / IndexError" and NaN vectors were published): such a file is
    moved aside (".damaged" beside it) and a one-line note naming it goes to `notes` when given. So is a
    file whose npy headers do not fit (arrays.read_npz: checked before a byte of data is read, so a 2 MB
    file that inflates to gigabytes costs its headers: break-it round 11, R11-4), one over
    arrays.MAX_ARRAY_BYTES, no regular file, or not an npz."""
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    path = _cache_path(name, root)
    try:  # its headers first: a 2 MB cache inflating to 1.5 GB cost 2.3 GB (break-it round 11, R11-4)
        arrays = read_npz(path, _CACHE, lambda headers: _cache_header_fault(headers, dim))
    except (NotRegularFileError, FileTooLargeError) as e:  # a FIFO blocked the refresh forever (R10-4)
        fault = e.strerror
    except OSError:  # missing (none yet) or unreadable: rebuilt by the next write
        return {}
    except (*_DAMAGED, MemoryError) as e:  # its headers do not fit, or bytes numpy cannot read
        fault = " ".join(str(e).removeprefix(f"{path.name}: ").split())[:200] or type(e).__name__
    else:
        hashes, vectors = arrays["hashes"], arrays["vectors"]
        fault = vector_cache_fault(hashes, vectors, dim)
    if fault:
        aside = path.with_name(path.name + ".damaged")
        with contextlib.suppress(OSError):
            os.replace(path, aside)
        if notes is not None:
            why = f"was damaged ({fault}): moved aside to {aside.name}, rebuilt"
            notes.append(f"the vector cache {path} {why}")
        return {}
    return {str(h): vectors[i].astype(np.float32) for i, h in enumerate(hashes)}


#: What the arrays of the vector cache must be (arrays.read_npz): content hashes, vectors one row per hash.
_CACHE = {"hashes": ArraySpec("U", 1), "vectors": ArraySpec("fiu", 2)}


def _cache_header_fault(headers: dict[str, Header], dim: int | None) -> str | None:
    """Why the vector cache's arrays, by their npy headers alone, do not fit each other or the embedder's
    width `dim` (vector_cache_fault's rules of shape), or None."""
    (count,), (rows, width) = headers["hashes"][0], headers["vectors"][0]
    if rows != count:
        return f"{rows} vectors for {count} hashes"
    if dim is not None and count and width != dim:
        return f"vectors of width {width}, the embedder's is {dim}"
    return None


def vector_cache_fault(hashes: np.ndarray, vectors: np.ndarray, dim: int | None) -> str | None:
    """Why the arrays of a vector cache cannot be used (a short cause), or None when they fit: `hashes` a
    1-D array of strings, `vectors` a 2-D array of numbers with one row per hash, `dim` columns (any when
    None) and only finite values."""
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    if hashes.ndim != 1 or hashes.dtype.kind != "U":
        return "its hashes are not a list of strings"
    if vectors.ndim != 2 or vectors.dtype.kind not in "fiu":
        return "its vectors are not a 2-D array of numbers"
    if len(vectors) != len(hashes):
        return f"{len(vectors)} vectors for {len(hashes)} hashes"
    if dim is not None and len(hashes) and vectors.shape[1] != dim:
        return f"vectors of width {vectors.shape[1]}, the embedder's is {dim}"
    if not np.isfinite(vectors).all():
        return "a vector holds NaN or infinity"
    return None


def write_vector_cache(
    name: str, cache: dict[str, np.ndarray], root: Path | None = None, notes: list[str] | None = None
) -> None:
    """Replace the vector cache of embedder `name` atomically (temp file + os.replace).

    The cache is optional: with `notes` given, a cache that cannot be written never stops the caller (a
    refresh publishes its vectors uncached); one line says why, added to `notes` once. Our own cache
    folder (root/CACHE_DIR) found to be no folder (a file, a FIFO, a link to one: it blocked publishing a
    refresh, "File exists", issue 42) is moved aside first and made again, said in one line too; a folder
    CACHE_ENV names is the user's and is never moved. Raises GorillaError when it cannot be written and
    `notes` is None (scripts/build_vector_seed.py)."""
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    path = _cache_path(name, root)
    try:
        moved = own_folder(path.parent, own=not os.environ.get(CACHE_ENV, ""))
        if moved and notes is not None and moved not in notes:
            notes.append(moved)
        hashes = np.array(list(cache), dtype="U40")
        first = next(iter(cache.values()), np.zeros(0, np.float32))
        vectors = np.stack(list(cache.values())) if cache else np.zeros((0, len(first)), np.float32)
        tmp = path.with_suffix(".tmp")
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a FIFO left there would block the open below
        with open(tmp, "xb") as fh:
            np.savez(fh, hashes=hashes, vectors=vectors.astype(np.float32))
            fh.flush()
            os.fsync(fh.fileno())
        os.replace(tmp, path)
    except OSError as e:
        line = f"the vector cache {path} cannot be written ({e.strerror or e}): vectors not cached"
        if notes is None:
            raise GorillaError(line) from None
        if line not in notes:
            notes.append(line)
