"""The choice replayed offline on recorded hits and scores: a choice rule compared in seconds, not in a
10-minute bench.

Run: python bench/choice_replay.py RESULTS.jsonl [RESULTS.jsonl ...] --home DIR [--split dev|test|all]
[--show]

RESULTS: the answers bench/filling.py (--results/filling.jsonl; its "fill" rows) or bench/everyday.py
(--results/everyday_default.jsonl) wrote, each with its hits as the choice read them (doc id, BM25 and fused
score, log p(task | doc), the content-free score where the rule computed one). The docs come from the live
index of --home (the GORILLA_TUI_HOME the run used, unchanged since), the task texts from the task file of
each row's id (bench/data/literal_tasks.toml, bench/everyday_tasks.toml). Each row's choice is made again by
pipeline_choose.decide, the function pipeline.ask calls, on the hits the pipeline would choose among (not
flagged, or repaired), scored against the text the pipeline scores (handover.without_input of the task).

Prints per file and split: n, right as run (the recorded answer) and right replayed (the choice made again
by the code as it is now), and each task whose right/wrong differs (with --show: every task the replay
chose differently). Rows the replay cannot judge as the run did are counted apart and named: an answer from
the next source (pipeline._next_source), a row with fewer than 2 scored hits (no choice to make). Test-half
rows are counted, never printed (settings are chosen on the dev half). Exit 2 for a missing file or home.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from everyday import TASKS as EVERYDAY_TASKS  # noqa: E402
from everyday import is_right, load_tasks  # noqa: E402

from gorilla_tui.pipeline_choose import decide, first_rule  # noqa: E402
from gorilla_tui.retrieve.query.handover import without_input  # noqa: E402
from gorilla_tui.textsafe import clean_task, model_words  # noqa: E402

LITERAL_TASKS = ROOT / "bench" / "data" / "literal_tasks.toml"


def scored_text(task: str) -> str:
    """The text pipeline.ask scores the hits against (select mode): the task cleaned, cut to the model's
    words, without the input a colon hands over."""
    return without_input(model_words(clean_task(task)[0])[0])


def replay(row: dict[str, Any], task: dict[str, Any], docs: dict[str, Any]) -> tuple[str, bool] | None:
    """(id of the doc chosen again, whether it is right) for a recorded row; None when the row cannot be
    replayed (a hit missing from the index, fewer than 2 scored hits, an answer from the next source)."""
    hits = row["hits"]
    if row.get("next_source") or len(hits) < 2 or any(h["id"] not in docs for h in hits):
        return None
    if any(h["lm"] is None for h in hits):
        return None
    pairs = [(docs[h["id"]], h) for h in hits]
    usable = [(d, h) for d, h in pairs if not d.flagged or d.repaired] or pairs
    if len(usable) < 2 or len({d.call.strip() for d, _ in usable}) < 2:
        return None
    rule = first_rule([d for d, _ in usable], [h["bm25"] for _, h in usable])
    free = [h.get("free") for _, h in usable]
    picked, _, _ = decide(scored_text(task["task"]), [d for d, _ in usable], [h["lm"] for _, h in usable],
                          None if any(f is None for f in free) else free, rule,
                          [h.get("fused") for _, h in usable])  # fmt: skip
    doc = usable[picked][0]
    return doc.id, is_right(task, doc)


def main(argv: list[str] | None = None) -> int:
    """Replay every file's rows; print the counts and the tasks that turned."""
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("results", type=Path, nargs="+", help="filling.jsonl / everyday_default.jsonl")
    ap.add_argument("--home", type=Path, required=True, help="the GORILLA_TUI_HOME the runs used")
    ap.add_argument("--split", choices=("dev", "test", "all"), default="dev")
    ap.add_argument("--show", action="store_true", help="every dev task chosen differently, right or not")
    args = ap.parse_args(argv)
    missing = [p for p in [*args.results, args.home / "data" / "index"] if not p.exists()]
    if missing:
        print(f"error: {missing[0]} does not exist", file=sys.stderr)
        return 2
    os.environ["GORILLA_TUI_HOME"] = str(args.home)
    from gorilla_tui.retrieve.index import ApiIndex

    docs = {d.id: d for d in ApiIndex.load().docs}
    tasks = {t["id"]: t for path in (LITERAL_TASKS, EVERYDAY_TASKS) for t in load_tasks(path)}
    for path in args.results:
        rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines() if x.strip()]
        rows = [r for r in rows if r.get("setting", "fill") == "fill" and "hits" in r]
        rows = [r for r in rows if args.split in ("all", r["split"])]
        before = after = 0
        skipped, turned, moved = [], [], []
        for r in rows:
            task = tasks[r["id"]]
            got = replay(r, task, docs)
            before += bool(r["right"])
            if got is None:
                after += bool(r["right"])
                skipped.append(r["id"])
                continue
            after += got[1]
            if got[1] != bool(r["right"]):
                turned.append((r, got))
            elif got[0] != r["chosen"]:
                moved.append((r, got))
        print(f"{path}: {args.split} n={len(rows)} right as run {before}, replayed {after} "
              f"(not replayed, as run: {len(skipped)} {' '.join(skipped)})")  # fmt: skip
        for r, got in turned + (moved if args.show else []):
            if r["split"] != "dev":
                continue
            verb = "RIGHT" if got[1] else ("WRONG" if r["right"] else "other")
            print(f"  {verb:5} {r['id']} {tasks[r['id']]['task']!r}: {r['chosen']} -> {got[0]}")
        if any(r["split"] == "test" for r, _ in turned):
            print(f"  test rows turned: {sum(r['split'] == 'test' for r, _ in turned)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
