"""Content fingerprints of a source's inputs, so a refresh can tell a source that did not change (issue 18).

A fingerprint is a hex SHA-256 over everything that decides a source's docs: its manifest, the bytes of its
files (or, for the python-env source, the interpreter and the sizes and mtimes of the module files), the
size limit, and the code that turns files into docs (code_fingerprint). Two equal fingerprints mean a
rebuild would give the same docs; a source whose inputs cannot be read has no fingerprint (None) and is
always rebuilt.
"""

from __future__ import annotations

import errno
import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import gorilla_tui
from gorilla_tui.paths import FileTooLargeError, open_regular

#: Bumped when what a fingerprint covers changes (an index fingerprinted by another scheme is rebuilt).
FINGERPRINT_VERSION = 1
#: Bytes read per chunk when hashing a file.
_CHUNK = 1 << 20


@lru_cache(maxsize=1)
def code_fingerprint() -> str:
    """SHA-256 over gorilla_tui.__version__ and the bytes of every .py file of the installed gorilla_tui
    package (about 150 files, ~2 MB: a few ms). Any change of the code that loads, tokenises or writes
    docs (and any other change) makes every source "changed": conservative, never stale."""
    root = Path(gorilla_tui.__file__).parent
    h = hashlib.sha256(f"{gorilla_tui.__version__}\0{FINGERPRINT_VERSION}".encode())
    for path in sorted(root.rglob("*.py")):
        h.update(str(path.relative_to(root)).encode() + b"\0")
        h.update(path.read_bytes())
    return h.hexdigest()


def file_digest(path: Path, limit: int) -> str:
    """SHA-256 (hex) of the bytes of the regular file `path` (paths.open_regular: a FIFO or a device is
    refused, never opened for reading), read in _CHUNK pieces.

    Args:
        path: the file.
        limit: most bytes hashed, required (the store's own files: the size recorded or just written, so a
            file grown since is never hashed past it); the bytes are counted as they are read, whatever
            os.stat said (a file of st_size 0 such as /proc/self/pagemap never ended: break-it round 10,
            R10-6), and a file os.stat says is larger is refused unread.

    Raises:
        OSError: it cannot be read, is no regular file (paths.NotRegularFileError), or holds more than
            `limit` bytes (errno EFBIG).
    """
    return _digest(path, limit)[0]


def _digest(path: Path, limit: int, whole: int | None = None) -> tuple[str, int]:
    """(file_digest, bytes read) of `path`; `whole`: the limit named in the error (default `limit`)."""
    h, n = hashlib.sha256(), 0
    try:
        fh = open_regular(path, limit)
    except FileTooLargeError:  # by os.fstat: never read
        said = limit if whole is None else whole
        raise OSError(errno.EFBIG, f"more than {said} bytes", str(path)) from None
    with fh:
        while chunk := fh.read(min(_CHUNK, limit + 1 - n)):
            n += len(chunk)
            if n > limit:
                raise OSError(errno.EFBIG, f"more than {limit if whole is None else whole} bytes", str(path))
            h.update(chunk)
    return h.hexdigest(), n


def files_part(paths: Iterable[Path], limit: int) -> list[list[Any]]:
    """[path, size in bytes, SHA-256] of each file, in the given order; the size is the bytes read.

    Args:
        paths: the files.
        limit: most bytes read over all the files together (a source's size limit).

    Raises:
        OSError: one cannot be read or is no regular file, or the files hold more than `limit` bytes.
    """
    out: list[list[Any]] = []
    left = limit
    for p in paths:
        digest, n = _digest(p, left, limit)
        left -= n
        out.append([str(p), n, digest])
    return out


def stat_part(paths: Iterable[Path]) -> list[list[Any]]:
    """[path, size in bytes, mtime in ns] of each file (cheaper than hashing, for trees such as the standard
    library that only change when they are reinstalled). Raises OSError for one that is gone."""
    out = []
    for p in paths:
        st = p.stat()
        out.append([str(p), st.st_size, st.st_mtime_ns])
    return out


def combine(kind: str, *parts: Any) -> str:
    """The fingerprint of a source of loader `kind` from JSON-able `parts` (dataclasses become dicts), with
    code_fingerprint() mixed in."""
    payload = [kind, code_fingerprint(), [asdict(p) if is_dataclass(p) else p for p in parts]]  # type: ignore[arg-type]
    text = json.dumps(payload, sort_keys=True, ensure_ascii=False, default=str)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()
