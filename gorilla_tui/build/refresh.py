"""`index --refresh`: fetch every source, build the BM25 index aside, publish it atomically under the lock.

The steps of refresh(), each a function: make_plan (build.plan: check the arguments, choose the
sources) -> under the lock: read the live index (build.previous) -> load_sources (build.assemble: a source
whose content fingerprint equals the live index's is reused from it, the others are fetched and loaded)
-> check_loads (an empty or no reachable source is an error) -> when nothing changed, unchanged_report
keeps the live index -> else assemble (docs kept from the live index, rows, warnings) -> ApiIndex.build
-> write_and_publish (build.publish). Embedding the published version's docs is build.dense_vectors.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from gorilla_tui.build.assemble import (  # noqa: F401 - ProgressFn re-exported: callers import it from here
    ProgressFn,
    assemble,
    check_loads,
    is_unchanged,
    load_sources,
    unchanged_report,
)
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
from gorilla_tui.build.previous import UNCHANGED, Previous, read_previous  # noqa: F401 - UNCHANGED re-exported
from gorilla_tui.build.publish import (  # noqa: F401 - re-exported: callers import them from here
    PAUSE_ENV,
    estimate_bytes,
    meta_of,
    write_and_publish,
)
from gorilla_tui.build.report import SKIPS_PER_ROW, RefreshReport, source_row  # noqa: F401 - re-exported
from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import MAX_SOURCE_BYTES, ApiDoc
from gorilla_tui.pool.sources import Manifest
from gorilla_tui.retrieve.bm25 import Bm25Params
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as index_store


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
    user_paths: --source values, PATH or NAME=PATH (pool.source_spec.split_source; named after their stem
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
        loads = load_sources(plan, previous, emit)
        check_loads(loads)
        if is_unchanged(loads, previous, keep_previous):
            return unchanged_report(plan, loads, previous, started)
        built = assemble(plan, loads, previous, keep_previous, emit)
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
