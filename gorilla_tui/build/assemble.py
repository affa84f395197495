"""What a refresh builds its new index from: each source loaded, or reused from the live index when its
content fingerprint did not change (load_sources, user_load), the loads checked (check_loads), the live
index kept as it is when nothing changed (is_unchanged, unchanged_report), else the docs, meta.json source
rows and warnings of the new index (assemble: docs kept from the live index, sources read again). The
steps around them, the lock, the build and the publishing, are build.refresh.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.build.plan import Plan, retrieval_mode
from gorilla_tui.build.previous import UNCHANGED, Previous, dropped, kept, reread
from gorilla_tui.build.report import RefreshReport, source_row
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.doc import ApiDoc, SourceRejected
from gorilla_tui.pool.fingerprint import combine
from gorilla_tui.pool.hand_questions import hand_questions_text, with_hand_questions
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.pool.source_spec import source_name, split_source
from gorilla_tui.pool.sources import SourceLoad, fetch, source_fingerprint, user_fingerprint, user_source

#: on_event(kind, name, load): kind "start" (load is None) or "done" (load is the SourceLoad) of one source,
#: or "stage" (load is None): a step of the whole refresh begins, `name` says which with its counts
#: ("building the BM25 index: 10,963 docs"), so a caller can say what a long step does (issue 40).
ProgressFn = Callable[[str, str, "SourceLoad | None"], None]


@dataclass
class Assembly:
    """What the new index is built from: its docs, the source rows of meta.json, the warnings, the
    diagnostics kept from the previous index, and the loads that gave docs."""

    docs: list[ApiDoc]
    rows: list[dict[str, Any]]
    warnings: list[str]
    old: list[dict[str, Any]]
    ok: list[SourceLoad]
    refused_kept: list[str] = field(default_factory=list)


def load_sources(plan: Plan, previous: Previous, emit: ProgressFn) -> list[SourceLoad]:
    """Load every source of `plan`: the user sources first (a refused --source stops before anything is
    fetched), then the selected manifests; a user source named like a built-in one (`--source
    apizoo=DIR`, Plan.replaced) is that source's copy and gets its hand-written questions
    (with_hand_questions) as the built-in source does. A source whose fingerprint equals the one the
    trusted live index recorded is reused from it (Previous.reuse, message "unchanged"); the others are
    loaded. Returns the manifest loads, then the user loads."""
    max_bytes = plan.ctx.max_bytes
    taken = [m.name for m in plan.manifests if m.name not in plan.replaced]
    builtin = {m.name: m for m in plan.manifests if m.name in plan.replaced}
    users: list[SourceLoad] = []
    for path, name, strict, title in plan.users:
        emit("start", str(path), None)
        fp = user_fingerprint(path, max_bytes, name, title)
        copy_of = builtin.get(name)  # `--source apizoo=DIR`: a copy of a built-in source, as that source is
        hand = [hand_questions_text(q) for q in copy_of.hand_questions] if copy_of is not None else []
        if fp is not None and hand:  # its hand-written questions are part of what it is built from
            fp = combine("hand", fp, hand)
        load = previous.reuse(name, fp)
        if load is None:
            load = user_load(path, taken, max_bytes, strict, name, title)
            if copy_of is not None and load.status == "ok":
                load.result = with_hand_questions(copy_of, load.result)
        load.fingerprint = fp if load.status == "ok" else None
        load.copy = copy_of is not None
        taken.append(load.name)
        emit("done", str(path), load)
        users.append(load)
    loads: list[SourceLoad] = []
    for m in plan.selected:
        emit("start", m.name, None)
        fp = source_fingerprint(m, plan.ctx)
        load = previous.reuse(m.name, fp) or fetch(m, plan.ctx)
        load.fingerprint = fp if load.status == "ok" else None
        emit("done", m.name, load)
        loads.append(load)
    return loads + users


def check_loads(loads: list[SourceLoad]) -> None:
    """Raise GorillaError for a loaded source without docs, or when no source could be loaded."""
    ok = [ld for ld in loads if ld.status == "ok"]
    for ld in ok:
        if not ld.result.docs:
            why = next((str(d) for d in ld.result.diagnostics if d.severity == "skipped"), "no entry")
            raise GorillaError(f"source {ld.name} is empty ({why})")
    if not ok:
        reasons = "; ".join(f"{ld.name}: {ld.message}" for ld in loads) or "no source selected"
        fixes = " / ".join(fix_lines(ld.name for ld in loads))  # pool/remedies.py: the same fix everywhere
        raise GorillaError(
            f"no source reachable ({reasons})", hint=fixes or "use --from DIR with a local copy of the files"
        )


def _done(loads: list[SourceLoad]) -> set[str]:
    """Names of the sources refreshed now (loaded or refused): the previous index's docs of the others
    are kept."""
    return {ld.name for ld in loads if ld.status in ("ok", "refused")}


def is_unchanged(loads: list[SourceLoad], previous: Previous, keep_previous: bool) -> bool:
    """True when the trusted live index already is what this refresh would build: every loaded source
    was reused (unchanged), the index would hold the same sources (none refused or dropped now), and it
    was built with the extra files exactly when this refresh writes them."""
    if not previous.trusted or previous.index is None or not previous.same_extra:
        return False
    if any(ld.status == "ok" and ld.message != UNCHANGED for ld in loads):
        return False
    done = _done(loads)
    after = {ld.name for ld in loads if ld.status == "ok"}
    if keep_previous:
        after |= {row["name"] for row, _ in kept(previous.index, done)}
    return after == set(previous.index.sources)


def _rows(
    plan: Plan, loads: list[SourceLoad], previous: Previous, kept_rows: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """meta.json's source rows: one per load (a reused source keeps its live row, message "unchanged"),
    then one per source kept from the previous index (status "kept")."""
    rows = [
        dict(previous.row(ld.name), status="ok", message=UNCHANGED)
        if ld.status == "ok" and ld.message == UNCHANGED
        else source_row(ld, plan.modes.get(ld.name, retrieval_mode(None)))
        for ld in loads
    ]
    return rows + [dict(row, status="kept") for row in kept_rows]


def unchanged_report(
    plan: Plan, loads: list[SourceLoad], previous: Previous, started: float
) -> RefreshReport:
    """The report of a refresh that keeps the live index as it is (nothing is written)."""
    assert previous.index is not None and previous.index.path is not None
    kept_rows = [row for row, _ in kept(previous.index, _done(loads))]
    rows = _rows(plan, loads, previous, kept_rows)
    seconds = time.perf_counter() - started
    return RefreshReport(previous.index.path, previous.index, rows, seconds, [], unchanged=True)


def assemble(
    plan: Plan, loads: list[SourceLoad], previous: Previous, keep_previous: bool, emit: ProgressFn
) -> Assembly:
    """The docs, rows and warnings of the new index: the loaded sources' docs, then those the previous
    index keeps (keep_previous: the sources not refreshed now; a previous index that is damaged, or whose
    files changed since it was built, has its sources read again instead, build.previous.reread)."""
    ok = [ld for ld in loads if ld.status == "ok"]
    warnings: list[str] = []
    keep: list[tuple[dict[str, Any], list[ApiDoc]]] = []
    # a live index whose files changed since it was built loads, but none of its docs is kept: the sources
    # not refreshed now are read again from where they came from, as for one that cannot be read at all
    tampered = previous.index is not None and previous.untrusted.endswith(
        ("changed since it was built", "is missing")
    )
    if tampered:
        warnings.append(
            f"the live index could not be trusted ({previous.untrusted}): every source was read again"
        )
    if keep_previous and previous.damaged:
        warnings.append(
            f"the previous index could not be read ({previous.damaged}): rebuilt from the sources"
        )
    if keep_previous and (previous.damaged or (previous.index is not None and not previous.trusted)):
        # not to be reused as it is (damaged, changed, built by another version, --force): the sources
        # not refreshed now are read again from where they came from (the folder of a --from mirror)
        why = (
            "the previous index could not be read"
            if previous.damaged
            else f"not reused: {previous.untrusted}"
        )
        rebuilt = reread(previous.rows, _done(loads), plan.manifests, plan.ctx, emit, user_load, why=why)
        again = {ld.name for ld in rebuilt if ld.status == "ok"}  # their failed fetch is no longer news
        loads = [ld for ld in loads if ld.status == "ok" or ld.name not in again] + rebuilt
        ok += [ld for ld in rebuilt if ld.status == "ok" and ld.result.docs]
    refused_kept: list[str] = []
    if keep_previous and previous.index is not None and not tampered:
        # a source refused now (a 10 GB file, not docs) keeps its docs of the live index, as one that
        # cannot be fetched does: its "refused" load leaves the rows, its kept row says why (issue 42, N15)
        live = set(previous.index.sources)
        refused = {ld.name: ld for ld in loads if ld.status == "refused" and ld.name in live}
        keep = kept(previous.index, _done([ld for ld in loads if ld.name not in refused]))
        kept_now = {row["name"] for row, _ in keep}  # kept() leaves out a source of mostly non-docs
        loads = [ld for ld in loads if ld.name not in refused or ld.name not in kept_now]
        for row, docs_kept in keep:
            ld = refused.get(row["name"])
            if ld is None:
                continue
            row["message"] = f"refused now ({ld.message}): its docs of the previous index kept"
            refused_kept.append(ld.name)
            warnings.append(
                f"{ld.name} refused: {ld.message}; its {len(docs_kept):,} docs of the previous index were "
                "kept (fix or remove the file, then refresh again)"
            )
    docs = [d for ld in ok for d in ld.result.docs] + [d for _, docs in keep for d in docs]
    rows = _rows(plan, loads, previous, [row for row, _ in keep])
    warnings += dropped(previous, docs, loads, keep_previous)
    kept_names = {row["name"] for row, _ in keep}
    meta = previous.index.meta if previous.index is not None else {}
    old = [d for d in meta.get("diagnostics", []) if isinstance(d, dict) and d.get("source") in kept_names]
    return Assembly(docs, rows, warnings, old, ok, refused_kept)


def user_load(
    path: str | Path, taken: list[str], max_bytes: int, strict: bool, name: str | None = None, title: str = ""
) -> SourceLoad:
    """user_source(path, name=name, title=title); a refused source raises UsageError when `strict`
    (--source), else it is a "refused" SourceLoad (config `sources`, a user source re-read after a damaged
    index)."""
    try:
        return user_source(path, taken, max_bytes, name, title)
    except SourceRejected as e:
        if strict:
            raise UsageError(f"--source refused: {e}") from None
        p = split_source(path)[1]
        return SourceLoad(
            name or source_name(path), f"user docs ({p})", "refused", str(p), message=str(e), user=True
        )
