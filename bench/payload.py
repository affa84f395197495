"""Tasks that carry their own input (a text after a colon, a quoted sentence, a file to work on): does the fit
judgment read the request and not the input? (issue 38 item 1: "it rarely flags an answer that is right").

Run: python bench/payload.py [--home DIR] [--split all|dev|test] [--tasks FILE] [--no-write]
Each task of bench/data/payload_tasks.toml (hand-written: in-pool tasks labelled as
bench/everyday_tasks.toml's, out-of-pool tasks `out = true`) goes through `pipeline.ask` over the default
index (every source, no hub named: bench/everyday.py's setting; --home: that GORILLA_TUI_HOME's live index,
else one is built from --shared). Reported per split: in-pool tasks answered right, and of those how many the
fit judgment calls "nothing fits" / "unsure" (a right answer flagged); out-of-pool tasks said "nothing fits"
(no call proposed). Writes the section "Tasks that carry their input" of docs/benchmarks.md (--tasks: another
file of the same format, e.g. bench/data/everyday_s12_tasks.toml; its table is printed, never written).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path
from typing import Any

import tomllib

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(ROOT / "bench"))

from _report import Figure, parser, publish  # noqa: E402
from everyday import SOURCES, build_index, chosen_doc, is_right  # noqa: E402

from gorilla_tui import services  # noqa: E402
from gorilla_tui.config import Settings  # noqa: E402

TITLE = "Tasks that carry their input"
TASKS = ROOT / "bench" / "data" / "payload_tasks.toml"


def load_tasks(path: Path = TASKS) -> list[dict[str, Any]]:
    """The tasks of `path` (dicts: id, split, task, and source with names / calls / domains, or out = true).
    Raises ValueError for a task with neither a label nor `out`, or an unknown split or source."""
    tasks = tomllib.loads(path.read_text(encoding="utf-8"))["task"]
    for t in tasks:
        labelled = t.get("source") in SOURCES and (t.get("names") or t.get("calls") or t.get("domains"))
        if t.get("split") not in ("dev", "test") or bool(t.get("out")) == bool(labelled):
            raise ValueError(f"{t.get('id')}: needs a split and either a label with a source or out = true")
    return tasks


def right(task: dict[str, Any], doc: Any) -> bool:
    """Whether `doc` meets `task`'s label (everyday.is_right) in its source or one of its `also` sources."""
    return any(is_right(dict(task, source=s), doc) for s in (task["source"], *task.get("also", ())))


def answer(pipeline: Any, task: dict[str, Any]) -> dict[str, Any]:
    """One task through pipeline.ask: {"id", "split", "out", "right", "fit", "call", "seconds"}."""
    t0 = time.perf_counter()
    proposal = pipeline.ask(task["task"])
    doc = chosen_doc(proposal)
    return {
        "id": task["id"],
        "split": task["split"],
        "out": bool(task.get("out")),
        "right": not task.get("out") and right(task, doc),
        "fit": proposal.fit,
        "call": proposal.api_call or proposal.nearest_call,
        "seconds": round(time.perf_counter() - t0, 2),
    }


def default_pipeline(index: Any) -> Any:
    """The pipeline of the default setting over `index` (bench/everyday.py's: no hub named, select mode,
    select by likelihood, k = 5) with the embedded model (n_ctx 2048, one thread)."""
    backend = services.load_backend(Settings(n_ctx=2048, n_threads=1))
    return services.build_pipeline(
        Settings(k=5, hub="", mode="select", select_by="likelihood"), index, backend
    )


def share(part: int, whole: int) -> str:
    """ "12.5 % (1/8)", or "-" for an empty whole."""
    return f"{100 * part / whole:.1f} % ({part}/{whole})" if whole else "-"


def table(rows: list[dict[str, Any]]) -> list[str]:
    """The report's table: per split, right answers, right answers flagged, out-of-pool said so."""
    lines = [
        "| split | in-pool answered right | right: nothing fits | right: unsure "
        "| out of pool: nothing fits |",
        "|---|---|---|---|---|",
    ]
    for split in ("dev", "test"):
        inpool = [r for r in rows if r["split"] == split and not r["out"]]
        right = [r for r in inpool if r["right"]]
        out = [r for r in rows if r["split"] == split and r["out"]]
        lines.append(
            f"| {split} | {share(len(right), len(inpool))} "
            f"| {share(sum(r['fit'] == 'nothing' for r in right), len(right))} "
            f"| {share(sum(r['fit'] == 'unsure' for r in right), len(right))} "
            f"| {share(sum(r['fit'] == 'nothing' for r in out), len(out))} |"
        )
    return lines


def main(argv: list[str] | None = None) -> int:
    """Answer every task, print the table and each answer, write docs/benchmarks.md."""
    ap = parser(__doc__)
    ap.add_argument("--home", type=Path, default=None, help="the GORILLA_TUI_HOME whose live index is used")
    ap.add_argument("--split", choices=("all", "dev", "test"), default="all", help="the tasks of one split")
    ap.add_argument("--tasks", type=Path, default=TASKS, help="the task file (default: the payload tasks)")
    args = ap.parse_args(argv)
    tasks = [t for t in load_tasks(args.tasks) if args.split in ("all", t["split"])]
    index = build_index(args.shared, args.home)
    for t in tasks:  # a label no doc of the pool meets is a typo, not a hard task
        if not t.get("out") and not any(
            right(t, d) for s in (t["source"], *t.get("also", ())) for d in index.pool(s)
        ):
            raise SystemExit(f"{t['id']}: no doc of {t['source']} meets its label")
    pipeline = default_pipeline(index)
    rows = []
    for n, t in enumerate(tasks, start=1):
        rows.append(answer(pipeline, t))
        r = rows[-1]
        head = f"{n}/{len(tasks)} {r['id']:14} {r['split']:4} right={r['right']!s:5}"
        print(f"{head} fit={r['fit']:8} {r['call'][:70]}", flush=True)
    lines = [
        "Script: `python bench/payload.py`",
        "",
        f"{len(tasks)} hand-written tasks that carry their input (bench/data/payload_tasks.toml: "
        f"{sum(not t.get('out') for t in tasks)} in the pool, "
        f"{sum(bool(t.get('out')) for t in tasks)} out of it), asked over the default index (no hub named, "
        "select mode, k = 5). A right answer flagged "
        '"nothing fits" or "unsure" is the fault this set watches: the input is data, not the request.',
        "",
        *table(rows),
        "",
        "Wrong or flagged: "
        + (
            ", ".join(
                f"{r['id']} ({r['fit'] or 'no fit'}: {r['call'][:60]})"
                for r in rows
                if (r["out"] and r["fit"] != "nothing")
                or (not r["out"] and (not r["right"] or r["fit"] != "fits"))
            )
            or "none"
        )
        + ".",  # fmt: skip
    ]
    test_right = [r for r in rows if r["split"] == "test" and r["right"]]
    flagged = sum(r["fit"] == "nothing" for r in test_right)
    summary = [
        Figure(
            "payload tasks, right answers flagged nothing fits (test)",
            share(flagged, len(test_right)),
            "<= 5 %",
        )
    ]
    if args.tasks != TASKS:  # another task file: its table is printed only
        print("\n".join(lines))
        return 0
    return publish(TITLE, "\n".join(lines), not args.no_write and args.split == "all", summary=summary)


if __name__ == "__main__":
    sys.exit(main())
