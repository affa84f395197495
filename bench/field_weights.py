"""BM25 field weights of the APIBench hub docs, checked on the Torch Hub dev split (issue 18).

Run: python bench/field_weights.py [--shared ../shared] [--no-write]

retrieve/tokenize.py FIELD_WEIGHTS says how many times each doc field is repeated in the text BM25 indexes
for the APIBench hubs. Dev split (as bench/retrieval.py --part devgrid): APIBench's Torch Hub *training*
split, its even lines as tasks, searched (a) against the bare docs with BM25 + dense fused as for the hubs
without a training split (RRF k = 60, dense weight 1: the stand-in for TensorFlow Hub and Hugging Face) and
(b) against the docs expanded with the odd lines, BM25 as shipped for Torch Hub. The eval sets are not used.
Each weight set of a grid over domain, functionality, api_name and api_call (description, questions and
framework stay 1) is scored by domain@1 / api@1 / api@5. Prints every row and writes the section "BM25
field weights, Torch Hub dev split" of docs/benchmarks.md: the shipped row and the 8 best by the sum of
the not-expanded hybrid figures.
"""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import torchhub_dev  # noqa: E402
from _report import publish  # noqa: E402

from gorilla_tui.build.refresh import embed_docs  # noqa: E402
from gorilla_tui.pool.doc import ApiDoc  # noqa: E402
from gorilla_tui.retrieve import tokenize  # noqa: E402
from gorilla_tui.retrieve.dense import FUSION_DEPTH, RRF_K, rrf  # noqa: E402
from gorilla_tui.retrieve.embed import E5Embedder  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex, top_k  # noqa: E402

TITLE = "BM25 field weights, Torch Hub dev split"
HUB = torchhub_dev.HUB
GRID = {"domain": (1, 2, 3), "functionality": (1, 2, 3), "api_name": (0, 1, 2), "api_call": (0, 1)}


def squash(call: str) -> str:
    return "".join(call.split())


def metrics(docs: list[ApiDoc], ranked: list[list[int]], tasks: list) -> tuple[float, float, float]:
    """(domain@1, api@1, api@5) in % of `tasks` for the ranked doc rows."""
    d1 = a1 = a5 = 0
    for rows, t in zip(ranked, tasks, strict=True):
        calls = [squash(docs[r].api_call) for r in rows]
        d1 += bool(rows) and docs[rows[0]].domain == t.domain
        a1 += squash(t.api_call) in calls[:1]
        a5 += squash(t.api_call) in calls[:5]
    return tuple(100 * x / len(tasks) for x in (d1, a1, a5))  # type: ignore[return-value]


def score(weights: dict[str, int], bare: list[ApiDoc], expanded: list[ApiDoc], tasks: list,
          cosines: np.ndarray) -> tuple[float, ...]:  # fmt: skip
    """Not-expanded hybrid (domain@1, api@1, api@5) then expanded BM25 (the same) with `weights`."""
    tokenize.SOURCE_FIELD_WEIGHTS[HUB] = weights
    try:
        out: list[float] = []
        for docs, fuse in ((bare, True), (expanded, False)):
            index = ApiIndex.build(docs)
            ranked = []
            for i, t in enumerate(tasks):
                rows, bm = index._bm25(t.task, None)
                scores = rrf(bm, cosines[i][rows], np.ones(len(rows), bool), FUSION_DEPTH, RRF_K, (1.0, 1.0))
                ranked.append([int(rows[p]) for p, _ in top_k(scores if fuse else bm, 5)])
            out += metrics(docs, ranked, tasks)
        return tuple(out)
    finally:
        tokenize.SOURCE_FIELD_WEIGHTS.pop(HUB, None)


def main(argv: list[str] | None = None) -> int:
    """Score every weight set of GRID and the shipped FIELD_WEIGHTS; print and write the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("GORILLA_TUI_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument("--no-write", action="store_true", help="print only, do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    apibench = Path(args.shared) / "apibench"
    tasks = torchhub_dev.dev_tasks(apibench)
    bare = torchhub_dev.bare_docs(apibench)
    expanded, _ = torchhub_dev.expanded_docs(apibench)
    model = E5Embedder()
    vectors, _ = embed_docs(bare, model)
    cosines = np.asarray(model.embed_queries([t.task for t in tasks])) @ np.asarray(vectors).T

    shipped = dict(tokenize.FIELD_WEIGHTS)
    rows = [("shipped", shipped, score(shipped, bare, expanded, tasks, cosines))]
    print(rows[0], flush=True)
    for values in itertools.product(*GRID.values()):
        w = {**shipped, **dict(zip(GRID, values, strict=True))}
        if w != shipped:
            rows.append(("", w, score(w, bare, expanded, tasks, cosines)))
            print(rows[-1], flush=True)
    best = sorted(rows[1:], key=lambda r: -sum(r[2][:3]))[:8]
    lines = [
        "Script: `python bench/field_weights.py`",
        "",
        f"Torch Hub dev split: {len(tasks)} training questions (even lines). **not expanded**: the "
        "bare docs, BM25 + dense (RRF k = 60, dense weight 1), the stand-in for the hubs without a "
        "training split; **expanded**: the docs with the odd lines attached, BM25 alone (as shipped for "
        f"Torch Hub). {len(rows)} weight sets (a grid over {', '.join(GRID)}; description, questions and "
        "framework 1); the shipped FIELD_WEIGHTS (retrieve/tokenize.py) and the 8 best by the sum of the "
        "not-expanded figures. The eval sets were not used.",
        "",
        "| weights | not expanded domain@1 % | api@1 % | api@5 % | expanded domain@1 % | api@1 % | api@5 % |",
        "|---|---|---|---|---|---|---|",
    ]
    for name, w, figs in [rows[0], *best]:
        label = ", ".join(f"{k} {w[k]}" for k in GRID) + (f" ({name})" if name else "")
        lines.append(f"| {label} | " + " | ".join(f"{x:.1f}" for x in figs) + " |")
    text = "\n".join(lines)
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
