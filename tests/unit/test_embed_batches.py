"""Batches of the refresh's embedding (build/dense_vectors.py next_batch, issue 40): sized to take a few
seconds each, so a slow machine still reports progress often and a fast one keeps full batches."""

from __future__ import annotations

import numpy as np

from gorilla_tui.build.dense_vectors import BATCH_SECONDS, FIRST_BATCH, embed_texts, next_batch
from gorilla_tui.retrieve.embed import BATCH


class InstantEmbedder:
    """Vectors at once (a unit vector per text), recording the size of each batch it is given."""

    spec, name, dim = "test", "test:instant", 4

    def __init__(self) -> None:
        self.batches: list[int] = []

    def embed_queries(self, texts):
        return self.embed_passages(texts)

    def embed_passages(self, texts):
        self.batches.append(len(texts))
        return np.tile(np.array([1.0, 0.0, 0.0, 0.0], np.float32), (len(texts), 1))


def test_a_batch_takes_about_batch_seconds_within_bounds():
    # 1.2 texts/s (this loaded machine): the smallest batch, 4 texts, about 3 s
    assert next_batch(8, 8 / 1.2) == FIRST_BATCH
    # 5 texts/s: 15 texts, 3 s
    assert next_batch(8, 8 / 5) == int(5 * BATCH_SECONDS)
    # fast: full batches
    assert next_batch(32, 0.05) == BATCH


def test_the_first_batch_is_small_and_the_next_ones_full_when_fast(tmp_path, monkeypatch):
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(tmp_path))
    model = InstantEmbedder()
    progress: list[tuple[int, int]] = []
    texts = [f"text {i}" for i in range(100)] + ["text 0"]  # a repeated text is embedded once
    vectors, embedded = embed_texts(texts, model, on_embed=lambda done, total: progress.append((done, total)))
    assert embedded == 100 and vectors.shape == (101, 4)
    assert model.batches == [FIRST_BATCH, BATCH, BATCH, 100 - FIRST_BATCH - 2 * BATCH]
    assert progress == [(0, 100), (4, 100), (36, 100), (68, 100), (100, 100)]
