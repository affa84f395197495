"""Each doc's performance metadata, normalised once at refresh and stored with the index (issue 14).

`normalise_performance` (pool/metrics.py) reads APIBench's raw `performance` JSON; doing it on every ask
for the up to 100 widened candidates repeated the same work. A refresh writes the table to
`performance.json` in the version folder (built aside and published with the rest, so it stays atomic);
`ApiIndex.performance` reads it once per loaded index. An in-memory index (ApiIndex.build, tests, benches)
normalises each doc on first use and keeps the result.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.metrics import Performance, normalise_performance
from gorilla_tui.store.fileio import MAX_JSON_BYTES, json_of

#: File name of the table inside a version folder.
FILE = "performance.json"


class PerformanceTable:
    """doc id -> normalised Performance. Docs without performance metadata are not stored (an empty
    Performance is returned for them)."""

    def __init__(self, table: dict[str, Performance] | None = None, complete: bool = False) -> None:
        self._table: dict[str, Performance] = dict(table or {})
        self.complete = complete  # True: every doc of the index was normalised (read from a refresh)

    @classmethod
    def build(cls, docs: Iterable[ApiDoc]) -> PerformanceTable:
        """Normalise every doc's performance now (a refresh: ~0.1 s for the three APIBench hubs)."""
        table = {d.id: normalise_performance(d.performance) for d in docs if d.performance not in (None, "")}
        return cls(table, complete=True)

    def get(self, doc: Any) -> Performance:
        """The normalised performance of `doc` (an ApiDoc): from the table, else normalised now and kept."""
        perf = self._table.get(doc.id)
        if perf is None:
            raw = getattr(doc, "performance", None)
            if self.complete and raw in (None, ""):
                return Performance()
            perf = self._table[doc.id] = normalise_performance(raw)
        return perf

    def save(self, folder: Path) -> Path:
        """Write the table to folder/FILE (fsync'ed). Returns the path."""
        path = Path(folder) / FILE
        data = {k: v.to_dict() for k, v in self._table.items()}
        with open(path, "w", encoding="utf-8") as fh:
            fh.write(json_text(data))
            fh.flush()
            os.fsync(fh.fileno())
        return path

    @classmethod
    def load(cls, folder: Path) -> PerformanceTable | None:
        """The table saved in `folder`, or None when the folder has none or it is unreadable (then the docs
        are normalised on first use, as for an index built in memory)."""
        try:
            data = json_of(Path(folder) / FILE, MAX_JSON_BYTES)  # a sparse file of gigabytes is never read
            return cls({k: Performance.from_dict(v) for k, v in data.items()}, complete=True)
        except (OSError, ValueError, TypeError, KeyError, AttributeError):
            return None
