"""`index --refresh`: fetch every source, build the BM25 index aside, publish it atomically under the lock."""

from __future__ import annotations

import os
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.sources import (
    FetchContext,
    Manifest,
    SourceLoad,
    fetch,
    load_manifests,
    source_name,
    user_source,
)
from gorilla_tui.retrieve import store as index_store
from gorilla_tui.retrieve.index import FIELD_WEIGHTS, TOKENIZER_VERSION, ApiIndex, Bm25Params

#: Test hook: seconds to sleep after the new version is written aside and before it is published (lets
#: tests kill a refresh mid-way). Never set it in normal use.
PAUSE_ENV = "GORILLA_TUI_REFRESH_PAUSE"

#: on_event(kind, name, load): kind "start" (load is None) or "done" (load is the SourceLoad).
ProgressFn = Callable[[str, str, "SourceLoad | None"], None]


@dataclass
class RefreshReport:
    """Outcome of a refresh: the published version folder, the new index, one summary row per source
    (name, title, status ok/kept/unreachable/not in mirror/unsupported, origin, loaded, flagged, skipped,
    repaired, message) and the build time in seconds."""

    path: Path
    index: ApiIndex
    sources: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0


def source_row(load: SourceLoad) -> dict[str, Any]:
    """Summary counts of one SourceLoad (what meta.json and the summary table show)."""
    sev = Counter(d.severity for d in load.result.diagnostics)
    return {
        "name": load.name,
        "title": load.title,
        "status": load.status,
        "origin": load.origin,
        "files": load.files,
        "loaded": len(load.result.docs),
        "flagged": load.result.flagged,
        "skipped": sev.get("skipped", 0),
        "repaired": sev.get("repaired", 0),
        "questions": sum(len(d.questions) for d in load.result.docs),
        "notes": [f"{d.file}: {d.message}" for d in load.result.diagnostics if d.severity == "note"][:5],
        "message": load.message,
    }


def _select(manifests: list[Manifest], only: Sequence[str], user_names: Sequence[str]) -> list[Manifest]:
    if not only:
        return manifests
    known = [m.name for m in manifests] + list(user_names)
    unknown = [n for n in only if n not in known]
    if unknown:
        raise UsageError(f"--only: unknown source {', '.join(unknown)} (known: {', '.join(known)})")
    return [m for m in manifests if m.name in only]


def _previous() -> ApiIndex | None:
    try:
        return index_store.read_index(None)
    except GorillaError:
        return None


def refresh(
    mirrors: Sequence[str | Path] | None = None,
    user_paths: Sequence[str | Path] = (),
    only: Sequence[str] = (),
    keep_previous: bool = True,
    on_event: ProgressFn | None = None,
    manifests: list[Manifest] | None = None,
) -> RefreshReport:
    """Rebuild the index in get_paths().index_dir.

    mirrors: the --from folders (files looked up by their remote names; None: each manifest's remote);
    user_paths: --source values, PATH or NAME=PATH (pool.sources.split_source; named after their stem
    when unnamed); one whose name is a built-in source's (e.g. a read-only .../apizoo mirror) is read in
    place of that source's manifest; only: restrict to these source names; keep_previous: sources not
    refreshed now (unreachable, not in mirror, not selected) keep their docs from the previous index.
    Holds index_store.refresh_lock throughout; the new version is written to a temp folder and published
    with an atomic pointer swap, so a failed or killed refresh leaves the previous index in place.

    Raises UsageError (bad --from / --source / --only) and GorillaError: no source reachable, a source
    that loads no doc, or a pool whose docs are all empty.
    """
    for m in mirrors or ():
        if not Path(m).is_dir():
            raise UsageError(f"--from {m}: not a folder")
    manifests = load_manifests() if manifests is None else manifests
    user_names = [source_name(p) for p in user_paths]
    dupes = sorted({n for n in user_names if user_names.count(n) > 1})
    if dupes:
        raise UsageError(
            f"--source: the source name {', '.join(dupes)} is given twice; use --source NAME=PATH"
        )
    # a user source named like a built-in one (e.g. a read-only .../apizoo mirror) supplies that source
    builtin = {m.name: m for m in manifests}
    replaced = {n: builtin[n] for n in user_names if n in builtin}
    selected = [m for m in _select(manifests, only, user_names) if m.name not in replaced]
    ctx = FetchContext(mirrors=[Path(m).expanduser() for m in mirrors] if mirrors is not None else None)
    emit = on_event or (lambda kind, name, load: None)
    started = time.perf_counter()
    with index_store.refresh_lock():
        loads: list[SourceLoad] = []
        for m in selected:
            emit("start", m.name, None)
            load = fetch(m, ctx)
            emit("done", m.name, load)
            loads.append(load)
        taken = [m.name for m in manifests if m.name not in replaced]
        for p, name in zip(user_paths, user_names, strict=True):
            emit("start", str(p), None)
            m = replaced.get(name)
            load = user_source(p, taken, name, f"{m.title} (your copy)" if m else "")
            taken.append(load.name)
            emit("done", str(p), load)
            loads.append(load)
        ok = [ld for ld in loads if ld.status == "ok"]
        for ld in ok:
            if not ld.result.docs:
                why = next((str(d) for d in ld.result.diagnostics if d.severity == "skipped"), "no entry")
                raise GorillaError(f"source {ld.name} is empty ({why})")
        previous = _previous() if keep_previous else None
        kept = _kept(previous, {ld.name for ld in ok}) if previous is not None else []
        if not ok:
            reasons = "; ".join(f"{ld.name}: {ld.message}" for ld in loads) or "no source selected"
            raise GorillaError(
                f"no source reachable ({reasons})",
                hint="use --from DIR with a local copy of the files, e.g. --from ../shared/apibench/api",
            )
        docs: list[ApiDoc] = [d for ld in ok for d in ld.result.docs] + [d for _, docs in kept for d in docs]
        index = ApiIndex.build(docs, Bm25Params())
        rows = [source_row(ld) for ld in loads] + [dict(row, status="kept") for row, _ in kept]
        kept_names = {row["name"] for row, _ in kept}
        old = [
            d
            for d in (previous.meta.get("diagnostics", []) if previous else [])
            if d.get("source") in kept_names
        ]
        index.meta = _meta(index, rows, ok, old, time.perf_counter() - started)
        folder = index_store.new_build_dir()
        index_store.write_version(folder, index.docs, index.tf, index.vocab, index.meta)
        pause = float(os.environ.get(PAUSE_ENV, "0") or 0)
        if pause > 0:
            time.sleep(pause)
        final = index_store.publish(folder)
    index.path = final
    return RefreshReport(final, index, rows, time.perf_counter() - started)


def _kept(previous: ApiIndex, refreshed: set[str]) -> list[tuple[dict[str, Any], list[ApiDoc]]]:
    rows = {r["name"]: r for r in previous.meta.get("sources", [])}
    out = []
    for name in previous.sources:
        if name in refreshed:
            continue
        docs = [d for d in previous.docs if d.source == name]
        row = dict(rows.get(name, {"name": name, "title": name}))
        row.update(loaded=len(docs), flagged=sum(1 for d in docs if d.flagged))
        row["message"] = "not refreshed: kept from the previous index"
        out.append((row, docs))
    return out


def _meta(
    index: ApiIndex,
    rows: list[dict[str, Any]],
    ok: list[SourceLoad],
    old: list[dict[str, Any]],
    seconds: float,
) -> dict[str, Any]:
    diagnostics = [
        {"source": ld.name, "file": d.file, "line": d.line, "severity": d.severity, "message": d.message}
        for ld in ok
        for d in ld.result.diagnostics
    ]
    diagnostics += old
    return {
        "built_at": datetime.now(timezone.utc).isoformat(timespec="seconds"),
        "build_seconds": round(seconds, 3),
        "n_docs": len(index.docs),
        "vocab_size": len(index.vocab),
        "tokenizer_version": TOKENIZER_VERSION,
        "params": {"bm25": index.params.to_dict(), "field_weights": dict(FIELD_WEIGHTS)},
        "sources": rows,
        "flagged": [
            {"id": d.id, "source": d.source, "api_call": d.api_call, "reason": d.flagged}
            for d in index.docs
            if d.flagged
        ],
        "diagnostics": diagnostics,
    }
