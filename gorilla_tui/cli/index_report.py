"""The human report of `gorilla-tui index --refresh`: the sources table (or one "unchanged" line per source),
the doc count and path, per-source notes and skipped files, the dense side's line and the warnings. Every
text from docs, files and sources is escaped (textsafe.safe_text)."""

from __future__ import annotations

from typing import Any

from gorilla_tui.cli.index_status import print_sources
from gorilla_tui.textsafe import safe_text


def print_refresh(report: Any, dense: dict[str, Any] | None, warnings: list[str]) -> None:
    """The human summary of a refresh: the sources table (or one "unchanged" line per source when the
    live index was kept), the doc count and path, notes, the dense side's line, then the warnings."""
    from rich.text import Text  # deferred: rich; --help stays fast

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    console = make_console()
    if report.unchanged:
        for row in report.sources:
            state = (
                "unchanged" if row.get("status") == "ok" else f"{row.get('status')}: {row.get('message', '')}"
            )
            console.print(Text(safe_text(f"{row['name']}: {state}")), soft_wrap=True)
        _print_skips(console, report.sources)
        n, secs = len(report.index.docs), report.seconds
        line = f"no source changed: the live index is kept ({n} docs, {secs:.2f} s) -> {report.path}"
        console.print(Text(safe_text(f"{line}; --force rebuilds it")), soft_wrap=True)
    else:
        print_sources(console, report.sources, "index refreshed")
        line = f"{len(report.index.docs)} docs in {report.seconds:.2f} s -> {report.path}"
        console.print(Text(safe_text(line)))
        _print_notes(console, report.sources)
    if dense is not None and "error" not in dense:
        line = (
            f"dense vectors: {dense['docs']} docs"
            + (f" and {dense['questions']} questions" if dense.get("questions") else "")
            + f" ({dense['embedded']} embedded now, {dense['cached']} from "
            f"the vector cache or the packaged seed) in {dense['seconds']:.1f} s with {dense['embedder']}: "
            + (
                "searches are hybrid"
                if dense["docs"]
                else f"searches are {report.index.dense_state()['note']}"
            )
        )
        console.print(Text(safe_text(line)), soft_wrap=True)
        for note in dense.get("notes", []):
            console.print(Text.assemble(("note:", "yellow"), " " + safe_text(note)), soft_wrap=True)
    elif dense is None and report.index.dense_state().get("state") == "ready":
        console.print(Text(safe_text(f"dense vectors: {report.index.dense_state()['note']}")), soft_wrap=True)
    else:
        note = dense["error"] if dense is not None else report.index.dense_state()["note"]
        console.print(Text.assemble(("note:", "yellow"), " " + safe_text(note)), soft_wrap=True)
    for line in warnings:
        console.print(Text.assemble(("warning:", "yellow"), " " + safe_text(line)), soft_wrap=True)


def _print_notes(console: Any, rows: list[dict[str, Any]]) -> None:
    """Per source: how many training questions expanded its docs, and its notes (dim lines)."""
    from rich.text import Text  # deferred: rich; --help stays fast

    for row in rows:
        if row.get("questions") and row.get("status") == "ok":
            line = f"{row['name']}: docs expanded ({row['questions']} questions attached)"
            console.print(Text(safe_text(line), style="dim"))
        for note in row.get("notes") or []:
            console.print(
                Text.assemble(("note", "dim"), safe_text(f" {row['name']}: {note}")), highlight=False
            )
    _print_skips(console, rows)


def _print_skips(console: Any, rows: list[dict[str, Any]]) -> None:
    """Per source: each skipped file or line it names ("skips" of build.report.source_row), one line
    "skipped SOURCE: FILE[:LINE]: reason" each (escaped: file names are shown as they are), then how many
    more `index --status` lists."""
    from rich.text import Text  # deferred: rich; --help stays fast

    for row in rows:
        skips = row.get("skips") or []
        for skip in skips:
            line = safe_text(f" {row['name']}: {skip}")
            console.print(Text.assemble(("skipped", "yellow"), line), highlight=False, soft_wrap=True)
        more = int(row.get("skipped") or 0) - len(skips)
        if skips and more > 0:
            line = f" {row['name']}: ... and {more} more (gorilla-tui index --status lists them)"
            console.print(Text.assemble(("skipped", "yellow"), safe_text(line)), highlight=False)
