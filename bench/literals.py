"""Literal values in tasks (issue 37): retrieval with and without retrieve/query/literals.py's masking.

Run: python bench/literals.py [--shared ../shared] [--index PATH] [--vector-cache DIR] [--no-write]

Retrieval only, no model. The index is the default one (the three APIBench hubs, APIZoo, the Python standard
library, with the vectors of the hybrid sources), built as bench/everyday.py builds it (or --index PATH, a
built version folder). Each figure is measured twice on the same index: ApiIndex.literals off (the task's
text as typed) and on (intent_text: literal values replaced by the word of their kind).

- literal tasks: bench/data/literal_tasks.toml (tasks with URLs, file names, paths, quoted text, numbers...),
  searched as the pipeline does (constraints.rank.search_with_constraints, no hub named, k = 5): hit@1 and
  hit@5 (a right doc by the task's label, bench/everyday.py is_right) per split, hybrid (as shipped) and
  BM25 alone (the same index without its vectors, as before its first embedding and in tests/apibench);
- everyday tasks: bench/everyday_tasks.toml, the same way;
- hub dev splits, each hub named as APIBench evaluates: Torch Hub (the training split's even questions, the
  docs expanded with the odd ones, BM25 as bench/retrieval.py's dev split), TensorFlow Hub and Hugging Face
  (bench/data/hub_dev_tasks.toml, on the default index): domain@1, api@1, api@5;
- APIBench eval tasks (test sets: reported, never used to choose): domain@1, api@1 per hub.
Writes the section "Literal values in tasks (retrieval)" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import everyday  # noqa: E402
import hub_dev  # noqa: E402
import torchhub_dev  # noqa: E402
from _report import publish  # noqa: E402

from gorilla_tui.constraints.rank import search_with_constraints  # noqa: E402
from gorilla_tui.evaluate.run import load_tasks as load_eval_tasks  # noqa: E402
from gorilla_tui.retrieve import dense as dense_mod  # noqa: E402
from gorilla_tui.retrieve.dense import DenseSide  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402
from gorilla_tui.retrieve.query.literals import intent_text  # noqa: E402

TITLE = "Literal values in tasks (retrieval)"
TASKS = ROOT / "bench" / "data" / "literal_tasks.toml"
EVAL_FILES = {
    "torchhub": "torchhub_eval.json",
    "tensorflowhub": "tensorflow_eval.json",
    "huggingface": "huggingface_eval.json",
}


def squash(call: str) -> str:
    return "".join(call.split())


def labelled(index: ApiIndex, tasks: list[dict[str, Any]], masked: bool) -> list[dict[str, Any]]:
    """Per task: its 5 hits by search_with_constraints (no hub named); whether hit 1 / any hit is right."""
    index.literals = masked
    out = []
    for t in tasks:
        hits = search_with_constraints(index, t["task"], k=5).hits
        right = [everyday.is_right(t, h.doc) for h in hits]
        out.append({"id": t["id"], "split": t["split"], "hit1": bool(right[:1] and right[0]),
                    "hit5": any(right), "first": hits[0].doc.api_name if hits else None})  # fmt: skip
    index.literals = True
    return out


def pct(rows: list[dict[str, Any]], key: str, split: str = "all") -> str:
    chosen = [r[key] for r in rows if split in ("all", r["split"])]
    return f"{100 * sum(chosen) / len(chosen):.1f}" if chosen else "-"


def hub_figures(
    index: ApiIndex, hub: str, items: list[tuple[str, str, set[str]]], masked: bool
) -> dict[str, float]:
    """domain@1, api@1, api@5 in % of `items` ((task, domain, right calls squashed)), `hub` named."""
    index.literals = masked
    m = {"domain@1": 0, "api@1": 0, "api@5": 0}
    for task, domain, calls in items:
        hits = index.search(task, 5, hub)
        got = [squash(h.doc.api_call) for h in hits]
        m["domain@1"] += bool(hits) and hits[0].doc.domain == domain
        m["api@1"] += bool(got) and got[0] in calls
        m["api@5"] += bool(calls & set(got))
    index.literals = True
    return {key: 100 * v / len(items) for key, v in m.items()}


def changed(items: list[tuple[str, str, set[str]]], known: Any) -> int:
    """How many of the tasks intent_text changes (beyond white space)."""
    return sum(intent_text(t, known) != " ".join(t.split()) for t, _, _ in items)


def build_index(args: argparse.Namespace) -> ApiIndex:
    """--index, or the default index built as bench/everyday.py builds it (every source, with vectors)."""
    if args.vector_cache:
        os.environ["GORILLA_TUI_VECTOR_CACHE"] = str(Path(args.vector_cache).expanduser())
    dense_mod.QUERY_CACHE = 100_000
    return ApiIndex.load(Path(args.index)) if args.index else everyday.build_index(Path(args.shared))


def main(argv: list[str] | None = None) -> int:
    """Measure every figure with masking off and on; print the tables, write docs/benchmarks.md."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", type=Path, default=ROOT.parent / "shared", help="the shared/ data folder")
    ap.add_argument("--index", help="a built index version folder (default: build the default index)")
    ap.add_argument("--vector-cache", help="GORILLA_TUI_VECTOR_CACHE for the build")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    start = time.perf_counter()
    index = build_index(args)
    apibench = Path(args.shared) / "apibench"
    lines = [
        "Script: `python bench/literals.py`",
        "",
        "Retrieval only (no model), on the default index "
        f"({len(index.docs):,} docs; {index.dense_state()['note']}). Each figure twice on the same index: "
        "the task as typed (**off**) and with its literal values replaced by the word of their kind "
        "(**on**: retrieve/query/literals.py `intent_text`, what `ApiIndex.search` does since issue 37).",
        "",
        "| task set | retrieval | split | n | hit@1 % off | hit@1 % on | hit@5 % off | hit@5 % on |",
        "|---|---|---|---|---|---|---|---|",
    ]
    details: list[str] = []
    hybrid = index.dense
    for retrieval in ("hybrid", "BM25 alone"):
        if retrieval != "hybrid":  # the same docs without vectors: as an index before its first embedding
            index.dense = DenseSide(len(index.docs))
        for name, path in (("literal tasks", TASKS), ("everyday tasks", everyday.TASKS)):
            tasks = everyday.load_tasks(path)
            off, on = labelled(index, tasks, False), labelled(index, tasks, True)
            for split in ("dev", "test", "all"):
                n = sum(split in ("all", t["split"]) for t in tasks)
                cells = [pct(off, "hit1", split), f"**{pct(on, 'hit1', split)}**"]
                cells += [pct(off, "hit5", split), f"**{pct(on, 'hit5', split)}**"]
                lines.append(f"| {name} | {retrieval} | {split} | {n} | " + " | ".join(cells) + " |")
            for a, b, t in zip(off, on, tasks, strict=True):
                if (a["hit1"], a["hit5"]) != (b["hit1"], b["hit5"]):
                    details.append(
                        f"- {name}, {retrieval}, {t['split']}, `{t['id']}`: hit@1 {a['hit1']} -> "
                        f"{b['hit1']}, hit@5 {a['hit5']} -> {b['hit5']} "
                        f"(hit 1: `{a['first']}` -> `{b['first']}`)"
                    )
            if name == "literal tasks":
                wrong = [f"`{r['id']}` ({r['split']}) -> `{r['first']}`" for r in on if not r["hit1"]]
                details.append(
                    f"- literal tasks, {retrieval}, wrong at hit 1 with masking ({len(wrong)}): "
                    + ", ".join(wrong)
                )
    index.dense = hybrid
    lines += ["", "Tasks whose figures change:", "", *details, ""]

    lines += [
        "Hub dev splits (hub named, as APIBench evaluates): Torch Hub: the training split's even questions "
        "on its docs expanded with the odd ones (BM25, bench/torchhub_dev.py); TensorFlow Hub and Hugging "
        "Face: bench/data/hub_dev_tasks.toml on the default index. APIBench eval sets (test: reported only). "
        "changed: tasks intent_text changes.",
        "",
        "| hub | tasks | n | changed | domain@1 % off | domain@1 % on | api@1 % off | api@1 % on "
        "| api@5 % off | api@5 % on |",
        "|---|---|---|---|---|---|---|---|---|---|",
    ]
    th_docs, _ = torchhub_dev.expanded_docs(apibench)
    th_index = ApiIndex.build(th_docs)
    th_items = [(t.task, t.domain, {squash(t.api_call)}) for t in torchhub_dev.dev_tasks(apibench)]
    dev_sets: list[tuple[str, ApiIndex, list[tuple[str, str, set[str]]]]] = [("torchhub", th_index, th_items)]
    hub_tasks = hub_dev.load_tasks()
    for hub in hub_dev.HUBS:
        items = [
            (t["task"], t["domain"], {squash(c) for c in t["calls"]}) for t in hub_tasks if t["hub"] == hub
        ]
        dev_sets.append((hub, index, items))
    eval_sets = []
    for hub, file in EVAL_FILES.items():
        tasks = [t for t in load_eval_tasks(apibench / "eval" / file, hub) if t.task]
        eval_sets.append((hub, index, [(t.task, t.domain, {squash(t.api_call)}) for t in tasks]))

    def row(hub: str, kind: str, idx: ApiIndex, items: list) -> str:
        off, on = hub_figures(idx, hub, items, False), hub_figures(idx, hub, items, True)
        cells = " | ".join(f"{off[k]:.1f} | **{on[k]:.1f}**" for k in off)
        print(hub, kind, off, on, flush=True)
        return f"| {hub} | {kind} | {len(items)} | {changed(items, idx.vocab)} | {cells} |"

    lines += [row(hub, "dev", idx, items) for hub, idx, items in dev_sets]
    lines += [row(hub, "eval (test)", idx, items) for hub, idx, items in eval_sets]
    lines += ["", f"Wall time {time.perf_counter() - start:.0f} s on 2 shared cores."]
    return publish(TITLE, "\n".join(lines), not args.no_write)


if __name__ == "__main__":
    sys.exit(main())
