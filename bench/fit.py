"""The fit judgment (issue 38 item 1, pipeline_fit.py): does the index have an API for this task? Measured
signals and the fitted rule, dev / test.

Run: python bench/fit.py [--shared ../shared] [--results DIR] [--collect bfcl,index] [--stride-simple S]
     [--index-splits dev] [--refit 0,1,2,3] [--report-only] [--no-write]
Collects, per (task, doc), the signals pipeline_fit.py can compute (resumable, --results/fit_*.jsonl):

- yn: log p(" Yes") - log p(" No") of the model asked "Can the function do the request?" after a few-shot
  prefix (model/fit_question.py);
- pmi: (log p(task | doc) - log p(task | no doc)) / task tokens (model/likelihood.py, fit_question.py);
- cov: the share of the task's BM25 terms the doc's text holds (retrieve/fit.py coverage);
- on the default index also the retrieval rule of retrieve/fit.py (match_score: BM25 coverage over the
  sources, dense cosine, log p(task | doc) per token).

Item sets:
- BFCL (../shared/bfcl, each question with its own functions): irrelevance (none fits: label out; the
  function judged is the one that fits best by the rule, the worst case), simple and multiple (label in: the
  ground-truth function). dev = even ids, test = odd ids.
- The default index (GORILLA_TUI_HOME): everyday in-pool tasks (bench/everyday_tasks.toml, only those the
  pipeline answers right: the right answers must keep fitting), out-of-pool tasks
  (bench/data/out_of_pool_tasks.toml and bench/data/fit_out_of_pool_tasks.toml, the latter some asked over
  the standard library alone: "detect objects in a photo"); each as `ask` runs it, the chosen doc judged.

Fits a logistic regression on the dev items (both settings together) and two thresholds: "nothing fits"
below LOW, "unsure" below HIGH; reports the test items. Writes the section "Fit judgment" of
docs/benchmarks.md.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import numpy as np
import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import REPORT, Figure, parser, publish  # noqa: E402
from out_of_pool import Model, auc, fit_logistic, threshold_for  # noqa: E402

from gorilla_tui import pipeline_fit  # noqa: E402
from gorilla_tui.pool.apidoc import ApiDoc  # noqa: E402
from gorilla_tui.retrieve.fit import (  # noqa: E402
    FIT_MODEL,
    dense_disagreement,
    name_coverage,
    names_missed,
    param_coverage,
)
from gorilla_tui.types import Hit  # noqa: E402

TITLE = "Fit judgment"
OOP = ROOT / "bench" / "data" / "out_of_pool_tasks.toml"
OOP_MORE = ROOT / "bench" / "data" / "fit_out_of_pool_tasks.toml"
EVERYDAY = ROOT / "bench" / "everyday_tasks.toml"


def read_rows(path: Path) -> dict[str, dict[str, Any]]:
    """The rows already collected in `path` by key."""
    done: dict[str, dict[str, Any]] = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["key"]] = row
    return done


def doc_signals(backend: Any, task: str, doc: Any, lm: float | None = None) -> dict[str, Any]:
    """Every signal of `doc` for `task`, the model's too (pipeline_fit.signals)."""
    from gorilla_tui.pipeline_fit import signals

    return signals(backend, task, doc, lm, model=True)


def collect_bfcl(shared: Path, out: Path, stride_simple: int, splits: tuple[str, ...]) -> None:
    """Signals of BFCL questions over their own functions (every function of an irrelevance question, the
    ground-truth function of simple and multiple)."""
    from gorilla_tui import services
    from gorilla_tui.config import Settings
    from gorilla_tui.evaluate import bfcl

    done = read_rows(out)
    backend = services.load_backend(Settings())
    lists = []
    for category, stride in (("irrelevance", 1), ("simple", stride_simple), ("multiple", 2 * stride_simple)):
        questions = [q for q in bfcl.load_questions(shared / "bfcl", category) if q.split in splits]
        lists.append([(category, q) for q in questions[::stride]])
    order = interleave(lists)  # a run cut short still has every category
    with out.open("a", encoding="utf-8") as f:
        for n, (category, q) in enumerate(order, start=1):
            if True:
                docs = bfcl.question_docs(q.functions)
                names = {name for call in q.truth or [] for name in call}
                for doc in docs:
                    fn = doc.api_name
                    if category != "irrelevance" and fn not in names:
                        continue
                    key = f"{q.id}:{fn}"
                    if key in done:
                        continue
                    t0 = time.perf_counter()
                    row = {
                        "key": key,
                        "id": q.id,
                        "set": f"bfcl_{category}",
                        "split": q.split,
                        "label": "out" if category == "irrelevance" else "in",
                        "fn": fn,
                        **doc_signals(backend, q.text, doc),
                    }
                    row["seconds"] = round(time.perf_counter() - t0, 3)
                    f.write(json.dumps(row) + "\n")
                    f.flush()
                print(f"{category} {n}/{len(order)}", file=sys.stderr, flush=True)


def interleave(lists: list[list[Any]]) -> list[Any]:
    """The items of `lists` taken in turn, one of each list at a time."""
    out = []
    for i in range(max((len(x) for x in lists), default=0)):
        out.extend(x[i] for x in lists if i < len(x))
    return out


def index_tasks() -> list[dict[str, Any]]:
    """The default-index tasks: everyday (in) and out-of-pool (out), with split and an optional hub, in turn
    (interleave: a run cut short has some of each set)."""
    tasks: list[dict[str, Any]] = []
    for t in tomllib.loads(EVERYDAY.read_text(encoding="utf-8"))["task"]:
        tasks.append(
            {
                "id": t["id"],
                "set": "everyday",
                "split": t["split"],
                "label": "in",
                "task": t["task"],
                "spec": t,
                "hub": "",
            }
        )
    lists = [tasks]
    for path in (OOP_MORE, OOP):
        rows = tomllib.loads(path.read_text(encoding="utf-8"))["task"]
        lists.append(
            [
                {
                    "id": t["id"],
                    "set": "out_of_pool",
                    "split": t["split"],
                    "label": "out",
                    "task": t["task"],
                    "hub": t.get("hub", ""),
                }
                for t in rows
            ]
        )
    return interleave(lists)


def collect_index(out: Path, model_signals: bool = False, splits: tuple[str, ...] = ("dev", "test")) -> None:
    """Ask each default-index task of `splits` as `ask` does (fill off: the choice is the same) and record
    the chosen doc's signals, whether the answer is right (everyday) and the retrieval rule's score."""
    from everyday import is_right

    from gorilla_tui import services
    from gorilla_tui.config import Settings

    done = read_rows(out)
    index = services.load_index()
    backend = services.load_backend(Settings())
    pipelines: dict[str, Any] = {}
    rows_of = {id(d): i for i, d in enumerate(index.docs)}
    tasks = [t for t in index_tasks() if t["split"] in splits]
    with out.open("a", encoding="utf-8") as f:
        for n, t in enumerate(tasks, start=1):
            if t["id"] in done:
                continue
            hub = t["hub"]
            if hub not in pipelines:
                settings = Settings(k=5, mode="select", select_by="likelihood", fill=False, hub=hub)
                pipelines[hub] = services.build_pipeline(settings, index, backend)
            pipeline = pipelines[hub]
            t0 = time.perf_counter()
            proposal = pipeline.ask(t["task"])
            chosen = proposal.verdict.matched
            doc = next(
                (h.doc for h in proposal.hits if h.doc.call.strip() == proposal.api_call.strip()), None
            )
            row = {
                "key": t["id"],
                "id": t["id"],
                "set": t["set"],
                "split": t["split"],
                "label": t["label"],
                "hub": hub,
                "call": proposal.api_call,
                "api": doc.api_name if doc else "",
                "right": bool(t.get("spec")) and is_right(t["spec"], doc) if doc else False,
                "matched": getattr(chosen, "api_name", ""),
                **proposal.fit_signals,
            }
            if doc is not None and model_signals and row.get("yn") is None:  # the model's, beside the rule's
                lm = next((h.lm_score for h in proposal.hits if h.doc is doc), None)
                row.update(doc_signals(backend, t["task"], doc, lm))
            row["seconds"] = round(time.perf_counter() - t0, 3)
            row["timings"] = proposal.timings
            row.update(index_extras(index, rows_of, t["task"], doc, proposal.hits))
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(
                f"{n}/{len(tasks)} {t['id']} {row.get('api')} yn={row.get('yn')}", file=sys.stderr, flush=True
            )


def index_extras(index: Any, rows_of: dict[int, int], task: str, doc: Any, hits: list[Any]) -> dict[str, Any]:
    """What the fit rule may read beside pipeline_fit's signals, recorded so that rules are compared offline:
    the index-wide retrieval signals (retrieve/fit.py retrieval_signals), the hits (source, API name, BM25,
    cosine, log p(task | doc), domain), the chosen doc's source, place among the hits and cosine, and the
    best cosine per source."""
    out: dict[str, Any] = {"sig": dict(index.fit_signals(task))}
    out["hits"] = [[h.doc.source, h.doc.api_name, h.score, h.dense, h.lm_score, h.doc.domain] for h in hits]
    out["source"] = doc.source if doc is not None else ""
    out["chosen_hit"] = next((n for n, h in enumerate(hits) if h.doc is doc), None)
    scored = index.dense.scores(task, np.arange(len(index.docs))) if index.dense is not None else None
    if scored is not None:
        cos, mask = scored
        best: dict[str, float] = {}
        for i in np.flatnonzero(mask):
            src = index.docs[i].source
            best[src] = max(best.get(src, -1.0), float(cos[i]))
        out["src_cos"] = best
        row = rows_of.get(id(doc)) if doc is not None else None
        out["doc_cos"] = float(cos[row]) if row is not None and mask[row] else None
    return out


#: Highest share of the in-pool right answers of the dev items that "nothing fits" may flag (the target is
#: <= 5 % on test), and that "unsure" or "nothing" may flag (HIGH).
MAX_NOTHING_IN = 0.03
MAX_UNSURE_IN = 0.15
#: The L2 penalty of the logistic regressions (standardised features): the dev items of some models are
#: few (20-40) and separable, where a small penalty gives weights that move with every item.
L2 = 1.0
#: The logistic's probability of "fits" (classes weighted alike) below which an answer is "nothing fits",
#: and "unsure".
NOTHING_P = 0.3
UNSURE_P = 0.7


def logit(p: float) -> float:
    return float(np.log(p / (1 - p)))


#: The signals measured.
SIGNALS = (
    "yn",
    "pmi",
    "lm_tok",
    "cov",
    "name_cov",
    "param_cov",
    "names",
    "retrieval",
    "source_cos",
    "dense_z",
)
#: Feature sets compared, per model of pipeline_fit.FIT_MODELS (0: the default index with no hub named, where
#: the retrieval rule's score exists; 1: the rest, BFCL's own functions and a hub named). The first of each
#: is the one shipped: the model's signals (pmi, yn) cost two decodes an ask and did not earn them on dev.
CANDIDATES = (
    (
        ("retrieval", "cov", "dense_z", "lm_tok", "names"),
        ("retrieval", "cov", "dense_z", "lm_tok"),
        ("retrieval", "cov", "dense_z"),
        ("retrieval", "cov"),
        ("retrieval",),
        ("dense_z",),
        ("cov", "dense_z", "lm_tok"),
        ("retrieval", "cov", "dense_z", "name_cov"),
        ("retrieval", "cov", "pmi", "yn"),
    ),
    (("retrieval", "cov", "dense_z", "names"), ("retrieval", "cov", "dense_z")),
    (("cov", "dense_z", "lm_tok", "names"), ("cov", "dense_z", "lm_tok"), ("cov", "dense_z", "name_cov")),
    (("cov", "dense_z", "names"), ("cov", "dense_z")),
    (
        ("cov", "name_cov", "missing", "param_cov"),
        ("cov", "name_cov", "missing"),
        ("missing",),
        ("cov", "name_cov"),
    ),
    (("cov", "name_cov"), ("cov",), ("name_cov",), ("cov", "name_cov", "pmi", "yn"), ("pmi",), ("yn",)),
)
#: What each model of CANDIDATES is asked over (the rows it judges).
GROUPS = (
    "the default index, no hub named, select mode's score of the chosen doc known",
    "the default index, no hub named, the chosen doc not scored (a single call among the hits)",
    "an index with vectors, a hub named",
    "an index with vectors, a hub named, the chosen doc not scored",
    "function-calling docs, filled (BFCL as `eval bfcl` asks)",
    "no vectors, not filled (BFCL's functions read alone)",
)
#: The models fitted on every default-index row with their features, a hub named or not (fitted_on).
FIT_ON_INDEX = frozenset({1, 2, 3})
#: The short name of each model in the report's tables.
MODEL_NAMES = ("index, no hub", "index, no hub, unscored", "a hub named", "a hub named, unscored",
               "own functions, filled", "own functions, not filled")  # fmt: skip


def task_texts(shared: Path) -> dict[str, str]:
    """Task text by row id: BFCL questions and the default-index tasks."""
    from gorilla_tui.evaluate import bfcl

    texts = {t["id"]: t["task"] for t in index_tasks()}
    for category in ("irrelevance", "simple", "multiple"):
        texts.update({q.id: q.text for q in bfcl.load_questions(shared / "bfcl", category)})
    return texts


def bfcl_rows(shared: Path) -> list[dict[str, Any]]:
    """The retrieval-side signals of every BFCL question of irrelevance, simple and multiple, computed
    without the model (cov, name_cov: retrieve/fit.py): each question's own functions indexed as `eval bfcl`
    does (evaluate/bfcl.py question_index); "nohit": BM25 finds none of them (the pipeline then proposes no
    call at all). Irrelevance rows: every function with a hit (the judged one is the best-scored, the
    worst case); simple and multiple: the ground-truth function."""
    from gorilla_tui.constraints.rank import search_with_constraints
    from gorilla_tui.evaluate import bfcl
    from gorilla_tui.retrieve.fit import coverage

    rows = []
    for category in ("irrelevance", "simple", "multiple"):
        for q in bfcl.load_questions(shared / "bfcl", category):
            index = bfcl.question_index(q)
            hits = search_with_constraints(index, q.text, k=5).hits
            names = {name for call in q.truth or [] for name in call}
            base = {
                "id": q.id,
                "set": f"bfcl_{category}",
                "split": q.split,
                "label": "out" if category == "irrelevance" else "in",
                "nohit": not hits,
            }
            docs = (
                [h.doc for h in hits]
                if category == "irrelevance"
                else [d for d in index.docs if d.api_name in names]
            )
            for doc in docs or ([index.docs[0]] if category == "irrelevance" else []):
                rows.append(
                    {
                        **base,
                        "key": f"{q.id}:{doc.api_name}",
                        "fn": doc.api_name,
                        "cov": coverage(q.text, doc),
                        "name_cov": name_coverage(q.text, doc),
                        "param_cov": param_coverage(q.text, doc),
                        "names": names_missed(q.text, doc),
                    }
                )
    return rows


def recompute(rows: list[dict[str, Any]], shared: Path) -> None:
    """cov and name_cov of the judged doc of each collected row, again from the doc as the signals read now
    (they cost no model: a change to retrieve/fit.py is measured without asking again); the doc is found by
    its call in the live index (GORILLA_TUI_HOME) or among the BFCL question's functions."""
    from gorilla_tui import services
    from gorilla_tui.evaluate import bfcl
    from gorilla_tui.retrieve.fit import coverage

    texts = task_texts(shared)
    questions = {
        q.id: q
        for c in ("irrelevance", "simple", "multiple")
        for q in bfcl.load_questions(shared / "bfcl", c)
    }
    by_call: dict[str, Any] = {}
    for r in rows:
        doc = None
        if r["set"].startswith("eval"):
            callee = str(r.get("api_call") or "").split("(")[0].strip()
            docs = bfcl.question_docs(questions[r["id"]].functions)
            doc = next((d for d in docs if d.call.split("(")[0].strip() == callee), None)
        elif r["set"] in ("everyday", "out_of_pool") and r.get("call"):
            if not by_call:
                by_call = {d.call.strip(): d for d in services.load_index().docs}
            doc = by_call.get(str(r["call"]).strip())
        if doc is not None:
            r["cov"], r["name_cov"] = coverage(texts[r["id"]], doc), name_coverage(texts[r["id"]], doc)
            r["param_cov"] = param_coverage(texts[r["id"]], doc)
            r["names"] = names_missed(texts[r["id"]], doc)


def load(results: Path, shared: Path) -> list[dict[str, Any]]:
    """Every collected row, marked: kind "in" (a right answer: BFCL's ground-truth function, an everyday task
    answered right), "wrong" (an everyday task answered wrong), "out" (nothing fits); model 0 where the
    retrieval rule's score exists, else 1."""
    rows = [*bfcl_rows(shared), *read_rows(results / "fit_index.jsonl").values()]
    for split in ("dev", "test"):  # BFCL asked end to end (collect_eval): the judged doc is the chosen one
        for r in read_rows(results / f"fit_eval_{split}.jsonl").values():
            short = r["category"].split("_")[0]
            r.update(
                {
                    "set": f"eval_{short}",
                    "label": "out" if short == "irrelevance" else "in",
                    "nohit": r.get("cov") is None,
                    "right": r["valid"],
                    "file_split": split,
                }
            )
            rows.append(r)
    model_rows = read_rows(results / "fit_bfcl.jsonl")  # the model's signals of the dev BFCL items
    for r in rows:
        r.update({k: model_rows[r["key"]].get(k) for k in ("pmi", "yn")} if r["key"] in model_rows else {})
    recompute(rows, shared)
    for r in rows:
        if r["set"] in ("everyday", "out_of_pool"):
            doubt_signals(r)
    for r in rows:  # rows collected before judge() recorded it: the best cosine of the chosen doc's source
        if r.get("source_cos") is None and r.get("src_cos"):  # (a hub named: judge() records it now)
            r["source_cos"] = r["src_cos"].get(r.get("source", ""))
        if r.get("lm_tok") is None and r.get("lm") is not None and r.get("n_tok"):  # collected before it
            r["lm_tok"] = r["lm"] / r["n_tok"]  # (every row asked by the embedded model, FIT_MODEL)
    out = []
    for r in rows:
        if r.get("cov") is None and not r["set"].startswith("eval"):  # no doc chosen
            continue
        judged_right = r["set"] not in ("everyday", "eval_simple", "eval_multiple") or r.get("right")
        r["kind"] = r["label"] if r["label"] == "out" or judged_right else "wrong"
        out.append(r)
    return out


def assign_models(rows: list[dict[str, Any]]) -> None:
    """Each row's "model": the first of CANDIDATES' shipped feature sets (pipeline_fit.FIT_MODELS' order)
    whose features the row has, as pipeline_fit.fit_score picks it; None when none applies."""
    for r in rows:
        r["model"] = next(
            (i for i, sets in enumerate(CANDIDATES) if all(r.get(f) is not None for f in sets[0])), None
        )


def fitted_on(r: dict[str, Any], i: int) -> bool:
    """Whether row `r` is among the rows model `i` is fitted on: those it judges (r["model"] == i), and for
    the models of the dense side (FIT_ON_INDEX) every default-index row with their features, a hub named
    or not (the chosen doc's signals do not depend on the hub named; the rows asked with a hub named are
    out-of-pool tasks only)."""
    if i in FIT_ON_INDEX:
        return r["set"] in ("everyday", "out_of_pool") and all(r.get(f) is not None for f in CANDIDATES[i][0])
    return r["model"] == i


def cosine_scales(rows: list[dict[str, Any]]) -> dict[str, tuple[float, float]]:
    """pipeline_fit.SOURCE_COSINE from the default-index dev tasks of `rows` (each task once, whatever its
    answer or label): per source, the mean and standard deviation of the task's best cosine over that
    source (retrieve/fit.py source_cosine, recorded per source by collect_index); "*" over every source."""
    per: dict[str, list[float]] = {}
    for r in rows:
        if r["split"] == "dev" and r["set"] in ("everyday", "out_of_pool") and not r.get("hub"):
            for source, cos in (r.get("src_cos") or {}).items():
                per.setdefault(source, []).append(cos)
                per.setdefault("*", []).append(cos)
    return {k: (float(np.mean(v)), float(np.std(v))) for k, v in sorted(per.items()) if len(v) > 1}


def set_dense_z(rows: list[dict[str, Any]], scales: dict[str, tuple[float, float]]) -> None:
    """Each row's dense_z (pipeline_fit.dense_z) on `scales` (cosine_scales of the dev rows)."""
    pipeline_fit.SOURCE_COSINE = scales
    for r in rows:
        if r.get("source_cos") is not None:
            r["dense_z"] = pipeline_fit.dense_z(r.get("source", ""), r["source_cos"])


def fit_model(dev: list[dict[str, Any]], i: int, features: tuple[str, ...]) -> dict[str, Any]:
    """The logistic regression of `features` on model `i`'s dev rows that have them (right answers against
    nothing fits), its raw weights and the LOW / HIGH thresholds."""
    # right answers against nothing fits; a wrong answer to an in-pool task is neither (it should read
    # "unsure": the table below counts how often it does)
    rows = [r for r in dev if fitted_on(r, i) and r["kind"] in ("in", "out") and not r.get("nohit")
            and all(r.get(f) is not None for f in features)]  # fmt: skip
    model = Model(features[:1], [])  # one feature: its value is the score
    if len(features) > 1:
        model = Model(features, [dict(r, label=r["kind"]) for r in rows])
        x = (model._raw(rows) - model.mean) / model.std
        model.w = fit_logistic(x, np.array([r["kind"] == "in" for r in rows], float), l2=L2)
    if len(features) == 1:
        bias, weights = 0.0, [1.0]
    else:
        bias, weights = model.raw_weights()
    raw = np.array([bias + sum(w * r[f] for f, w in zip(features, weights, strict=True)) for r in rows])
    ins = raw[np.array([r["kind"] == "in" for r in rows], bool)]
    # the logistic's own boundaries (p(fits) NOTHING_P and UNSURE_P with the two classes weighted alike: the
    # log odds of the dev set's class sizes taken out), never flagging more dev right answers than
    # MAX_NOTHING_IN / MAX_UNSURE_IN allow (threshold_for) where that share is at least one answer; a single
    # feature is thresholded by those shares alone
    single = len(features) == 1
    prior = float(np.log(max(1, len(ins)) / max(1, len(rows) - len(ins))))
    p_low, p_high = (np.inf, np.inf) if single else (logit(NOTHING_P) + prior, logit(UNSURE_P) + prior)
    cap_low = threshold_for(ins, MAX_NOTHING_IN) if single or len(ins) * MAX_NOTHING_IN >= 1 else np.inf
    cap_high = threshold_for(ins, MAX_UNSURE_IN) if single or len(ins) * MAX_UNSURE_IN >= 1 else np.inf
    low = min(p_low, cap_low)
    high = max(low, min(p_high, cap_high))
    return {"features": features, "bias": bias, "weights": weights, "n": len(rows), "low": low, "high": high}


def doubt_signals(r: dict[str, Any]) -> None:
    """A default-index row's cos_gap, bm25_ratio and lm_gap again from its recorded hits, as
    pipeline_fit.judge reads them now (DOUBT_SOURCES' docs; retrieve/fit.py rivals): a change to the doubt
    is measured without asking again. Rows recorded
    before the hits carried their domain keep what the ask recorded."""
    recorded = r.get("hits") or []
    if not r.get("api") or not recorded or any(len(h) < 6 for h in recorded):
        return
    hits = [
        Hit(ApiDoc(f"h:{n}", source, name, name, domain), score, n, lm, dense)
        for n, (source, name, score, dense, lm, domain) in enumerate(recorded, start=1)
    ]
    chosen = [h.doc for h in hits if h.doc.api_name == r["api"] and h.doc.source == r.get("source")]
    if isinstance(r.get("chosen_hit"), int) and 0 <= r["chosen_hit"] < len(hits):
        chosen = [hits[r["chosen_hit"]].doc]
    if len(chosen) != 1:  # not among the hits, or its name is not its own (TF Hub's "model_id"): as recorded
        return
    doc = chosen[0]
    if doc.source not in pipeline_fit.DOUBT_SOURCES:
        r["cos_gap"] = r["bm25_ratio"] = r["lm_gap"] = None
        return
    r["cos_gap"], r["bm25_ratio"] = dense_disagreement(hits, doc)
    r["lm_gap"] = pipeline_fit.lm_gap(SimpleNamespace(name=FIT_MODEL), hits, doc)


def judge_rows(rows: list[dict[str, Any]], m: dict[str, Any]) -> None:
    """Set each row's "score" and "fit" by fitted model `m` (as pipeline_fit.label does); a row without one
    of its features gets fit None."""
    for r in rows:
        xs = [r.get(f) for f in m["features"]]
        if any(x is None for x in xs):
            r["score"], r["fit"] = float("-inf"), None
            continue
        r["score"] = m["bias"] + sum(w * x for w, x in zip(m["weights"], xs, strict=True))
        r["fit"] = "nothing" if r["score"] < m["low"] else "unsure" if r["score"] < m["high"] else "fits"


def flagged(rows: list[dict[str, Any]], kind: str, split: str) -> tuple[int, int]:
    """(rows said "nothing fits", rows judged) among `rows` of `kind` and `split`."""
    sel = [r for r in rows if r["kind"] == kind and r["split"] == split and r["fit"] is not None]
    return sum(r["fit"] == "nothing" for r in sel), len(sel)


#: The rows of the results table that go into the summary table (test half), with their targets.
FIGURES = {
    "out of pool, default index": ">= 90 %",
    "out of pool, standard library alone": ">= 90 %",
    "everyday, answered right": "<= 5 %",
    "BFCL simple + multiple, right function": "<= 5 %",
}


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} % ({n}/{d})" if d else "-"


def report(
    rows: list[dict[str, Any]], refit: tuple[int, ...] | None = None
) -> tuple[str, list[dict[str, Any]], list[Figure]]:
    """The markdown section, the shipped models (the first candidate of each CANDIDATES entry; a model not
    in `refit` is pipeline_fit's as shipped, shipped_model) and the figures of the summary table."""
    figures: list[Figure] = []
    refit = tuple(range(len(CANDIDATES))) if refit is None else refit
    scales = cosine_scales(rows)
    set_dense_z(rows, scales)
    assign_models(rows)
    dev = [r for r in rows if r["split"] == "dev"]
    lines = [
        f"Measured by `bench/fit.py` ({time.strftime('%Y-%m-%d')}, Gemma 3 270M, 2 shared cores). The fit "
        "judgment (pipeline_fit.py) says fits / unsure / nothing fits beside the verdict; nothing fits "
        "proposes no call. Items: BFCL's questions over their own functions (irrelevance: none fits; simple "
        "and multiple: the ground-truth function must keep fitting), the everyday tasks of "
        "bench/everyday_tasks.toml that `ask` answers right (the default index), and the out-of-pool tasks "
        "of bench/data/out_of_pool_tasks.toml and bench/data/fit_out_of_pool_tasks.toml (some over the "
        "standard library alone). dev: even BFCL ids and the files' dev halves (the rule is fitted there); "
        "test: the rest, reported once. The default-index sets are small (each row gives its counts; the "
        "everyday tasks count only where `ask` answers them right): read their shares with that in mind. "
        "dense_z: the task's best cosine over the chosen doc's source (retrieve/fit.py source_cosine) as a "
        "z-score on that source's scale, pipeline_fit.SOURCE_COSINE (per source, the mean and standard "
        "deviation of that cosine over the dev tasks of the default index, whatever their label).",
        "Signals of the doc the answer chose (pipeline_fit.py), ROC AUC of right answers against tasks "
        "nothing fits, dev items (right / nothing-fits items):",
        "",
        "| signal | BFCL (own functions) | BFCL end to end (filled) | default index / standard library |",
        "|---|---|---|---|",
    ]
    for f in SIGNALS:
        cells = []
        for group in ("bfcl", "eval", "index"):
            sel = [r for r in dev if r["set"].split("_")[0] == group and r.get(f) is not None]
            if group == "index":
                sel = [r for r in dev if r["set"] in ("everyday", "out_of_pool") and r.get(f) is not None]
            pos = np.array([r[f] for r in sel if r["kind"] == "in"], float)
            neg = np.array([r[f] for r in sel if r["kind"] == "out"], float)
            cells.append(f"{auc(pos, neg):.3f} ({len(pos)}/{len(neg)})" if len(pos) and len(neg) else "-")
        lines.append(f"| {f} | {' | '.join(cells)} |")
    models = "; ".join(f"{MODEL_NAMES[i]}: {GROUPS[i]}" for i in range(len(CANDIDATES)))
    lines += [
        "",
        f"The models (pipeline_fit.FIT_MODELS, the first whose signals are known judges an answer): "
        f"{models}. "
        "lm_tok: select mode's log p(task | doc) of the chosen doc per task token (no further decode). "
        "param_cov: the share of a function-calling doc's parameters whose name has a word the task holds "
        "(retrieve/fit.py param_coverage). names: 1 when the task names something (a capitalised word "
        "inside a sentence: Slack, Spotify) the chosen doc's text does not hold (retrieve/fit.py "
        "names_missed; higher is worse). The models of a hub named are fitted on every default-index dev "
        "task (the chosen doc's signals do not depend on the hub named; the tasks asked with a hub named are "
        "out-of-pool ones only).",
        "",
        f'Feature sets (logistic regressions fitted on the dev items; "nothing fits" below the '
        f"threshold that flags at most {MAX_NOTHING_IN:.0%} of the dev right answers): nothing fits / "
        "right answers flagged, dev and test.",
        "",
        "| model | features | dev: nothing-fits items said so | dev: right flagged | test: nothing-fits "
        "items said so | test: right flagged |",
        "|---|---|---|---|---|---|",
    ]
    shipped = []
    for i, sets in enumerate(CANDIDATES):
        mine = [r for r in rows if r["model"] == i]
        for j, features in enumerate(sets):
            if not any(fitted_on(r, i) and all(r.get(f) is not None for f in features) for r in dev):
                if j == 0:  # not collected in this run (--collect): the shipped model as it is
                    shipped.append(shipped_model(i))
                continue
            m = fit_model(dev, i, features) if j or i in refit else shipped_model(i)
            judge_rows(mine, m)
            cells = [pct(*flagged(mine, kind, split)) for split in ("dev", "test") for kind in ("out", "in")]
            name = MODEL_NAMES[i] + (" (shipped)" if j == 0 else "")
            lines.append(f"| {name} | {' + '.join(features)} | {' | '.join(cells)} |")
            if j == 0:
                shipped.append(m)
    lines += [
        "",
        "The shipped rule (pipeline_fit.FIT_MODELS, FIT_LOW, FIT_HIGH; HIGH: at most "
        f'{MAX_UNSURE_IN:.0%} of the dev right answers "unsure" or below):',
        "",
    ]
    for m in shipped:
        terms = " + ".join(f"{w:.4f} * {f}" for f, w in zip(m["features"], m["weights"], strict=True))
        lines.append(
            f"- {m['bias']:.4f} + {terms}; LOW {m['low']:.4f}, HIGH {m['high']:.4f} "
            + (f"({m['n']} dev items)" if m["n"] else "(as shipped: not fitted again in this run)")
        )
    for r in rows:  # a row no model applies to (no doc judged: an eval question without a hit) has no fit
        if r["model"] is None:
            r["score"], r["fit"] = float("-inf"), None
        else:
            judge_rows([r], shipped[r["model"]])
        # a "fits" the retrieval sides or the model doubt is "unsure" (pipeline_fit.label, doubted)
        r["doubted"] = r["fit"] == "fits" and pipeline_fit.doubted(r)
        r["fit"] = "unsure" if r["doubted"] else r["fit"]
    lines += ["", "| items | split | nothing fits | unsure | fits |", "|---|---|---|---|---|"]
    groups = (
        (
            "BFCL irrelevance: no call (no hit, or nothing fits its best function)",
            lambda r: r["set"] == "bfcl_irrelevance",
        ),
        ("BFCL simple + multiple, right function", lambda r: r["set"] in ("bfcl_simple", "bfcl_multiple")),
        ("everyday, answered right", lambda r: r["set"] == "everyday" and r["kind"] == "in"),
        ("everyday, answered wrong", lambda r: r["set"] == "everyday" and r["kind"] == "wrong"),
        ("out of pool, default index", lambda r: r["set"] == "out_of_pool" and not r.get("hub")),
        ("out of pool, standard library alone", lambda r: r["set"] == "out_of_pool" and bool(r.get("hub"))),
    )
    for name, want in groups:
        for split in ("dev", "test"):
            sel = [r for r in rows if want(r) and r["split"] == split]
            if name.startswith("BFCL irrelevance"):  # a question is judged on its best function
                best: dict[str, dict[str, Any]] = {}
                for r in sel:
                    if r["id"] not in best or r["score"] > best[r["id"]]["score"]:
                        best[r["id"]] = r
                sel = list(best.values())
                for r in sel:  # no BM25 hit: no call at all (the pipeline's no_call), as nothing fits
                    r["fit"] = "nothing" if r["nohit"] else r["fit"]
                nohit = sum(r["nohit"] for r in sel)
                lines.append(
                    f"| BFCL irrelevance, no BM25 hit (no call before any judgment) | {split} | "
                    f"{pct(nohit, len(sel))} | | |"
                )
            if not sel:
                continue
            n = {k: sum(r["fit"] == k for r in sel) for k in ("nothing", "unsure", "fits")}
            if split == "test" and name in FIGURES:
                figures.append(
                    Figure(
                        f"fit: {name}, said nothing fits (test)", pct(n["nothing"], len(sel)), FIGURES[name]
                    )
                )
            lines.append(
                f"| {name} | {split} | {pct(n['nothing'], len(sel))} | "
                f"{pct(n['unsure'], len(sel))} | {pct(n['fits'], len(sel))} |"
            )
    cells = []
    for name, want in groups[2:5]:
        for split in ("dev", "test"):
            sel = [r for r in rows if want(r) and r["split"] == split and r.get("fit") is not None]
            cells.append(f"{name}, {split} {sum(r['doubted'] for r in sel)} of {len(sel)}")
    lines += [
        "",
        '"unsure" only by the doubt (pipeline_fit.doubted: the models said fits, but a rival hit of the '
        "chosen doc's source, another API or on a model hub another domain, ranks higher on the dense side "
        "while BM25 does not clearly prefer the chosen one, or the model reads the task more likely after "
        f"it; the docs of {', '.join(sorted(pipeline_fit.DOUBT_SOURCES))}): {'; '.join(cells)}.",
    ]
    asked = [r for r in rows if r["set"] in ("everyday", "out_of_pool") and r.get("timings", {}).get("total")]
    if asked:  # the default index's asks: the fit stage (its dense_z included) in Proposal.timings["fit"]
        total = np.median([r["timings"]["total"] for r in asked])
        without = np.median([r["timings"]["total"] - r["timings"].get("fit", 0.0) for r in asked])
        fit_p50 = np.median([r["timings"].get("fit", 0.0) for r in asked])
        figures.append(
            Figure(
                "ask p50 with the fit judgment / without, default index, one run",
                f"{total / without:.3f}",
                "<= 1",
            )  # fmt: skip
        )
        lines += [
            "",
            f"Default index, the same {len(asked)} asks (one run): ask p50 with the judgment / without it "
            f"{total:.2f} s / {without:.2f} s = **{total / without:.3f}**; the fit stage's p50 "
            f"{1000 * fit_p50:.1f} ms.",
        ]
    if not any(r["set"].startswith("eval") for r in rows):  # not asked in this run: the last run's figures
        lines += ["", *previous_eval_block()]
        return "\n".join(lines) + "\n", shipped, figures
    lines += [
        "",
        "BFCL end to end with the rule (each question over its own functions, filling on, as `gorilla-tui "
        "eval bfcl` asks it: bench/fit.py collect_eval): irrelevance, no call made; simple and multiple, "
        "BFCL's AST accuracy before (the calls as proposed) and after (no call where nothing fits).",
        "",
        "| category | questions | before | after |",
        "|---|---|---|---|",
    ]
    for split, name in (("dev", "dev (even ids)"), ("test", "test (odd ids)")):
        for cat in ("irrelevance", "simple", "multiple"):
            sel = [r for r in rows if r["set"] == f"eval_{cat}" and r.get("file_split", r["split"]) == split]
            if cat == "simple" and split == "test":
                sel = [r for r in rows if r["set"] == "eval_simple" and r.get("file_split") == "test"]
                name = "one in 5 (stride 5, both halves)"
            if not sel:
                continue
            nothing = [r.get("fit") == "nothing" for r in sel]
            if cat == "irrelevance":
                before = sum(r["no_call"] for r in sel)
                after = sum(r["no_call"] or n for r, n in zip(sel, nothing, strict=True))
                if split == "test":
                    figures.append(
                        Figure(
                            "BFCL irrelevance, no call, with the fit judgment (test half)",
                            pct(after, len(sel)),
                            ">= 80 %",
                            f"without: {pct(before, len(sel))}",
                        )
                    )
                lines.append(
                    f"| irrelevance, {name}: no call | {len(sel)} | {pct(before, len(sel))} | "
                    f"**{pct(after, len(sel))}** |"
                )
            else:
                before = sum(r["valid"] for r in sel)
                after = sum(r["valid"] and not n for r, n in zip(sel, nothing, strict=True))
                if split == "test":
                    figures.append(
                        Figure(
                            "BFCL simple (stride 5), with the fit judgment",
                            pct(after, len(sel)),
                            "not lower than without",
                            f"without: {pct(before, len(sel))}",
                        )
                    )
                lines.append(
                    f"| {cat}, {name}: AST accuracy | {len(sel)} | {pct(before, len(sel))} | "
                    f"**{pct(after, len(sel))}** |"
                )
    timed = [r for r in rows if r["set"].startswith("eval") and r.get("timings", {}).get("total")]
    if timed:
        total = np.median([r["timings"]["total"] for r in timed])
        without = np.median([r["timings"]["total"] - r["timings"].get("fit", 0.0) for r in timed])
        figures.append(
            Figure("ask p50 with the fit judgment / without, one run", f"{total / without:.3f}", "<= 1")
        )
        lines += [
            "",
            f"Ask p50 with the judgment / without it, the same {len(timed)} asks (one run): "
            f"{total:.2f} s / {without:.2f} s = **{total / without:.3f}**.",
        ]
    return "\n".join(lines) + "\n", shipped, figures


#: Where the BFCL end-to-end figures start in the section (report), kept from the last run that asked them.
EVAL_HEAD = "BFCL end to end with the rule"


def previous_eval_block() -> list[str]:
    """The BFCL end-to-end lines (EVAL_HEAD to the section's end) of docs/benchmarks.md's section as the
    last run that asked them (--collect eval-dev,eval-test) wrote them, under a line saying so: a run that
    did not ask them does not drop them. [] when the section has none."""
    text = REPORT.read_text(encoding="utf-8") if REPORT.exists() else ""
    start = text.find(f"<!-- begin: {TITLE} -->")
    end = text.find(f"<!-- end: {TITLE} -->", start)
    section = text[start:end] if start >= 0 and end > start else ""
    at = section.find(EVAL_HEAD)
    if at < 0:
        return []
    block = section[at:].strip().splitlines()
    note = "(Not asked again in this run: the figures below are the last run's that asked BFCL end to end.)"
    return [note, "", *block]


def collect_eval(shared: Path, out: Path, split: str) -> None:
    """BFCL's test half as `eval bfcl` asks it (each question over its own functions, fill on): irrelevance
    (odd ids) and simple (one question in 5, both halves: the stride bench/bfcl.py reported). The judgment
    is recorded, not applied (FIT_LOW set to -inf here), so that the fitted rule is applied afterwards:
    per question the checker's verdict on the calls, whether the fill wrote no call, the fit signals and
    the seconds of the ask and of its fit judgment."""
    from gorilla_tui import pipeline_fit, services
    from gorilla_tui.config import Settings
    from gorilla_tui.evaluate import bfcl
    from gorilla_tui.evaluate.bfcl_checker import check_calls

    pipeline_fit.FIT_LOW = tuple(float("-inf") for _ in pipeline_fit.FIT_LOW)
    done = read_rows(out)
    settings = Settings()
    backend = services.load_backend(settings)
    irrelevance = [q for q in bfcl.load_questions(shared / "bfcl", "irrelevance") if q.split == split]
    if split == "test":  # one question in 5, both halves: the stride bench/bfcl.py reported
        others = [bfcl.select_questions(bfcl.load_questions(shared / "bfcl", "simple"), None, 5)]
    else:
        others = [
            [q for q in bfcl.load_questions(shared / "bfcl", c) if q.split == "dev"][::4]
            for c in ("simple", "multiple")
        ]
    order = interleave([irrelevance, *others])
    with out.open("a", encoding="utf-8") as f:
        for n, q in enumerate(order, start=1):
            if q.id in done:
                continue
            proposal = services.build_pipeline(settings, bfcl.question_index(q), backend).ask(q.text)
            result = check_calls(q.category, q.functions, proposal.calls, q.truth)
            row = {
                "key": q.id,
                "id": q.id,
                "category": q.category,
                "split": q.split,
                "valid": result.valid,
                "no_call": not proposal.calls,
                "api_call": proposal.api_call,
                "timings": proposal.timings,
                "needs": proposal.needs,
                "fn": proposal.api_call.split("(")[0],
                "hits": [[h.doc.api_name, h.score, h.dense, h.lm_score] for h in proposal.hits],
                **proposal.fit_signals,
            }
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"eval {n}/{len(order)} {q.id} valid={result.valid}", file=sys.stderr, flush=True)


def shipped_model(i: int) -> dict[str, Any]:
    """Model `i` of pipeline_fit.FIT_MODELS as fit_model gives it (n 0: not fitted again in this run)."""
    from gorilla_tui import pipeline_fit

    features, bias, weights = pipeline_fit.FIT_MODELS[i]
    low, high = pipeline_fit.FIT_LOW[i], pipeline_fit.FIT_HIGH[i]
    return {"features": features, "bias": bias, "weights": list(weights), "n": 0, "low": low, "high": high}


def constants(fitted: list[dict[str, Any]], scales: dict[str, tuple[float, float]]) -> str:
    """pipeline_fit.py's FIT_MODELS, FIT_LOW and FIT_HIGH for the shipped models and its SOURCE_COSINE
    (`scales`: cosine_scales), as Python."""
    rows = []
    for m in fitted:
        weights = ", ".join(f"{w:.6f}" for w in m["weights"])
        rows.append(f"    ({tuple(m['features'])!r}, {m['bias']:.6f}, ({weights},)),\n")
    models = "".join(rows)
    lows = ", ".join(f"{m['low']:.6f}" for m in fitted)
    highs = ", ".join(f"{m['high']:.6f}" for m in fitted)
    out = f"FIT_MODELS = (\n{models})\nFIT_LOW = ({lows})\nFIT_HIGH = ({highs})"
    return out + f"\nSOURCE_COSINE = {scales!r}"


def main(argv: list[str] | None = None) -> int:
    p = parser(__doc__)
    p.add_argument("--results", default=str(ROOT / "bench" / "results"))
    p.add_argument("--collect", default="bfcl,index")
    p.add_argument("--stride-simple", type=int, default=2)
    p.add_argument("--bfcl-splits", default="dev", help="dev,test: BFCL's test half is reported by eval bfcl")
    p.add_argument("--index-splits", default="dev,test", help="dev: the default-index tasks' dev halves only")
    p.add_argument("--report-only", action="store_true")
    p.add_argument(
        "--refit",
        default="",
        help="the models of pipeline_fit.FIT_MODELS fitted again, by number (default: all; the others are "
        "reported as shipped)",
    )
    a = p.parse_args(argv)
    results = Path(a.results)
    results.mkdir(parents=True, exist_ok=True)
    if not a.report_only:
        if "bfcl" in a.collect:
            splits = tuple(a.bfcl_splits.split(","))
            collect_bfcl(Path(a.shared), results / "fit_bfcl.jsonl", a.stride_simple, splits)
        if "index" in a.collect:
            collect_index(results / "fit_index.jsonl", splits=tuple(a.index_splits.split(",")))
        for split in ("dev", "test"):
            if f"eval-{split}" in a.collect:
                collect_eval(Path(a.shared), results / f"fit_eval_{split}.jsonl", split)
    rows = load(results, Path(a.shared))
    refit = tuple(int(i) for i in a.refit.split(",") if i.strip()) or None
    text, fitted, figures = report(rows, refit)
    print(constants(fitted, {k: (round(m, 6), round(sd, 6)) for k, (m, sd) in cosine_scales(rows).items()}))
    return publish(TITLE, text, not a.no_write, summary=figures)


if __name__ == "__main__":
    raise SystemExit(main())
