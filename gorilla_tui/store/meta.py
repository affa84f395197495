"""meta.json of an index version as every reader may use it (index --status, doctor, search): an object whose
fields, when present, have their types (check_meta). store/versions.py read_stored checks it before anything
else is read."""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.store.fileio import DAMAGED_HINT


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
