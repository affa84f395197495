"""`gorilla-tui search "TASK"`: the retriever's hits for a task (BM25, fused with the dense side where the
index is hybrid), as a table or JSON."""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections import Counter
from typing import Any

from gorilla_tui.cli.options import TASK_HELP, task_text
from gorilla_tui.cli.output import say, status_if_cut
from gorilla_tui.config import load_settings
from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import clean_task, safe_text
from gorilla_tui.types import call_key, group_by_call

#: Most hits one search may ask for (the same bound as ask and the TUI).
K_MAX = 50
#: Characters of the task shown in the table title (the JSON output keeps it whole).
TITLE_CHARS = 80


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `search` subcommand."""
    p = sub.add_parser(
        "search",
        help="retrieve API docs for a task (BM25, and dense where the index is hybrid)",
        description="Print the ranked hits of the local API index for a task in plain English: BM25, fused "
        "with the dense embedder's ranks where the index is hybrid.",
    )
    p.add_argument("task", help=f'the task, e.g. "classify sports activities in videos" ({TASK_HELP})')
    p.add_argument(
        "-k", type=int, default=None, help=f"number of hits, 1..{K_MAX} (default: the k setting, 5)"
    )
    p.add_argument(
        "--hub", default=None, metavar="NAME", help="search only this source (torchhub, apizoo, ...)"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a table")
    p.set_defaults(func=run)


#: Under the hits table: what orders the hits, which is neither number shown (types.Hit).
RANK_NOTE = (
    "rank is the order: sources routed by how well their best doc matches, then BM25 and dense ranks fused "
    "(RRF; python-env: BM25 x its prior), constraints met first; BM25 and dense are each hit's own scores"
)
#: RANK_NOTE when no hit has a dense score (a BM25-only index, GORILLA_TUI_DENSE=0, damaged vectors).
RANK_NOTE_BM25 = (
    "rank is the order: sources routed by how well their best doc matches, then BM25 (python-env: BM25 x "
    "its prior), constraints met first; BM25 is each hit's own score"
)


#: Under the hits table when a call stands for several hits (types.group_by_call).
SAME_CALL_NOTE = (
    "docs xN: this call stands for N of the hits; the best-ranked is shown (--json lists every hit)"
)


def hit_row(hit, call_hits: int = 1) -> dict:
    """The JSON shape of one hit: rank (the order), score and bm25 (the same plain BM25 score; "score" kept
    for older readers), dense (the cosine similarity of task and doc embeddings, or None without a dense
    side), call_hits (how many of the hits have this hit's call, types.call_key; 1 when none other has),
    and the doc's identifying fields."""
    d = hit.doc
    return {
        "call_hits": call_hits,
        "rank": hit.rank,
        "score": round(hit.score, 4),
        "bm25": round(hit.score, 4),
        "dense": None if hit.dense is None else round(hit.dense, 4),
        "api_call": d.api_call,
        "domain": d.domain,
        "api_name": d.api_name,
        "source": d.source,
        "id": d.id,
        "framework": d.framework,
        "functionality": d.functionality,
        "flagged": d.flagged,
    }


def _import_numpy_with_one_blas_thread() -> None:
    """Import numpy with OpenBLAS limited to one thread, unless numpy is already loaded or the person set
    OPENBLAS_NUM_THREADS. OpenBLAS starts its thread pool when numpy loads and the idle threads spin: on 2
    cores that cost a cold search ~0.05 s of CPU (bench/check_speed.py), for a search whose only BLAS work
    is one matrix-vector product of a few thousand rows. The variable is restored afterwards (OpenBLAS
    reads it once, at load)."""
    if "numpy" in sys.modules or "OPENBLAS_NUM_THREADS" in os.environ:
        return
    os.environ["OPENBLAS_NUM_THREADS"] = "1"
    try:
        import numpy  # noqa: F401  # deferred: numpy, loaded here so that its BLAS starts one thread
    finally:
        os.environ.pop("OPENBLAS_NUM_THREADS", None)


def run(args: argparse.Namespace) -> int:
    """Search and print; exit 0 with hits, 1 when nothing matches (also when the reader goes away:
    status_if_cut), 2 for bad input or no index."""
    _import_numpy_with_one_blas_thread()
    from gorilla_tui import services  # deferred: numpy, the index (~0.1 s); `--help` stays fast
    from gorilla_tui.constraints.rank import search_with_constraints  # deferred with services

    # escape sequences and control characters are no words; a task over MAX_TASK_CHARS is cut as `ask` cuts it
    # (the dense embedder reads a query whole: 120,000 characters took 2 minutes uncut)
    task, notes = clean_task(task_text(args.task))  # UsageError: empty, over MAX_TASK_INPUT_CHARS; "-": stdin
    settings = load_settings()
    k = args.k if args.k is not None else settings.k
    if not 1 <= k <= K_MAX:
        raise UsageError(f"-k must be between 1 and {K_MAX}, not {k}")
    hub = args.hub if args.hub is not None else (settings.hub or None)
    # constraints stated in the task ("top-1 >= 75 %", "runs on a Raspberry Pi") rerank the BM25 hits
    index = services.load_index()
    if index.note:  # an index stored by an older version: read the slow way until it is refreshed
        say(f"gorilla-tui: note: {safe_text(index.note)}")
    for note in notes:
        say(f"gorilla-tui: note: {safe_text(note)}")
    result = search_with_constraints(index, task, k=k, hub=hub)
    for note in result.notes:  # a task of emoji or symbols alone: BM25 had no word to search for
        say(f"gorilla-tui: note: {safe_text(note)}")
    failure = index.dense_failure()  # BM25 alone (damaged vectors, a failed embedder): why, and the mend
    if failure:
        say(f"gorilla-tui: note: {safe_text(failure)}")
    with status_if_cut(0 if result.hits else 1):
        return _print(args, task, hub, k, result, failure)


def _print(
    args: argparse.Namespace, task: str, hub: str | None, k: int, result: Any, failure: str = ""
) -> int:
    """Print `result` (search_with_constraints) as JSON or as a table; returns the status. `failure`: why
    the search was BM25 alone (ApiIndex.dense_failure: damaged vectors, a failed embedder), in the JSON's
    "notes" as on stderr (break-it round 28: --json did not say it)."""
    hits = result.hits
    if args.json:  # every hit, each saying how many of the hits share its call
        counts = Counter(call_key(h.doc) for h in hits)
        rows = [hit_row(h, counts[call_key(h.doc)]) for h in hits]
        doc = {"task": task, "hub": hub, "k": k, "hits": rows}
        doc["constraints"] = result.report
        doc["constraints_message"] = result.message
        doc["notes"] = [*result.notes, *([failure] if failure else [])]
        print(json.dumps(doc, indent=1))
        return 0 if hits else 1

    from rich.table import Table  # deferred: rich (~0.05 s); --help and --json never need it
    from rich.text import Text  # deferred: rich; see above

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    console = make_console()
    if not hits:
        why = "the task has no searchable words" if result.notes else "no API doc shares a word with the task"
        console.print(Text(safe_text(f"no hit: {why}" + (f" in {hub}" if hub and not result.notes else ""))))
        return 1
    title = task
    title = title if len(title) <= TITLE_CHARS else title[: TITLE_CHARS - 3].rstrip() + "..."
    shown = group_by_call(hits)  # each call once, as its best-ranked hit, with how many hits have it
    repeats = len(shown) < len(hits)
    dense = any(h.dense is not None for h in hits)
    table = Table(
        title=Text(safe_text(f"hits for: {title}" + (f" (source {hub})" if hub else ""))),
        caption=Text((RANK_NOTE if dense else RANK_NOTE_BM25) + ("\n" + SAME_CALL_NOTE if repeats else "")),
    )
    numbers = ("rank", "BM25", "dense") if dense else ("rank", "BM25")
    same = ("docs",) if repeats else ()
    for col in (*numbers, *same, "api_call", "domain", "api_name", "source"):
        right = col in numbers or col in same
        table.add_column(
            col, justify="right" if right else "left", overflow="fold", no_wrap=right or col == "source"
        )
    for h, n in shown:
        r = hit_row(h, n)
        cos = ("-" if r["dense"] is None else f"{r['dense']:.3f}",) if dense else ()
        cells = (
            str(r["rank"]),
            f"{r['bm25']:.2f}",
            *cos,
            *((f"x{n}" if n > 1 else "",) if repeats else ()),
            r["api_call"],
            r["domain"],
            r["api_name"],
            r["source"],
        )
        table.add_row(*(Text(safe_text(str(c))) for c in cells))  # doc fields: shown, never interpreted
    console.print(table)
    if result.message:
        console.print(Text(safe_text(f"constraints: {result.message}")))
    return 0
