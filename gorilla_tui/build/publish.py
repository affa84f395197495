"""The publish step of a refresh: the built index's meta.json, its files written into a build folder aside
(with the performance table, the caller's extra files and the refresh state), then published atomically."""

from __future__ import annotations

import errno
import os
import shutil
import time
from collections.abc import Callable, Sequence
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gorilla_tui.build.previous import write_state
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.sources import SourceLoad
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import FIELD_WEIGHTS, SOURCE_FIELD_WEIGHTS, TOKENIZER_VERSION
from gorilla_tui.store import versions as index_store
from gorilla_tui.store.integrity import RECORD_KEY, STATE_FILE
from gorilla_tui.store.performance import PerformanceTable

#: Test hook: seconds to sleep after the new version is written aside and before it is published (lets
#: tests kill a refresh mid-way). Never set it in normal use.
PAUSE_ENV = "GORILLA_TUI_REFRESH_PAUSE"


def _pause_seconds() -> float:
    """PAUSE_ENV's seconds (a test hook: a refresh holds before publishing), 0 for anything but a number
    from 0 to an hour ("abc" and 1e300 ended a whole build in "internal error", break-it round 6)."""
    try:
        pause = float(os.environ.get(PAUSE_ENV, "0") or 0)
    except ValueError:
        return 0.0
    return pause if 0 < pause <= 3600 else 0.0


def write_and_publish(
    index: ApiIndex,
    root: Path,
    extra_files: Callable[[Path, Sequence[ApiDoc]], object] | None = None,
    vectors: Callable[[ApiIndex], object] | None = None,
) -> Path:
    """Write `index` into a new build folder and publish it (index_store). The build folder is removed on
    any failure (an exception, Ctrl+C). A full disk is retried once after removing the version folders
    that are not live (kept only for readers in the middle of a swap); an OSError then becomes one line
    (index_store.index_write_error: disk full with the free and the needed space, permission).
    vectors(index): adds the dense vectors to the build folder before it is published (index.path is the
    build folder meanwhile, None after); a failure (GorillaError, Ctrl+C) removes the folder and publishes
    nothing, so the live index stays as it was."""
    for attempt in (1, 2):
        folder: Path | None = None
        try:
            folder = index_store.new_build_dir()
            meta = dict(index.meta, **{RECORD_KEY: STATE_FILE})  # this version has a STATE_FILE (write_state)
            index_store.write_version(folder, index.docs, index.tf, index.vocab, meta)
            PerformanceTable.build(index.docs).save(folder)  # normalised once, here, not on every ask
            if extra_files is not None:  # e.g. check's validator lookup (issue 20), written by a caller above
                extra_files(folder, index.docs)
            if vectors is not None:  # before publishing: a failure here leaves the live index as it was
                index.path = folder
                try:
                    vectors(index)
                finally:
                    index.path = None
            # what an unchanged refresh verifies, and the sources' rows should meta.json be damaged
            write_state(folder, extra=extra_files is not None, rows=index.meta.get("sources") or ())
            pause = _pause_seconds()
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
    docs = sum(len(json_text(d.to_dict()).encode()) + 1 for d in index.docs)
    tf = index.tf.nnz * (4 + index.tf.data.itemsize) + (index.tf.shape[0] + 1) * 4 + 4096
    vocab = sum(len(t.encode()) + 4 for t in index.vocab)
    meta = len(json_text(index.meta, default=str)) + 4096
    return docs + tf + vocab + meta + (docs // 5 if extra else 0)


def meta_of(
    index: ApiIndex,
    rows: list[dict[str, Any]],
    ok: list[SourceLoad],
    old: list[dict[str, Any]],
    seconds: float,
) -> dict[str, Any]:
    """meta.json of the new `index`: build time (UTC) and `seconds`, doc and vocabulary counts, tokenizer
    version, BM25 parameters and field weights, the source `rows`, the flagged docs, and the diagnostics of
    the `ok` loads followed by `old` (those kept from the previous index)."""
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
        "params": {
            "bm25": index.params.to_dict(),
            "field_weights": dict(FIELD_WEIGHTS),
            "source_field_weights": {k: dict(v) for k, v in SOURCE_FIELD_WEIGHTS.items()},
        },
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
