"""FusionSettings (retrieve/fusion.py): each source's dense weight and fusion depth made per doc, the cap on
the weight in a pool of several sources (dense.POOLED_DENSE_CAP), and the override benchmarks use."""

from __future__ import annotations

import numpy as np
import pytest

from gorilla_tui.retrieve.dense import DEPTH_UNLIMITED, FUSION_DEPTH, POOLED_DENSE_CAP, W_DENSE
from gorilla_tui.retrieve.fusion import FusionSettings, dense_weights, fusion_depths

SOURCES = ("torchhub", "tensorflowhub", "python-env")
CODES = np.array([0, 1, 1, 2, 0], np.int16)


def _settings() -> FusionSettings:
    return FusionSettings(SOURCES, CODES, {"tensorflowhub": 5.0, "torchhub": 0.01}, {"python-env": 200})


def test_each_doc_gets_its_sources_weight_and_depth() -> None:
    s = _settings()
    np.testing.assert_array_equal(s.doc_weights, [0.01, 5.0, 5.0, W_DENSE, 0.01])
    np.testing.assert_array_equal(s.doc_depths, [FUSION_DEPTH, FUSION_DEPTH, FUSION_DEPTH, 200, FUSION_DEPTH])
    assert s.doc_weights.dtype == np.float64 and s.doc_depths.dtype == np.int64
    assert s.weight("apizoo") == W_DENSE and s.depth("apizoo") == FUSION_DEPTH  # a source that sets none


def test_the_weight_is_capped_in_a_pool_of_several_sources_only() -> None:
    s, rows = _settings(), np.array([1, 2])
    alone, depth = s.for_pool(rows, ("tensorflowhub",))
    np.testing.assert_array_equal(alone, [5.0, 5.0])
    np.testing.assert_array_equal(depth, [FUSION_DEPTH, FUSION_DEPTH])
    pooled, _ = s.for_pool(np.array([0, 1, 2]), ("torchhub", "tensorflowhub"))
    np.testing.assert_array_equal(pooled, [0.01, POOLED_DENSE_CAP, POOLED_DENSE_CAP])


def test_with_source_replaces_one_sources_settings() -> None:
    s = _settings()
    t = s.with_source("python-env", weight=0.5, depth=DEPTH_UNLIMITED)
    np.testing.assert_array_equal(t.doc_weights, [0.01, 5.0, 5.0, 0.5, 0.01])
    assert t.depth("python-env") == DEPTH_UNLIMITED and t.weight("tensorflowhub") == 5.0
    assert s.weight("python-env") == W_DENSE  # the settings it came from are unchanged
    assert s.with_source("torchhub", depth=20).weight("torchhub") == 0.01
    assert s.with_source("torchhub", depth="all").depth("torchhub") == DEPTH_UNLIMITED  # as a manifest says
    assert s.with_source("torchhub", weight=0).weight("torchhub") == 0.0  # 0: the dense ranking adds nothing
    bad_values = [{"weight": float("inf")}, {"weight": -1.0}, {"weight": float("nan")}, {"weight": True}]
    bad_values += [{"depth": 0}, {"depth": 2.5}, {"depth": True}, {"depth": "deep"}]
    for bad in bad_values:
        with pytest.raises(ValueError):
            s.with_source("python-env", **bad)


def test_shipped_reads_the_manifests() -> None:
    s = FusionSettings.shipped(list(SOURCES), CODES)
    assert dict(s.weights) == dense_weights() and dict(s.depths) == fusion_depths()
    assert s.weight("tensorflowhub") == 5
