"""Model tasks that state their input: does the model answer's code carry it? (issue 37, items 1 and 6)

Run: python bench/hub_inputs.py [--home DIR] [--split all|dev|test] [--results FILE] [--no-write]
Each task of bench/data/hub_input_tasks.toml (hand-written: a file of an image, audio or video, an image's
URL, quoted text or the text a colon hands over; labelled by the model's domain over the three hubs) and
each model task of bench/everyday_tasks.toml's chosen split that quotes a value goes through `pipeline.ask`
over the default index (every source, no hub named: bench/everyday.py's setting; --home: that
GORILLA_TUI_HOME's live index, else one is built from --shared). Reported per split: the right model
(the chosen doc's domain is one of the task's), and the code to copy and run holds the task's input as a
string literal (read with ast, never run; code Python cannot parse: the literal's text in it). The script
imports gorilla_tui from the path it is run with, so the same file measures another checkout (PYTHONPATH).
Writes the section "Model answers that carry the input" of docs/benchmarks.md.
"""

from __future__ import annotations

import ast
import json
import sys
import time
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

from _report import Figure, parser, publish  # noqa: E402
from everyday import HUBS, build_index, chosen_doc, is_right  # noqa: E402
from everyday import TASKS as EVERYDAY  # noqa: E402
from payload import default_pipeline, share  # noqa: E402

TITLE = "Model answers that carry the input"
TASKS = ROOT / "bench" / "data" / "hub_input_tasks.toml"
#: The same tasks answered by main before the change (2314b123; this script run with PYTHONPATH=/work/main,
#: 2026-12-07): the anchor of the summary row.
BEFORE = "before: dev 7.1 % (1/14), test 0.0 % (0/13); right model dev 85.7 %, test 76.9 %"


def load_tasks(path: Path = TASKS) -> list[dict[str, Any]]:
    """The tasks of `path` (dicts: id, split, task, input, domains). Raises ValueError for a task without
    them or with an unknown split."""
    tasks = tomllib.loads(path.read_text(encoding="utf-8"))["task"]
    for t in tasks:
        if t.get("split") not in ("dev", "test") or not t.get("input") or not t.get("domains"):
            raise ValueError(f"{t.get('id')}: needs a split, an input and domains")
    return tasks


def everyday_tasks(split: str) -> list[dict[str, Any]]:
    """The model tasks of bench/everyday_tasks.toml of `split` ("all": both) that quote a value ('a cat on
    the moon'): the quoted text is the input; labelled by their own source and label."""
    out = []
    for t in tomllib.loads(EVERYDAY.read_text(encoding="utf-8"))["task"]:
        if t["source"] not in HUBS or split not in ("all", t["split"]):
            continue
        quoted = [n.value for n in _quoted(t["task"])]
        if quoted:
            out.append(dict(t, input=quoted[0]))
    return out


def _quoted(task: str) -> list[ast.Constant]:
    """The single- or double-quoted texts of `task` as string constants (read with ast, never run)."""
    import re

    out = []
    for m in re.finditer(r"(?<!\w)'[^'\n]+'(?!\w)|\"[^\"\n]+\"", task):
        node = ast.parse(m.group(), mode="eval").body
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            out.append(node)
    return out


def carries(code: str, value: str) -> bool:
    """Whether `code` holds `value` as a string literal (ast; for code Python cannot parse, the literal's
    repr in its text)."""
    try:
        tree = ast.parse(code)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return repr(value) in code or json.dumps(value) in code
    return any(isinstance(n, ast.Constant) and n.value == value for n in ast.walk(tree))


def right(task: dict[str, Any], doc: Any) -> bool:
    """The right model: for a task of this set, a doc of a hub whose domain is one of the task's; for an
    everyday task, its own label (everyday.is_right)."""
    if doc is None:
        return False
    if "source" in task:
        return is_right(task, doc)
    return doc.source in HUBS and doc.domain in task["domains"]


def answer(pipeline: Any, task: dict[str, Any]) -> dict[str, Any]:
    """One task through pipeline.ask: id, split, right, carries, the chosen doc, the input's arguments."""
    t0 = time.perf_counter()
    proposal = pipeline.ask(task["task"])
    doc = chosen_doc(proposal)
    return {
        "id": task["id"],
        "split": task["split"],
        "right": right(task, doc),
        "carries": carries(proposal.code, task["input"]),
        "doc": doc.id if doc is not None else "",
        "domain": doc.domain if doc is not None else "",
        "call": proposal.api_call,
        "code": proposal.code,
        "arguments": [a.to_dict() for a in proposal.arguments],
        "unused": list(proposal.unused),
        "seconds": round(time.perf_counter() - t0, 2),
    }


def table(rows: list[dict[str, Any]]) -> list[str]:
    """Per split: right model, code carries the input (all tasks), and both."""
    lines = [
        "| split | right model | code carries the input | right model, carries it |",
        "|---|---|---|---|",
    ]
    for split in ("dev", "test"):
        r = [x for x in rows if x["split"] == split]
        lines.append(
            f"| {split} | {share(sum(x['right'] for x in r), len(r))} "
            f"| {share(sum(x['carries'] for x in r), len(r))} "
            f"| {share(sum(x['right'] and x['carries'] for x in r), len(r))} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Answer every task, print the table and each answer, write docs/benchmarks.md."""
    ap = parser(__doc__, asks=True)
    ap.add_argument("--results", type=Path, default=None, help="write each answer to this JSONL file")
    args = ap.parse_args(argv)
    tasks = [t for t in load_tasks() if args.split in ("all", t["split"])] + everyday_tasks(args.split)
    index = build_index(args.shared, args.home)
    pipeline = default_pipeline(index)
    rows = []
    for n, t in enumerate(tasks, start=1):
        rows.append(answer(pipeline, t))
        r = rows[-1]
        head = f"{n}/{len(tasks)} {r['id']:20} {r['split']:4} right={r['right']!s:5}"
        head += f" carries={r['carries']!s:5}"
        print(f"{head} {r['call'][:70]}", flush=True)
    if args.results is not None:
        args.results.write_text("".join(json.dumps(r) + "\n" for r in rows), encoding="utf-8")
    lines = [
        "Script: `python bench/hub_inputs.py`",
        "",
        f"{len(tasks)} model tasks that state their input (bench/data/hub_input_tasks.toml, and the model "
        "tasks of bench/everyday_tasks.toml that quote a value), asked over the default index (no hub named, "
        "select mode, k = 5). Carries the input: the code to copy and run holds the task's value as a "
        "string literal.",
        "",
        *table(rows),
        "",
        f"Before the change ({BEFORE.removeprefix('before: ')}), the code carried the input only where the "
        "standard library answered. Not carried: a call shown alone because its example fails the check "
        "(163 TensorFlow Hub examples load `hub.load(model_id)` by a name, which the check reads as an "
        "unknown model), an example whose input is a dataset sample or a tensor, another source's answer.",
    ]
    test = [r for r in rows if r["split"] == "test"]
    summary = [Figure("model answers whose code carries the task's input (test)",
                      share(sum(r["carries"] for r in test), len(test)), "", BEFORE)]  # fmt: skip
    return publish(TITLE, "\n".join(lines), not args.no_write and args.split == "all", summary=summary)


if __name__ == "__main__":
    sys.exit(main())
