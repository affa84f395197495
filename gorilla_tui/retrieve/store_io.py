"""The primitives the index store's modules share: the index root, fsync'ed writes, JSON reads that name a
damaged file, and what reading a damaged file raises."""

from __future__ import annotations

import json
import os
import zipfile
import zlib
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import get_paths

#: How to rebuild a missing or unreadable index (the hint of the errors raised by the store and by
#: ApiIndex.load).
REBUILD_HINT = "build it with: gorilla-tui index --refresh --from DIR (a folder holding the APIBench files)"
#: How to rebuild a live index that is damaged or was built by another version: a refresh reads every
#: source again from where it was built (retrieve/previous.py reread), so no --from is needed.
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


def read_json(path: Path) -> Any:
    """The JSON value of `path`. Raises GorillaError (with the rebuild hint) when missing or unreadable."""
    try:
        return json.loads(path.read_bytes())
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
