"""The fit judgment (issue 38 item 1, pipeline_fit.py): does the index have an API for this task? Measured
signals and the fitted rule, dev / test.

Run: python bench/fit.py [--shared ../shared] [--results DIR] [--collect bfcl,index] [--stride-simple S]
     [--report-only] [--no-write]
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

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import write_section  # noqa: E402
from out_of_pool import Model, auc, threshold_for  # noqa: E402

from gorilla_tui.pool.apidoc import ApiDoc  # noqa: E402
from gorilla_tui.retrieve.fit import name_coverage  # noqa: E402

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
    """yn, pmi, cov (and their parts) of `doc` for `task` (pipeline_fit.signals)."""
    from gorilla_tui.pipeline_fit import signals

    return signals(backend, task, doc, lm)


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
                    row = {"key": key, "id": q.id, "set": f"bfcl_{category}", "split": q.split,
                           "label": "out" if category == "irrelevance" else "in", "fn": fn,
                           **doc_signals(backend, q.text, doc)}  # fmt: skip
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
        tasks.append({"id": t["id"], "set": "everyday", "split": t["split"], "label": "in", "task": t["task"],
                      "spec": t, "hub": ""})  # fmt: skip
    lists = [tasks]
    for path in (OOP_MORE, OOP):
        rows = tomllib.loads(path.read_text(encoding="utf-8"))["task"]
        lists.append([{"id": t["id"], "set": "out_of_pool", "split": t["split"], "label": "out",
                       "task": t["task"], "hub": t.get("hub", "")} for t in rows])  # fmt: skip
    return interleave(lists)


def collect_index(out: Path) -> None:
    """Ask each default-index task as `ask` does (fill off: the choice is the same) and record the chosen
    doc's signals, whether the answer is right (everyday) and the retrieval rule's score."""
    from everyday import is_right

    from gorilla_tui import services
    from gorilla_tui.config import Settings

    done = read_rows(out)
    index = services.load_index()
    backend = services.load_backend(Settings())
    pipelines: dict[str, Any] = {}
    tasks = index_tasks()
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
            row = {"key": t["id"], "id": t["id"], "set": t["set"], "split": t["split"], "label": t["label"],
                   "hub": hub, "call": proposal.api_call, "api": doc.api_name if doc else "",
                   "right": bool(t.get("spec")) and is_right(t["spec"], doc) if doc else False,
                   "matched": getattr(chosen, "api_name", ""), **proposal.fit_signals}  # fmt: skip
            row["seconds"] = round(time.perf_counter() - t0, 3)
            row["timings"] = proposal.timings
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(
                f"{n}/{len(tasks)} {t['id']} {row.get('api')} yn={row.get('yn')}", file=sys.stderr, flush=True
            )


#: Highest share of the in-pool right answers of the dev items that "nothing fits" may flag (the target is
#: <= 5 % on test), and that "unsure" or "nothing" may flag (HIGH).
MAX_NOTHING_IN = 0.03
MAX_UNSURE_IN = 0.15
#: The signals measured, and the features of the two models (pipeline_fit.FIT_MODELS): without and with the
#: retrieval rule's score (only the default index with no hub named has it).
SIGNALS = ("yn", "pmi", "cov", "name_cov", "retrieval")
FEATURES = (("pmi", "cov", "name_cov", "yn", "retrieval"), ("pmi", "cov", "name_cov", "yn"))


def task_texts(shared: Path) -> dict[str, str]:
    """Task text by row id: BFCL questions and the default-index tasks."""
    from gorilla_tui.evaluate import bfcl

    texts = {t["id"]: t["task"] for t in index_tasks()}
    for category in ("irrelevance", "simple", "multiple"):
        texts.update({q.id: q.text for q in bfcl.load_questions(shared / "bfcl", category)})
    return texts


def load(results: Path, shared: Path) -> list[dict[str, Any]]:
    """Every collected row, marked: kind "in" (a right answer: BFCL's ground-truth function, an everyday task
    answered right), "wrong" (an everyday task answered wrong), "out" (nothing fits); model 0 where the
    retrieval rule's score exists, else 1."""
    rows = list(read_rows(results / "fit_bfcl.jsonl").values()) + list(
        read_rows(results / "fit_index.jsonl").values()
    )
    out = []
    texts = task_texts(shared)
    for r in rows:
        if r.get("pmi") is None:  # no doc chosen, or not scored
            continue
        if r.get("name_cov") is None:  # rows collected before the signal: computed from the task and name
            r["name_cov"] = name_coverage(
                texts[r["id"]],
                ApiDoc(id="", source="", api_call="", api_name=r.get("fn") or r.get("api") or ""),
            )
        r["kind"] = r["label"] if r["label"] == "out" or r["set"] != "everyday" or r.get("right") else "wrong"
        r["model"] = 0 if r.get("retrieval") is not None else 1
        out.append(r)
    return out


def fit_models(dev: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Per model of FEATURES: the logistic regression on its dev rows (right answers against nothing fits),
    its raw weights and the LOW / HIGH thresholds."""
    fitted = []
    for i, features in enumerate(FEATURES):
        rows = [r for r in dev if r["model"] == i and r["kind"] in ("in", "out")]
        for r in rows:
            r["label01"] = r["kind"]
        model = Model(features, [dict(r, label=r["kind"]) for r in rows])
        bias, weights = model.raw_weights()
        raw = np.array([bias + sum(w * r[f] for f, w in zip(features, weights, strict=True)) for r in rows])
        ins = raw[np.array([r["kind"] == "in" for r in rows])]
        fitted.append({"features": features, "bias": bias, "weights": weights, "n": len(rows),
                       "low": threshold_for(ins, MAX_NOTHING_IN),
                       "high": threshold_for(ins, MAX_UNSURE_IN)})  # fmt: skip
    return fitted


def judged(rows: list[dict[str, Any]], fitted: list[dict[str, Any]]) -> None:
    """Set each row's "score" and "fit" by `fitted` (as pipeline_fit.label does)."""
    for r in rows:
        m = fitted[r["model"]]
        r["score"] = m["bias"] + sum(w * r[f] for f, w in zip(m["features"], m["weights"], strict=True))
        r["fit"] = "nothing" if r["score"] < m["low"] else "unsure" if r["score"] < m["high"] else "fits"


def pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f} % ({n}/{d})" if d else "-"


def report(rows: list[dict[str, Any]]) -> tuple[str, list[dict[str, Any]]]:
    """The markdown section and the fitted models."""
    dev = [r for r in rows if r["split"] == "dev"]
    fitted = fit_models(dev)
    judged(rows, fitted)
    lines = [f"Measured by `bench/fit.py` ({time.strftime('%Y-%m-%d')}, Gemma 3 270M, 2 shared cores).",
             "Signals of the doc the answer chose (pipeline_fit.py), ROC AUC of right answers against tasks "
             "nothing fits, dev items:", "",
             "| signal | BFCL (own functions) | default index / standard library |",
             "|---|---|---|"]  # fmt: skip
    for f in SIGNALS:
        cells = []
        for group in ("bfcl", "index"):
            sel = [
                r for r in dev if r["set"].startswith("bfcl") == (group == "bfcl") and r.get(f) is not None
            ]
            pos = np.array([r[f] for r in sel if r["kind"] == "in"], float)
            neg = np.array([r[f] for r in sel if r["kind"] == "out"], float)
            cells.append(f"{auc(pos, neg):.3f} ({len(pos)}/{len(neg)})" if len(pos) and len(neg) else "-")
        lines.append(f"| {f} | {cells[0]} | {cells[1]} |")
    lines += ["", "The rule (pipeline_fit.FIT_MODELS, FIT_LOW, FIT_HIGH), logistic regressions fitted on the "
              f"dev items; LOW flags at most {MAX_NOTHING_IN:.0%} of the dev right answers \"nothing fits\", "
              "HIGH at "
              f"most {MAX_UNSURE_IN:.0%} \"unsure\" or below:", ""]  # fmt: skip
    for m in fitted:
        terms = " + ".join(f"{w:.4f} * {f}" for f, w in zip(m["features"], m["weights"], strict=True))
        lines.append(
            f"- {m['bias']:.4f} + {terms}; LOW {m['low']:.4f}, HIGH {m['high']:.4f} ({m['n']} dev items)"
        )
    lines += ["", "| items | split | nothing fits | unsure | fits |", "|---|---|---|---|---|"]
    groups = (("BFCL irrelevance (the best-scored function)", lambda r: r["set"] == "bfcl_irrelevance"),
              ("BFCL simple + multiple, right function", lambda r: r["set"] in ("bfcl_simple",
                                                                                 "bfcl_multiple")),
              ("everyday, answered right", lambda r: r["set"] == "everyday" and r["kind"] == "in"),
              ("everyday, answered wrong", lambda r: r["kind"] == "wrong"),
              ("out of pool, default index", lambda r: r["set"] == "out_of_pool" and not r.get("hub")),
              ("out of pool, standard library alone",
               lambda r: r["set"] == "out_of_pool" and bool(r.get("hub"))))  # fmt: skip
    for name, want in groups:
        for split in ("dev", "test"):
            sel = [r for r in rows if want(r) and r["split"] == split]
            if name.startswith("BFCL irrelevance"):  # a question is judged on its best function
                best: dict[str, dict[str, Any]] = {}
                for r in sel:
                    if r["id"] not in best or r["score"] > best[r["id"]]["score"]:
                        best[r["id"]] = r
                sel = list(best.values())
            if not sel:
                continue
            n = {k: sum(r["fit"] == k for r in sel) for k in ("nothing", "unsure", "fits")}
            lines.append(f"| {name} | {split} | {pct(n['nothing'], len(sel))} | "
                         f"{pct(n['unsure'], len(sel))} | "
                         f"{pct(n['fits'], len(sel))} |")  # fmt: skip
    return "\n".join(lines) + "\n", fitted


def collect_eval(shared: Path, out: Path) -> None:
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
    irrelevance = [q for q in bfcl.load_questions(shared / "bfcl", "irrelevance") if q.split == "test"]
    simple = bfcl.select_questions(bfcl.load_questions(shared / "bfcl", "simple"), None, 5)
    order = interleave([irrelevance, simple])
    with out.open("a", encoding="utf-8") as f:
        for n, q in enumerate(order, start=1):
            if q.id in done:
                continue
            proposal = services.build_pipeline(settings, bfcl.question_index(q), backend).ask(q.text)
            result = check_calls(q.category, q.functions, proposal.calls, q.truth)
            row = {"key": q.id, "id": q.id, "category": q.category, "split": q.split, "valid": result.valid,
                   "no_call": not proposal.calls, "api_call": proposal.api_call, "timings": proposal.timings,
                   **proposal.fit_signals}  # fmt: skip
            f.write(json.dumps(row) + "\n")
            f.flush()
            print(f"eval {n}/{len(order)} {q.id} valid={result.valid}", file=sys.stderr, flush=True)


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--shared", default=os.environ.get("GORILLA_TUI_SHARED", str(ROOT.parent / "shared")))
    p.add_argument("--results", default=str(ROOT / "bench" / "results"))
    p.add_argument("--collect", default="bfcl,index")
    p.add_argument("--stride-simple", type=int, default=2)
    p.add_argument("--bfcl-splits", default="dev", help="dev,test: BFCL's test half is reported by eval bfcl")
    p.add_argument("--report-only", action="store_true")
    p.add_argument("--no-write", action="store_true")
    a = p.parse_args(argv)
    results = Path(a.results)
    results.mkdir(parents=True, exist_ok=True)
    if not a.report_only:
        if "bfcl" in a.collect:
            splits = tuple(a.bfcl_splits.split(","))
            collect_bfcl(Path(a.shared), results / "fit_bfcl.jsonl", a.stride_simple, splits)
        if "index" in a.collect:
            collect_index(results / "fit_index.jsonl")
        if "eval" in a.collect:
            collect_eval(Path(a.shared), results / "fit_eval.jsonl")
    text, fitted = report(load(results, Path(a.shared)))
    print(text)
    for m in fitted:
        print(m)
    if not a.no_write:
        write_section(TITLE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
