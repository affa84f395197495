"""The hybrid fusion of one index: reciprocal rank fusion of the BM25 and the dense rankings (rrf), and its
settings: each source's dense weight and fusion depth (read from the shipped manifests, index/*.toml
`dense_weight` and `fusion_depth`), made per-doc arrays, and the weights and depths of the docs of one
searched pool (the dense weight capped at POOLED_DENSE_CAP in a pool of several sources). ApiIndex.ranked
(retrieve/index.py) applies it with these settings to the dense side's cosines (retrieve/dense.py).

Fusion is reciprocal rank fusion (Cormack, Clarke & Buettcher, SIGIR 2009): each doc scores
sum_i w_i / (RRF_K + rank_i) over the rankings it is in, ranks 1-based, each ranking cut at its source's
depth (FUSION_DEPTH_KEY in its manifest, else FUSION_DEPTH).
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

import numpy as np

from gorilla_tui.pool.manifest import shipped_values

#: RRF constant, Cormack et al.'s k = 60 (the issue's probe used it; bench/retrieval.py --dev compares
#: others on the Torch Hub training split).
RRF_K = 60
#: Docs of each ranking that take part in the fusion (the probe's top 50) for a source whose manifest does
#: not set FUSION_DEPTH_KEY: every shipped source. The hubs' was chosen on the Torch Hub dev split (94
#: docs); for python-env (8,841 docs) depths 200, 1000 and all changed no dev figure, hits or answers
#: (bench/pyenv_dense.py; docs/benchmarks.md "python-env: BM25 or hybrid").
FUSION_DEPTH = 50
#: Manifest key (index/*.toml) with a source's own fusion depth, read at search time like DENSE_WEIGHT_KEY
#: (fusion_depths; no rebuild needed): a positive integer, or FUSION_DEPTH_ALL for every ranked
#: doc; FUSION_DEPTH when absent or not one of those (fusion_depth).
FUSION_DEPTH_KEY = "fusion_depth"
#: The FUSION_DEPTH_KEY value that lets every ranked doc of both rankings into the fusion.
FUSION_DEPTH_ALL = "all"
#: The depth FUSION_DEPTH_ALL stands for (more than any ranking holds).
DEPTH_UNLIMITED = np.iinfo(np.int64).max
#: Weights of the BM25 and the dense ranking in the fusion (chosen on the dev split, bench/retrieval.py).
W_BM25, W_DENSE = 1.0, 1.0
#: Manifest key (index/*.toml) with a source's own dense weight in the fusion, read at search time
#: (dense_weights; no rebuild needed): W_DENSE when absent.
DENSE_WEIGHT_KEY = "dense_weight"
#: The most a source's dense weight counts for when the searched pool holds several sources (no hub named:
#: routing.GROUPS, or routing "global"); a weight above it applies when its source is searched alone (its hub
#: named). RRF scores are comparable across sources only on one scale: uncapped, TensorFlow Hub's weight 5
#: put its docs' dense ranks five times above the other hubs' and crowded them out of the model-hub pool
#: (Hugging Face dev tasks, no hub named, domain@1 49.5 -> 7.0 %). Chosen on the dev splits against two
#: rescalings that keep each source's order too (bench/data/hub_dev_tasks.toml no hub named, TensorFlow Hub /
#: Hugging Face domain@1, and the dev half of bench/everyday_tasks.toml right@1, of 200 / 200 / 55 tasks;
#: bench/hand_questions.py): capped at 1: 80 / 100 / 35 (215); both weights divided by the larger
#: (TensorFlow Hub 0.2 / 1): 60 / 102 / 35 (197); both scaled to the same sum of 2 (which also doubles Torch
#: Hub's BM25 weight): 55 / 79 / 38 (172); before TensorFlow Hub's weight 5 and description text: 68 / 101
#: / 35 (204).
POOLED_DENSE_CAP = 1.0


def rank_positions(scores: np.ndarray, depth: int, eligible: np.ndarray | None = None) -> np.ndarray:
    """1-based rank of each position in the top `depth` of `scores` (higher is better; only positive
    scores when `eligible` is None, else only eligible positions), 0 for the rest. Ties keep position
    order."""
    ok = scores > 0 if eligible is None else eligible
    cand = np.flatnonzero(ok)
    ranks = np.zeros(len(scores), np.int64)
    if not len(cand):
        return ranks
    order = cand[np.lexsort((cand, -scores[cand]))][:depth]
    ranks[order] = np.arange(1, len(order) + 1)
    return ranks


def rrf(
    bm25: np.ndarray,
    dense: np.ndarray | None,
    mask: np.ndarray | None,
    depth: int | np.ndarray = FUSION_DEPTH,
    k: int = RRF_K,
    weights: tuple[float, float | np.ndarray] = (W_BM25, W_DENSE),
) -> np.ndarray:
    """Reciprocal-rank-fused scores (float64, same length as `bm25`): w_bm25 / (k + BM25 rank) for the top
    `depth` BM25 scores (> 0) plus w_dense / (k + dense rank) for the top `depth` dense scores among `mask`
    (docs with a vector). 0 for a doc in neither list. `dense` None: BM25 ranks alone. w_dense is one
    number or one per position (each doc's source's DENSE_WEIGHT_KEY); so is depth (each doc's source's
    FUSION_DEPTH_KEY: a doc takes part in a ranking when its rank there is at most its own depth; ranks
    are over the whole pool either way)."""
    fused = np.zeros(len(bm25))
    depths = np.broadcast_to(np.asarray(depth, dtype=np.int64), (len(bm25),))
    cut = int(depths.max()) if len(depths) else 0
    r = rank_positions(bm25, cut)
    r[r > depths] = 0
    fused[r > 0] += weights[0] / (k + r[r > 0])
    if dense is not None and mask is not None and mask.any():
        r = rank_positions(dense, cut, mask)
        r[r > depths] = 0
        w_dense = np.broadcast_to(np.asarray(weights[1], dtype=np.float64), r.shape)
        fused[r > 0] += w_dense[r > 0] / (k + r[r > 0])
    return fused


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
    (user sources too) use FUSION_DEPTH."""
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
        `members`), one per row, as rrf takes them: float64 weights, each at most POOLED_DENSE_CAP when
        the pool holds several sources (their fused scores then share one scale; POOLED_DENSE_CAP gives
        the measurements), and int64 depths."""
        w_dense = self.doc_weights[rows]
        if len(members) > 1:
            w_dense = np.minimum(w_dense, POOLED_DENSE_CAP)
        return w_dense, self.doc_depths[rows]

    def fuse(
        self,
        ranking: np.ndarray,
        dense: tuple[np.ndarray, np.ndarray],
        rows: np.ndarray,
        members: Sequence[str],
    ) -> np.ndarray:
        """The fused score of each doc of one searched pool (index `rows`, sources `members`): rrf of its
        BM25 `ranking` and its dense cosine (dense: (cosine, mask), a doc without a vector has none), with
        W_BM25 and the pool's dense weights and depths (for_pool)."""
        w_dense, depth = self.for_pool(rows, members)
        return rrf(ranking, dense[0], dense[1], depth, weights=(W_BM25, w_dense))


__all__ = [
    "DENSE_WEIGHT_KEY",
    "DEPTH_UNLIMITED",
    "FUSION_DEPTH",
    "FUSION_DEPTH_ALL",
    "FUSION_DEPTH_KEY",
    "POOLED_DENSE_CAP",
    "RRF_K",
    "W_BM25",
    "W_DENSE",
    "FusionSettings",
    "dense_weight",
    "dense_weights",
    "fusion_depth",
    "fusion_depths",
    "rank_positions",
    "rrf",
]
