"""`index --refresh`: fetch every source, build the BM25 index aside, publish it atomically under the lock."""

from __future__ import annotations

import errno
import json
import os
import shutil
import time
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

import numpy as np

from gorilla_tui.errors import GorillaError, IndexMissingError, UsageError
from gorilla_tui.pool.doc import MAX_SOURCE_BYTES, ApiDoc, SourceRejected
from gorilla_tui.pool.sources import (
    FetchContext,
    Manifest,
    SourceLoad,
    fetch,
    load_manifests,
    source_name,
    split_source,
    user_source,
)
from gorilla_tui.retrieve import store as index_store
from gorilla_tui.retrieve.embed import BATCH, Embedder, content_hash, open_embedder, passage_text
from gorilla_tui.retrieve.index import FIELD_WEIGHTS, TOKENIZER_VERSION, ApiIndex, Bm25Params
from gorilla_tui.retrieve.metadata import PerformanceTable

#: Test hook: seconds to sleep after the new version is written aside and before it is published (lets
#: tests kill a refresh mid-way). Never set it in normal use.
PAUSE_ENV = "GORILLA_TUI_REFRESH_PAUSE"

#: Manifest key saying how a source is retrieved: "hybrid" (BM25 + dense, its docs are embedded) or "bm25".
RETRIEVAL_KEY = "retrieval"
RETRIEVAL_MODES = ("hybrid", "bm25")
#: A source whose manifest has no RETRIEVAL_KEY (user --source files are "hybrid": they are small).
DEFAULT_RETRIEVAL = "bm25"
#: Docs embedded between two saves of the vector cache (an interrupted embedding keeps what it did).
CACHE_SAVE_EVERY = 256

#: on_embed(done, total): docs embedded so far of those that needed it (cached ones are not counted).
EmbedProgressFn = Callable[[int, int], None]

#: on_event(kind, name, load): kind "start" (load is None) or "done" (load is the SourceLoad).
ProgressFn = Callable[[str, str, "SourceLoad | None"], None]


@dataclass
class RefreshReport:
    """Outcome of a refresh: the published version folder, the new index, one summary row per source
    (name, title, status ok/kept/refused/unreachable/not in mirror/unsupported, origin, loaded, flagged,
    skipped, repaired, message), the build time in seconds, and warnings: one line each for docs of the
    previous index that were dropped (how many, from which source, why) and for a previous index that
    could not be read (rebuilt from the sources)."""

    path: Path
    index: ApiIndex
    sources: list[dict[str, Any]] = field(default_factory=list)
    seconds: float = 0.0
    warnings: list[str] = field(default_factory=list)


def retrieval_mode(manifest: Manifest | None) -> str:
    """The manifest's RETRIEVAL_KEY ("hybrid" or "bm25"; DEFAULT_RETRIEVAL when absent, "hybrid" for a user
    source, manifest None). Raises UsageError for another value."""
    if manifest is None:
        return "hybrid"
    mode = str(manifest.extra.get(RETRIEVAL_KEY, DEFAULT_RETRIEVAL))
    if mode not in RETRIEVAL_MODES:
        raise UsageError(
            f"{manifest.origin or manifest.name}: {RETRIEVAL_KEY} must be one of {', '.join(RETRIEVAL_MODES)}"
        )
    return mode


def source_row(load: SourceLoad, retrieval: str = DEFAULT_RETRIEVAL) -> dict[str, Any]:
    """Summary counts of one SourceLoad (what meta.json and the summary table show); retrieval: the
    source's retrieval mode (retrieval_mode)."""
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
        "message": load.message,
        "retrieval": retrieval,
        "user": load.user,
    }


def _select(manifests: list[Manifest], only: Sequence[str], user_names: Sequence[str]) -> list[Manifest]:
    if not only:
        return manifests
    known = [m.name for m in manifests] + list(user_names)
    unknown = [n for n in only if n not in known]
    if unknown:
        raise UsageError(f"--only: unknown source {', '.join(unknown)} (known: {', '.join(known)})")
    return [m for m in manifests if m.name in only]


@dataclass
class _Previous:
    """The live index before this refresh: `index` when it could be read; else `damaged` says why and
    `rows` are its meta.json source rows when meta.json itself could still be read."""

    index: ApiIndex | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    damaged: str = ""

    def counts(self) -> dict[str, int]:
        """Docs per source of the previous index (from its docs, else from its meta.json rows)."""
        if self.index is not None:
            return dict(Counter(d.source for d in self.index.docs))
        return {str(r.get("name")): int(r.get("loaded") or 0) for r in self.rows if r.get("name")}


def _previous() -> _Previous:
    """Read the live index; any unreadable file (a truncated tf.npz, an emptied docs.json, a corrupt
    CURRENT, an index of another store or tokenizer version) gives a _Previous with `damaged` set."""
    try:
        index = ApiIndex.load()
    except IndexMissingError:
        return _Previous()
    except GorillaError as e:
        return _Previous(rows=_meta_rows(), damaged=str(e))
    except Exception as e:  # noqa: BLE001 - whatever a damaged file raises, the index is rebuilt
        return _Previous(rows=_meta_rows(), damaged=f"{type(e).__name__}: {str(e)[:120]}")
    rows = index.meta.get("sources")
    return _Previous(index, [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else [])


def _meta_rows() -> list[dict[str, Any]]:
    try:
        _, meta = index_store.read_meta(None)
    except Exception:  # noqa: BLE001 - meta.json unreadable too: nothing is known of the old sources
        return []
    rows = meta.get("sources") if isinstance(meta, dict) else None
    return [r for r in rows if isinstance(r, dict) and r.get("name")] if isinstance(rows, list) else []


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
) -> RefreshReport:
    """Rebuild the index in get_paths().index_dir.

    mirrors: the --from folders (files looked up by their remote names; None: each manifest's remote);
    user_paths: --source values, PATH or NAME=PATH (pool.sources.split_source; named after their stem
    when unnamed); one whose name is a built-in source's (e.g. a read-only .../apizoo mirror) is read in
    place of that source's manifest; config_paths: config.toml `sources` (the same, but a refused one is
    a "refused" row instead of an error); only: restrict to these source names; keep_previous: sources
    not refreshed now (unreachable, not in mirror, not selected) keep their docs from the previous index;
    max_bytes: size limit of one source (pool.doc); on_wait(message): called once when another refresh
    holds the lock (waited for up to index_store.LOCK_WAIT seconds); extra_files(build folder, docs):
    writes more files into the version before it is published (the CLI passes
    check.lookup.write_lookup; retrieve never imports check).

    Holds index_store.refresh_lock throughout and first removes the build folders of dead refreshes;
    the new version is written to a temp folder, removed on any failure, and published with an atomic
    pointer swap, so a failed or killed refresh leaves the previous index in place. A previous index
    that cannot be read is rebuilt from the sources: its user sources are read again from their paths and
    its manifest sources fetched again (from the folder they came from when it was local). A refused
    source (pool.doc.SourceRejected) never enters the index and its previous docs are not kept. Every
    doc of the previous index that is dropped is reported in RefreshReport.warnings.

    Raises UsageError (bad --from / --only, a --source that is missing or refused) and GorillaError: no
    source reachable, a source that loads no doc, a pool whose docs are all empty, the lock held by
    another refresh too long, or a write that failed (disk full with free and needed space, permission).
    """
    for m in mirrors or ():
        if not Path(m).is_dir():
            raise UsageError(f"--from {m}: not a folder")
    manifests = load_manifests() if manifests is None else manifests
    all_user = [*user_paths, *config_paths]
    user_names = [source_name(p) for p in all_user]
    dupes = sorted({n for n in user_names if user_names.count(n) > 1})
    if dupes:
        raise UsageError(
            f"--source: the source name {', '.join(dupes)} is given twice; use --source NAME=PATH"
        )
    # a user source named like a built-in one (e.g. a read-only .../apizoo mirror) supplies that source
    builtin = {m.name: m for m in manifests}
    replaced = {n: builtin[n] for n in user_names if n in builtin}
    selected = [m for m in _select(manifests, only, user_names) if m.name not in replaced]
    ctx = FetchContext(
        mirrors=[Path(m).expanduser() for m in mirrors] if mirrors is not None else None, max_bytes=max_bytes
    )
    emit = on_event or (lambda kind, name, load: None)
    started = time.perf_counter()
    root = index_store.index_root()
    with index_store.refresh_lock(timeout=index_store.LOCK_WAIT, on_wait=on_wait):
        index_store.remove_stale_builds()
        taken = [m.name for m in manifests if m.name not in replaced]
        users: list[SourceLoad] = []
        for p, name in zip(all_user, user_names, strict=True):  # user sources first: a refused --source
            emit("start", str(p), None)  # stops before anything is fetched
            m = replaced.get(name)
            title = f"{m.title} (your copy)" if m else ""
            load = _user_load(p, taken, max_bytes, strict=p in user_paths, name=name, title=title)
            taken.append(load.name)
            emit("done", str(p), load)
            users.append(load)
        loads: list[SourceLoad] = []
        for m in selected:
            emit("start", m.name, None)
            load = fetch(m, ctx)
            emit("done", m.name, load)
            loads.append(load)
        loads += users
        ok = [ld for ld in loads if ld.status == "ok"]
        for ld in ok:
            if not ld.result.docs:
                why = next((str(d) for d in ld.result.diagnostics if d.severity == "skipped"), "no entry")
                raise GorillaError(f"source {ld.name} is empty ({why})")
        if not ok:
            reasons = "; ".join(f"{ld.name}: {ld.message}" for ld in loads) or "no source selected"
            raise GorillaError(
                f"no source reachable ({reasons})",
                hint="use --from DIR with a local copy of the files, e.g. --from ../shared/apibench/api",
            )
        previous = _previous()
        warnings: list[str] = []
        kept: list[tuple[dict[str, Any], list[ApiDoc]]] = []
        done = {ld.name for ld in loads if ld.status in ("ok", "refused")}
        if keep_previous and previous.index is not None:
            kept = _kept(previous.index, done)
        elif keep_previous and previous.damaged:
            warnings.append(
                f"the previous index could not be read ({previous.damaged}): rebuilt from the sources"
            )
            rebuilt = _reread(previous.rows, done, manifests, ctx, emit)
            loads += rebuilt
            ok += [ld for ld in rebuilt if ld.status == "ok" and ld.result.docs]
        docs: list[ApiDoc] = [d for ld in ok for d in ld.result.docs] + [d for _, docs in kept for d in docs]
        modes = {m.name: retrieval_mode(m) for m in manifests}
        rows = [source_row(ld, modes.get(ld.name, retrieval_mode(None))) for ld in loads]
        rows += [dict(row, status="kept") for row, _ in kept]
        warnings += _dropped(previous, docs, loads, keep_previous)
        kept_names = {row["name"] for row, _ in kept}
        old = [
            d
            for d in (previous.index.meta.get("diagnostics", []) if previous.index else [])
            if isinstance(d, dict) and d.get("source") in kept_names
        ]
        index = ApiIndex.build(docs, Bm25Params())
        index.meta = _meta(index, rows, ok, old, time.perf_counter() - started)
        final = _write_and_publish(index, root, extra_files)
    index.path = final
    return RefreshReport(final, index, rows, time.perf_counter() - started, warnings)


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


def _reread(
    rows: list[dict[str, Any]],
    done: set[str],
    manifests: list[Manifest],
    ctx: FetchContext,
    emit: ProgressFn,
) -> list[SourceLoad]:
    """Read again the sources of a damaged previous index (its meta.json rows) that were not refreshed
    now: a user source from its path, a manifest source from the local folder it came from (else its
    remote). A source that cannot be read again is left out (reported by _dropped)."""
    by_name = {m.name: m for m in manifests}
    out: list[SourceLoad] = []
    taken = [*by_name, *done]
    for row in rows:
        name, origin = str(row.get("name")), str(row.get("origin") or "")
        if name in done or row.get("status") not in ("ok", "kept"):
            continue
        emit("start", name, None)
        if name in by_name:
            folder = Path(origin)
            mirror = FetchContext(mirrors=[folder] if origin and folder.is_dir() else ctx.mirrors,
                                  hub_error=ctx.hub_error, max_bytes=ctx.max_bytes)  # fmt: skip
            load = fetch(by_name[name], mirror)
        elif origin and Path(origin).exists():
            try:
                load = _user_load(origin, [t for t in taken if t != name], ctx.max_bytes, strict=False)
            except UsageError as e:
                load = SourceLoad(name, name, "unreachable", origin, message=str(e), user=True)
        else:
            load = SourceLoad(
                name, name, "unreachable", origin, message=f"{origin or name}: not found", user=True
            )
        if load.status == "ok":
            load.message = "re-read: the previous index could not be read"
        emit("done", name, load)
        out.append(load)
    return out


def _dropped(
    previous: _Previous, docs: list[ApiDoc], loads: list[SourceLoad], keep_previous: bool
) -> list[str]:
    """One line per source that has fewer docs than in the previous index: how many were dropped and why."""
    now = Counter(d.source for d in docs)
    by_name = {ld.name: ld for ld in loads}
    lines = []
    for name, before in sorted(previous.counts().items()):
        lost = before - now.get(name, 0)
        if lost <= 0:
            continue
        ld = by_name.get(name)
        if ld is not None and ld.status == "refused":
            why = f"refused: {ld.message}"
        elif ld is not None and ld.status == "ok":
            why = f"the source now has {now.get(name, 0)}"
        elif ld is not None:
            why = f"{ld.status}: {ld.message}"
        elif not keep_previous:
            why = "--clean drops the sources not refreshed now"
        elif previous.index is not None:
            why = "mostly not docs (loaded by an older release)"
        else:
            why = "the previous index could not be read"
        lines.append(f"{name}: {lost} of its {before} docs in the previous index dropped ({why})")
    return lines


def _write_and_publish(
    index: ApiIndex, root: Path, extra_files: Callable[[Path, Sequence[ApiDoc]], object] | None = None
) -> Path:
    """Write `index` into a new build folder and publish it (index_store). The build folder is removed on
    any failure (an exception, Ctrl+C). A full disk is retried once after removing the version folders
    that are not live (kept only for readers in the middle of a swap); an OSError then becomes one line
    (index_store.index_write_error: disk full with the free and the needed space, permission)."""
    for attempt in (1, 2):
        folder: Path | None = None
        try:
            folder = index_store.new_build_dir()
            index_store.write_version(folder, index.docs, index.tf, index.vocab, index.meta)
            PerformanceTable.build(index.docs).save(folder)  # normalised once, here, not on every ask
            if extra_files is not None:  # e.g. check's validator lookup (issue 20), written by a caller above
                extra_files(folder, index.docs)
            pause = float(os.environ.get(PAUSE_ENV, "0") or 0)
            if pause > 0:
                time.sleep(pause)
            final = index_store.publish(folder)
            folder = None
            return final
        except OSError as e:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
                folder = None
            full = e.errno in (errno.ENOSPC, errno.EDQUOT)
            if attempt == 1 and full and index_store.remove_old_versions(root):
                continue
            needed = estimate_bytes(index, extra=extra_files is not None)
            raise index_store.index_write_error(e, root, needed=needed) from None
        finally:
            if folder is not None:
                shutil.rmtree(folder, ignore_errors=True)
    raise AssertionError("unreachable")


def estimate_bytes(index: ApiIndex, extra: bool = False) -> int:
    """About how many bytes write_version needs for `index`: docs.json (each doc's JSON), tf.npz (int32
    indices + float data per non-zero, int32 row pointers), vocab.json and meta.json; with `extra`, plus
    check's lookup (zlib-compressed docs and facts: about a fifth of docs.json, check/lookup.py)."""
    docs = sum(len(json.dumps(d.to_dict(), ensure_ascii=False).encode()) + 1 for d in index.docs)
    tf = index.tf.nnz * (4 + index.tf.data.itemsize) + (index.tf.shape[0] + 1) * 4 + 4096
    vocab = sum(len(t.encode()) + 4 for t in index.vocab)
    meta = len(json.dumps(index.meta, ensure_ascii=False, default=str)) + 4096
    return docs + tf + vocab + meta + (docs // 5 if extra else 0)


class EmbeddingStopped(GorillaError):
    """embed_docs was asked to stop (its `stop` returned True); what was embedded is in the cache."""


def embed_docs(
    docs: Sequence[ApiDoc],
    model: Embedder,
    root: Path | None = None,
    on_embed: EmbedProgressFn | None = None,
    stop: Callable[[], bool] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors of `docs` (float32, len(docs) x model.dim, rows L2-normalised) and how many texts had to be
    embedded now.

    Each doc's text (embed.passage_text) is looked up in the embedder's vector cache by content hash
    (store.read_vector_cache): an unchanged doc is never embedded twice, and docs with the same text are
    embedded once. The rest is embedded in batches of embed.BATCH (the probe in bench/retrieval.py: one call
    per batch costs about half as much per doc as one call per doc), reported through on_embed(done,
    total), and saved to the cache every CACHE_SAVE_EVERY docs and at the end (also when interrupted).
    stop: checked before each batch; True raises EmbeddingStopped. Raises GorillaError when the embedder
    fails or the cache cannot be written.
    """
    texts = [passage_text(d) for d in docs]
    keys = [content_hash(t) for t in texts]
    cache = index_store.read_vector_cache(model.name, root)
    todo = list(dict.fromkeys(t for t, key in zip(texts, keys, strict=True) if key not in cache))
    emit = on_embed or (lambda done, total: None)
    emit(0, len(todo))
    since_save = 0
    try:
        for start in range(0, len(todo), BATCH):
            if stop is not None and stop():
                raise EmbeddingStopped(
                    f"embedding stopped after {start} of {len(todo)} docs (they are cached)"
                )
            batch = todo[start : start + BATCH]
            for text, vec in zip(batch, model.embed_passages(batch), strict=True):
                cache[content_hash(text)] = vec
            since_save += len(batch)
            if since_save >= CACHE_SAVE_EVERY:
                index_store.write_vector_cache(model.name, cache, root)
                since_save = 0
            emit(start + len(batch), len(todo))
    finally:
        if since_save:
            index_store.write_vector_cache(model.name, cache, root)
    vectors = np.zeros((len(docs), model.dim), np.float32)
    for i, key in enumerate(keys):
        vectors[i] = cache[key]
    return vectors, len(todo)


def embed_index(
    index: ApiIndex,
    embedder: Embedder | str = "",
    on_embed: EmbedProgressFn | None = None,
    root: Path | None = None,
    stop: Callable[[], bool] | None = None,
) -> dict[str, Any]:
    """Embed the docs of the sources whose retrieval mode is "hybrid" (embed_docs: cached by content, in
    batches) and add the vectors to the published version `index.path` (store.write_vectors: atomic; until
    then the index answers with BM25 alone).

    embedder: an Embedder or an open_embedder spec ("" = the packaged default). Progress goes to
    on_embed(done, total) and to the version folder's progress file (so another process, e.g. the TUI,
    can show it). Does not hold the refresh lock: a refresh that publishes meanwhile replaces the folder,
    and this one's vectors are then moot (GorillaError). stop: see embed_docs (a stopped embedding leaves
    the index BM25 alone, without an error note).

    Returns {"embedder", "docs", "embedded", "cached", "seconds"}. Raises GorillaError when the embedder is
    missing or fails (recorded in the progress file, so the index says why it is BM25 alone), or when
    stopped (EmbeddingStopped).
    """
    if index.path is None:
        raise GorillaError("the index has no version folder to add vectors to")
    folder = index.path
    started = time.perf_counter()
    modes = {r.get("name"): r.get("retrieval", DEFAULT_RETRIEVAL) for r in index.meta.get("sources", [])}
    rows = [i for i, d in enumerate(index.docs) if modes.get(d.source, DEFAULT_RETRIEVAL) == "hybrid"]
    try:
        model = open_embedder(embedder) if isinstance(embedder, str) else embedder
    except GorillaError as e:
        index_store.write_progress(folder, {"done": 0, "total": len(rows), "error": str(e)})
        raise
    state: dict[str, Any] = {"done": 0, "total": 0, "embedder": model.spec}

    def progress(done: int, total: int) -> None:
        state.update(done=done, total=total)
        index_store.write_progress(folder, state)
        if on_embed is not None:
            on_embed(done, total)

    try:
        vectors, embedded = embed_docs([index.docs[i] for i in rows], model, root, progress, stop)
    except EmbeddingStopped:
        (folder / index_store.DENSE_PROGRESS).unlink(missing_ok=True)
        raise
    except GorillaError as e:
        index_store.write_progress(folder, dict(state, error=str(e)))
        raise
    full = np.zeros((len(index.docs), model.dim), np.float32)
    mask = np.zeros(len(index.docs), bool)
    full[rows] = vectors
    mask[rows] = True
    info = {"embedder": model.spec, "name": model.name, "dim": model.dim, "docs": len(rows)}
    index_store.write_vectors(folder, full, mask, info)
    assert index.dense is not None
    index.dense.attach(full, mask, info, model)
    seconds = time.perf_counter() - started
    return {"embedder": model.name, "docs": len(rows), "embedded": embedded, "cached": len(rows) - embedded,
            "seconds": round(seconds, 3)}  # fmt: skip


def _kept(previous: ApiIndex, refreshed: set[str]) -> list[tuple[dict[str, Any], list[ApiDoc]]]:
    """The sources of the previous index not refreshed (nor refused) now, with their docs; a source the
    previous index loaded from mostly non-docs (an older release accepted those) is not kept."""
    rows = {r["name"]: r for r in previous.meta.get("sources", []) if isinstance(r, dict) and "name" in r}
    out = []
    for name in previous.sources:
        if name in refreshed:
            continue
        docs = [d for d in previous.docs if d.source == name]
        row = dict(rows.get(name, {"name": name, "title": name}))
        if int(row.get("skipped") or 0) > len(docs):
            continue
        row.update(loaded=len(docs), flagged=sum(1 for d in docs if d.flagged))
        row["calls_repaired"] = sum(1 for d in docs if d.flagged and d.repaired)
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
            {
                "id": d.id,
                "source": d.source,
                "api_call": d.api_call,
                "reason": d.flagged,
                "repaired": d.repaired,
            }
            for d in index.docs
            if d.flagged
        ],
        "diagnostics": diagnostics,
    }
