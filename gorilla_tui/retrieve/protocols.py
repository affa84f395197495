"""What the search modules read of an index, as Protocols, so source routing (routing.py) and the fit
signals (fit.py) take an index without importing retrieve/index.py, which imports them (issue 41: no import
cycle, TYPE_CHECKING included). This module imports none of the search modules; ApiIndex and DenseSide
satisfy these Protocols structurally.
"""

from __future__ import annotations

from collections.abc import Sized
from typing import Any, Protocol

import numpy as np


class DenseScores(Protocol):
    """The dense side of an index (retrieve/dense.py DenseSide): what dense.json recorded, and the cosines."""

    @property
    def info(self) -> dict[str, Any]:
        """What dense.json recorded (embedder spec and name, dim, counts)."""
        ...

    def scores(self, query: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(cosine similarity, mask) of the docs at index `rows` for `query`, or None (BM25 alone)."""
        ...


class RoutedIndex(Protocol):
    """An index as source routing and the fit signals read it (retrieve/index.py ApiIndex).

    docs: the docs in index order (only their count is read); vocab: term -> column; source_codes: int
    (n_docs,), each doc's position in `sources`; dense: the dense side (never None once the index is built).
    A `hub` is one source's name, a tuple of source names (a group: routing.GROUPS), or None (every doc).
    """

    @property
    def docs(self) -> Sized: ...

    @property
    def vocab(self) -> dict[str, int]: ...

    @property
    def source_codes(self) -> np.ndarray | None: ...

    @property
    def dense(self) -> DenseScores | None: ...

    @property
    def sources(self) -> list[str]:
        """The index's source names, in index order."""
        ...

    def best_possible(self, query: str, hub: Any = None) -> float:
        """The query's best possible BM25 score in the pool of `hub`."""
        ...

    def _bm25(self, query: str, hub: Any) -> tuple[np.ndarray, np.ndarray]:
        """(rows, BM25 scores) of the pool of `hub` for `query`."""
        ...

    def _scorer(self, hub: Any) -> tuple[np.ndarray, Any]:
        """(rows, scorer) of the pool of `hub`."""
        ...
