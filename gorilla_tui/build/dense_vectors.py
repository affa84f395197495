"""Adding dense vectors to a published index version: embed its hybrid sources' docs (cached by content)."""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gorilla_tui.build import seed as vector_seed
from gorilla_tui.build.vector_cache import read_vector_cache, write_vector_cache
from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.manifest import shipped_values
from gorilla_tui.retrieve.embed import BATCH, Embedder, content_hash, open_embedder, passage_text
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as index_store

#: A source whose manifest has no `retrieval` key is BM25 alone (build.refresh.retrieval_mode).
DEFAULT_RETRIEVAL = "bm25"
#: Manifest key (index/*.toml, a shipped hybrid source): true embeds each doc question (doc expansion) too,
#: and the dense side scores a doc by its best cosine over its text and its questions (dense.DenseSide).
#: Set for python-env, whose hand-written questions hold the words people type ("delete a folder and
#: everything in it" -> shutil.rmtree); chosen on the dev sets (bench/hand_questions.py,
#: docs/benchmarks.md "Hand-written questions"). Not for the hubs and APIZoo: embedding their training
#: questions too pulled model tasks to Torch Hub when no hub is named (a one-off probe on the hub dev split,
#: no hub named, questions embedded as queries: TensorFlow Hub domain@1 34.0 -> 29.5 %, Hugging Face 51.0 ->
#: 47.0 %).
EMBED_QUESTIONS_KEY = "embed_questions"
#: Docs embedded, and seconds passed, between two saves of the vector cache (an interrupted embedding keeps
#: what it did): each save rewrites the whole cache (about 1.5 MB per 1,000 texts), so a large cache is not
#: rewritten every few seconds on a fast machine.
CACHE_SAVE_EVERY = 256
CACHE_SAVE_SECONDS = 60.0

#: Texts of the first batch, and the seconds a batch should take: each next batch holds what the last one's
#: rate embeds in BATCH_SECONDS (at least FIRST_BATCH, at most embed.BATCH), so progress is reported every
#: few seconds on a slow machine too (issue 40: a batch of 32 took 23 s at 1.4 texts/s on this loaded
#: 2-core machine, a silent stretch) and a fast one keeps full batches (32 or 128 texts a call embedded
#: at the same rate here, bench/first_refresh.py; one text a call costs about twice as much per text; the
#: engine runs a batch's tokens together, about 400 for 4 texts, so 4 is already a batch).
FIRST_BATCH = 4
BATCH_SECONDS = 3.0

#: on_embed(done, total): texts (docs, doc questions) embedded so far of those that needed it (cached ones
#: are not counted).
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
    embedded now: embed_texts of each doc's passage text (embed.passage_text)."""
    return embed_texts([passage_text(d) for d in docs], model, root, on_embed, stop)


def embed_texts(
    texts: Sequence[str],
    model: Embedder,
    root: Path | None = None,
    on_embed: EmbedProgressFn | None = None,
    stop: Callable[[], bool] | None = None,
    notes: list[str] | None = None,
) -> tuple[np.ndarray, int]:
    """Vectors of `texts` embedded as passages (float32, len(texts) x model.dim, rows L2-normalised) and
    how many had to be embedded now. The texts are docs' passage texts and doc questions: a question is
    embedded as a passage too, so its cosine to a task is on the scale of the docs' (embedded as a query,
    "query: " on both sides, it scored every task about 0.05 higher, and the docs with questions won tasks
    another doc answers: "capitalize every word in a string" gave str.replace over str.capitalize).

    Each text is looked up in the embedder's vector cache by content hash (build/vector_cache.py), then in
    the packaged seed (build/seed.py: the standard library's, the APIBench hubs' and APIZoo's vectors
    and python-env's hand-written questions', read only; its vectors are not copied into the user's
    cache): an unchanged text is never embedded twice, and equal texts once. The rest is embedded in
    batches of FIRST_BATCH to embed.BATCH texts, sized by next_batch to take about BATCH_SECONDS each
    (the probe in bench/retrieval.py: one call per batch costs about half as much per doc as one call
    per doc), reported through on_embed(done, total), and saved to the cache every
    CACHE_SAVE_EVERY texts (at most every CACHE_SAVE_SECONDS) and at the end (also when interrupted).
    stop: checked before each batch; True raises EmbeddingStopped. notes: a damaged vector cache's one-line
    note is added to it (read_vector_cache: moved aside, rebuilt), and so is a cache that cannot be
    written, or whose folder was no folder (write_vector_cache: the cache is optional, the vectors
    are used uncached). Raises GorillaError when the embedder fails or gives a vector that is not finite
    (a NaN vector is never cached nor published).
    """
    keys = [content_hash(t) for t in texts]
    said = notes if notes is not None else []  # the cache is optional: a write that fails is a note
    cache = read_vector_cache(model.name, root, model.dim, said)
    seeded = vector_seed.read_seed(model.name, model.dim)
    todo = list(
        dict.fromkeys(t for t, key in zip(texts, keys, strict=True) if key not in cache and key not in seeded)
    )
    emit = on_embed or (lambda done, total: None)
    emit(0, len(todo))
    since_save, saved, start, size = 0, time.monotonic(), 0, FIRST_BATCH
    try:
        while start < len(todo):
            if stop is not None and stop():
                raise EmbeddingStopped(
                    f"embedding stopped after {start} of {len(todo)} texts (they are cached)"
                )
            batch = todo[start : start + size]
            began = time.monotonic()
            got = np.asarray(model.embed_passages(batch), np.float32)
            if got.shape != (len(batch), model.dim):
                raise GorillaError(
                    f"the embedding model gave vectors of shape {got.shape} for {len(batch)} texts "
                    f"(expected width {model.dim})"
                )
            if not np.isfinite(got).all():
                raise GorillaError("the embedding model gave a vector holding NaN or infinity")
            for text, vec in zip(batch, got, strict=True):
                cache[content_hash(text)] = vec
            size = next_batch(len(batch), time.monotonic() - began)
            start += len(batch)
            since_save += len(batch)
            if since_save >= CACHE_SAVE_EVERY and time.monotonic() - saved >= CACHE_SAVE_SECONDS:
                write_vector_cache(model.name, cache, root, said)
                since_save, saved = 0, time.monotonic()
            emit(start, len(todo))
    finally:
        if since_save:
            write_vector_cache(model.name, cache, root, said)
    vectors = np.zeros((len(texts), model.dim), np.float32)
    for i, key in enumerate(keys):
        vectors[i] = cache[key] if key in cache else seeded[key]
    return vectors, len(todo)


def next_batch(done: int, seconds: float) -> int:
    """Texts of the next batch after one of `done` texts took `seconds` (FIRST_BATCH, BATCH_SECONDS)."""
    rate = done / max(seconds, 1e-3)
    return max(FIRST_BATCH, min(BATCH, int(rate * BATCH_SECONDS)))


def question_sources(rows: Sequence[dict[str, Any]]) -> set[str]:
    """The sources of an index (`rows`: its meta.json "sources") whose doc questions get vectors: hybrid,
    built in or a copy of the built-in source (`--source apizoo=DIR`, row "copy"; not a user's other file)
    and EMBED_QUESTIONS_KEY true in their shipped manifest."""
    wanted = shipped_values(EMBED_QUESTIONS_KEY)
    return {
        str(r.get("name"))
        for r in rows
        if r.get("retrieval") == "hybrid"
        and (not r.get("user") or r.get("copy"))
        and wanted.get(r.get("name")) is True
    }


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

    The doc questions of question_sources() are embedded too (embed_texts) and stored beside the vectors
    (store.write_vectors `questions`): the dense side scores such a doc by its best cosine over its text
    and its questions.

    Returns {"embedder", "docs", "questions", "embedded", "cached", "seconds", "notes"}: "embedded" counts
    the distinct texts embedded now, "cached" the rest of docs + questions, "notes" one-line notes (a
    damaged vector cache moved aside). Raises GorillaError when the
    embedder is missing or fails (recorded in the progress file, so the index says why it is BM25 alone),
    or when stopped (EmbeddingStopped).
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

    with_questions = question_sources(index.meta.get("sources", []))
    asked = [(i, q) for i in rows if index.docs[i].source in with_questions for q in index.docs[i].questions]
    texts = [passage_text(index.docs[i]) for i in rows] + [q for _, q in asked]
    notes: list[str] = []
    try:
        vectors, embedded = embed_texts(texts, model, root, progress, stop, notes)
    except EmbeddingStopped:
        (folder / index_store.DENSE_PROGRESS).unlink(missing_ok=True)
        raise
    except GorillaError as e:
        index_store.write_progress(folder, dict(state, error=str(e)))
        raise
    full = np.zeros((len(index.docs), model.dim), np.float32)
    mask = np.zeros(len(index.docs), bool)
    full[rows] = vectors[: len(rows)]
    mask[rows] = True
    questions = (vectors[len(rows) :], np.array([i for i, _ in asked], np.int64))
    info = {"embedder": model.spec, "name": model.name, "dim": model.dim, "docs": len(rows),
            "questions": len(asked)}  # fmt: skip
    index_store.write_vectors(folder, full, mask, info, questions)
    assert index.dense is not None
    index.dense.attach(full, mask, info, model, questions)
    seconds = time.perf_counter() - started
    return {"embedder": model.name, "docs": len(rows), "questions": len(asked), "embedded": embedded,
            "cached": len(texts) - embedded, "seconds": round(seconds, 3), "notes": notes}  # fmt: skip
