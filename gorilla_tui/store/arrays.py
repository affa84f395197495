"""The npy and npz files of the index store and its caches, each read only once its npy headers fit.

- `read_npy`: one array of an npy file (numpy.save), memory-mapped if asked;
- `read_npz`: the named arrays of an npz file (numpy.savez, or compressed by scipy and
  numpy.savez_compressed where the caller allows it), with a check of how they fit each other;
- `npy_header`: the check both run before a byte of data is read: a version numpy.save writes, no pickle,
  the dtype kinds and number of dimensions of the array's `ArraySpec`, and the bytes its shape promises
  exactly those the file holds.

A file that lies about its size costs its headers, never its inflated size (break-it round 11, R11-4); a
FIFO or a sparse file of gigabytes in its place is never read (paths.open_regular). The readers of the
store (versions.py, vectors.py, prior.py, v1.py) and of building's caches (build/vector_cache.py,
build/seed.py) name what each array must be.
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Mapping
from pathlib import Path
from typing import IO, TYPE_CHECKING, Any, NamedTuple

from gorilla_tui.paths import open_regular

if TYPE_CHECKING:
    import numpy as np

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
