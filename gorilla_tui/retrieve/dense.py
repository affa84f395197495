"""Dense vectors of an index and their state: DenseSide, the query's cosine over each doc's vector.

An index answers with BM25 alone until its vectors are ready (a first refresh publishes BM25 at once and
adds the vectors when embedded, build/refresh.py), and when the embedder is missing or fails (a note
says why). The fusion of the BM25 and the dense rankings is retrieve/fusion.py (rrf and its settings; its
names are importable from here too, as before the split).
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np

from gorilla_tui.errors import GorillaError
from gorilla_tui.retrieve.embed import DEFAULT_EMBEDDER, Embedder, open_embedder
from gorilla_tui.retrieve.fusion import (
    DENSE_WEIGHT_KEY,
    DEPTH_UNLIMITED,
    FUSION_DEPTH,
    FUSION_DEPTH_ALL,
    FUSION_DEPTH_KEY,
    POOLED_DENSE_CAP,
    RRF_K,
    W_BM25,
    W_DENSE,
    rank_positions,
    rrf,
)
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as store
from gorilla_tui.store.fileio import MAX_META_BYTES, json_of, read_refused

#: Seconds between two looks for vectors that another process is still building.
RECHECK_SECONDS = 2.0
#: Query vectors kept (a task is searched again when constraints widen the candidate set).
QUERY_CACHE = 64


#: The state note of an index whose dense.json is there but whose vectors cannot be read or do not fit
#: its docs (a truncated or overwritten vectors.npy / mask.npy): before, `index --status` said "no dense
#: vectors in this index" and a task only the dense side answers found nothing, with no word why.
DAMAGED_NOTE = (
    "dense retrieval off, BM25 alone: the stored vectors (vectors.npy, mask.npy, question-vectors.npy, "
    "question-rows.npy, dense.json) are damaged or do not fit the index; `gorilla-tui index --refresh` "
    "embeds them again"
)


def _foreign_embedder(folder: Path, info: dict[str, Any]) -> str:
    """Why the embedder dense.json names (`info`) may not be opened: "" for the built-in default or one the
    version's record lists (store.integrity.EMBEDDERS_KEY: the embedder its refresh wrote the vectors
    with); else "dense.json names an embedder the index was not built with (SPEC)". An hf: spec is a
    download, a .gguf path a model load: chosen by the person (config, --embedder), never by an index file
    (issue 42, break-it round 8 N11)."""
    spec = str(info.get("embedder") or DEFAULT_EMBEDDER).strip()
    if spec == DEFAULT_EMBEDDER or spec in integrity.recorded_embedders(folder):
        return ""
    return f"{store.DENSE_META} names an embedder the index was not built with: {spec[:120]!r}"


#: The words of changed_note when the vector files' permissions refuse them (doctor's fix is then a chmod).
UNREADABLE_VECTORS = "the stored vectors cannot be read"


def changed_note(why: str) -> str:
    """The state note of an index whose vector files are not what was embedded (store.vectors_changed's
    `why`, e.g. "vectors.npy changed since it was embedded"), on one line with the mend (a chmod when the
    file's permissions refuse it: store.fileio.read_refused)."""
    if read_refused(why):
        return (
            f"dense retrieval off, BM25 alone: {UNREADABLE_VECTORS} ({why}): chmod u+r that "
            "file (or run as the user who built the index)"
        )
    return (
        f"dense retrieval off, BM25 alone: the stored vectors are damaged ({why}); `gorilla-tui index "
        "--refresh` embeds them again"
    )


#: The state note of an index whose hybrid sources' docs have no vectors and no embedding is under way: built
#: with --no-dense, or the refresh that published it stopped before embedding them (killed, or its embedder
#: failed before it began). It said "no dense vectors in this index", with no cause nor fix.
NOT_EMBEDDED_NOTE = (
    "BM25 alone: the docs of its hybrid sources were not embedded (built with --no-dense, or its refresh "
    "stopped before embedding them); `gorilla-tui index --refresh` embeds them"
)


#: Why an index whose dense side holds no vector searches by BM25 alone (an index of python-env only: its
#: manifest says retrieval = "bm25"); `index --refresh` and `index --status` said "hybrid" there.
NO_HYBRID_SOURCE = 'no doc has a dense vector: its sources say retrieval = "bm25"'


def _sources_say_hybrid(folder: Path) -> bool:
    """Whether the meta.json of the version `folder` names a source with docs whose retrieval mode is
    "hybrid" (its docs were embedded: dense_vectors.embed_index); False when it cannot be read."""
    try:
        meta = json_of(folder / "meta.json", MAX_META_BYTES)
    except (OSError, ValueError):
        return False
    rows = meta.get("sources") if isinstance(meta, dict) else None
    return isinstance(rows, list) and any(
        isinstance(r, dict)
        and r.get("retrieval") == "hybrid"
        and isinstance(r.get("loaded"), int)
        and r["loaded"] > 0
        for r in rows
    )


@dataclass
class DenseSide:
    """The dense vectors of one index version and the embedder that reads queries.

    vectors: float32 (n_docs, dim) or None (not built yet); mask: bool (n_docs,), True where a doc has a
    vector (sources whose manifest says retrieval = "bm25" have none); questions: (float32 (n_questions,
    dim), int64 doc rows (n_questions,)) of the doc questions that have vectors
    (dense_vectors.EMBED_QUESTIONS_KEY), or None: such a doc scores its best cosine over its text and its
    questions (the max-sim of multi-vector doc expansion, as in Doc2Query's dense variants); info: what
    dense.json recorded (embedder spec and name, dim, counts); folder: the version folder (looked at again
    for vectors still being built); note: why dense retrieval is off, or "" (shown to the person).
    """

    n_docs: int
    folder: Path | None = None
    vectors: np.ndarray | None = None
    mask: np.ndarray | None = None
    questions: tuple[np.ndarray, np.ndarray] | None = None
    info: dict[str, Any] = field(default_factory=dict)
    note: str = ""
    embedder: Embedder | None = None
    _failed: bool = False
    _damaged: bool = False
    _changed: str = ""
    _verified: bool = False
    _mapped: tuple[int, int, int] | None = None
    _checked: float = 0.0
    _queries: OrderedDict[str, np.ndarray] = field(default_factory=OrderedDict)
    _lock: threading.Lock = field(default_factory=threading.Lock)

    def attach(
        self,
        vectors: np.ndarray,
        mask: np.ndarray,
        info: dict[str, Any],
        embedder=None,
        questions: tuple[np.ndarray, np.ndarray] | None = None,
    ) -> None:
        """Use these vectors (rows aligned with the index docs), these question vectors (see the class) and,
        when given, this embedder."""
        self.vectors, self.mask, self.info = vectors, mask.astype(bool), dict(info)
        self.questions = questions if questions is not None and len(questions[1]) else None
        if embedder is not None:
            self.embedder = embedder
        self.note, self._changed, self._mapped = "", "", None
        self._failed = self._damaged = False  # vectors embedded again mend a failed or damaged side

    def _look(self) -> None:
        """Load the version folder's vectors when they have appeared since the last look."""
        if self.vectors is not None or self.folder is None or self._failed or self._changed:
            return
        now = time.monotonic()
        if now - self._checked < RECHECK_SECONDS:
            return
        self._checked = now
        # the vector files checked against dense.json's record as status and doctor check them (bytes
        # flipped in place keep every row of norm 1): hashed once per content (store/integrity.py)
        why = store.vectors_changed(self.folder, cached=True)
        if why:
            self._changed, self._damaged = why, True
            return
        found = store.read_vectors(self.folder, self.n_docs)
        if found is not None and not found[1].any() and _sources_say_hybrid(self.folder):
            found = None  # no doc has a vector though its sources say hybrid: mask.npy was overwritten
        if found is not None and (why := _foreign_embedder(self.folder, found[2])):
            self._changed, self._damaged = why, True  # never open (download) an embedder an index file chose
            return
        if found is not None:
            vectors, mask, info, questions = found
            self.attach(vectors, mask, info, questions=questions)
            try:  # (device, inode, size) of the file mapped: see _shrunk
                st = os.stat(self.folder / store.VECTORS)
                if isinstance(vectors, np.memmap):
                    self._mapped = (st.st_dev, st.st_ino, st.st_size)
            except OSError:  # gone since it was mapped: the mapping holds the file whole
                pass
        else:  # dense.json is written last (store.write_vectors): with it, the vectors are damaged
            self._damaged = (self.folder / store.DENSE_META).is_file()

    def _shrunk(self) -> bool:
        """Whether the memory-mapped VECTORS was cut short in place since it was mapped: reading a row past
        its new end kills the process (SIGBUS), so such vectors are let go. One os.stat; a file replaced
        (os.replace) or removed is not cut short (the mapping holds the old file whole)."""
        if self._mapped is None or self.folder is None:
            return False
        try:
            st = os.stat(self.folder / store.VECTORS)
        except OSError:
            return False
        return (st.st_dev, st.st_ino) == self._mapped[:2] and st.st_size < self._mapped[2]

    def ready(self) -> bool:
        """True when vectors are loaded and the embedder is (or can be) opened. Vectors whose file was cut
        short in place since they were mapped (_shrunk) are let go: False, state "failed" (why "damaged")."""
        with self._lock:
            self._look()
            if self.vectors is not None and self._shrunk():
                self.vectors = self.mask = self.questions = self.embedder = self._mapped = None
                self._changed, self._damaged = f"{store.VECTORS} changed since it was embedded", True
            if self.vectors is None or self._failed:
                return False
            if self.embedder is None:
                try:
                    self.embedder = open_embedder(str(self.info.get("embedder", "")))
                except GorillaError as e:
                    self._fail(str(e))
                    return False
                if self.embedder.name != self.info.get("name") or self.embedder.dim != self.vectors.shape[1]:
                    self._fail(
                        f"the embedder {self.embedder.name} is not the one the vectors were built with "
                        f"({self.info.get('name')}); refresh the index"
                    )
                    return False
            return True

    def checked_state(self) -> dict[str, Any]:
        """state() once the embedder the vectors were built with has been opened (ready()), as a search
        would: "failed" (why "embedder") when it cannot be opened or is not the one named in dense.json
        (the vectors then need embedding again: `index --refresh`), where state() alone said "ready".
        Opens the embedder only when some doc has a vector. The vector files are checked against the size
        and SHA-256 dense.json recorded (store.vectors_changed, once: what `index --status`, `doctor` and a
        refresh pay, a search does not): a file cut short, grown or overwritten in place is "failed" (why
        "damaged", changed_note), and the vectors are let go (BM25 alone)."""
        with self._lock:
            self._look()
            self._verify()
            embedded = self.mask is not None and bool(self.mask.any())
        if embedded:
            self.ready()
        return self.state()

    def _verify(self) -> None:
        """Compare the folder's vector files with dense.json's record once (store.vectors_changed); on a
        change, let the vectors go and mark the side damaged (caller holds the lock)."""
        if self._verified or self.folder is None:
            return
        self._verified = True
        why = store.vectors_changed(self.folder)
        if why:
            self.vectors = self.mask = self.questions = None
            self.embedder, self._changed, self._damaged = None, why, True

    def _fail(self, why: str) -> None:
        self._failed = True
        self.embedder = None
        self.note = f"dense retrieval off, BM25 alone: {why}"

    def state(self) -> dict[str, Any]:
        """{"state": "ready" | "building" | "off" | "failed", "note": text, "docs" and "questions" (vectors
        of docs and of doc questions) when ready, "done"/"total" while building;
        "why" when failed: "embedder" (it raised), "stopped" (the embedding process ended before it was
        done: Ctrl+C in `index --refresh`) or "damaged" (the stored vectors)} (for `index --status` and the
        TUI status bar)."""
        if self._failed:
            return {"state": "failed", "note": self.note, "why": "embedder"}
        with self._lock:
            self._look()
        if self.vectors is not None:
            n = int(self.mask.sum()) if self.mask is not None else 0
            questions = len(self.questions[1]) if self.questions is not None else 0
            q = f", {questions} of their questions" if questions else ""
            note = f"hybrid: BM25 + dense ({n} docs{q} embedded)" if n else f"BM25 alone: {NO_HYBRID_SOURCE}"
            return {"state": "ready", "note": note, "docs": n, "questions": questions}
        progress = store.read_progress(self.folder) if self.folder is not None else None
        if progress and progress.get("error"):
            return {
                "state": "failed",
                "note": f"dense retrieval off, BM25 alone: {progress['error']}",
                "why": "stopped" if progress.get("stopped") else "embedder",
            }
        if progress:
            done, total = int(progress.get("done", 0)), int(progress.get("total", 0))
            return {
                "state": "building",
                "note": f"embedding docs {done}/{total}: BM25 alone until then",
                "done": done,
                "total": total,
            }
        if self._damaged:
            note = changed_note(self._changed) if self._changed else DAMAGED_NOTE
            return {"state": "failed", "note": note, "why": "damaged"}
        if not self.note and self.folder is not None and _sources_say_hybrid(self.folder):
            return {"state": "off", "note": NOT_EMBEDDED_NOTE}  # a refresh stopped before embedding them
        return {"state": "off", "note": self.note or "BM25 alone (no dense vectors in this index)"}

    def query_vector(self, query: str) -> np.ndarray | None:
        """The query's vector (cached), or None when the embedder failed (note set)."""
        with self._lock:
            vec = self._queries.get(query)
            if vec is not None:
                self._queries.move_to_end(query)
                return vec
            embedder = self.embedder
        if embedder is None:
            return None
        try:
            vec = embedder.embed_queries([query])[0]
        except GorillaError as e:
            with self._lock:
                self._fail(str(e))
            return None
        with self._lock:
            self._queries[query] = vec
            while len(self._queries) > QUERY_CACHE:
                self._queries.popitem(last=False)
        return vec

    def scores(self, query: str, rows: np.ndarray) -> tuple[np.ndarray, np.ndarray] | None:
        """(cosine similarity, mask) of the docs at index `rows` for `query`, or None when dense retrieval
        is not available (BM25 alone). A doc with question vectors scores its best cosine over its text
        and its questions."""
        if not self.ready():
            return None
        vec = self.query_vector(query)
        if vec is None or self.vectors is None or self.mask is None:
            return None
        mask = self.mask[rows]
        if not mask.any():
            return None
        if len(rows) and rows[-1] - rows[0] == len(rows) - 1:  # one source: a view, no copy of its rows
            cos = self.vectors[rows[0] : rows[-1] + 1] @ vec
        else:
            cos = self.vectors[rows] @ vec
        if self.questions is not None:
            qvectors, qrows = self.questions
            best = np.full(len(self.mask), -np.inf, np.float32)
            np.maximum.at(best, qrows, qvectors @ vec)
            cos = np.maximum(cos, best[rows])
        return cos, mask


#: The fusion's names, importable from here too (retrieve/index.py, benches; before the split).
__all__ = [
    "DenseSide",
    "DEPTH_UNLIMITED",
    "FUSION_DEPTH",
    "FUSION_DEPTH_ALL",
    "FUSION_DEPTH_KEY",
    "RRF_K",
    "POOLED_DENSE_CAP",
    "W_BM25",
    "W_DENSE",
    "DENSE_WEIGHT_KEY",
    "rank_positions",
    "rrf",
]
