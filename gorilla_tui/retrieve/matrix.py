"""BM25 on a sparse term-frequency matrix (scipy): the matrix a refresh builds from the tokenised docs
(term_matrix; stored as postings, store/versions.py) and the reference scorer over it (Bm25Scorer), which
retrieve/bm25.py's postings scorer matches bit for bit. scipy is imported only here, and only at refresh or
for the reference scorer, never on the query path (issue 20)."""

from __future__ import annotations

from array import array
from collections import Counter
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING

import numpy as np

from gorilla_tui.errors import GorillaError
from gorilla_tui.retrieve.bm25 import Bm25Params, best_possible, idf_vector

if TYPE_CHECKING:
    from scipy import sparse


def term_matrix(
    token_lists: Iterable[Sequence[str]], vocab: dict[str, int] | None = None
) -> tuple[sparse.csr_matrix, dict[str, int]]:
    """Term-frequency matrix (n_docs x n_terms, float32 CSR) of tokenised docs, and the vocabulary
    (term -> column; extended in place when given).

    `token_lists` may be a generator: each doc's tokens are counted and dropped at once, and the postings
    go to compact int32 arrays, so building from 200k docs never holds every token list (that took ~1 GB).
    """
    from scipy import sparse  # deferred: scipy (~0.2 s); built at refresh, never on the query path

    vocab = {} if vocab is None else vocab
    indptr = array("q", [0])
    indices = array("i")
    data = array("f")
    for tokens in token_lists:
        counts = Counter(tokens)
        indices.extend([vocab.setdefault(term, len(vocab)) for term in counts])
        data.extend(counts.values())
        indptr.append(len(indices))
    shape = (len(indptr) - 1, len(vocab))
    matrix = sparse.csr_matrix(
        (
            np.frombuffer(data, np.float32).copy(),
            np.frombuffer(indices, np.int32).copy(),
            np.frombuffer(indptr, np.int64).copy(),
        ),
        shape=shape,
    )
    return matrix, vocab


class Bm25Scorer:
    """BM25 scores of a fixed set of docs, computed as one sparse matrix product per query: the reference
    that bm25.PostingsScorer (what ApiIndex searches with) matches bit for bit; imports scipy.

    `tf`: term frequencies (n_docs x n_terms). At construction each non-zero tf(d, t) becomes its final
    contribution idf(t) * tf * (k1 + 1) / (tf + k1 * (1 - b + b * |d| / avgdl)) (|d| = tokens in d), stored
    column-major, so a query only touches the columns of its own terms: O(postings of the query terms).
    Gives the same scores as rank_bm25.BM25Okapi.get_scores (idf "okapi"; tests/unit/test_retrieval.py
    checks it on the APIBench pools). Raises GorillaError for an empty corpus or one whose docs are all empty
    (where rank_bm25 divides by zero).
    """

    def __init__(self, tf: sparse.csr_matrix, params: Bm25Params | None = None) -> None:
        from scipy import sparse  # deferred: scipy (~0.2 s); the reference scorer, not the query path

        self.params = params or Bm25Params()
        n_docs = tf.shape[0]
        if n_docs == 0:
            raise GorillaError("the API pool is empty: nothing to index")
        lengths = np.asarray(tf.sum(axis=1)).ravel()
        total = float(lengths.sum())
        if total == 0:
            raise GorillaError(f"every document is empty ({n_docs} docs without a single indexable word)")
        avgdl = total / n_docs
        tf = tf.tocsr()
        if not tf.has_canonical_format:  # duplicate entries would count twice in df
            tf = tf.copy()
            tf.sum_duplicates()
        df = np.bincount(tf.indices, minlength=tf.shape[1])
        idf = idf_vector(df, n_docs, self.params)
        k1, b = self.params.k1, self.params.b
        rows = np.repeat(np.arange(n_docs), np.diff(tf.indptr))
        freq = tf.data.astype(np.float64)
        weight = idf[tf.indices] * freq * (k1 + 1) / (freq + k1 * (1 - b + b * lengths[rows] / avgdl))
        del rows, freq
        self.weights = sparse.csr_matrix((weight, tf.indices, tf.indptr), shape=tf.shape).tocsc()
        self.n_docs = n_docs
        self.idf = idf
        #: idf of a term no doc has (df = 0), by the same formula: what a query term missing here is worth.
        self.missing_idf = float(idf_vector(np.array([0.5]), n_docs, Bm25Params(idf="lucene"))[0])

    def best_possible(self, columns: Sequence[int | None], counts: Sequence[float]) -> float:
        """An upper bound of any doc's score for a query: sum of count * idf * (k1 + 1) over its terms (the
        limit of BM25's saturation), a term that no doc here has (column None or df 0) counted at
        missing_idf. Dividing a doc's score by it gives the share of the query's information the doc
        matches, comparable across pools of different sizes and vocabularies (ApiIndex routing)."""
        return best_possible(self.idf, self.missing_idf, self.params.k1, columns, counts)

    def scores(self, columns: Sequence[int], counts: Sequence[float]) -> np.ndarray:
        """Scores of every doc (float64, length n_docs) for a query given as vocabulary columns and their
        counts in the query (a term repeated in the query counts again, as in rank_bm25)."""
        if not len(columns):
            return np.zeros(self.n_docs)
        sub = self.weights[:, list(columns)]
        return np.asarray(sub @ np.asarray(counts, np.float64)).ravel()


__all__ = ["Bm25Scorer", "term_matrix"]
