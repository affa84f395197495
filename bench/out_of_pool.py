"""Out-of-pool detection: can the signals an ask already computes tell a task the API pool serves from one it
does not ("book a flight from Berlin to Rome")?

Run: python bench/out_of_pool.py [--shared ../shared] [--results DIR] [--torchhub N] [--report-only]
Uses the live index of GORILLA_TUI_HOME (the default index: the three APIBench hubs, APIZoo, the standard
library, with its dense vectors; build it with `gorilla-tui index --refresh --from ../shared/apibench/api
--from ../shared`) and the embedded model. Every task goes through `pipeline.ask` as `gorilla-tui ask` runs
it (select mode, select by likelihood, k = 5, no hub named); its signals are recorded in
--results/out_of_pool.jsonl:

- bm25_norm: the best normalised BM25 score over the sources (retrieve/routing.py source_scores);
- bm25_top: hit 1's raw BM25 score; known: the share of the task's words the index knows;
- dense_top, dense_margin: the best dense cosine, its margin over the mean of the top 50 (retrieve/fit.py);
- lm_tok: the best log p(task | doc) over the scored hits, per task token (model/likelihood.py, as select
  mode computes it; no extra model call).

Tasks, never from the APIBench eval sets. In-pool: bench/everyday_tasks.toml (its own dev / test halves),
bench/data/hub_dev_tasks.toml, bench/data/apizoo_dev_tasks.toml, tests/data/stdlib_tasks.toml (dev), and
--torchhub questions of the Torch Hub training split's dev tasks (bench/torchhub_dev.py; spread evenly,
alternately dev and test). Out-of-pool: bench/data/out_of_pool_tasks.toml (dev / test halves).

Per signal and for a logistic regression on 2-3 of them (fitted on the dev halves only): ROC AUC, and at
the threshold that flags at most 3 % of the in-pool dev tasks, the share of out-of-pool tasks flagged; the
same threshold then on the test halves, once. Writes the section "Out-of-pool detection" of
docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import json
import math
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

TITLE = "Out-of-pool detection"
OOP = ROOT / "bench" / "data" / "out_of_pool_tasks.toml"
MULTILINGUAL = ROOT / "bench" / "data" / "multilingual_tasks.toml"
#: Highest share of in-pool dev tasks a threshold may flag (the issue's rule).
MAX_FLAGGED_IN = 0.03
#: What shipping needs on the test halves: at least this share of out-of-pool tasks flagged ...
SHIP_MIN_OUT = 0.5
#: ... while flagging at most this share of in-pool tasks.
SHIP_MAX_IN = 0.05
#: Single signals, each oriented so that a higher value means "fits the pool".
SIGNALS = ("bm25_norm", "bm25_top", "known", "dense_top", "dense_margin", "lm_tok")
#: Feature sets of the logistic regressions compared (2-3 features each).
COMBOS = (
    ("bm25_norm", "dense_top"),
    ("bm25_norm", "lm_tok"),
    ("dense_top", "lm_tok"),
    ("bm25_norm", "dense_top", "lm_tok"),
    ("bm25_norm", "dense_margin", "lm_tok"),
)


def load_tasks(shared: Path, n_torchhub: int) -> list[dict[str, Any]]:
    """Every task: dicts with id, set, split ("dev" | "test"), label ("in" | "out") and task."""
    out: list[dict[str, Any]] = []
    for t in tomllib.loads((ROOT / "bench" / "everyday_tasks.toml").read_text(encoding="utf-8"))["task"]:
        out.append({"id": t["id"], "set": "everyday", "split": t["split"], "label": "in", "task": t["task"]})
    hub = tomllib.loads((ROOT / "bench" / "data" / "hub_dev_tasks.toml").read_text(encoding="utf-8"))
    for i, q in enumerate(hub["tasks"]):
        out.append({"id": f"hub-{i}", "set": "hub_dev", "split": "dev", "label": "in", "task": q})
    for name, path in (
        ("apizoo_dev", ROOT / "bench" / "data" / "apizoo_dev_tasks.toml"),
        ("stdlib", ROOT / "tests" / "data" / "stdlib_tasks.toml"),
    ):
        for i, t in enumerate(tomllib.loads(path.read_text(encoding="utf-8"))["task"]):
            out.append({"id": f"{name}-{i}", "set": name, "split": "dev", "label": "in", "task": t["query"]})
    if n_torchhub:
        from torchhub_dev import dev_tasks

        th = [t for t in dev_tasks(shared / "apibench") if t.task.strip()]
        step = max(1, len(th) // n_torchhub)
        for i, t in enumerate(th[::step][:n_torchhub]):
            out.append(
                {
                    "id": f"th-{t.question_id}",
                    "set": "torchhub_dev",
                    "split": "dev" if i % 2 == 0 else "test",
                    "label": "in",
                    "task": t.task,
                }
            )
    for t in tomllib.loads(OOP.read_text(encoding="utf-8"))["task"]:
        row = {"id": t["id"], "set": "out_of_pool", "split": t["split"], "label": "out", "task": t["task"]}
        out.append(row)
    for i, q in enumerate(tomllib.loads(MULTILINGUAL.read_text(encoding="utf-8"))["tasks"]):
        out.append({"id": f"ml-{i}", "set": "multilingual", "split": "check", "label": "in", "task": q})
    return out


def collect(tasks: list[dict[str, Any]], results: Path) -> list[dict[str, Any]]:
    """Answer each task through pipeline.ask and record its signals (resumes from `results`)."""
    from gorilla_tui import services
    from gorilla_tui.config import Settings
    from gorilla_tui.retrieve.fit import retrieval_signals

    done = {}
    if results.exists():
        for line in results.read_text(encoding="utf-8").splitlines():
            if line.strip():
                row = json.loads(line)
                done[row["id"]] = row
    index = services.load_index()
    print("retrieval:", index.dense_state()["note"], flush=True)
    backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))
    pipeline = services.build_pipeline(Settings(k=5, mode="select", select_by="likelihood"), index, backend)
    rows = []
    with results.open("a", encoding="utf-8") as f:
        for n, t in enumerate(tasks, start=1):
            if t["id"] in done:
                rows.append(done[t["id"]])
                continue
            t0 = time.perf_counter()
            proposal = pipeline.ask(t["task"])
            seconds = time.perf_counter() - t0
            sig = retrieval_signals(index, t["task"])
            n_tok = max(1, backend.count_tokens(" ".join(t["task"].split())) - 1)  # BOS not scored
            lms = [h.lm_score for h in proposal.hits if h.lm_score is not None]
            row = dict(t)
            row.update(sig)
            row.update(
                {
                    "bm25_top": proposal.hits[0].score if proposal.hits else 0.0,
                    "lm_tok": max(lms) / n_tok if lms else None,
                    "n_tok": n_tok,
                    "seconds": round(seconds, 3),
                    "call": proposal.api_call,
                    "match": proposal.match,
                    "verdict": proposal.verdict.kind,
                    "hits": [
                        [h.doc.source, h.doc.api_name, round(h.score, 3), h.dense, h.lm_score]
                        for h in proposal.hits
                    ],  # fmt: skip
                }
            )
            f.write(json.dumps(row) + "\n")
            f.flush()
            rows.append(row)
            print(f"{n}/{len(tasks)} {t['id']} {t['label']} {seconds:.1f}s", file=sys.stderr, flush=True)
    return rows


def auc(pos: np.ndarray, neg: np.ndarray) -> float:
    """ROC AUC of scores where `pos` should be higher than `neg` (Mann-Whitney U / (n_pos * n_neg); ties
    count half)."""
    if not len(pos) or not len(neg):
        return float("nan")
    greater = (pos[:, None] > neg[None, :]).sum() + 0.5 * (pos[:, None] == neg[None, :]).sum()
    return float(greater / (len(pos) * len(neg)))


def threshold_for(in_scores: np.ndarray, max_share: float = MAX_FLAGGED_IN) -> float:
    """A threshold t such that flagging scores < t flags at most `max_share` of `in_scores`: midway between
    the highest score it may flag and the lowest it must not (so rounding the fitted weights moves no task
    across it)."""
    s = np.sort(in_scores)
    allowed = int(math.floor(max_share * len(s)))  # this many in-pool tasks may be flagged
    if allowed >= len(s):
        return float("inf")
    if allowed == 0 or not np.isfinite(s[allowed - 1]):
        return float(s[allowed])
    return float((s[allowed - 1] + s[allowed]) / 2)


def fit_logistic(x: np.ndarray, y: np.ndarray, l2: float = 1e-3, iters: int = 50) -> np.ndarray:
    """Logistic regression weights (bias first) of standardised features `x` (n x d) for labels `y` (1 = in
    pool), by Newton's method with a small L2 penalty (not on the bias)."""
    xb = np.hstack([np.ones((len(x), 1)), x])
    w = np.zeros(xb.shape[1])
    reg = np.eye(len(w)) * l2
    reg[0, 0] = 0.0
    for _ in range(iters):
        p = 1 / (1 + np.exp(-(xb @ w)))
        grad = xb.T @ (p - y) + reg @ w
        hess = (xb * (p * (1 - p))[:, None]).T @ xb + reg
        step = np.linalg.solve(hess, grad)
        w -= step
        if np.abs(step).max() < 1e-8:
            break
    return w


def values(rows: list[dict[str, Any]], feature: str) -> np.ndarray:
    """`feature` of each row; a missing value (None) counts as the worst fit (-inf)."""
    return np.array([r[feature] if r.get(feature) is not None else -np.inf for r in rows], float)


class Model:
    """A scorer of rows (higher = fits the pool): one signal, or a logistic regression on a few."""

    def __init__(self, features: tuple[str, ...], dev: list[dict[str, Any]]) -> None:
        self.features = features
        self.mean = self.std = self.w = None
        if len(features) > 1:
            x = self._raw(dev)
            self.mean, self.std = x.mean(0), x.std(0) + 1e-9
            y = np.array([r["label"] == "in" for r in dev], float)
            self.w = fit_logistic((x - self.mean) / self.std, y)

    def _raw(self, rows: list[dict[str, Any]]) -> np.ndarray:
        cols = []
        for f in self.features:
            v = values(rows, f)
            v[~np.isfinite(v)] = -10.0  # no value: far below any measured one, in any feature's units
            cols.append(v)
        return np.stack(cols, 1)

    def score(self, rows: list[dict[str, Any]]) -> np.ndarray:
        if self.w is None:
            return values(rows, self.features[0])
        x = (self._raw(rows) - self.mean) / self.std
        return self.w[0] + x @ self.w[1:]

    @property
    def name(self) -> str:
        return " + ".join(self.features) if len(self.features) > 1 else self.features[0]

    def raw_weights(self) -> tuple[float, list[float]]:
        """(bias, weights) on the unstandardised features: score = bias + sum(w_i * feature_i)."""
        assert self.w is not None and self.mean is not None and self.std is not None
        w = self.w[1:] / self.std
        return float(self.w[0] - (self.w[1:] * self.mean / self.std).sum()), [float(v) for v in w]


def evaluate(model: Model, dev: list[dict[str, Any]], test: list[dict[str, Any]]) -> dict[str, Any]:
    """AUC on dev and test, the dev threshold (<= MAX_FLAGGED_IN of in-pool dev flagged), and the shares of
    in-pool / out-of-pool tasks it flags on each half."""
    out: dict[str, Any] = {"name": model.name}
    sd = model.score(dev)
    ind = np.array([r["label"] == "in" for r in dev])
    thr = threshold_for(sd[ind])
    out["threshold"] = thr
    for split, rows in (("dev", dev), ("test", test)):
        s = model.score(rows)
        is_in = np.array([r["label"] == "in" for r in rows])
        out[f"{split}_auc"] = auc(s[is_in], s[~is_in])
        out[f"{split}_in_flagged"] = float((s[is_in] < thr).mean()) if is_in.any() else float("nan")
        out[f"{split}_out_flagged"] = float((s[~is_in] < thr).mean()) if (~is_in).any() else float("nan")
        out[f"{split}_n"] = (int(is_in.sum()), int((~is_in).sum()))
    return out


def assessed(row: dict[str, Any]) -> bool:
    """Whether the shipped rule assesses `row` at all (retrieve/fit.py match_label: dense vectors, and at
    least ROUTING_MIN_KNOWN of the task's words known to the index or an English task)."""
    from gorilla_tui.retrieve.fit import is_english
    from gorilla_tui.retrieve.routing import ROUTING_MIN_KNOWN

    if row["known"] < ROUTING_MIN_KNOWN and row.get("english") is None:  # rows recorded before the field
        row["english"] = float(is_english(row["task"]))
    return row.get("dense_top") is not None and (row["known"] >= ROUTING_MIN_KNOWN or bool(row["english"]))


def fit_rule(dev: list[dict[str, Any]]) -> list[tuple[tuple[str, ...], float, tuple[float, ...], float]]:
    """The shipped rule's models fitted on the assessed dev rows: (features, bias, weights, threshold) for
    FULL (rows with lm_tok) and FALLBACK (every assessed row); each threshold flags at most MAX_FLAGGED_IN of
    the in-pool dev rows it applies to."""
    out = []
    for features in (FULL, FALLBACK):
        rows = [r for r in dev if assessed(r) and all(r.get(f) is not None for f in features)]
        model = Model(features, rows)
        bias, weights = model.raw_weights()
        raw = np.array([bias + sum(w * r[f] for f, w in zip(features, weights, strict=True)) for r in rows])
        thr = threshold_for(raw[np.array([r["label"] == "in" for r in rows])])
        out.append((features, bias, tuple(weights), thr))
    return out


#: The shipped rule's models: all three signals, and without the model's score (no likelihood scores).
FULL = ("bm25_norm", "dense_top", "lm_tok")
FALLBACK = ("bm25_norm", "dense_top")


def shipped_flags(rows: list[dict[str, Any]]) -> np.ndarray:
    """Per row, whether the shipped rule (retrieve/fit.py match_label, its FIT_MODELS) says "weak"."""
    from gorilla_tui.retrieve.fit import match_label

    return np.array([assessed(r) and match_label(r) == "weak" for r in rows])


def share(flags: np.ndarray, rows: list[dict[str, Any]], **want: str) -> tuple[int, int]:
    """(flagged, total) of the rows whose fields equal `want`."""
    keep = np.array([all(r[k] == v for k, v in want.items()) for r in rows], bool)
    return int(flags[keep].sum()), int(keep.sum())


def report(rows: list[dict[str, Any]], n_torchhub: int) -> tuple[str, dict[str, Any]]:
    """The markdown section and the shipped rule's figures."""
    dev = [r for r in rows if r["split"] == "dev"]
    test = [r for r in rows if r["split"] == "test"]
    results = [evaluate(Model((s,), dev), dev, test) for s in SIGNALS]
    results += [evaluate(Model(c, dev), dev, test) for c in COMBOS]
    best = max(results, key=lambda r: (r["dev_out_flagged"], r["dev_auc"]))
    fitted = fit_rule(dev)
    flags = shipped_flags(rows)
    figures = {
        (split, label): share(flags, rows, split=split, label=label)
        for split in ("dev", "test")
        for label in ("in", "out")
    }
    t_out, t_in = figures[("test", "out")], figures[("test", "in")]
    ship = t_out[0] >= SHIP_MIN_OUT * t_out[1] and t_in[0] <= SHIP_MAX_IN * t_in[1]

    def count(split: str, label: str, set_: str | None = None) -> int:
        return sum(r["split"] == split and r["label"] == label and set_ in (None, r["set"]) for r in rows)

    sets = sorted({r["set"] for r in rows if r["label"] == "in" and r["split"] != "check"})
    lines = [
        "Script: `python bench/out_of_pool.py" + (f" --torchhub {n_torchhub}`" if n_torchhub else "`"),
        "",
        "Can the signals an ask already computes tell a task the API pool serves from one it does not? "
        "Index: the default one (three APIBench hubs, APIZoo, the standard library; hybrid), each task "
        "through `pipeline.ask` (select mode, select by likelihood, k = 5, no hub named; the embedded "
        "Gemma 3 270M). "
        "In-pool tasks: "
        + ", ".join(f"{s} {count('dev', 'in', s)} dev / {count('test', 'in', s)} test" for s in sets)
        + f"; out-of-pool: bench/data/out_of_pool_tasks.toml, {count('dev', 'out')} dev / "
        f"{count('test', 'out')} test (hand-written: bookings, payments, smart-home devices, messaging "
        "services the pool has no doc for). None from the APIBench eval sets. Check set, never fitted on: "
        f"bench/data/multilingual_tasks.toml ({count('check', 'in')} in-pool tasks in other languages).",
        "",
        "Signals (higher = fits the pool): `bm25_norm` the best normalised BM25 score over the sources "
        "(retrieve/routing.py `source_scores`; -2..0, the best cosine - 1, when the task is routed by the "
        "dense side), `bm25_top` hit 1's raw BM25 score, `known` the share of the task's words the index "
        "knows, `dense_top` the best dense cosine, `dense_margin` its margin over the mean of the top 50, "
        "`lm_tok` the best log p(task | doc) of the scored hits per task token (select mode's scores). "
        "Combinations: logistic regression on standardised features, fitted on the dev halves only. "
        f"Threshold: the one that flags at most {MAX_FLAGGED_IN:.0%} of the in-pool dev tasks, applied "
        "unchanged to the test halves (reported once).",
        "",
        "Every task (English in-pool and out-of-pool):",
        "",
        "| signal | dev AUC | dev out-of-pool flagged % | dev in-pool flagged % | test AUC | "
        "test out-of-pool flagged % | test in-pool flagged % |",
        "|---|---|---|---|---|---|---|",
    ]
    for r in results:
        lines.append(
            f"| {r['name']} | {r['dev_auc']:.3f} | {100 * r['dev_out_flagged']:.1f} | "
            f"{100 * r['dev_in_flagged']:.1f} | {r['test_auc']:.3f} | {100 * r['test_out_flagged']:.1f} | "
            f"{100 * r['test_in_flagged']:.1f} |"
        )
    ml = share(flags, rows, set="multilingual")
    best_ml = sum(
        Model(tuple(best["name"].split(" + ")), dev).score([r])[0] < best["threshold"]
        for r in rows
        if r["set"] == "multilingual"
    )
    lines += [
        "",
        f"Best on dev: **{best['name']}**; but it flags {best_ml} of the {ml[1]} in-pool tasks in other "
        "languages: a task whose words the index does not know is routed by the dense side "
        "(retrieve/routing.py `ROUTING_MIN_KNOWN`), and its `bm25_norm` (cosine - 1) then reads as no match. "
        'English tasks with words no doc uses ("flight", "lottery") look the same to it.',
        "",
        "Shipped rule (retrieve/fit.py `match_label`): tasks routed by the dense side that py3langid "
        "(`is_english`) does not read as English, and indexes without vectors, are not assessed (no line); "
        "the others are scored by a logistic regression on "
        f"{' + '.join(FULL)} (on {' + '.join(FALLBACK)} when select mode did not score the hits), fitted on "
        "the assessed dev tasks, each threshold flagging at most "
        f"{MAX_FLAGGED_IN:.0%} of the in-pool dev tasks it applies to:",
        "",
        "| model | bias | weights | threshold |",
        "|---|---|---|---|",
    ]
    for features, bias, weights, thr in fitted:
        ws = ", ".join(f"{f} {w:.4g}" for f, w in zip(features, weights, strict=True))
        lines.append(f"| {' + '.join(features)} | {bias:.4g} | {ws} | {thr:.4g} |")
    lines += [
        "",
        "| tasks | dev flagged | test flagged |",
        "|---|---|---|",
    ]
    for label, name in (("out", "out-of-pool"), ("in", "in-pool (English)")):
        d, t = figures[("dev", label)], figures[("test", label)]
        lines.append(
            f"| {name} | {d[0]} of {d[1]} ({100 * d[0] / max(d[1], 1):.1f} %) | "
            f"{t[0]} of {t[1]} ({100 * t[0] / max(t[1], 1):.1f} %) |"
        )
    lines.append(f"| in-pool, other languages (check) | {ml[0]} of {ml[1]} | |")
    lines += [
        "",
        f"Shipping rule (on the test halves: at least {SHIP_MIN_OUT:.0%} of the out-of-pool tasks flagged, "
        f"at most {SHIP_MAX_IN:.0%} of the in-pool ones): **{'met: shipped' if ship else 'not met'}**.",
    ]
    asked = [r for r in rows if "match" in r]  # rows recorded with the pipeline's own Proposal.match
    same = sum((r["match"] == "weak") == bool(f) for r, f in zip(rows, flags, strict=True) if "match" in r)
    if asked:
        lines += ["", f"`pipeline.ask`'s own `Proposal.match` agrees with the rule above on {same} of "
                  f"{len(asked)} tasks."]  # fmt: skip
    flagged_in = [r["id"] for r, f in zip(rows, flags, strict=True) if f and r["label"] == "in"]
    missed = [r["id"] for r, f in zip(rows, flags, strict=True) if not f and r["label"] == "out"]
    lines += ["", "In-pool tasks flagged: " + (", ".join(flagged_in) or "none") + ".",
              "Out-of-pool tasks not flagged: " + (", ".join(missed) or "none") + "."]  # fmt: skip
    return "\n".join(lines), {"ship": ship, "fitted": fitted, "figures": figures}


def main(argv: list[str] | None = None) -> int:
    """Collect the signals (or read them), print the table, write docs/benchmarks.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    shared = Path(os.environ.get("GORILLA_TUI_SHARED", ROOT.parent / "shared"))
    ap.add_argument("--shared", type=Path, default=shared, help="the shared/ data folder")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="answers folder")
    ap.add_argument("--torchhub", type=int, default=60, help="Torch Hub questions (dev/test alternate)")
    ap.add_argument("--report-only", action="store_true", help="the table from the results file, no model")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    path = args.results / "out_of_pool.jsonl"
    if args.report_only:
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
    else:
        args.results.mkdir(parents=True, exist_ok=True)
        rows = collect(load_tasks(args.shared, args.torchhub), path)
    text, result = report(rows, args.torchhub)
    print(text)
    models = tuple((f, round(b, 6), tuple(round(w, 6) for w in ws)) for f, b, ws, _ in result["fitted"])
    print("FIT_MODELS =", models)  # for retrieve/fit.py
    print("MATCH_THRESHOLDS =", tuple(round(t, 6) for *_, t in result["fitted"]))
    if not args.no_write:
        write_section(TITLE, text)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
