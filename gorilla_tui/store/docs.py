"""docs.jsonl of a stored index read one doc at a time: LazyDocs parses a doc when it is first read."""

from __future__ import annotations

import contextlib
import json
import os
import threading
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import open_regular
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.store.fileio import DAMAGED as _DAMAGED
from gorilla_tui.store.fileio import DAMAGED_HINT as _HINT
from gorilla_tui.store.fileio import refused_read


class LazyDocs(Sequence[ApiDoc]):
    """The docs of a stored index (docs.jsonl), each parsed into an ApiDoc when first read and kept.

    offsets: int64 (n_docs + 1), doc i is the bytes offsets[i]:offsets[i + 1] of the file. The file is
    opened once, here, and kept open, so a long-lived index (the TUI) still reads its docs after a later
    refresh has removed its version folder (POSIX keeps an open file's data). Iterating parses every doc
    (refresh, `check` without lookup, the validator of a whole pool).

    Raises:
        GorillaError: the file cannot be opened, or a line is damaged when it is read.
    """

    def __init__(self, path: Path, offsets: Any) -> None:
        self.path = path
        self.offsets = [int(o) for o in offsets]
        self._cache: dict[int, ApiDoc] = {}
        self._lock = threading.Lock()
        try:
            # kept open for the life of the index (see above); never a FIFO; never larger than the offsets
            # say (read one line at a time, by them)
            self._fh = open_regular(path, self.offsets[-1] if self.offsets else 0)
        except OSError as e:
            if (refused := refused_read(path, e)) is not None:  # a chmod, not a rebuild (round 14)
                raise refused from None
            raise GorillaError(
                f"cannot read {path} ({e.strerror or e}); rebuild the index", hint=_HINT
            ) from None

    def __len__(self) -> int:
        return len(self.offsets) - 1

    def _read(self, start: int, size: int) -> bytes:
        """`size` bytes at `start` (os.pread: no shared file position between threads; seek + read under
        a lock where the OS has no pread, Windows)."""
        if hasattr(os, "pread"):
            return os.pread(self._fh.fileno(), size, start)
        with self._lock:  # pragma: no cover - Windows
            self._fh.seek(start)
            return self._fh.read(size)

    def _parse(self, i: int, data: bytes) -> ApiDoc:
        try:
            doc = ApiDoc.from_dict(json.loads(data))
        except _DAMAGED as e:
            raise GorillaError(f"the index at {self.path.parent} is damaged (doc {i}: {e}); rebuild it",
                               hint=_HINT) from None  # fmt: skip
        self._cache[i] = doc
        return doc

    def __getitem__(self, i: Any) -> Any:
        if isinstance(i, slice):
            return [self[j] for j in range(*i.indices(len(self)))]
        i = int(i)
        if i < 0:
            i += len(self)
        if not 0 <= i < len(self):
            raise IndexError(f"doc {i} out of range ({len(self)} docs)")
        doc = self._cache.get(i)
        if doc is None:
            start, stop = self.offsets[i], self.offsets[i + 1]
            doc = self._parse(i, self._read(start, stop - start))
        return doc

    def __iter__(self) -> Iterator[ApiDoc]:
        n = len(self)
        if len(self._cache) < n:
            data = self._read(0, self.offsets[-1])
            for i in range(n):
                if i not in self._cache:
                    self._parse(i, data[self.offsets[i] : self.offsets[i + 1]])
        return (self._cache[i] for i in range(n))

    def __del__(self) -> None:
        with contextlib.suppress(Exception):
            self._fh.close()
