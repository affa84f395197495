"""`index --refresh`: fetch every source, build the BM25 index aside, publish it atomically under the lock.

The steps of refresh(), each a function: make_plan (build.plan: check the arguments, choose the
sources) -> under the lock: read the live index (build.previous) -> _load_sources (a source whose content
fingerprint equals the live index's is reused from it, the others are fetched and loaded) -> _checked (an
empty or no reachable source is an error) -> when nothing changed, _unchanged_report keeps the live index
-> else _assemble (docs kept from the live index, rows, warnings) -> ApiIndex.build -> write_and_publish
(build.publish). Embedding the published version's docs is build.dense_vectors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.build.dense_vectors import (  # noqa: F401 - re-exported: callers import them from here
    CACHE_SAVE_EVERY,
    DEFAULT_RETRIEVAL,
    EmbeddingStopped,
    EmbedProgressFn,
    embed_docs,
    embed_index,
)
from gorilla_tui.build.plan import (  # noqa: F401 - re-exported: callers import them from here
    RETRIEVAL_KEY,
    RETRIEVAL_MODES,
    Plan,
    make_plan,
    retrieval_mode,
)
from gorilla_tui.build.previous import (
    UNCHANGED,
    Previous,
    dropped,
    kept,
    read_previous,
    reread,
)
from gorilla_tui.build.publish import (  # noqa: F401 - re-exported: callers import them from here
    PAUSE_ENV,
    estimate_bytes,
    meta_of,
    write_and_publish,
)
from gorilla_tui.build.report import SKIPS_PER_ROW, RefreshReport, source_row  # noqa: F401 - re-exported
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.doc import MAX_SOURCE_BYTES, ApiDoc, SourceRejected
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.pool.sources import (
    Manifest,
    SourceLoad,
    fetch,
    source_fingerprint,
    source_name,
    split_source,
    user_fingerprint,
    user_source,
)
from gorilla_tui.retrieve.index import ApiIndex, Bm25Params
from gorilla_tui.store import versions as index_store

#: on_event(kind, name, load): kind "start" (load is None) or "done" (load is the SourceLoad) of one source,
#: or "stage" (load is None): a step of the whole refresh begins, `name` says which with its counts
#: ("building the BM25 index: 10,963 docs"), so a caller can say what a long step does (issue 40).
ProgressFn = Callable[[str, str, "SourceLoad | None"], None]


@dataclass
class _Assembly:
    """What the new index is built from: its docs, the source rows of meta.json, the warnings, the
    diagnostics kept from the previous index, and the loads that gave docs."""

    docs: list[ApiDoc]
    rows: list[dict[str, Any]]
    warnings: list[str]
    old: list[dict[str, Any]]
    ok: list[SourceLoad]
    refused_kept: list[str] = field(default_factory=list)


def refresh(
    mirrors: Sequence[str | Path] | None = None,
    user_paths: Sequence[str | Path] = (),
    only: Sequence[str] = (),
    keep_previous: bool = True,
    on_event: ProgressFn | None = None,
    manifests: list[Manifest] | None = None,
    *,
    config_paths: Sequence[str | Path] = (),
    max_bytes: int = MAX_SOURCE_BYTES,
    on_wait: Callable[[str], None] | None = None,
    extra_files: Callable[[Path, Sequence[ApiDoc]], object] | None = None,
    force: bool = False,
    check_manifest: Callable[[Manifest], None] | None = None,
    embed: Callable[[ApiIndex], dict[str, Any]] | None = None,
) -> RefreshReport:
    """Rebuild the index in get_paths().index_dir, or keep it when no source changed.

    mirrors: the --from folders (files looked up by their remote names; None: each manifest's remote);
    user_paths: --source values, PATH or NAME=PATH (pool.sources.split_source; named after their stem
    when unnamed); one whose name is a built-in source's (e.g. a read-only .../apizoo mirror) is read in
    place of that source's manifest and must hold files of that source's format (else UsageError);
    config_paths: config.toml `sources` (the same, but a refused one is a "refused" row instead of an
    error); only: restrict to these source names; keep_previous: sources not refreshed now (unreachable,
    not in mirror, not selected) keep their docs from the previous index; max_bytes: size limit of one
    source (pool.doc); on_wait(message): called once when another refresh holds the lock (waited for up
    to index_store.LOCK_WAIT seconds); extra_files(build folder, docs): writes more files into the version
    before it is published (the CLI passes check.lookup.write_lookup; retrieve never imports check);
    force: rebuild every source even when its fingerprint did not change; check_manifest(manifest): raises
    UsageError for a manifest setting retrieve does not own (the CLI and the TUI pass
    model.choice.check_choice_settings: choice_rule, vote_temperature; retrieve never imports model),
    called for every manifest before anything is read, after build.plan.check_settings; embed(index): adds
    the dense vectors to a version (dense_vectors.embed_index), given when the caller embeds.

    A refresh never publishes an index weaker than the live one: when the live index has vectors a search
    uses and `embed` is given, the new version is embedded in its build folder before it is published
    (the live index answers meanwhile); if that fails (the embedder, a full disk, Ctrl+C, a kill), nothing
    is published, the build folder is removed (a killed one by the next refresh) and GorillaError says
    that the live index was kept. Without vectors in the live index (a first refresh) the BM25 index is
    published at once and the caller embeds it afterwards (RefreshReport.dense None).

    Unchanged sources (issue 18): each source's content fingerprint (pool.sources.source_fingerprint,
    user_fingerprint: files' sizes and SHA-256, the python-env interpreter and module files, the manifest,
    the code) is compared with the one recorded in the live index. An equal one reuses that source's docs
    from the live index (row message "unchanged") instead of loading it; when every source is unchanged
    and the index would hold the same sources, the live index is kept as it is (RefreshReport.unchanged).
    Only a trusted live index is reused (build.previous: it loads, and its files still have the
    SHA-256 recorded when it was built); any other is rebuilt from the sources.

    Holds index_store.refresh_lock throughout (which first moves aside a file in place of the index folder
    or of the data folder: store.fileio.reclaim_root, said in RefreshReport.warnings; nothing else saved is
    touched) and first removes the build folders of dead refreshes;
    the new version is written to a temp folder, removed on any failure, and published with an atomic
    pointer swap, so a failed or killed refresh leaves the previous index in place. A previous index
    that cannot be read is rebuilt from the sources: its user sources are read again from their paths and
    its manifest sources fetched again (from the folder they came from when it was local). A refused
    source (pool.doc.SourceRejected: over max_bytes, mostly not docs) never enters the index; when the
    live index holds docs of it (and keep_previous), those are kept, as for a source that cannot be
    fetched, with one warning line, and its name is in RefreshReport.refused_kept (the CLI exits 2: the
    input was refused, though the index published is no weaker than the live one). A user expects a bad
    file among good ones to be said loudly, not to lose the source's docs silently (issue 42, kind 3).
    Every doc of the previous index that is dropped is reported in RefreshReport.warnings.

    Raises UsageError (bad --from / --only, a --source that is missing, refused or shadows a built-in
    source with another format) and GorillaError: no source reachable, a source that loads no doc, a pool
    whose docs are all empty, the lock held by another refresh too long, or a write that failed (disk
    full with free and needed space, permission).
    """
    plan = make_plan(mirrors, user_paths, config_paths, only, manifests, max_bytes, check_manifest)
    emit = on_event or (lambda kind, name, load: None)
    started = time.perf_counter()
    with index_store.refresh_lock(timeout=index_store.LOCK_WAIT, on_wait=on_wait) as reclaimed:
        index_store.remove_stale_builds()
        previous = read_previous(extra=extra_files is not None)
        if force and previous.index is not None:
            previous.untrusted = previous.untrusted or "--force"
        loads = _load_sources(plan, previous, emit)
        _check_loads(loads)
        if _is_unchanged(loads, previous, keep_previous):
            return _unchanged_report(plan, loads, previous, started)
        built = _assemble(plan, loads, previous, keep_previous, emit)
        emit("stage", f"building the BM25 index: {len(built.docs):,} docs", None)
        index = ApiIndex.build(built.docs, Bm25Params(), tokens=_live_tokens(previous))
        index.meta = meta_of(index, built.rows, built.ok, built.old, time.perf_counter() - started)
        emit("stage", f"writing the index version: {len(built.docs):,} docs", None)
        dense: list[dict[str, Any]] = []
        vectors = _vectors_first(previous, embed, emit, dense)
        final = write_and_publish(index, index_store.index_root(), _announced(extra_files, emit), vectors)
    index.path = final
    seconds = time.perf_counter() - started
    warnings = [reclaimed] * bool(reclaimed) + built.warnings  # a file moved aside from the index's place
    report = RefreshReport(final, index, built.rows, seconds, warnings, dense=(dense or [None])[0])
    report.refused_kept = built.refused_kept
    return report


def _vectors_first(
    previous: Previous,
    embed: Callable[[ApiIndex], dict[str, Any]] | None,
    emit: ProgressFn,
    out: list[dict[str, Any]],
) -> Callable[[ApiIndex], object] | None:
    """write_and_publish's `vectors` step: embed(index) in the build folder, its summary appended to `out`,
    when the live index has vectors a search uses (state "ready" with embedded docs), so the index that
    replaces it is never BM25 alone; None otherwise (nothing to lose: published first, embedded after).
    A GorillaError of embed becomes one line saying the live index was kept (its hint: free space first
    when the disk is full)."""
    if embed is None or previous.index is None or previous.damaged:
        return None
    state = previous.index.dense_state()
    if state.get("state") != "ready" or not state.get("docs"):
        return None

    def run(index: ApiIndex) -> object:
        emit("stage", f"embedding the new index's docs: {len(index.docs):,} (the live index answers)", None)
        try:
            out.append(embed(index))
        except GorillaError as e:
            full = str(e).startswith("disk full")
            raise GorillaError(
                f"the new index was not published, the live index is kept as it was: embedding its docs "
                f"failed ({str(e).splitlines()[0]})",
                hint=("free some disk space, then: " if full else "") + "gorilla-tui index --refresh",
            ) from None
        return out[-1]

    return run


def _announced(
    extra_files: Callable[[Path, Sequence[ApiDoc]], object] | None, emit: ProgressFn
) -> Callable[[Path, Sequence[ApiDoc]], object] | None:
    """`extra_files` with a "stage" event before it runs (the checker's lookup of 10,963 docs takes about
    as long as the rest of the version's files); None stays None."""
    if extra_files is None:
        return None

    def run(folder: Path, docs: Sequence[ApiDoc]) -> object:
        emit("stage", f"writing the checker's lookup: {len(docs):,} docs", None)
        return extra_files(folder, docs)

    return run


def _load_sources(plan: Plan, previous: Previous, emit: ProgressFn) -> list[SourceLoad]:
    """Load every source of `plan`: the user sources first (a refused --source stops before anything is
    fetched), then the selected manifests. A source whose fingerprint equals the one the trusted live
    index recorded is reused from it (Previous.reuse, message "unchanged"); the others are loaded.
    Returns the manifest loads, then the user loads."""
    max_bytes = plan.ctx.max_bytes
    taken = [m.name for m in plan.manifests if m.name not in plan.replaced]
    users: list[SourceLoad] = []
    for path, name, strict, title in plan.users:
        emit("start", str(path), None)
        fp = user_fingerprint(path, max_bytes, name, title)
        load = previous.reuse(name, fp) or _user_load(path, taken, max_bytes, strict, name, title)
        load.fingerprint = fp if load.status == "ok" else None
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


def _check_loads(loads: list[SourceLoad]) -> None:
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


def _is_unchanged(loads: list[SourceLoad], previous: Previous, keep_previous: bool) -> bool:
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


def _unchanged_report(
    plan: Plan, loads: list[SourceLoad], previous: Previous, started: float
) -> RefreshReport:
    """The report of a refresh that keeps the live index as it is (nothing is written)."""
    assert previous.index is not None and previous.index.path is not None
    kept_rows = [row for row, _ in kept(previous.index, _done(loads))]
    rows = _rows(plan, loads, previous, kept_rows)
    seconds = time.perf_counter() - started
    return RefreshReport(previous.index.path, previous.index, rows, seconds, [], unchanged=True)


def _assemble(
    plan: Plan, loads: list[SourceLoad], previous: Previous, keep_previous: bool, emit: ProgressFn
) -> _Assembly:
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
        rebuilt = reread(previous.rows, _done(loads), plan.manifests, plan.ctx, emit, _user_load, why=why)
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
    return _Assembly(docs, rows, warnings, old, ok, refused_kept)


def _live_tokens(previous: Previous) -> Callable[[ApiDoc], list[str] | None] | None:
    """tokens(doc) for ApiIndex.build: a doc taken from the trusted live index (a reused or kept source)
    gets its tokens back from its row of the live term-frequency matrix (each term repeated by its count)
    instead of being tokenised again; the same code built it (Previous.trusted), so they are the tokens a
    rebuild would make, up to their order, which BM25 ignores. None for any other doc, or when the live
    index is not trusted (--force tokenises everything)."""
    if not previous.trusted or previous.index is None:
        return None
    live = previous.index
    rows = {id(d): i for i, d in enumerate(live.docs)}
    terms = [""] * len(live.vocab)
    for term, col in live.vocab.items():
        terms[col] = term
    tf = live.term_frequencies()  # a loaded index keeps postings; the CSR matrix is built here (scipy)

    def tokens(doc: ApiDoc) -> list[str] | None:
        i = rows.get(id(doc))
        if i is None:
            return None
        lo, hi = int(tf.indptr[i]), int(tf.indptr[i + 1])
        out: list[str] = []
        for col, count in zip(tf.indices[lo:hi].tolist(), tf.data[lo:hi].tolist(), strict=True):
            out.extend([terms[col]] * int(count))
        return out

    return tokens


def _user_load(
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
