"""BM25 without scipy: parameters, IDF, top_k, and the per-term postings `search` scores from (issue 20).

A refresh builds the term-frequency matrix with scipy (retrieve/index.py: term_matrix) and stores it
column-major as postings (store/versions.py); a search reads those arrays and scores only the postings of the
query's terms, so scipy is never imported on the query path (it cost ~0.2 s of a cold `search`). The scores
are bit-for-bit those of index.Bm25Scorer (the sparse-matrix scorer kept as the reference): the same float32
document lengths, the same float64 expression per posting, and the terms added up in the same order as
scipy's CSC matrix-vector product (tests/unit/test_retrieval.py and tests/apibench/test_search_parity.py
compare the two on real indexes).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np

from gorilla_tui.errors import GorillaError
from gorilla_tui.store.postings import Postings

IDF_MODES = ("lucene", "okapi")


@dataclass
class Bm25Params:
    """BM25 parameters. k1, b: Robertson & Zaragoza (2009), rank_bm25's defaults (1.5, 0.75).

    idf "okapi": rank_bm25.BM25Okapi exactly, idf = ln((N - n + 0.5) / (n + 0.5)), negative values replaced
    by epsilon * (mean idf). It degenerates on small corpora: with 2 docs every term gets idf 0 or a
    negative floor, so all scores are zero or negative noise. idf "lucene" (default): Lucene's
    BM25Similarity, idf = ln(1 + (N - n + 0.5) / (n + 0.5)), always > 0 and decreasing in n, equal to okapi
    within ln(1 + (n + 0.5)/(N - n + 0.5)) for rare terms; rank order follows okapi on large pools.
    """

    k1: float = 1.5
    b: float = 0.75
    epsilon: float = 0.25
    idf: str = "lucene"

    def to_dict(self) -> dict[str, Any]:
        return {"k1": self.k1, "b": self.b, "epsilon": self.epsilon, "idf": self.idf}


def best_possible(
    idf: np.ndarray, missing_idf: float, k1: float, columns: Sequence[int | None], counts: Sequence[float]
) -> float:
    """An upper bound of any doc's BM25 score for a query given as vocabulary columns (None: a term the
    vocabulary lacks) and their counts: sum of count x idf x (k1 + 1), the most a term can add at any term
    frequency and doc length (the limit of BM25's saturation); a term without a positive idf counts
    missing_idf (the idf of a term no doc has, df = 0)."""
    total = 0.0
    for col, count in zip(columns, counts, strict=True):
        weight = idf[col] if col is not None and idf[col] > 0 else missing_idf
        total += count * weight * (k1 + 1)
    return total


def idf_vector(df: np.ndarray, n_docs: int, params: Bm25Params) -> np.ndarray:
    """Inverse document frequency per term (float64 array shaped like `df`, document counts).

    Terms with df == 0 get 0 (they cannot score). See Bm25Params for the two formulas.
    """
    df = df.astype(np.float64)
    present = df > 0
    if params.idf == "okapi":
        idf = np.log(n_docs - df + 0.5) - np.log(df + 0.5)
        mean = float(idf[present].mean()) if present.any() else 0.0
        idf = np.where(idf < 0, params.epsilon * mean, idf)
    elif params.idf == "lucene":
        idf = np.log1p((n_docs - df + 0.5) / (df + 0.5))
    else:
        raise ValueError(f"unknown idf mode {params.idf!r} (expected one of {IDF_MODES})")
    return np.where(present, idf, 0.0)


def top_k(scores: np.ndarray, k: int) -> list[tuple[int, float]]:
    """(position, score) of the k best positive scores, best first; ties go to the earlier position."""
    positive = np.flatnonzero(scores > 0)
    if not len(positive) or k <= 0:
        return []
    if len(positive) > k:
        part = positive[np.argpartition(-scores[positive], k - 1)[:k]]
        # include every doc tied with the k-th score so the tie-break below is stable
        kth = scores[part].min()
        positive = positive[scores[positive] >= kth]
    order = np.lexsort((positive, -scores[positive]))
    return [(int(positive[i]), float(scores[positive[i]])) for i in order[:k]]


class PostingsScorer:
    """BM25 scores of the docs at index `rows` (one source or group, ascending rows) from Postings.

    The same model and numbers as index.Bm25Scorer (Robertson & Zaragoza 2009; Bm25Params): each pool has
    its own document frequencies, IDF and average length. Building one costs O(postings) once (the document
    frequencies of every term in the pool: best_possible and the okapi IDF floor need them); a query costs
    O(postings of its terms).

    Raises:
        GorillaError: the pool is empty, or all its docs are empty (where rank_bm25 divides by zero).
    """

    def __init__(self, postings: Postings, rows: np.ndarray, params: Bm25Params) -> None:
        self.params = params
        self.postings = postings
        n_docs = len(rows)
        if n_docs == 0:
            raise GorillaError("the API pool is empty: nothing to index")
        lengths = postings.lengths[rows]
        total = float(lengths.sum())
        if total == 0:
            raise GorillaError(f"every document is empty ({n_docs} docs without a single indexable word)")
        self.avgdl = total / n_docs
        self.n_docs = n_docs
        whole = n_docs == postings.n_docs
        #: position in the pool of each index row (-1: not in this pool); None for the whole index
        self.position: np.ndarray | None = None
        if whole:
            df = np.diff(postings.indptr)
        else:
            self.position = np.full(postings.n_docs, -1, np.int64)
            self.position[rows] = np.arange(n_docs)
            inside = self.position[postings.rows] >= 0
            df = np.bincount(postings.columns()[inside], minlength=postings.n_terms)
        self.idf = idf_vector(df, n_docs, params)
        #: idf of a term no doc has (df = 0), by the same formula: what a query term missing here is worth.
        self.missing_idf = float(idf_vector(np.array([0.5]), n_docs, Bm25Params(idf="lucene"))[0])

    def best_possible(self, columns: Sequence[int | None], counts: Sequence[float]) -> float:
        """An upper bound of any doc's score for a query (see index.Bm25Scorer.best_possible)."""
        return best_possible(self.idf, self.missing_idf, self.params.k1, columns, counts)

    def scores(self, columns: Sequence[int], counts: Sequence[float]) -> np.ndarray:
        """Scores of every doc of the pool (float64, length n_docs) for a query given as vocabulary columns
        and their counts in the query; terms are added in the order given (as scipy's CSC product does)."""
        out = np.zeros(self.n_docs)
        p = self.postings
        k1, b = self.params.k1, self.params.b
        for col, count in zip(columns, counts, strict=True):
            start, stop = int(p.indptr[col]), int(p.indptr[col + 1])
            rows = p.rows[start:stop]
            freq = p.tf[start:stop]
            if self.position is None:
                at = rows
            else:
                at = self.position[rows]
                keep = at >= 0
                at, rows, freq = at[keep], rows[keep], freq[keep]
            if not len(at):
                continue
            freq = freq.astype(np.float64)
            weight = (
                self.idf[col] * freq * (k1 + 1) / (freq + k1 * (1 - b + b * p.lengths[rows] / self.avgdl))
            )
            out[at] += weight * np.float64(count)
        return out


__all__ = ["IDF_MODES", "Bm25Params", "PostingsScorer", "idf_vector", "top_k"]
