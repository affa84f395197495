"""One hit per call (retrieve/index.py ApiIndex._top): APIBench's TensorFlow Hub pool has 696 docs but 80
distinct api_calls, and a task got the same call five times; the hits are now k different calls, hit 1 is
the plain ranking's first, and every doc left out has the call of a better-ranked hit."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import numpy as np

from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.retrieve.bm25 import top_k
from gorilla_tui.retrieve.embed import E5Embedder
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.refresh import embed_docs

TASKS = (
    "embed sentences so that I can compare how similar they are",
    "detect objects in a photo, must run on a phone",
    "classify images of flowers",
    "extract a feature vector from an image",
)


def squash(call: str) -> str:
    return "".join(call.split())


def test_tensorflow_hub_hits_are_distinct_calls(apibench: Path) -> None:
    docs = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    assert len({squash(d.call) for d in docs}) < len(docs) / 5  # the pool repeats its calls
    index = ApiIndex.build(docs)
    for task in TASKS:
        hits = index.search(task, k=5, hub="tensorflowhub")
        calls = [squash(h.doc.call) for h in hits]
        rows, fused, _, _ = index.ranked(task, "tensorflowhub")
        order = [int(rows[p]) for p, _ in top_k(fused, len(rows))]  # BM25 alone: docs sharing a term
        reachable = len({squash(index.docs[r].call) for r in order})
        assert len(set(calls)) == len(calls) == min(5, reachable) >= 3, task
        assert index.docs[order[0]] is hits[0].doc  # hit 1 is the ranking's first
        last = order.index(index.docs.index(hits[-1].doc))
        for row in order[:last]:  # a doc ranked above the last hit is a hit or repeats a hit's call
            assert squash(index.docs[row].call) in calls, task


def test_below_the_fused_top_the_full_rankings_go_on(small_pool: list, monkeypatch) -> None:
    """60 docs with one call fill the top FUSION_DEPTH of BM25 and of dense: the fused candidates hold one
    call, and the other hits come from the RRF of the full rankings, not from nowhere."""
    base = next(d for d in small_pool if d.source == "tensorflowhub")
    copies = [dataclasses.replace(base, id=f"{base.id}-copy{i}") for i in range(60)]
    docs = [d for d in small_pool if d.source == "tensorflowhub"] + copies
    index = ApiIndex.build(docs)
    embedder = E5Embedder()
    vectors, _ = embed_docs(docs, embedder)
    index.dense.attach(vectors, np.ones(len(docs), bool), {"name": embedder.name}, embedder)
    task = base.description or base.api_name
    hits = index.search(task, k=3, hub="tensorflowhub")
    calls = [squash(h.doc.call) for h in hits]
    assert calls[0] == squash(base.call) and len(set(calls)) == len(calls) == min(
        3, len({squash(d.call) for d in docs})
    )
