"""How select mode chooses among the hits, on the Torch Hub dev split (issue 18, a calibrated choice).

Run: python bench/choice_dev.py [--shared ../shared] [--limit 150] [--no-write]
Protocol of bench/rerank_dev.py: APIBench's Torch Hub *training* split, --limit even lines spread evenly as
dev tasks (never in the index), searched in two indexes: "expanded" (the odd lines attached to the docs, doc
expansion; BM25) and "not expanded" (the bare docs, BM25 + dense: the stand-in for hubs without a training
split); the eval sets are not used. For each dev task the 5 hits are scored once with the embedded model:
log p(task | doc) and log p(CONTENT_FREE_TASK | doc) (model/likelihood.py). Every rule of
likelihood.CHOICE_RULES is then applied to the same scores, so the rules differ only in how they choose.
Scores: api@1 (the chosen api_call is the ground truth's, whitespace removed) and domain@1 (the chosen doc
has the ground truth's domain). The rows of bench/everyday.py's dev half are added from its results file
when present. Writes the section "Choice rule, dev splits" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import torchhub_dev  # noqa: E402
from _report import publish  # noqa: E402

from gorilla_tui import services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402
from gorilla_tui.evaluate import run as evalrun  # noqa: E402
from gorilla_tui.model import likelihood  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "Choice rule, dev splits"
HUB = torchhub_dev.HUB


def squash(call: str) -> str:
    return "".join(call.split())


def expanded_index(apibench: Path) -> ApiIndex:
    """The Torch Hub pool with the training split's odd lines attached to the docs (BM25 only;
    bench/torchhub_dev.py)."""
    docs, _ = torchhub_dev.expanded_docs(apibench)
    return ApiIndex.build(docs)


def unexpanded_index(apibench: Path) -> ApiIndex:
    """The bare Torch Hub pool, BM25 + the packaged dense embedder (hybrid, dense weight 1 as for the hubs
    without a training split); doc vectors from the shared vector cache when present."""
    import numpy as np

    from gorilla_tui.build.refresh import embed_docs
    from gorilla_tui.retrieve.dense import W_DENSE
    from gorilla_tui.retrieve.embed import E5Embedder

    docs = torchhub_dev.bare_docs(apibench)
    index = ApiIndex.build(docs)
    # The hubs this split stands in for fuse with the default dense weight; Torch Hub's own manifest ships
    # 0.01 (its docs are expanded), which would make this split BM25 alone (as it was before this line).
    index.fusion = index.fusion_settings().with_source(HUB, weight=W_DENSE)
    model = E5Embedder()
    vectors, _ = embed_docs(docs, model)
    index.dense.attach(vectors, np.ones(len(docs), bool), {"name": model.name}, model)
    return index


def score_split(dev: list, index: ApiIndex, backend: object, k: int) -> list[dict]:
    """Per dev task: log p(task | doc) and log p(CONTENT_FREE_TASK | doc) of its k hits, and which hits have
    the ground truth's api_call / domain."""
    rows = []
    for t in dev:
        hits = index.search(t.task, k=k, hub=HUB)
        hit_docs = [h.doc for h in hits]
        lm = likelihood.query_likelihoods(backend, t.task, hit_docs) if len(hits) > 1 else []
        free = likelihood.content_free_scores(backend, hit_docs) if lm else []
        rows.append(
            {
                "id": t.question_id,
                "lm": lm,
                "free": free,
                "api": [squash(d.api_call) == squash(t.api_call) for d in hit_docs],
                "domain": [d.domain == t.domain for d in hit_docs],
                "group": likelihood.domain_groups(hit_docs),
            }
        )
    return rows


def decision(table: dict[str, tuple[float, ...]], rules: dict[str, str]) -> str:
    """The shipped decision in words, with the figures of `table` (rule -> expanded api@1, domain@1, not
    expanded api@1, domain@1, everyday dev) and the manifests' rules `rules` (likelihood.choice_rules())."""
    d, u = likelihood.CHOICE_RULE, sorted(set(rules.values()))
    shown = ", ".join(f"{s}: {r}" for s, r in sorted(rules.items())) or "none"

    def fig(rule: str, at: slice) -> str:
        return " / ".join(f"{x:.1f}" for x in table[rule][at])

    lines = [
        f"Decision (model/likelihood.py `rule_for`): docs expanded with training questions, and sources "
        f"whose manifest names no rule, use `{d}` (expanded api@1 / domain@1: {fig(d, slice(0, 2))}; "
        f"library {table[d][4]:.1f}, everyday dev {table[d][5]:.1f}). The manifests' `choice_rule` "
        f"({shown}) applies to their docs without training questions:"
    ]
    for rule in u:
        lines.append(
            f"on the not-expanded split `{rule}` scores {fig(rule, slice(2, 4))} against "
            f"{fig(d, slice(2, 4))} for `{d}` (api@1 / domain@1)."
        )
    first, fused = table["first"][4], table[d][4]
    verdict = (
        "the model adds nothing measurable there, so python-env keeps the one rule"
        if abs(first - fused) < 5
        else ("the first hit is better there" if first > fused else "the model helps there")
    )
    lines.append(
        f"On the library tasks the retriever's first hit alone scores {first:.1f} against {fused:.1f} "
        f"for `{d}`: {verdict}."
    )
    return " ".join(lines)


def score_library(backend: object, k: int) -> list[dict]:
    """Per task of tests/data/stdlib_tasks.toml: log p scores of its k python-env hits (the pool alone) and
    which hits are an expected api_name (as "api"; "domain" is the same list)."""
    import tomllib

    from gorilla_tui.pool.pyenv.source import load_python_env

    index = ApiIndex.build(load_python_env("stdlib").docs)
    tasks = tomllib.loads((ROOT / "tests" / "data" / "stdlib_tasks.toml").read_text())["task"]
    rows = []
    for t in tasks:
        docs = [h.doc for h in index.search(t["query"], k=k)]
        lm = likelihood.query_likelihoods(backend, t["query"], docs) if len(docs) > 1 else []
        free = likelihood.content_free_scores(backend, docs) if lm else []
        right = [d.api_name in t["expected"] for d in docs]
        rows.append(
            {"query": t["query"], "lm": lm, "free": free, "api": right, "domain": right,
             "group": likelihood.domain_groups(docs)}
        )  # fmt: skip
    return rows


def main(argv: list[str] | None = None) -> int:
    """Score the dev tasks' hits once, apply every choice rule, print and write the table."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared/ data folder")
    ap.add_argument("--limit", type=int, default=150, help="dev tasks (evenly spaced over the even lines)")
    ap.add_argument("-k", type=int, default=5, help="hits per task")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="results folder")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)

    apibench = args.shared / "apibench"
    dev = evalrun.select_tasks(torchhub_dev.dev_tasks(apibench), args.limit, "spread")
    # one llama.cpp thread: 2-thread barriers spin on a busy machine
    backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))
    start = time.perf_counter()
    splits = {"expanded": score_split(dev, expanded_index(apibench), backend, args.k)}
    splits["not expanded"] = score_split(dev, unexpanded_index(apibench), backend, args.k)
    library = score_library(backend, args.k)
    seconds = time.perf_counter() - start
    args.results.mkdir(parents=True, exist_ok=True)
    for name, rows in [*splits.items(), ("library", library)]:
        path = args.results / f"choice_dev_torchhub_{name.replace(' ', '_')}.jsonl"
        path.write_text("".join(json.dumps(r) + "\n" for r in rows))

    def pick(r: dict, rule: str) -> int:
        return likelihood.choose(r["lm"], r["free"], rule, r["group"]) if r["lm"] else 0

    def pct(rows: list[dict], key: str, rule: str) -> float:
        ok = [bool(r[key]) and r[key][pick(r, rule)] for r in rows]
        return 100 * sum(ok) / len(ok)

    everyday = args.results / "everyday_default.jsonl"
    ev = []
    if everyday.exists():
        from everyday import rule_right

        ev = [json.loads(x) for x in everyday.read_text().splitlines() if x.strip()]
        ev = [r for r in ev if r["split"] == "dev"]
    n = len(splits["expanded"])
    lines = [
        f"Script: `python bench/choice_dev.py --limit {args.limit}`",
        "",
        f"Torch Hub dev split: {n} questions of APIBench's Torch Hub training split (even lines, spread "
        f"evenly), k = {args.k} hits each, scored once by the embedded model ({seconds:.0f} s for both "
        "indexes); every rule chooses from the same scores. **expanded**: the odd lines' questions are "
        "attached to the docs (doc expansion, as shipped for Torch Hub), BM25 hits. **not expanded**: the "
        "same questions against the bare docs, hybrid hits (BM25 + dense, weight 1): the stand-in for the "
        "hubs whose training split is not here (TensorFlow Hub, Hugging Face) and for any hub whose "
        "questions were not found. Library: tests/data/stdlib_tasks.toml (hand-written standard-library "
        f"tasks, {len(library)}), the python-env pool alone, BM25 hits (a right hit: an expected api_name). "
        "Everyday dev: the dev half of bench/everyday_tasks.toml in the default "
        "setting (all sources, no hub named), from bench/everyday.py's results. The eval sets were not used.",
        "",
        "| rule | expanded api@1 % | expanded domain@1 % | not expanded api@1 % | not expanded domain@1 % "
        "| library right@1 % | everyday dev right % |",
        "|---|---|---|---|---|---|---|",
    ]
    table = {}
    for rule in likelihood.CHOICE_RULES:
        e = 100 * sum(rule_right(r, rule) for r in ev) / len(ev) if ev else float("nan")
        figures = [pct(rows, key, rule) for rows in splits.values() for key in ("api", "domain")]
        table[rule] = (*figures, pct(library, "api", rule), e)
        lines.append(f"| {rule} | " + " | ".join(f"{x:.1f}" for x in table[rule]) + " |")
    lines += [
        "",
        "Rules (model/likelihood.py `choose`): first = the retriever's first hit, no model; likelihood = "
        'argmax log p(task | doc); calibrated = argmax log p(task | doc) - log p("N/A" | doc) (contextual '
        "calibration, Zhao et al. 2021, arXiv 2102.09690); rrf / rrf-calibrated = reciprocal rank fusion "
        "(k = 60) of the retrieval rank with the likelihood / calibrated rank, ties to the retrieval rank; "
        "domain-vote = the hits' likelihoods summed per domain (log sum exp), then the best hit of the most "
        "likely domain (`domain_vote`). "
        "Per-token averages are not a rule here: every hit is scored on the same task tokens, so they "
        "order the hits exactly as the sums do.",
        "",
        decision(table, likelihood.choice_rules()),
    ]
    text = "\n".join(lines)
    print(json.dumps({r: v for r, v in table.items()}))
    return publish(TITLE, text, not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
