"""Adding dense vectors to a published index version: embed its hybrid sources' docs (cached by content)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve import seed as vector_seed
from gorilla_tui.retrieve import store as index_store
from gorilla_tui.retrieve.embed import BATCH, Embedder, content_hash, open_embedder, passage_text
from gorilla_tui.retrieve.index import ApiIndex

#: A source whose manifest has no `retrieval` key is BM25 alone (retrieve.refresh.retrieval_mode).
DEFAULT_RETRIEVAL = "bm25"
#: Docs embedded between two saves of the vector cache (an interrupted embedding keeps what it did).
CACHE_SAVE_EVERY = 256

#: on_embed(done, total): docs embedded so far of those that needed it (cached ones are not counted).
EmbedProgressFn = Callable[[int, int], None]


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
    (store.read_vector_cache), then in the packaged seed of the standard library's vectors
    (retrieve/seed.py, read only; its vectors are not copied into the user's cache): an unchanged doc is
    never embedded twice, and docs with the same text are embedded once. The rest is embedded in batches
    of embed.BATCH (the probe in bench/retrieval.py: one call per batch costs about half as much per doc
    as one call per doc), reported through on_embed(done, total), and saved to the cache every
    CACHE_SAVE_EVERY docs and at the end (also when interrupted).
    stop: checked before each batch; True raises EmbeddingStopped. Raises GorillaError when the embedder
    fails or the cache cannot be written.
    """
    texts = [passage_text(d) for d in docs]
    keys = [content_hash(t) for t in texts]
    cache = index_store.read_vector_cache(model.name, root)
    seeded = vector_seed.read_seed(model.name)
    todo = list(
        dict.fromkeys(t for t, key in zip(texts, keys, strict=True) if key not in cache and key not in seeded)
    )
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
        vectors[i] = cache[key] if key in cache else seeded[key]
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
