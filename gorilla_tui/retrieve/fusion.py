"""The settings of the hybrid fusion of one index: each source's dense weight and fusion depth (read from
the shipped manifests, index/*.toml `dense_weight` and `fusion_depth`), made per-doc arrays, and the weights
and depths of the docs of one searched pool (the dense weight capped at dense.POOLED_DENSE_CAP in a pool of
several sources). The fusion itself, reciprocal rank fusion, is retrieve/dense.py rrf; ApiIndex.ranked
(retrieve/index.py) applies it with these settings."""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gorilla_tui.pool.manifest import shipped_values
from gorilla_tui.retrieve.dense import (
    DENSE_WEIGHT_KEY,
    DEPTH_UNLIMITED,
    FUSION_DEPTH,
    FUSION_DEPTH_ALL,
    FUSION_DEPTH_KEY,
    POOLED_DENSE_CAP,
    W_DENSE,
)


def dense_weight(value: object) -> float | None:
    """A DENSE_WEIGHT_KEY value as a weight: an int or float (not a bool) that is finite and >= 0 (0: the
    source's dense ranking adds nothing to the fusion), else None (inf, nan, negative, a string)."""
    if isinstance(value, int | float) and not isinstance(value, bool) and math.isfinite(value) and value >= 0:
        return float(value)
    return None


def dense_weights() -> dict[str, float]:
    """Source -> its dense weight in the fusion: the DENSE_WEIGHT_KEY of its shipped manifest (index/*.toml)
    when dense_weight reads it (a refresh refuses any other value: build.plan.check_settings); other
    sources (user sources too) use W_DENSE."""
    weights = {name: dense_weight(value) for name, value in shipped_values(DENSE_WEIGHT_KEY).items()}
    return {name: weight for name, weight in weights.items() if weight is not None}


def fusion_depth(value: object) -> int | None:
    """A FUSION_DEPTH_KEY value as a depth: a positive integer as is, FUSION_DEPTH_ALL ("all") as
    DEPTH_UNLIMITED, anything else (0, negative, a float, a bool, another word) None."""
    if value == FUSION_DEPTH_ALL:
        return DEPTH_UNLIMITED
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return None


def fusion_depths() -> dict[str, int]:
    """Source -> its fusion depth (docs of each ranking that take part in the RRF fusion): the
    FUSION_DEPTH_KEY of its shipped manifest (index/*.toml) when fusion_depth reads it; other sources
    (user sources too) use dense.FUSION_DEPTH."""
    depths = {name: fusion_depth(value) for name, value in shipped_values(FUSION_DEPTH_KEY).items()}
    return {name: depth for name, depth in depths.items() if depth is not None}


@dataclass(frozen=True, eq=False)
class FusionSettings:
    """The fusion settings of one index: each source's dense weight and fusion depth, and the same per doc.

    sources: the index's sources in index order (ApiIndex.sources); codes: each doc's position in
    `sources` (ApiIndex.source_codes, an integer array of len(docs)); weights: source -> dense weight, for
    the sources that set one (any other source fuses with W_DENSE); depths: source -> fusion depth (the
    docs of each ranking that take part in the fusion; DEPTH_UNLIMITED for every ranked doc), for the
    sources that set one (any other: FUSION_DEPTH). doc_weights (float64) and doc_depths (int64), one per
    doc, are derived from these, through `codes`, so no doc is parsed.

    A search reads the shipped settings (shipped(), at its index's first hybrid search). A benchmark
    trying other settings sets its own on the index, ApiIndex.fusion, from with_source: e.g.
    `index.fusion = index.fusion_settings().with_source("python-env", weight=0.5, depth=200)`, and sets the
    settings it started from back when done (or None: the shipped ones, read again on the next search).
    """

    sources: tuple[str, ...]
    codes: np.ndarray = field(repr=False)
    weights: Mapping[str, float]
    depths: Mapping[str, int]
    doc_weights: np.ndarray = field(init=False, repr=False)
    doc_depths: np.ndarray = field(init=False, repr=False)

    def __post_init__(self) -> None:
        per_source = np.array([self.weight(s) for s in self.sources], float)
        per_source_depth = np.array([self.depth(s) for s in self.sources], np.int64)
        object.__setattr__(self, "doc_weights", per_source[self.codes])  # frozen: set once, here
        object.__setattr__(self, "doc_depths", per_source_depth[self.codes])

    @classmethod
    def shipped(cls, sources: Sequence[str], codes: np.ndarray) -> FusionSettings:
        """The settings the shipped manifests give the index whose sources (in index order) and per-doc
        source positions are `sources` and `codes` (dense_weights, fusion_depths: read at search time, so a
        manifest's change needs no rebuild)."""
        return cls(tuple(sources), codes, dense_weights(), fusion_depths())

    def weight(self, source: str) -> float:
        """`source`'s dense weight in the fusion (W_DENSE when it sets none; also for a source not in
        the index)."""
        return self.weights.get(source, W_DENSE)

    def depth(self, source: str) -> int:
        """`source`'s fusion depth (FUSION_DEPTH when it sets none; also for a source not in the index)."""
        return self.depths.get(source, FUSION_DEPTH)

    def with_source(
        self, source: str, *, weight: float | None = None, depth: int | str | None = None
    ) -> FusionSettings:
        """These settings with `source`'s dense weight and/or fusion depth replaced (None: kept); the other
        sources keep theirs. For benchmarks that try a grid of settings (bench/hub_dev.py,
        bench/pyenv_dense.py); set the result as ApiIndex.fusion. weight: a finite number >= 0
        (dense_weight); depth: what a manifest's FUSION_DEPTH_KEY may hold (fusion_depth: a positive
        integer, or FUSION_DEPTH_ALL for every ranked doc).

        Raises ValueError for a weight or depth a manifest's value would be ignored for (not a finite number
        >= 0; not a positive integer or FUSION_DEPTH_ALL).
        """
        weights, depths = dict(self.weights), dict(self.depths)
        if weight is not None:
            if dense_weight(weight) is None:
                raise ValueError(f"bad dense weight {weight!r}: a finite number >= 0")
            weights[source] = float(weight)
        if depth is not None:
            read = fusion_depth(depth)
            if read is None:
                raise ValueError(f"bad fusion depth {depth!r}: a positive integer or {FUSION_DEPTH_ALL!r}")
            depths[source] = read
        return replace(self, weights=weights, depths=depths)

    def for_pool(self, rows: np.ndarray, members: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """(dense weights, depths) of the docs at index `rows` (one searched pool, whose sources are
        `members`), one per row, as dense.rrf takes them: float64 weights, each at most POOLED_DENSE_CAP when
        the pool holds several sources (their fused scores then share one scale; dense.py gives the
        measurements), and int64 depths."""
        w_dense = self.doc_weights[rows]
        if len(members) > 1:
            w_dense = np.minimum(w_dense, POOLED_DENSE_CAP)
        return w_dense, self.doc_depths[rows]


__all__ = ["FusionSettings", "dense_weight", "dense_weights", "fusion_depth", "fusion_depths"]
