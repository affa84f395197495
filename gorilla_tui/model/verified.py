"""The record of a model file whose SHA-256 was checked (the embedded model, model/registry.py
embedded_verified): the file's size, mtime_ns and inode as they were then, so that a later use trusts the
file without hashing it again (~1 s for 253 MB) while none of them changed. A file rewritten in place
(flipped bytes written by a tool) gets a new mtime and is hashed again; bytes that change with no write
(a failing disk) keep it, which only `doctor`, hashing in full, finds (it then forgets the record)."""

from __future__ import annotations

import contextlib
import json
import os
from pathlib import Path

from gorilla_tui.paths import read_regular_bytes

#: Suffix of the record beside a verified model file (its real path, links followed): JSON {"size",
#: "mtime_ns", "ino", "sha256"}.
SUFFIX = ".verified.json"
#: Largest record read, bytes: its four fields take about 150; a larger one is none (hashed again).
RECORD_BYTES = 4096


def _record_path(path: Path) -> Path:
    real = Path(os.path.realpath(path))
    return real.with_name(real.name + SUFFIX)


def _identity(path: Path) -> dict[str, int]:
    st = os.stat(path)
    return {"size": st.st_size, "mtime_ns": st.st_mtime_ns, "ino": st.st_ino}


def recorded(path: Path, digest: str) -> bool:
    """True when the record beside `path` names its size, mtime_ns and inode now and SHA-256 `digest`. A
    record that cannot be read (missing, not JSON, a FIFO) is none."""
    try:
        said = json.loads(read_regular_bytes(_record_path(path), RECORD_BYTES))
        return said == {**_identity(path), "sha256": digest}
    except (OSError, ValueError):
        return False


def record(path: Path, digest: str) -> None:
    """Record `path` as it is now, verified with SHA-256 `digest` (written aside, then renamed in); a
    failure to write only costs hashing it again at its next use."""
    target = _record_path(path)
    tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(json.dumps({**_identity(path), "sha256": digest}), encoding="utf-8")
        os.replace(tmp, target)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def forget(path: Path) -> None:
    """Remove the record of `path`, so that its next use hashes it again."""
    with contextlib.suppress(OSError):
        _record_path(path).unlink(missing_ok=True)
