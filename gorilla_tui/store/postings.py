"""The term frequencies an index stores, column-major (postings): what a refresh writes (store/versions.py
write_version) and what a search scores from (retrieve/bm25.py PostingsScorer). Lives with the store so the
store never imports the search side (issue 41).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import numpy as np


@dataclass
class Postings:
    """The term frequencies of an index, column-major (CSC without scipy).

    indptr: int64 (n_terms + 1), the postings of term column c are positions indptr[c]:indptr[c + 1];
    rows: int32 (nnz), the doc row of each posting, ascending within a term; tf: float32 (nnz), its term
    frequency; lengths: float32 (n_docs), tokens per doc (the row sums of the matrix, as scipy's
    tf.sum(axis=1) gives them).
    """

    indptr: np.ndarray
    rows: np.ndarray
    tf: np.ndarray
    lengths: np.ndarray

    @property
    def n_docs(self) -> int:
        return len(self.lengths)

    def columns(self) -> np.ndarray:
        """The term column of each posting (int64, nnz), computed once (the document frequencies of a
        pool count the postings of its rows per column)."""
        cols = self.__dict__.get("_columns")
        if cols is None:
            cols = self.__dict__["_columns"] = np.repeat(np.arange(self.n_terms), np.diff(self.indptr))
        return cols

    @property
    def n_terms(self) -> int:
        return len(self.indptr) - 1

    @classmethod
    def from_matrix(cls, tf: Any) -> Postings:
        """Postings of a scipy sparse term-frequency matrix (n_docs x n_terms; duplicates summed)."""
        csc = tf.tocsc()
        if not csc.has_canonical_format:
            csc = csc.copy()
            csc.sum_duplicates()
        lengths = np.asarray(tf.sum(axis=1)).ravel().astype(np.float32)
        return cls(
            np.asarray(csc.indptr, np.int64),
            np.asarray(csc.indices, np.int32),
            np.asarray(csc.data, np.float32),
            lengths,
        )

    def to_matrix(self) -> Any:
        """The scipy CSR term-frequency matrix (n_docs x n_terms, float32); imports scipy."""
        from scipy import sparse  # deferred: scipy (~0.2 s); only refresh and the reference scorer need it

        shape = (self.n_docs, self.n_terms)
        return sparse.csc_matrix((self.tf, self.rows, self.indptr), shape=shape).tocsr()

    def check(self) -> None:
        """Raise ValueError when the arrays do not fit together (a damaged or foreign store)."""
        nnz = len(self.rows)
        if self.indptr.ndim != 1 or len(self.indptr) < 1 or self.indptr[0] != 0 or self.indptr[-1] != nnz:
            raise ValueError("postings: indptr does not span the postings")
        if len(self.tf) != nnz or (nnz and (self.rows.min() < 0 or self.rows.max() >= self.n_docs)):
            raise ValueError("postings: rows or tf do not fit the docs")
        if np.any(np.diff(self.indptr) < 0):
            raise ValueError("postings: indptr is not ascending")
