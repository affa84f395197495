"""What a refresh reports: the RefreshReport build/refresh.py returns, and one summary row per source
(source_row: what meta.json, the summary table and `index --status` show)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.build.dense_vectors import DEFAULT_RETRIEVAL
from gorilla_tui.pool.apidoc import Diagnostic
from gorilla_tui.pool.sources import SourceLoad
from gorilla_tui.retrieve.index import ApiIndex


@dataclass
class RefreshReport:
    """Outcome of a refresh: the published version folder, the new index, one summary row per source
    (name, title, status ok/kept/refused/unreachable/not in mirror/unsupported, origin, loaded, flagged,
    skipped, repaired, message: "unchanged" when its docs were reused from the live index), the build time
    in seconds, and warnings: one line each for docs of the previous index that were dropped (how many,
    from which source, why) and for a previous index that could not be read (rebuilt from the sources).
    unchanged: True when no source changed and the live index was kept as it is (path is the live one)."""

    path: Path
    index: ApiIndex
    sources: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)
    unchanged: bool = False
    #: embed(index)'s summary when the vectors were added before publishing (refresh's `embed`), else None
    dense: dict[str, Any] | None = None
    #: sources refused now (pool.doc.SourceRejected) whose docs of the live index were kept (one warning
    #: line each): the input was bad, so the CLI exits 2 though the index is no weaker (issue 42, N15)
    refused_kept: list[str] = field(default_factory=list)


#: Skipped files or lines named in a source's row ("skips"; `index --status` lists up to SKIPPED_SHOWN).
SKIPS_PER_ROW = 10


def _where_why(d: Diagnostic) -> str:
    """A skipped diagnostic as "FILE[:LINE]: reason" (the file, and the line when it is one line)."""
    where = f"{d.file}:{d.line}" if d.line else d.file
    return f"{where}: {d.message}"


def source_row(load: SourceLoad, retrieval: str = DEFAULT_RETRIEVAL) -> dict[str, Any]:
    """Summary counts of one SourceLoad (what meta.json and the summary table show); retrieval: the
    source's retrieval mode (retrieval_mode). "skips" names the first SKIPS_PER_ROW skipped files or
    lines, each "FILE[:LINE]: reason" ("skipped" counts them all)."""
    sev = Counter(d.severity for d in load.result.diagnostics)
    return {
        "name": load.name,
        "title": load.title,
        "status": load.status,
        "origin": load.origin,
        "files": load.files,
        "loaded": len(load.result.docs),
        "flagged": load.result.flagged,
        "calls_repaired": load.result.repaired,
        "skipped": load.result.skipped,
        "repaired": sev.get("repaired", 0),
        "questions": sum(len(d.questions) for d in load.result.docs),
        "notes": [f"{d.file}: {d.message}" for d in load.result.diagnostics if d.severity == "note"][:5],
        "skips": [_where_why(d) for d in load.result.diagnostics if d.severity == "skipped"][:SKIPS_PER_ROW],
        "message": load.message,
        "retrieval": retrieval,
        "user": load.user,
        "copy": load.copy,
        "fingerprint": load.fingerprint,
    }
