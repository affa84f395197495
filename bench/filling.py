"""Filling on everyday tasks with values (issue 37): the right API with the task's values, and its cost.

Run: python bench/filling.py [--shared ../shared] [--home DIR] [--split all|dev|test] [--results DIR]
[--report-only] [--no-write]

The index is the default one, built as bench/everyday.py builds it (every source, with the vectors of the
hybrid sources), or the live index of --home DIR (a GORILLA_TUI_HOME holding one, e.g. a copy of a home
where `index --refresh --from ../shared/apibench/api --from ../shared` ran; its model cache is used too).
The tasks are bench/data/literal_tasks.toml (hand-written, with values, dev/test halves; read by
everyday.load_tasks). Each task goes through `services.build_pipeline(...).ask(task)` with the embedded
model twice in the same run, interleaved task by task (the first of the two alternates, so neither setting
always runs on a warm cache): Settings(fill=True) and Settings(fill=False), otherwise as everyday.py's
default setting (no hub named, select mode, select by likelihood, k = 5).

Per split: hit@1 and hit@5 (a right doc is the first hit / among the hits), right API % (the chosen doc
meets the task's label, everyday.is_right), right API with the task's values % (the proposal's api_call
parsed with ast: each label value is an argument literal of a call in it, compared as ast.literal_eval
reads both; in the label's order when the task says `order = true`), incomplete % (verdict "incomplete":
a placeholder left), p50 seconds of ask with and without filling and their ratio, and the p50 of
timings["fill"] (asks where filling ran). The dev half's failures with filling
are listed by cause (failure_cause). Answers go to --results/filling.jsonl (--report-only rebuilds the
tables from it). Writes the section "Filling: everyday tasks with values" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import ast
import itertools
import json
import os
import statistics
import sys
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import Figure, publish  # noqa: E402
from everyday import SOURCES, build_index, chosen_doc, is_right, load_tasks, pct  # noqa: E402

from gorilla_tui import services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402
from gorilla_tui.fill.call_grammar import FILLABLE  # noqa: E402
from gorilla_tui.model import likelihood  # noqa: E402
from gorilla_tui.pipeline import NEXT_SOURCE_NOTE  # noqa: E402
from gorilla_tui.pool.doc import ApiDoc  # noqa: E402
from gorilla_tui.pool.params import params_of  # noqa: E402

TITLE = "Filling: everyday tasks with values"
TASKS = ROOT / "bench" / "data" / "literal_tasks.toml"
SETTINGS = ("fill", "no fill")
#: Issue 37's targets: right API with the task's values, and p50 of ask with filling / without, one run.
TARGET_RIGHT, TARGET_RATIO = 80.0, 1.3
#: Failure causes of a proposal that is not right with the task's values, in the order failure_cause tries.
CAUSES = (
    "wrong API, no right hit",
    "wrong API, a right hit passed over",
    "no parameter for the value",
    "value order",
    "value needs converting",
    "placeholder left",
    "value wrong or left out",
)


def label_values(task: dict[str, Any]) -> list[Any]:
    """The task's `values` label read by ast.literal_eval ([] when it has none). Raises ValueError (naming
    the task) for an entry that is not a Python literal."""
    out = []
    for text in task.get("values", ()):
        try:
            out.append(ast.literal_eval(text))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError) as e:
            raise ValueError(f"{task['id']}: values entry {text!r} is not a Python literal") from e
    return out


def _key(value: Any) -> Any:
    """`value` made comparable the way a call's argument is judged: tuples as lists (BFCL reads both the
    same), a bool never equal to 1 or 0, ints equal to the floats of the same number."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, (int, float)):
        return ("number", value)
    if isinstance(value, (list, tuple)):
        return ("list", tuple(_key(v) for v in value))
    if isinstance(value, dict):
        return ("dict", tuple(sorted((repr(_key(k)), repr(_key(v))) for k, v in value.items())))
    return (type(value).__name__, value)


def call_arguments(api_call: str) -> list[Any]:
    """The literal arguments of every call in `api_call` (positional and keyword values, a receiver's too:
    ``zipfile.ZipFile('a.zip').extractall('out')`` -> ['a.zip', 'out']), in source order, as
    ast.literal_eval reads them; arguments that are not literals (names, ``*args``) are left out. A
    proposal of several calls, one per line (filling's further calls), is read whole: it had been read as
    one expression, so its values were never found. [] for text Python cannot parse. Never evaluated."""
    try:
        tree = ast.parse(api_call.strip())
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    nodes = [
        a for n in ast.walk(tree) if isinstance(n, ast.Call)
        for a in [*n.args, *(k.value for k in n.keywords if k.arg is not None)]
        if not isinstance(a, ast.Starred)
    ]  # fmt: skip
    out = []
    for node in sorted(nodes, key=lambda a: (a.lineno, a.col_offset)):
        try:
            out.append(ast.literal_eval(node))
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
    return out


def values_found(wanted: Sequence[Any], api_call: str) -> tuple[bool, bool]:
    """(present, in_order): whether each of `wanted` is a distinct literal argument of `api_call`
    (call_arguments, compared by _key), and whether they can be found in `wanted`'s order."""
    args = [_key(a) for a in call_arguments(api_call)]
    keys = [_key(v) for v in wanted]
    free = list(args)
    present = True
    for k in keys:  # equal keys are interchangeable, so taking the first free one is enough
        if k in free:
            free.remove(k)
        else:
            present = False
    at, in_order = -1, present
    for k in keys if present else ():
        nxt = next((i for i in range(at + 1, len(args)) if args[i] == k), None)
        if nxt is None:
            in_order = False
            break
        at = nxt
    return present, in_order


def _accepts(param_type: str, value: Any) -> bool:
    """Whether a parameter of Param.type `param_type` can take `value`."""
    if param_type == "any":
        return True
    number = isinstance(value, (int, float)) and not isinstance(value, bool)
    return {
        "string": isinstance(value, str),
        "integer": isinstance(value, int) and not isinstance(value, bool),
        "number": number,
        "boolean": isinstance(value, bool),
        "array": isinstance(value, (list, tuple)),
        "object": isinstance(value, dict),
    }.get(param_type, False)


def fits(task: dict[str, Any], doc: ApiDoc) -> bool:
    """Whether `doc`'s parameters can hold the task's label values: each value a distinct parameter that
    filling fills (fill/call_grammar.py FILLABLE: not ``*args``/``**kwargs``) of a type that accepts it
    (pool/params.py params_of: the doc's api_arguments or JSON Schema). True for a task without values."""
    wanted = label_values(task)
    if not wanted:
        return True
    params = [p for p in params_of(doc) if p.kind in FILLABLE]
    return any(
        all(_accepts(p.type, v) for p, v in zip(chosen, wanted, strict=True))
        for chosen in itertools.permutations(params, len(wanted))
    )


def _verbatim(value: Any, task: str) -> bool:
    """Whether the task writes `value` as it is (a string, a number, a list of them); False for bytes,
    tuples and the rest: the task's text has to be converted to give them."""
    if isinstance(value, str):
        return value in task
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return repr(value) in task or (float(value).is_integer() and str(int(value)) in task)
    if isinstance(value, list):
        return all(_verbatim(v, task) for v in value)
    return False


def failure_cause(task: dict[str, Any], row: dict[str, Any], doc: ApiDoc | None) -> str:
    """Why a row is not right with the task's values (one of CAUSES), "" when it is: the wrong API (no
    right doc among the hits: retrieval; or one there the choice passed over); a doc
    whose parameters cannot hold the values (fits); every value there but out of order; a value the task
    writes in another form than the API takes (bytes, a tuple, 250ms as 0.25: _verbatim); a placeholder
    left (a required parameter the filler gave no value); else a value wrong or left out (an optional
    parameter not given)."""
    if row["right_values"]:
        return ""
    if not row["right"]:
        return CAUSES[1] if row["hit5"] else CAUSES[0]
    if doc is not None and not fits(task, doc):
        return "no parameter for the value"
    present, in_order = values_found(label_values(task), row["api_call"])
    if present and not in_order:
        return "value order"
    missing = [v for v in label_values(task) if not values_found([v], row["api_call"])[0]]
    if any(not _verbatim(v, task["task"]) for v in missing):
        return "value needs converting"
    if row["needs"]:
        return "placeholder left"
    return "value wrong or left out"


def answer(pipeline: Any, task: dict[str, Any], setting: str) -> dict[str, Any]:
    """One task through pipeline.ask: the proposal's call, whether it is right and right with the task's
    values, its verdict, placeholders, seconds (wall clock around ask) and timings, and the failure cause."""
    t0 = time.perf_counter()
    proposal = pipeline.ask(task["task"])
    seconds = time.perf_counter() - t0
    doc = chosen_doc(proposal)
    right = is_right(task, doc)
    present, in_order = values_found(label_values(task), proposal.api_call)
    hits = [is_right(task, h.doc) for h in proposal.hits]
    row = {
        "id": task["id"], "split": task["split"], "source": task["source"], "setting": setting,
        "api_call": proposal.api_call, "chosen": doc.id if doc is not None else None,
        "chosen_name": doc.api_name if doc is not None else None, "right": right,
        "hit1": bool(hits) and hits[0], "hit5": any(hits),
        "right_values": right and present and (in_order or not task.get("order", False)),
        "arguments": [a.to_dict() for a in proposal.arguments],
        "verdict": proposal.verdict.kind, "needs": proposal.needs, "seconds": round(seconds, 3),
        "timings": {k: round(v, 4) for k, v in proposal.timings.items()},
        "fit": proposal.fit, "unused": proposal.unused, "fit_signals": proposal.fit_signals,
    }  # fmt: skip
    row["cause"] = failure_cause(task, row, doc)
    row["hits"] = recorded_hits(pipeline, task, proposal.hits)
    row["next_source"] = any(w.startswith(NEXT_SOURCE_NOTE) for w in proposal.warnings)
    return row


def recorded_hits(pipeline: Any, task: dict[str, Any], hits: Sequence[Any]) -> list[dict[str, Any]]:
    """Each hit as the choice read it, for bench/choice_replay.py: doc id, BM25 score, fused score,
    log p(task | doc) and log p(content-free task | doc) (the latter from likelihood's cache: recorded only
    where the choice rule computed it, None elsewhere), and whether the hit meets the task's label."""
    return [
        {"id": h.doc.id, "source": h.doc.source, "bm25": round(h.score, 4), "fused": h.fused,
         "lm": h.lm_score, "free": likelihood.cached_free_score(pipeline.backend, h.doc),
         "right": is_right(task, h.doc)}
        for h in hits
    ]  # fmt: skip


def p50(xs: Sequence[float]) -> float:
    return statistics.median(xs) if xs else float("nan")


def table(rows: list[dict[str, Any]]) -> list[str]:
    """Markdown rows per split and setting: n, hit@1 and hit@5 (a right doc first / among the hits), right
    API %, right with values %, incomplete %, p50 s of ask, p50 s of timings["fill"] (asks where filling
    ran), and the p50 ratio fill / no fill per split."""
    out = [
        "| split | setting | n | hit@1 % | hit@5 % | right API % | right API with the task's values % "
        "| incomplete % | p50 ask s | p50 fill s (asks filled) | p50 ratio fill / no fill |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for split in ("dev", "test", "all"):
        mine = [r for r in rows if split in ("all", r["split"])]
        on = [r["seconds"] for r in mine if r["setting"] == "fill"]
        off = [r["seconds"] for r in mine if r["setting"] == "no fill"]
        ratio = p50(on) / p50(off) if on and off else float("nan")
        for setting in SETTINGS:
            r = [x for x in mine if x["setting"] == setting]
            if not r:
                continue
            filled = [x["timings"]["fill"] for x in r if "fill" in x["timings"]]
            out.append(
                f"| {split} | {setting} | {len(r)} | {pct([x['hit1'] for x in r]):.1f} "
                f"| {pct([x['hit5'] for x in r]):.1f} | {pct([x['right'] for x in r]):.1f} "
                f"| **{pct([x['right_values'] for x in r]):.1f}** "
                f"| {pct([x['verdict'] == 'incomplete' for x in r]):.1f} "
                f"| {p50([x['seconds'] for x in r]):.2f} "
                f"| {f'{p50(filled):.2f} ({len(filled)})' if filled else '-'} "
                f"| {f'{ratio:.2f}' if setting == 'fill' else ''} |"
            )
    return out


def failures(rows: list[dict[str, Any]], tasks: dict[str, dict[str, Any]], split: str) -> list[str]:
    """The filled rows of `split` that are not right with the task's values, grouped by cause: a line per
    cause, then one per task: its text -> the proposed call."""
    out = []
    wrong = [r for r in rows if r["setting"] == "fill" and r["split"] == split and r["cause"]]
    for cause in CAUSES:
        mine = [r for r in wrong if r["cause"] == cause]
        if mine:
            out.append(f"- {cause} ({len(mine)}):")
            out += [f'  - {r["id"]} "{tasks[r["id"]]["task"]}" -> `{r["api_call"]}`' for r in mine]
    return out


def main(argv: list[str] | None = None) -> int:
    """Answer every task with and without filling, print the tables, write docs/benchmarks.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared/ data folder")
    ap.add_argument("--home", type=Path, help="use the live index (and model cache) of this GORILLA_TUI_HOME "
                    "instead of building the default index")  # fmt: skip
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="answers folder")
    ap.add_argument("--split", choices=("all", "dev", "test"), default="all", help="the tasks of one split")
    ap.add_argument("--report-only", action="store_true", help="tables from the results file, no model")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    if args.home is not None and not (args.home / "data" / "index").is_dir():
        print(f"error: {args.home} holds no index (data/index)", file=sys.stderr)
        return 2
    try:
        tasks = [t for t in load_tasks(TASKS) if args.split in ("all", t["split"])]
        for t in tasks:
            label_values(t)
    except ValueError as e:
        print(f"error: {e}", file=sys.stderr)
        return 2
    by_id = {t["id"]: t for t in tasks}
    path = args.results / "filling.jsonl"
    start = time.perf_counter()
    index = None
    if args.report_only:
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        rows = [r for r in rows if r["id"] in by_id]
        for r in rows:  # judged again by this script's rules (call_arguments reads every call of a proposal)
            task = by_id[r["id"]]
            present, in_order = values_found(label_values(task), r["api_call"])
            r["right_values"] = r["right"] and present and (in_order or not task.get("order", False))
            r["cause"] = "" if r["right_values"] else r["cause"] or "value wrong or left out"
    else:
        if args.home is not None:
            os.environ["GORILLA_TUI_HOME"] = str(args.home)
            index = services.load_index()
        else:
            index = build_index(args.shared)
        print("retrieval:", index.dense_state()["note"], flush=True)
        pools = {s: index.pool(s) for s in SOURCES}
        for t in tasks:  # a label no doc of the pool meets, or whose values fit no right doc, is a typo
            right = [d for d in pools[t["source"]] if is_right(t, d)]
            if not right or not any(fits(t, d) for d in right):
                raise SystemExit(f"{t['id']}: no doc of {t['source']} meets its label and holds its values")
        # one llama.cpp thread: 2-thread barriers spin on a busy machine (as everyday.py)
        backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))
        checker = services.build_checker(index)  # one validator for both pipelines
        pipelines = {
            s: services.build_pipeline(
                Settings(k=5, mode="select", select_by="likelihood", fill=s == "fill"),
                index, backend, validator=checker,
            )
            for s in SETTINGS
        }  # fmt: skip
        rows = []
        args.results.mkdir(parents=True, exist_ok=True)
        for n, t in enumerate(tasks):
            for setting in SETTINGS if n % 2 == 0 else SETTINGS[::-1]:
                rows.append(answer(pipelines[setting], t, setting))
                r = rows[-1]
                print(f"{n + 1}/{len(tasks)} {t['id']} {setting}: right={r['right']} "
                      f"values={r['right_values']} {r['seconds']:.2f}s {r['api_call']}",
                      file=sys.stderr, flush=True)  # fmt: skip
        path.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    wall = time.perf_counter() - start
    filled = [r for r in rows if r["setting"] == "fill"]
    on = [r["seconds"] for r in filled]
    off = [r["seconds"] for r in rows if r["setting"] == "no fill"]
    ratio = p50(on) / p50(off) if on and off else float("nan")
    seconds = {(r["id"], r["setting"]): r["seconds"] for r in rows}
    per_task = p50([seconds[(i, "fill")] / seconds[(i, "no fill")] for i, s in seconds if s == "fill"
                    and seconds.get((i, "no fill"))])  # fmt: skip
    test_right = pct([r["right_values"] for r in filled if r["split"] == "test"])
    lines = [
        "Script: `python bench/filling.py`",
        "",
        f"{len(tasks)} hand-written everyday tasks with values (bench/data/literal_tasks.toml: "
        f"{sum(t['source'] == 'python-env' for t in tasks)} standard library, the rest model hubs and APIZoo "
        "whose complete calls need no value; half dev, half test; never copied from the eval sets). Index: "
        f"the default one ({f'{len(index.docs):,} docs, ' if index is not None else ''}every source, as "
        "bench/everyday.py builds it). Each task asked twice in the same run through `pipeline.ask` with the "
        "embedded model (Gemma 3 270M Q4_K_M; select mode, select by likelihood, k = 5, no hub named), "
        "interleaved task by task: **fill** = `Settings(fill=True)`, **no fill** = `Settings(fill=False)`. "
        "hit@1 / hit@5: a right doc is the first of the 5 hits / among them (what retrieval gives the "
        "choice); "
        "right API: the chosen doc meets the task's label; right with the task's values: also each of the "
        "task's `values` is a literal argument of the proposed call (ast, compared as `ast.literal_eval` "
        "reads them; in order where the task says `order`); incomplete: the verdict says a placeholder is "
        "left. p50 ask s: wall clock around `ask`; p50 fill s: `timings[\"fill\"]` of the asks where filling "
        "ran.",
        "",
        *table(rows),
        "",
        f"Targets (issue 37): right API with the task's values >= {TARGET_RIGHT:.0f} % (test half, with "
        f"filling): **{test_right:.1f} %, {'met' if test_right >= TARGET_RIGHT else 'not met'}**; p50 of ask "
        f"with filling / without <= {TARGET_RATIO}: **{ratio:.2f}, "
        f"{'met' if ratio <= TARGET_RATIO else 'not met'}** (the median of each task's ratio: "
        f"{per_task:.2f}). The machine was shared (2 cores, other jobs "
        "running): the ratio, measured in one interleaved run, counts, not the absolute seconds.",
        "",
        "Dev half, with filling, not right with the task's values (by cause; the dev half is for tuning):",
        "",
        *(failures(rows, by_id, "dev") or ["- none"]),
        "",
        "Test half, with filling, not right with the task's values by cause: " + ", ".join(
            f"{c} {sum(r['cause'] == c for r in filled if r['split'] == 'test')}" for c in CAUSES) + ".",
        "",
        f"Wall time {wall:.0f} s." if not args.report_only else "Tables rebuilt from the results file.",
    ]  # fmt: skip
    figures = [
        Figure("Everyday tasks with values, right API with the task's values (test)", f"{test_right:.1f} %",
               f">= {TARGET_RIGHT:.0f} %"),
        Figure("ask p50 with filling / without", f"{ratio:.2f}", f"<= {TARGET_RATIO}"),
    ]  # fmt: skip
    return publish(TITLE, "\n".join(lines), not args.no_write and args.split == "all", summary=figures)


if __name__ == "__main__":
    sys.exit(main())
