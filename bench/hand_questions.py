"""Hand-written questions as doc expansion (index/questions/*.toml, issue 18): measured on the dev splits.

Run: python bench/hand_questions.py [--shared ../shared] [--vector-cache DIR] [--part retrieval|choice|all]
                                    [--try SOURCE=FILE ...]
                                    [--results DIR] [--report-only] [--no-write]

Two default indexes (every source, vectors for the hybrid sources) are built from the shared data into
temporary homes: **bare** (the manifests' `hand_questions` left out) and **expanded** (as shipped, plus any
`--try SOURCE=FILE`: a questions file of index/questions/ that no manifest names, measured before
shipping). The questions files were written from the pools only; the dev splits below were not read to
write them, and the APIBench eval sets chose nothing here.

- retrieval: hit 1 / the 5 hits of the shipped retriever on
  the hub dev split (bench/data/hub_dev_tasks.toml, with the hub named and with no hub named: domain@1,
  api@1, api@5), the library tasks (tests/data/stdlib_tasks.toml; python-env named and no hub named: an
  expected api_name at 1 / among 5), and the dev half of bench/everyday_tasks.toml (no hub named: a right
  doc at 1 / among 5, bench/everyday.py is_right);
- choice: the 5 hits of each TensorFlow Hub dev task (hub named) in both indexes scored once by the
  embedded model (bench/hub_dev.py score_hits), and every rule of bench/hub_dev.RULES choosing from the
  same scores: api@1 / domain@1.
Writes the section "Hand-written questions (doc expansion), dev splits" of docs/benchmarks.md.
"""

from __future__ import annotations

import argparse
import atexit
import dataclasses
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

import everyday  # noqa: E402
import hub_dev  # noqa: E402
from _report import publish  # noqa: E402

from gorilla_tui.model import likelihood  # noqa: E402
from gorilla_tui.pool.hand_questions import HAND_QUESTIONS_DIR, hand_questions_text  # noqa: E402
from gorilla_tui.pool.manifest import load_manifests  # noqa: E402
from gorilla_tui.retrieve import dense as dense_mod  # noqa: E402
from gorilla_tui.retrieve.index import ApiIndex  # noqa: E402

TITLE = "Hand-written questions (doc expansion), dev splits"
STDLIB = ROOT / "tests" / "data" / "stdlib_tasks.toml"
#: Everyday tasks whose wording the python-env writer's brief gave as examples (the header of
#: index/questions/python-env.toml): their figures are not independent of the questions, so the
#: everyday figures are also given without them.
ECHOED = frozenset(
    {"py-mkdir", "py-env-var", "py-copy-folder", "py-email-send", "py-random-choice", "py-subprocess"}
)
KINDS = ("bare", "expanded")


def build(kind: str, shared: Path, manifests: list, tried: dict[str, tuple[str, ...]]) -> ApiIndex:
    """The default index of `manifests` built from `shared` in a temporary home, with (expanded) or without
    (bare) their hand-written questions, its vectors embedded (from the vector cache when it has them).
    tried: source name -> more questions files of index/questions/ for the expanded index (--try)."""
    from gorilla_tui.build.refresh import embed_index, refresh

    if kind == "bare":
        manifests = [dataclasses.replace(m, hand_questions=()) for m in manifests]
    else:
        manifests = [
            dataclasses.replace(m, hand_questions=m.hand_questions + tried.get(m.name, ())) for m in manifests
        ]
    os.environ["GORILLA_TUI_HOME"] = home = tempfile.mkdtemp(prefix=f"gorilla-bench-hand-{kind}-")
    atexit.register(shutil.rmtree, home, ignore_errors=True)  # the index is read until the script ends
    report = refresh(mirrors=[shared / "apibench" / "api", shared], manifests=manifests)
    print(kind, "embed_index:", embed_index(ApiIndex.load(report.path)), flush=True)
    index = ApiIndex.load(report.path)
    questions = sum(len(d.questions) for d in index.docs if d.source != "torchhub")
    print(kind, index.dense_state()["note"], f"{questions} questions outside Torch Hub", flush=True)
    return index


def _pct(n: int, d: int) -> str:
    return f"{100 * n / d:.1f}" if d else "-"


def hub_rows(index: ApiIndex, tasks: list[dict], named: bool) -> dict[str, str]:
    """Per hub of the dev split: "domain@1 / api@1 / api@5" of the shipped search (hub named or not)."""
    out = {}
    for hub in hub_dev.HUBS:
        items = [t for t in tasks if t["hub"] == hub]
        row_of = {id(d): i for i, d in enumerate(index.docs)}
        ranked = []
        for t in items:
            hits = index.search(t["task"], k=5, hub=hub if named else None)
            ranked.append([row_of[id(h.doc)] for h in hits])
        f = hub_dev.figures(index, ranked, items)
        out[hub] = f"{f['domain@1']:.1f} / {f['api@1']:.1f} / {f['api@5']:.1f}"
    return out


def stdlib_row(index: ApiIndex, named: bool) -> str:
    """The library tasks: "right@1 / right@5" in % (an expected api_name of python-env)."""
    tasks = tomllib.loads(STDLIB.read_text(encoding="utf-8"))["task"]
    at1 = at5 = 0
    for t in tasks:
        hits = index.search(t["query"], k=5, hub="python-env" if named else None)
        names = [h.doc.api_name for h in hits if h.doc.source == "python-env"]
        first = hits[0].doc if hits else None
        at1 += first is not None and first.source == "python-env" and first.api_name in t["expected"]
        at5 += bool(set(names) & set(t["expected"]))
    return f"{_pct(at1, len(tasks))} / {_pct(at5, len(tasks))}"


def everyday_row(index: ApiIndex) -> tuple[str, str, list[str]]:
    """The dev half of the everyday tasks, no hub named: "right@1 / right@5" in % of all of them and of
    those not in ECHOED, and the ids whose hit 1 is wrong."""
    tasks = [t for t in everyday.load_tasks() if t["split"] == "dev"]
    at1: dict[str, bool] = {}
    at5: dict[str, bool] = {}
    wrong = []
    for t in tasks:
        docs = [h.doc for h in index.search(t["task"], k=5)]
        at1[t["id"]] = bool(docs) and everyday.is_right(t, docs[0])
        at5[t["id"]] = any(everyday.is_right(t, d) for d in docs)
        if not at1[t["id"]]:
            wrong.append(f"{t['id']} -> {docs[0].source}:{docs[0].api_name}" if docs else t["id"])
    clean = [i for i in at1 if i not in ECHOED]
    both = f"{_pct(sum(at1.values()), len(at1))} / {_pct(sum(at5.values()), len(at5))}"
    fair = f"{_pct(sum(at1[i] for i in clean), len(clean))} / {_pct(sum(at5[i] for i in clean), len(clean))}"
    return both, fair, wrong


def retrieval(indexes: dict[str, ApiIndex]) -> list[str]:
    """The retrieval table, one row per index. Markdown lines."""
    tasks = hub_dev.load_tasks()
    lines = [
        "| index | TF dev, hub named | TF dev, no hub | HF dev, hub named | HF dev, no hub | library, "
        "python-env named | library, no hub | everyday dev, no hub | everyday dev without the echoed six |",
        "|---|---|---|---|---|---|---|---|---|",
    ]
    notes = []
    for kind, index in indexes.items():
        assert index.dense is not None
        held = index.dense.questions
        variants = [(kind, held)]
        if held is not None:  # the same index with its questions reaching BM25 only (embed_questions off)
            variants = [(f"{kind}, questions not embedded", None), (f"{kind} (questions embedded)", held)]
        for label, questions in variants:
            index.dense.questions = questions
            named, free = hub_rows(index, tasks, True), hub_rows(index, tasks, False)
            day, fair, wrong = everyday_row(index)
            lines.append(
                f"| {label} | {named['tensorflowhub']} | {free['tensorflowhub']} | {named['huggingface']} | "
                f"{free['huggingface']} | {stdlib_row(index, True)} | {stdlib_row(index, False)} | "
                f"{day} | {fair} |"
            )
            notes.append(f"Everyday dev tasks whose hit 1 is wrong, {label}: " + "; ".join(wrong) + ".")
            print(lines[-1], flush=True)
        index.dense.questions = held
    return [*lines, "", *notes]


def choice(indexes: dict[str, ApiIndex], results: Path, report_only: bool) -> list[str]:
    """Each rule's api@1 / domain@1 on the TensorFlow Hub dev tasks, from hits scored once per index."""
    tasks = hub_dev.load_tasks()
    lines = [
        "| index | tasks | right call in hits % | "
        + " | ".join(f"`{r}` api@1 / domain@1 %" for r in hub_dev.RULES)
        + " |",
        "|---|---|---|" + "---|" * len(hub_dev.RULES),
    ]
    for kind in KINDS:
        path = results / f"hand_questions_tensorflowhub_{kind}.jsonl"
        if not report_only:
            index = indexes[kind]
            w = index.fusion_settings().weight("tensorflowhub")
            hub_dev.score_hits(index, tasks, "tensorflowhub", w, path)
        rows = hub_dev.read_rows(path)
        cells = []
        for rule in hub_dev.RULES:
            picks = [likelihood.choose(r["lm"], None, rule, r["group"]) if r["lm"] else 0 for r in rows]
            cells.append(hub_dev.picked_cell(rows, picks))
        in_hits = _pct(sum(any(r["api"]) for r in rows), len(rows))
        lines.append(f"| {kind} | {len(rows)} | {in_hits} | " + " | ".join(cells) + " |")
        print(lines[-1], flush=True)
    return lines


def main(argv: list[str] | None = None) -> int:
    """Build both indexes, run the parts asked for, print and write the section."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--shared", default=os.environ.get("GORILLA_TUI_SHARED", str(ROOT.parent / "shared")))
    ap.add_argument(
        "--vector-cache", default="", help="folder of the vector cache (GORILLA_TUI_VECTOR_CACHE)"
    )
    ap.add_argument(
        "--try",
        dest="tried",
        action="append",
        default=[],
        metavar="SOURCE=FILE",
        help="also attach index/questions/FILE to SOURCE's docs in the expanded index (a file not shipped)",
    )
    ap.add_argument("--part", choices=("retrieval", "choice", "all"), default="all")
    ap.add_argument("--results", type=Path, default=ROOT / "bench" / "results", help="scores folder")
    ap.add_argument("--report-only", action="store_true", help="choice table from --results, no model")
    ap.add_argument("--no-write", action="store_true", help="do not update docs/benchmarks.md")
    args = ap.parse_args(argv)
    if args.vector_cache:
        os.environ["GORILLA_TUI_VECTOR_CACHE"] = str(Path(args.vector_cache).expanduser())
    dense_mod.QUERY_CACHE = 100_000
    start = time.perf_counter()
    manifests = load_manifests()
    names = {m.name for m in manifests}
    tried: dict[str, tuple[str, ...]] = {}
    for spec in args.tried:
        source, sep, name = spec.partition("=")
        if not sep or not source or not name:
            ap.error(f"--try {spec!r}: expected SOURCE=FILE, e.g. tensorflowhub=tensorflowhub.toml")
        if source not in names:
            ap.error(f"--try {spec!r}: no source {source!r} (sources: {', '.join(sorted(names))})")
        if "/" in name or "\\" in name or hand_questions_text(name) is None:
            ap.error(f"--try {spec!r}: no file {name!r} in index/{HAND_QUESTIONS_DIR}/")
        tried[source] = tried.get(source, ()) + (name,)
    indexes = {kind: build(kind, Path(args.shared), manifests, tried) for kind in KINDS}
    files = sorted({q for m in manifests for q in m.hand_questions})
    extra = sorted(f"{source}: {f}" for source, files_tried in tried.items() for f in files_tried)
    lines = [
        "Script: `python bench/hand_questions.py" + "".join(f" --try {s}" for s in args.tried) + "`",
        "",
        f"Questions: index/questions/ ({', '.join(files)}), attached to the docs they name "
        "(pool/expansion.py read_hand_questions). **bare**: the default index without them; "
        "**expanded**: as shipped (the sources whose manifest sets `embed_questions`, python-env, also "
        "embed each question and score a doc by its best cosine over its text and its questions, "
        "retrieve/dense.py; the row *questions not embedded* is the same index without those vectors)"
        + (
            f", plus the files tried here and not shipped ({'; '.join(extra)}) (a file tried here ships only "
            "when a manifest names it; index/*.toml says why one was not kept)"
            if extra
            else ""
        )
        + ". Cells: "
        "domain@1 / api@1 / api@5 % (the hub dev split, bench/data/hub_dev_tasks.toml), right@1 / right@5 % "
        "(the library tasks, tests/data/stdlib_tasks.toml, and the dev half of bench/everyday_tasks.toml). "
        "None of these tasks was read to write the questions; the eval sets chose nothing here.",
    ]
    if args.part in ("retrieval", "all"):
        lines += ["", "**Retrieval** (the shipped retriever, k = 5):", "", *retrieval(indexes)]
    if args.part in ("choice", "all"):
        args.results.mkdir(parents=True, exist_ok=True)
        lines += ["", "**Choice** on the TensorFlow Hub dev tasks (hub named; k = 5 hits scored once by the "
                  "embedded model, each rule choosing from the same scores):", "",
                  *choice(indexes, args.results, args.report_only)]  # fmt: skip
    lines += ["", f"Wall time {time.perf_counter() - start:.0f} s (both index builds included)."]
    return publish(TITLE, "\n".join(lines), not args.no_write)


if __name__ == "__main__":
    raise SystemExit(main())
