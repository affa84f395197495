"""How well the API pool fits a task, from what a search already computes (out-of-pool detection): the
best normalised BM25 score over the sources (retrieve/routing.py source_scores), the share of the task's
words the index knows, and the dense side's cosines (the best, and its margin over the mean of the top
FIT_DEPTH). bench/out_of_pool.py measures how well each separates in-pool from out-of-pool tasks."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from gorilla_tui.retrieve import routing

if TYPE_CHECKING:
    from gorilla_tui.retrieve.index import ApiIndex

#: Docs whose mean cosine the best cosine is compared with (the dense margin).
FIT_DEPTH = 50


def retrieval_signals(index: ApiIndex, query: str) -> dict[str, float | None]:
    """The retrieval side's fit signals of `query` over every source of `index`.

    Returns:
        {"bm25_norm": the best source_scores value (0..1: the share of the task's BM25 information the best
        doc of the best source matches; -2..0 when the task is routed by the dense side, another language),
        "known": routing.known_share (0..1), "dense_top": the best cosine over the docs with a vector,
        "dense_margin": dense_top minus the mean cosine of the FIT_DEPTH best}; the two dense values are
        None when the index has no usable vectors (BM25 alone).
    """
    best = routing.source_scores(index, query)
    out: dict[str, float | None] = {
        "bm25_norm": max(best.values()) if best else 0.0,
        "known": routing.known_share(index, query),
        "dense_top": None,
        "dense_margin": None,
    }
    assert index.dense is not None
    rows = np.arange(len(index.docs))
    scored = index.dense.scores(query, rows) if len(rows) else None
    if scored is not None:
        cos = scored[0][scored[1]]
        if len(cos):
            top = np.sort(cos)[::-1][:FIT_DEPTH]
            out["dense_top"] = float(top[0])
            out["dense_margin"] = float(top[0] - top.mean())
    return out
