"""Settings for TensorFlow Hub and Hugging Face, chosen on their hand-written dev split (issue 18).

Run: python bench/hub_dev.py [--shared ../shared] [--vector-cache DIR] [--index PATH]
                             [--part retrieval|choice|all] [--weights 1,2] [--report-only] [--no-write]

Tasks: bench/data/hub_dev_tasks.toml (200 TensorFlow Hub and 200 Hugging Face tasks written by hand from the
pools, labelled with the right domain and api_calls; the eval sets were never opened to write them, and chose
nothing here). The index is the default one (every source, vectors for the hubs and APIZoo), built as
`bench/retrieval.py --part perhub` builds it into a temporary GORILLA_TUI_HOME (or --index PATH, a built
index), and each task is searched with its hub named, as APIBench evaluates.

- retrieval: RRF fusion depth x RRF k x the hub's dense weight (retrieve/dense.rrf, BM25 weight 1): domain@1
  (hit 1 has the task's domain), api@1 / api@5 (a labelled call is hit 1 / among the 5 hits), domain@5.
- choice: the 5 hits of each task under each dense weight of --weights are scored once by the embedded model
  (log p(task | doc), model/likelihood.py), and every rule of choice.CHOICE_RULES that needs no
  content-free score chooses from the same scores: api@1 and domain@1 of the chosen hit. Scores go to
  --results/hub_dev_HUB_wW.jsonl; --report-only rebuilds the tables from them.
Writes the section "Hub dev split (TensorFlow Hub, Hugging Face)" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import publish  # noqa: E402

from gorilla_tui.retrieve import dense as dense_mod  # noqa: E402
from gorilla_tui.retrieve.bm25 import top_k  # noqa: E402
from gorilla_tui.retrieve.fusion import FusionSettings  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "Hub dev split (TensorFlow Hub, Hugging Face)"
TASKS = ROOT / "bench" / "data" / "hub_dev_tasks.toml"
HUBS = ("tensorflowhub", "huggingface")
#: The retrieval grid: fusion depth (100000: every doc), RRF k, the hub's dense weight.
DEPTHS = (20, 50, 200, 100_000)
RRF_KS = (30, 60, 100)
WEIGHTS = (0.5, 1.0, 1.5, 2.0, 3.0, 5.0)
#: The choice rules compared (choice.CHOICE_RULES); the calibrated ones read each hit's recorded
#: log p(CONTENT_FREE_TASK | doc) ("free"; files written before it was recorded show "-" for them).
RULES = ("first", "likelihood", "rrf", "domain-vote", "calibrated", "domain-vote-calibrated")


def squash(call: str) -> str:
    return "".join(call.split())


def load_tasks(path: Path = TASKS) -> list[dict]:
    """The labelled [[task]] entries of the dev split (hub, domain, task, calls, id)."""
    return tomllib.loads(path.read_text(encoding="utf-8"))["task"]


def build_index(args: argparse.Namespace) -> ApiIndex:
    """--index, or the default index built from the shared data with its vectors (as --part perhub)."""
    if args.vector_cache:
        os.environ["GORILLA_TUI_VECTOR_CACHE"] = str(Path(args.vector_cache).expanduser())
    dense_mod.QUERY_CACHE = 100_000
    if args.index:
        return ApiIndex.load(Path(args.index))
    from gorilla_tui.build.refresh import embed_index, refresh

    os.environ["GORILLA_TUI_HOME"] = tempfile.mkdtemp(prefix="gorilla-bench-hubdev-")
    shared = Path(args.shared)
    report = refresh(mirrors=[shared / "apibench" / "api", shared])
    embed_index(report.index)
    return ApiIndex.load(report.path)


def figures(index: ApiIndex, ranked: list[list[int]], items: list[dict]) -> dict[str, float]:
    """domain@1, api@1, api@5, domain@5 in % of `items`, for index rows ranked best first per task."""
    m = {"domain@1": 0, "api@1": 0, "api@5": 0, "domain@5": 0}
    for rows, t in zip(ranked, items, strict=True):
        calls = {squash(c) for c in t["calls"]}
        got = [squash(index.docs[r].api_call) for r in rows[:5]]
        domains = [index.docs[r].domain for r in rows[:5]]
        m["domain@1"] += bool(domains) and domains[0] == t["domain"]
        m["api@1"] += bool(got) and got[0] in calls
        m["api@5"] += bool(calls & set(got))
        m["domain@5"] += t["domain"] in domains
    return {key: 100 * v / len(items) for key, v in m.items()}


def read_rows(path: Path) -> list[dict]:
    """The scored rows of a score file (score_hits' JSON lines: id, lm, api, dom, group)."""
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]


def picked_cell(rows: list[dict], picks: list[int]) -> str:
    """ "api@1 / domain@1" in % (one decimal) when hit picks[i] is chosen for rows[i]."""
    api = sum(bool(r["api"]) and r["api"][p] for r, p in zip(rows, picks, strict=True))
    dom = sum(bool(r["dom"]) and r["dom"][p] for r, p in zip(rows, picks, strict=True))
    return f"{100 * api / len(rows):.1f} / {100 * dom / len(rows):.1f}"


def _ranked(scored: list, fused_of) -> list[list[int]]:
    """The 5 best index rows per task of `scored` ((rows, bm25, cosine, mask) per task) by fused_of(bm25,
    cosine, mask)."""
    return [[int(rows[p]) for p, _ in top_k(fused_of(b, c, m), 5)] for rows, b, c, m in scored]


def _row(hub: str, label: str, f: dict[str, float]) -> str:
    return f"| {hub} | {label} | " + " | ".join(f"{f[key]:.1f}" for key in f) + " |"


def retrieval(index: ApiIndex, tasks: list[dict]) -> list[str]:
    """The grid per hub: BM25 and dense alone, the shipped fusion, and the five best settings by
    (domain@1, api@1, api@5). Markdown lines."""
    lines = [
        "| hub | ranking | domain@1 % | api@1 % | api@5 % | domain@5 % |",
        "|---|---|---|---|---|---|",
    ]
    shipped = index.fusion_settings()
    for hub in HUBS:
        items = [t for t in tasks if t["hub"] == hub]
        scored = []
        for t in items:
            rows, bm25 = index._bm25(t["task"], hub)
            cos, mask = index.dense.scores(t["task"], rows)
            scored.append((rows, bm25, cos, mask))
        lines.append(_row(hub, "BM25 alone", figures(index, _ranked(scored, lambda b, c, m: b), items)))
        dense_alone = _ranked(scored, lambda b, c, m: np.where(m, c + 2, 0))
        lines.append(_row(hub, "dense alone", figures(index, dense_alone, items)))
        grid = {}
        for depth in DEPTHS:
            for k_rrf in RRF_KS:
                for w in WEIGHTS:
                    fused = _ranked(
                        scored, lambda b, c, m, d=depth, k=k_rrf, w=w: dense_mod.rrf(b, c, m, d, k, (1.0, w))
                    )
                    grid[(depth, k_rrf, w)] = figures(index, fused, items)
        now = (dense_mod.FUSION_DEPTH, dense_mod.RRF_K, shipped.weight(hub))
        best = sorted(grid, key=lambda s: tuple(grid[s][x] for x in ("domain@1", "api@1", "api@5")))[::-1][:5]
        for setting in [now, *[s for s in best if s != now]]:
            depth, k_rrf, w = setting
            label = f"RRF depth {'all' if depth >= 100_000 else depth}, k {k_rrf}, dense weight {w:g}"
            lines.append(_row(hub, label + (" (shipped)" if setting == now else ""), grid[setting]))
        print("\n".join(lines[-7:]), flush=True)
    return lines


def score_hits(index: ApiIndex, tasks: list[dict], hub: str, weight: float, out: Path) -> list[dict]:
    """Score the 5 hits of each task of `hub` with the embedded model, `hub` fused with dense weight
    `weight`; one JSON line per task in `out`: lm (nats per hit), free (log p(CONTENT_FREE_TASK | doc) per
    hit, nats), api / domain (whether each hit is right), group (choice.domain_groups)."""
    from gorilla_tui import services
    from gorilla_tui.config import Settings
    from gorilla_tui.model import choice, likelihood

    shipped = index.fusion_settings()
    index.fusion = shipped.with_source(hub, weight=weight)
    # one llama.cpp thread: 2-thread barriers spin on a busy machine (bench/choice_dev.py)
    backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))
    rows = []
    with out.open("w", encoding="utf-8") as fh:
        for t in (t for t in tasks if t["hub"] == hub):
            docs = [h.doc for h in index.search(t["task"], k=5, hub=hub)]
            calls = {squash(c) for c in t["calls"]}
            lm = likelihood.query_likelihoods(backend, t["task"], docs) if len(docs) > 1 else []
            free = likelihood.content_free_scores(backend, docs) if len(docs) > 1 else []
            rows.append({"id": t["id"], "lm": lm, "free": free,
                         "api": [squash(d.api_call) in calls for d in docs],
                         "dom": [d.domain == t["domain"] for d in docs],
                         "group": choice.domain_groups(docs)})  # fmt: skip
            fh.write(json.dumps(rows[-1]) + "\n")
    index.fusion = shipped
    return rows


def choice_table(results: Path, weights: list[float], shipped: FusionSettings) -> list[str]:
    """api@1 / domain@1 of each rule per hub and dense weight, from the scored hits in `results`."""
    from gorilla_tui.model import choice

    lines = [
        "| hub | dense weight | tasks | right call in hits % | "
        + " | ".join(f"`{r}`{' (T = 1)' if r == 'domain-vote' else ''} api@1 / domain@1 %" for r in RULES)
        + " |",
        "|---|---|---|---|" + "---|" * len(RULES),
    ]
    for hub in HUBS:
        for w in weights:
            path = results / f"hub_dev_{hub}_w{w:g}.jsonl"
            if not path.exists():
                continue
            rows = read_rows(path)
            cells = []
            for rule in RULES:
                if rule in choice.NEEDS_FREE and not all(r.get("free") or not r["lm"] for r in rows):
                    cells.append("-")  # recorded before the content-free scores were
                    continue
                picks = [
                    choice.choose(r["lm"], r.get("free"), rule, r["group"]) if r["lm"] else 0 for r in rows
                ]
                cells.append(picked_cell(rows, picks))
            tag = " (shipped)" if w == shipped.weight(hub) else ""
            in_hits = 100 * sum(any(r["api"]) for r in rows) / len(rows)
            lines.append(f"| {hub} | {w:g}{tag} | {len(rows)} | {in_hits:.1f} | " + " | ".join(cells) + " |")
    return lines


#: Temperatures of the domain vote compared (choice.domain_vote: each hit's log p / T summed per domain).
TEMPERATURES = (1.0, 1.5, 2.0, 3.0, 4.0, 6.0, 10.0)


def vote_table(results: Path, shipped: FusionSettings) -> list[str]:
    """api@1 / domain@1 of `domain-vote` at each of TEMPERATURES per hub, from the scored hits of the hub's
    shipped dense weight in `results` (the same scores as choice_table)."""
    from gorilla_tui.model import choice

    temps = choice.vote_temperatures()
    lines = [
        "| hub | tasks | " + " | ".join(f"T = {t:g}" for t in TEMPERATURES) + " |",
        "|---|---|" + "---|" * len(TEMPERATURES),
    ]
    for hub in HUBS:
        path = results / f"hub_dev_{hub}_w{shipped.weight(hub):g}.jsonl"
        if not path.exists():
            continue
        rows = read_rows(path)
        cells = []
        for t in TEMPERATURES:
            picks = [choice.domain_vote(r["lm"], r["group"], t) if r["lm"] else 0 for r in rows]
            best = " (shipped)" if t == temps.get(hub, choice.VOTE_TEMPERATURE) else ""
            cells.append(picked_cell(rows, picks) + best)
        lines.append(f"| {hub} | {len(rows)} | " + " | ".join(cells) + " |")
    return lines


#: What the split decided, and the one check on the eval sets after each decision.
DECISION = (
    "Decision (2026-12-02): TensorFlow Hub's dense side embeds each doc's description alone (index/*.toml "
    "`passage`, retrieve/embed.py) and weighs 5 in the fusion with its hub named (at most 1 with no hub "
    "named, retrieve/dense.py POOLED_DENSE_CAP). With the fields text (domain, api_name, functionality, "
    "description) the split gave, at weight 1: retrieval 55.5 / 56.5 / 75.5 % (domain@1 / api@1 / api@5), "
    "after `domain-vote` api@1 / domain@1 59.0 / 60.0 %; at weight 2: 58.0 / 59.5 / 74.5 %, 60.5 / 61.5 %. "
    "The description text: weight 1 60.0 / 60.0 / 82.5 %, 3 64.5 / 64.0 / 82.5 %, 5 the shipped rows "
    "above. Checked once on the eval set after that choice (`bench/retrieval.py --part perhub`, "
    "`bench/apibench.py --retrievers hybrid`): domain@1 65.8 -> 72.2 %, api@1 39.4 -> 47.4 %; gorilla "
    "73.84 -> 74.85 %, strict 46.22 -> 48.55 %. Before that, weight 2 with the fields text had been "
    "checked once and not kept (gorilla 73.84 -> 74.27 %, strict 46.22 -> 45.20 %, retrieval api@1 39.4 "
    "-> 38.1 %). Hugging Face keeps the fields text and weight 1: no setting beats it by more than 1 point, "
    "and the description text lost (domain@1 58.0 -> 53.5 %). Both hubs' dev splits choose `domain-vote`, "
    "the shipped rule (the Torch Hub dev split chose it first; at TensorFlow Hub's new setting `rrf` and "
    "the untempered vote are within 2 tasks of each other, and the tempered vote below leads both); "
    "tempering the vote (log p / T) on the TensorFlow Hub dev tasks "
    "at weight 1 with the fields text: T = 2 moved one task (api@1 / domain@1 59.5 / 60.5 against 59.0 / "
    "60.0 %), T = 3 and 5 lost (58.5 / 59.0, 59.0 / 58.0 %), so T stayed 1 then. "
    "Decision (2026-12-02, later): at TensorFlow Hub's shipped retrieval (description text, weight 5) the "
    "split prefers a tempered vote at every T from 1.5 to 10 (table above; 8 tasks gain the right domain at "
    "T = 3, 4 lose it), so TensorFlow Hub votes at T = 3 (index/*.toml `vote_temperature`, "
    "model/likelihood.py vote_temperature_for: the temperature of hit 1's source); Hugging Face loses with "
    "any T above 1 and keeps 1. The scores of this decision were taken once with likelihood.scoring_context "
    "and the shipped hits (the files in --results; the tables above are --report-only over them). Checked "
    "once on the eval set after this choice (`bench/apibench.py --retrievers hybrid`, TensorFlow Hub): "
    "gorilla 74.85 %, strict 48.11 %; the plain vote over the same run's recorded scores (the 476 tasks "
    "whose hits a plain search rebuilds; the others kept as answered) gives gorilla 74.85 %, strict "
    "48.84 %: no gain on held-out tasks (33 answers differ); kept, as the dev split chose it and the eval "
    "set chooses nothing. "
    "Decision (2026-12-03; the tables above are now over scores recorded on a CPU with Intel AMX, weight "
    "repacking off, llama.cpp's other CPU kernel path than the rows shown here before, which moved each "
    "rule by up to 2 points, bench/kernel_paths.py): Hugging Face votes on calibrated scores "
    "(`domain-vote-calibrated`: each hit's "
    'log p(task | doc) minus log p("N/A" | doc), contextual calibration, summed per domain; index/*.toml '
    "`choice_rule`): on its dev tasks api@1 / domain@1 51.0 / 67.0 -> 53.0 / 68.0 % (the content-free "
    "scores were added to the recorded rows of the shipped hits; scaling them by 0.5 to 1.1 gives 67.5 to "
    "68.0 % domain@1, 0.25 or less and 1.5 or more lose, so the plain difference is kept). Probes that did "
    "not help Hugging Face (same scores): a prior from the E5 cosine between the task and each domain's "
    "name (every weight loses, 67.0 -> 66.5 % and below), scoring against the domain alone or domain and "
    "functionality (51.0 % / 57.5 % alone, every mix with the shipped scores loses), a 400-character "
    "description in the scoring context (65.0 %). TensorFlow Hub keeps its uncalibrated vote at T = 3: "
    "calibrated, it loses there (69.0 / 71.0 -> 68.5 / 69.5 %; at T = 1 68.5 / 68.5 %)."
)


def main(argv: list[str] | None = None) -> int:
    """Run the parts asked for, print and write the section."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("GORILLA_TUI_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument(
        "--vector-cache", default="", help="folder of the vector cache (GORILLA_TUI_VECTOR_CACHE)"
    )
    ap.add_argument("--index", default="", help="a built default index to search (else one is built)")
    ap.add_argument("--part", choices=("retrieval", "choice", "all"), default="all")
    ap.add_argument("--weights", default="1,2", help="dense weights whose hits the model scores (choice)")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="scores folder")
    ap.add_argument("--report-only", action="store_true", help="choice tables from --results, no model")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    tasks = load_tasks()
    weights = [float(w) for w in args.weights.split(",")]
    index = build_index(args)
    n = {hub: sum(t["hub"] == hub for t in tasks) for hub in HUBS}
    lines = [
        "Script: `python bench/hub_dev.py`",
        "",
        f"Dev split: bench/data/hub_dev_tasks.toml ({n['tensorflowhub']} TensorFlow Hub and "
        f"{n['huggingface']} Hugging Face tasks written by hand from the pools, labelled with the right "
        "domain and api_calls; "
        "the APIBench eval sets were never opened to write them and chose nothing here). The default index, "
        "each task searched with its hub named. domain@1: hit 1 (or the chosen hit) has the task's domain; "
        "api@1: it is one of the task's calls; api@5 / domain@5: among the 5 hits.",
    ]
    if args.part in ("retrieval", "all"):
        lines += ["", "**Retrieval** (the shipped fusion and the five best settings of the grid: RRF depth "
                  f"{', '.join('all' if d >= 100_000 else str(d) for d in DEPTHS)} x k "
                  f"{', '.join(map(str, RRF_KS))} x dense weight {', '.join(f'{w:g}' for w in WEIGHTS)}):",
                  "", *retrieval(index, tasks)]  # fmt: skip
    if args.part in ("choice", "all"):
        args.results.mkdir(parents=True, exist_ok=True)
        start = time.perf_counter()
        if not args.report_only:
            for hub in HUBS:
                for w in weights:
                    score_hits(index, tasks, hub, w, args.results / f"hub_dev_{hub}_w{w:g}.jsonl")
        seconds = time.perf_counter() - start
        timing = "" if args.report_only else f", {seconds:.0f} s for every hub and weight"
        table = choice_table(args.results, weights, index.fusion_settings())
        lines += ["", f"**Choice** (k = 5 hits scored once by the embedded model{timing}; each rule chooses "
                  "from the same scores):", "", *table]  # fmt: skip
        lines += ["", "**Vote temperature** (`domain-vote` with each hit's log p(task | doc) divided by T "
                  "before the sum per domain, the same scores at each hub's shipped dense weight; api@1 / "
                  "domain@1 %):",
                  "", *vote_table(args.results, index.fusion_settings())]  # fmt: skip
    lines += ["", DECISION]
    return publish(TITLE, "\n".join(lines), not args.no_write)


if __name__ == "__main__":
    raise SystemExit(main())
