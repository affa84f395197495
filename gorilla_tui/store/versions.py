"""On-disk index: what a version folder holds, written and read (the version folders and the atomically
replaced CURRENT pointer are store/folders.py, the refresh file lock store/lock.py, both re-exported here).

Writes and reads store version 2 (write_version, read_stored), meta.json's fields checked as every reader
uses them first (check_meta). Beside it: the version 1 reader (store/v1.py), the docs read one at a time
(store/docs.py LazyDocs), the dense vectors and their cache (store/vectors.py, re-exported here) and the
primitives they share (store/fileio.py; the npy and npz files, store/arrays.py).
"""

from __future__ import annotations

import os
import zipfile
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.store.arrays import ArraySpec, Header, read_npz
from gorilla_tui.store.docs import LazyDocs
from gorilla_tui.store.fileio import DAMAGED as _DAMAGED
from gorilla_tui.store.fileio import (  # noqa: F401 - index_root, not_a_folder re-exported: callers use store.X
    DAMAGED_HINT,
    index_root,
    not_a_folder,
    read_refused,
    unreadable_index,
)
from gorilla_tui.store.fileio import read_json as _read_json
from gorilla_tui.store.fileio import write_synced as _write
from gorilla_tui.store.folders import (  # noqa: F401 - re-exported: callers use store.X
    BUILD_PREFIX,
    KEEP_PREVIOUS,
    current_version,
    folder_size,
    live_folder,
    new_build_dir,
    publish,
    remove_old_versions,
    remove_stale_builds,
)
from gorilla_tui.store.integrity import loaded_damage
from gorilla_tui.store.lock import (  # noqa: F401 - re-exported: callers use store.X
    LOCK,
    LOCK_OWNER,
    LOCK_WAIT,
    index_write_error,
    lock_holder,
    refresh_lock,
)
from gorilla_tui.store.v1 import OLD_STORE_NOTE, read_v1
from gorilla_tui.store.vectors import (  # noqa: F401 - re-exported: callers use store.X
    DENSE_FILES,
    DENSE_META,
    DENSE_PROGRESS,
    FILES_KEY,
    LEGACY_VECTORS,
    MASK,
    QUESTION_ROWS,
    QUESTION_VECTORS,
    VECTORS,
    read_progress,
    read_vectors,
    vectors_changed,
    write_progress,
    write_vectors,
)

if TYPE_CHECKING:
    import numpy as np
    from scipy import sparse

#: Bumped when the files of a version folder change shape. 2: docs.jsonl (one doc per line, parsed on
#: demand through the offsets in postings.npz) and postings.npz (the term frequencies column-major, doc
#: lengths and sources) instead of docs.json and tf.npz, so a search parses only the docs it shows and
#: never imports scipy (issue 20). Version 1 is still read, whole and the old way (READABLE_VERSIONS), with
#: a note; any other version must be rebuilt.
STORE_VERSION = 2
READABLE_VERSIONS = (1, 2)
DOCS_FILE, POSTINGS_FILE = "docs.jsonl", "postings.npz"


def _read_postings(path: Path) -> dict[str, Any]:
    """The _POSTINGS_ARRAYS of postings.npz, each npy header checked before its data is read
    (arrays.read_npz: stored entries, dtypes, one dimension, the bytes each promises; the lengths of one
    per doc agree), so a damaged file costs its headers (break-it round 11, R11-4). Raises ValueError naming
    the file when it is no NumPy archive (numpy's own message for bytes that look like a pickle advised
    loading it "unsafely" with allow_pickle, and "File is not a zip file" did not say which file: break-it
    pass 10) or its arrays do not fit."""
    try:
        return read_npz(path, _POSTINGS_ARRAYS, _postings_fit)
    except (zipfile.BadZipFile, EOFError) as e:
        raise ValueError(f"{path.name} is not a NumPy archive ({e})") from None


def _postings_fit(headers: dict[str, Header]) -> str | None:
    """Why the arrays of postings.npz, by their headers, do not fit each other (one length per doc, one
    offset more; a row per term frequency), or None."""
    n = {name: shape[0] for name, (shape, _) in headers.items()}
    if n["offsets"] != n["lengths"] + 1 or n["source_codes"] != n["lengths"] or n["rows"] != n["tf"]:
        return "the offsets, sources or rows do not fit the docs"
    return None


def write_version(
    folder: Path, docs: Sequence[ApiDoc], tf: sparse.csr_matrix, vocab: dict[str, int], meta: dict[str, Any]
) -> dict[str, int]:
    """Write one index version (STORE_VERSION 2) into `folder`: docs.jsonl (one ApiDoc dict per line),
    postings.npz (uncompressed npz: `indptr` int64, `rows` int32, `tf` float32: the term frequencies of
    `tf` column-major; `lengths` float32 tokens per doc; `offsets` int64 (n_docs + 1) byte offsets of the
    lines of docs.jsonl; `source_codes` int16 per doc into `source_names`, the sources in index order),
    vocab.json (terms in column order), prior.npy (float32 per doc: store/prior.py), meta.json (meta +
    store version + file sizes). Every file is fsync'ed. Returns the file sizes in bytes."""
    import numpy as np  # deferred: numpy; `check` reads CURRENT from this module (issue 20)

    from gorilla_tui.pool.pyenv.usage import UsageCounts, interpreter_usage  # deferred: with prior, below
    from gorilla_tui.store import prior  # deferred: numpy (see above)
    from gorilla_tui.store.postings import Postings  # deferred: numpy; only refresh writes

    terms = [""] * len(vocab)
    for term, col in vocab.items():
        terms[col] = term
    offsets = _write_docs(folder / DOCS_FILE, docs)
    _write(folder / "vocab.json", json_text(terms).encode())
    post = Postings.from_matrix(tf)
    names: dict[str, int] = {}
    codes = np.asarray([names.setdefault(d.source, len(names)) for d in docs], np.int16)
    with open(folder / POSTINGS_FILE, "wb") as fh:
        np.savez(
            fh,
            indptr=post.indptr,
            rows=post.rows,
            tf=post.tf,
            lengths=post.lengths,
            offsets=np.asarray(offsets, np.int64),
            source_codes=codes,
            source_names=np.asarray(list(names) or [""], dtype=str)[: len(names)],
        )
        fh.flush()
        os.fsync(fh.fileno())
    prior.save(folder, docs, interpreter_usage() if prior.needs_usage(docs) else UsageCounts())
    sizes = {p.name: p.stat().st_size for p in folder.iterdir()}
    meta = dict(meta, store_version=STORE_VERSION)
    meta["sizes"] = dict(sizes, **{"meta.json": 0})
    _write(folder / "meta.json", json_text(meta, indent=1).encode())
    sizes["meta.json"] = (folder / "meta.json").stat().st_size
    return sizes


def read_meta(root: Path | None = None) -> tuple[Path, dict[str, Any]]:
    """(version folder, meta.json) of the live index without loading docs or matrix (for `index --status`).
    Raises IndexMissingError when no index exists, GorillaError when meta.json is unreadable."""
    folder = live_folder(root)
    return folder, _read_json(folder / "meta.json")


def _is_count(value: Any) -> bool:
    return isinstance(value, int) and not isinstance(value, bool) and value >= 0


def _is_time(value: Any) -> bool:
    try:
        return datetime.fromisoformat(value).tzinfo is not None  # the age is taken from an aware "now"
    except (TypeError, ValueError):
        return False


def _rows(key: str) -> Callable[[Any], bool]:
    """A list of objects, each holding a string `key` ("" for any object)."""
    return lambda v: (
        isinstance(v, list)
        and all(isinstance(r, dict) and (not key or isinstance(r.get(key), str)) for r in v)
    )


#: The fields of meta.json that readers use (index --status, doctor, search), each with what it must be
#: when present: the check of check_meta.
META_FIELDS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "n_docs": (_is_count, "a count"),
    "vocab_size": (_is_count, "a count"),
    "built_at": (_is_time, "an ISO date and time with its UTC offset"),
    "sources": (_rows("name"), "a list of source rows"),
    "flagged": (_rows("source"), "a list of flagged entries"),
    "diagnostics": (_rows(""), "a list of objects"),
    "params": (lambda v: isinstance(v, dict) and isinstance(v.get("bm25", {}), dict), "an object"),
}


def check_meta(folder: Path, meta: Any) -> dict[str, Any]:
    """meta.json of the version `folder` as every reader may use it: an object whose META_FIELDS, when
    present, are what they must be (a meta.json of `[]`, or an `n_docs` of "many", made `index --status`
    and `doctor` end in an internal error while `search` refused the first and used the second).

    Args:
        folder: the version folder (named by the error).
        meta: meta.json's JSON value.

    Returns:
        meta, checked.

    Raises:
        GorillaError: "the index at FOLDER is damaged (meta.json ...); rebuild it", with DAMAGED_HINT.
    """
    if not isinstance(meta, dict):
        raise GorillaError(
            f"the index at {folder} is damaged (meta.json is not an object); rebuild it", hint=DAMAGED_HINT
        )
    for key, (ok, what) in META_FIELDS.items():
        if key in meta and not ok(meta[key]):
            raise GorillaError(
                f"the index at {folder} is damaged (meta.json's {key} is not {what}); rebuild it",
                hint=DAMAGED_HINT,
            )
    return meta


@dataclass
class StoredIndex:
    """The arrays and metadata of one stored index version, as read_stored gives them: folder (the
    version folder), meta (meta.json), docs (LazyDocs over docs.jsonl; a list for store version 1), terms
    (vocab.json, column order of the term frequencies), postings (the arrays of postings.npz: indptr, rows,
    tf, lengths; None for version 1), tf (version 1 only: the scipy CSR term-frequency matrix, docs x
    terms, float32; else None), source_names / source_codes (None for version 1: derived from the docs)
    and note (OLD_STORE_NOTE for version 1, else ""). retrieve.index.ApiIndex wraps it and checks the
    tokenizer version."""

    folder: Path
    meta: dict[str, Any]
    docs: Sequence[ApiDoc]
    terms: list[str]
    tf: sparse.csr_matrix | None = None
    postings: dict[str, np.ndarray] | None = None
    source_names: list[str] | None = None
    source_codes: np.ndarray | None = None
    note: str = ""
    #: why a file a search loads no longer is what was built (integrity.loaded_damage), "" when sound: the
    #: reader raises damaged(folder, damage) once it has said what it says first (another tokenizer version);
    #: the files were then not read (docs and terms are empty)
    damage: str = ""


def read_stored(path: Path | None = None) -> StoredIndex:
    """Read an index version: `path` may be the index root (holding CURRENT) or a version folder; default
    the user's index. Store version 2 is read without parsing the docs (LazyDocs) nor importing scipy;
    version 1 the old way (every doc, scipy), with a note.

    The integrity check comes first (integrity.loaded_damage: each file recorded when the version was built
    has its size and SHA-256; a file that is no regular file, a FIFO or a link to /dev/zero, is never
    opened): a damaged version is one path with one wording, "the index at FOLDER is damaged (NAME changed
    since it was built); rebuild it", whatever the file holds. Its files are then not read: StoredIndex
    holds meta.json alone (docs and terms empty) and `damage` says why, and its readers raise damaged() for
    it once they have said what they say first (another tokenizer version: the TUI rebuilds such an index
    by itself), or at once when meta.json cannot be read either. What the reads below refuse (a file that
    does not fit another) is said in the same words, damaged(folder, why); it is reached by an index with
    no record to check against (an older release) or one written wrong.

    Raises IndexMissingError when none is built, GorillaError when it was written by another store version
    or is damaged or inconsistent."""
    folder = path if path is not None and (path / "meta.json").is_file() else live_folder(path)
    damage = loaded_damage(folder)  # first: sizes by os.stat, SHA-256 once per content (store/integrity.py)
    try:
        meta = check_meta(folder, _read_json(folder / "meta.json"))
    except GorillaError:
        if damage:
            raise damaged(folder, damage) from None
        raise
    version = meta.get("store_version")
    if version not in READABLE_VERSIONS:
        raise GorillaError(
            f"the index at {folder} was built by another version of gorilla-tui", hint=DAMAGED_HINT
        )
    if damage:
        return StoredIndex(folder, meta, [], [], damage=damage)
    if version == 1:
        docs_v1, terms_v1, tf = read_v1(folder)
        return StoredIndex(folder, meta, docs_v1, terms_v1, tf, note=OLD_STORE_NOTE)
    try:
        terms = _read_json(folder / "vocab.json")
        arrays = _read_postings(folder / POSTINGS_FILE)
        n_docs = len(arrays["lengths"])
        if not isinstance(terms, list) or len(arrays["indptr"]) != len(terms) + 1:
            raise ValueError("vocab.json does not fit the postings")
        if meta.get("n_docs", n_docs) != n_docs or meta.get("vocab_size", len(terms)) != len(terms):
            raise ValueError("meta.json's counts do not fit the postings")
        per_doc = {len(arrays["source_codes"]), len(arrays["offsets"]) - 1}
        if per_doc != {n_docs}:
            raise ValueError("the offsets or sources do not fit the docs")
        names = [str(n) for n in arrays["source_names"]]
        if n_docs and not 0 <= int(arrays["source_codes"].max()) < len(names):
            raise ValueError("a doc's source is not in the list")
        if int(arrays["offsets"][-1]) != (folder / DOCS_FILE).stat().st_size:
            raise ValueError(f"{DOCS_FILE} does not fit its offsets")
        from gorilla_tui.store.postings import Postings  # deferred: numpy (see above)

        Postings(arrays["indptr"], arrays["rows"], arrays["tf"], arrays["lengths"]).check()
    except _DAMAGED as e:
        why = str(e).splitlines()[0][:120] if str(e).strip() else type(e).__name__
        if isinstance(e, OSError) and e.filename:  # the file's name, not a path cut to 120 characters
            why = f"{Path(e.filename).name}: {e.strerror or e}"
        raise damaged(folder, why) from None
    docs = LazyDocs(folder / DOCS_FILE, arrays.pop("offsets"))
    codes = arrays.pop("source_codes")
    del arrays["source_names"]
    return StoredIndex(folder, meta, docs, terms, None, arrays, names, codes)


def damaged(folder: Path, why: str) -> GorillaError:
    """The one error of a damaged index version `folder` (`why`: the damaged file and how), with the fix
    (DAMAGED_HINT), or, when `why` says a file's permissions refuse it, fileio.unreadable_index (a chmod,
    no rebuild). Returns it (the caller raises it)."""
    if read_refused(why):
        return unreadable_index(folder, why)
    return GorillaError(f"the index at {folder} is damaged ({why}); rebuild it", hint=DAMAGED_HINT)


#: Arrays of postings.npz (write_version) and what each must be (arrays.read_npz).
_POSTINGS_ARRAYS = {
    "indptr": ArraySpec("iu", 1),
    "rows": ArraySpec("iu", 1),
    "tf": ArraySpec("f", 1),
    "lengths": ArraySpec("f", 1),
    "offsets": ArraySpec("iu", 1),
    "source_codes": ArraySpec("iu", 1),
    "source_names": ArraySpec("U", 1),
}


def _write_docs(path: Path, docs: Sequence[ApiDoc]) -> list[int]:
    """docs.jsonl written one doc (one line) at a time (a single json.dumps of 200k docs held ~800 MB at
    once). Returns the byte offset of each line and the file's size (n_docs + 1 numbers)."""
    offsets = [0]
    with open(path, "wb") as fh:
        for d in docs:
            line = json_text(d.to_dict()).encode() + b"\n"  # JSON escapes newlines
            fh.write(line)
            offsets.append(offsets[-1] + len(line))
        fh.flush()
        os.fsync(fh.fileno())
    return offsets
