"""The primitives the index store's modules share: the index root, fsync'ed writes, JSON reads that name a
damaged file, and what reading a damaged file raises."""

from __future__ import annotations

import json
import os
import stat
import zipfile
import zlib
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import get_paths

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


#: Largest JSON file of the index store read (meta.json, vocab.json, dense.json, a version 1 docs.json),
#: bytes. The default index's are a few MB; a larger one (a sparse file of gigabytes put in its place) is
#: damaged and never read: read whole, 8 GiB took `index --status` over a minute and 8-23 GB of memory.
MAX_JSON_BYTES = 512 * 2**20


def json_of(path: Path, limit: int = MAX_JSON_BYTES) -> Any:
    """The JSON value of the regular file `path`, read only when it holds at most `limit` bytes.

    Raises:
        OSError: missing or unreadable.
        ValueError: not a regular file (a FIFO would block), over `limit` (never read), not JSON,
            or nested too deeply to parse.
    """
    st = path.stat()
    if not stat.S_ISREG(st.st_mode):
        raise ValueError("not a regular file")
    if st.st_size > limit:
        raise ValueError(f"{st.st_size} bytes, more than an index file may hold ({limit})")
    try:
        return json.loads(path.read_bytes())
    except RecursionError:
        raise ValueError("JSON nested too deeply") from None


def read_json(path: Path) -> Any:
    """The JSON value of `path` (json_of). Raises GorillaError (with the rebuild hint) when missing,
    unreadable, not a regular file, over MAX_JSON_BYTES (then never read) or not JSON."""
    try:
        return json_of(path)
    except FileNotFoundError:
        raise GorillaError(f"{path} is missing; rebuild the index", hint=_HINT) from None
    except (OSError, ValueError) as e:
        raise GorillaError(f"cannot read {path} ({e}); rebuild the index", hint=_HINT) from None


def write_synced(path: Path, data: bytes) -> None:
    """Write `data` to `path` and fsync it (the file is replaced; OSError propagates)."""
    with open(path, "wb") as fh:
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
