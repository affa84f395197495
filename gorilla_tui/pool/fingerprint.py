"""Content fingerprints of a source's inputs, so a refresh can tell a source that did not change (issue 18).

A fingerprint is a hex SHA-256 over everything that decides a source's docs: its manifest, the bytes of its
files (or, for the python-env source, the interpreter and the sizes and mtimes of the module files), the
size limit, and the code that turns files into docs (code_fingerprint). Two equal fingerprints mean a
rebuild would give the same docs; a source whose inputs cannot be read has no fingerprint (None) and is
always rebuilt.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable
from dataclasses import asdict, is_dataclass
from functools import lru_cache
from pathlib import Path
from typing import Any

import gorilla_tui

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


def file_digest(path: Path) -> str:
    """SHA-256 (hex) of the file's bytes. Raises OSError when it cannot be read."""
    h = hashlib.sha256()
    with open(path, "rb") as fh:
        while chunk := fh.read(_CHUNK):
            h.update(chunk)
    return h.hexdigest()


def files_part(paths: Iterable[Path]) -> list[list[Any]]:
    """[path, size in bytes, SHA-256] of each file, in the given order. Raises OSError for one that cannot
    be read."""
    return [[str(p), p.stat().st_size, file_digest(p)] for p in paths]


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
