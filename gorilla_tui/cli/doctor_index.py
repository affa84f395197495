"""`gorilla-tui doctor`'s index checks: the shipped source manifests, the live index (its files against the
SHA-256 recorded when it was built, its age, its dense vectors) and what a working index lacks; each problem
with its fix, appended to the report's lists (cli/doctor.py)."""

from __future__ import annotations

from datetime import datetime, timezone
from typing import Any

from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.store.fileio import NO_INDEX_FIX, IndexUnreadableError, RootDamagedError

#: How to build the index (store/fileio.py NO_INDEX_FIX: the same words as every other command).
_INDEX_FIX = NO_INDEX_FIX


#: How to mend a damaged live index: a plain refresh reads its sources again from where they came.
_DAMAGED_FIX = "gorilla-tui index --refresh (it reads the sources the index was built from again)"


def manifest_problem() -> str:
    """The line naming a shipped source manifest (index/*.toml) that cannot be read (not TOML, nested too
    deeply, not UTF-8: paths.read_toml), "" when every one loads."""
    from gorilla_tui.pool.sources import load_manifests  # deferred: as read_meta

    try:
        load_manifests()
    except GorillaError as e:
        return str(e)
    return ""


def check_index(report: dict[str, Any], problems: list[dict[str, str]], notes: list[dict[str, str]]) -> None:
    """report["index"] (path, docs, built_at, age_days, sources: name -> docs loaded); a missing index, one a
    search refuses (opened and checked as a search opens it, and its files against the SHA-256 recorded when
    it was built: previous.read_verified, so a truncated or overwritten docs.jsonl or a meta.json of the wrong
    shape is a problem, never an internal error) and one over 30 days old are
    problems, what a working index lacks a note (_lacks), and so is an index whose files could not be
    checked (its previous.STATE_FILE missing or unreadable: previous.UNCHECKED_NOTE; report["index"]
    ["integrity"] "not checked", else "checked"). Dense vectors that are damaged (retrieve.dense.DenseSide
    .checked_state why "damaged": a vector file cut short, grown or overwritten in place since it was
    embedded, one that does not fit the docs) are a problem: searches are BM25 alone until a refresh."""
    from gorilla_tui.build.previous import read_verified  # deferred: numpy (~0.1 s); --help stays fast
    from gorilla_tui.retrieve.dense import (  # deferred: numpy (~0.1 s); --help stays fast
        UNREADABLE_VECTORS,
        DenseSide,
    )

    try:
        stored, unchecked = read_verified()
    except IndexMissingError as e:
        problems.append({"problem": str(e), "fix": _INDEX_FIX})
        return
    except GorillaError as e:  # a file in place of the index folder: its own fix (moved aside)
        problems.append(
            {
                "problem": str(e),
                "fix": (e.hint if isinstance(e, (RootDamagedError, IndexUnreadableError)) else "")
                or _DAMAGED_FIX,
            }
        )
        return
    folder, meta = stored.folder, stored.meta
    built = meta.get("built_at")
    age = None
    if built:
        age = (datetime.now(timezone.utc) - datetime.fromisoformat(built)).total_seconds() / 86400
    report["index"] = {"path": str(folder), "docs": meta.get("n_docs"), "built_at": built,
                       "age_days": round(age, 2) if age is not None else None,
                       "sources": {s["name"]: s.get("loaded") for s in meta.get("sources", [])},
                       "integrity": "not checked" if unchecked else "checked"}  # fmt: skip
    if unchecked:
        notes.append({"note": unchecked, "fix": _DAMAGED_FIX})
    if age is not None and age > 30:
        problems.append({"problem": f"the index is {age:.0f} days old", "fix": _INDEX_FIX})
    dense = DenseSide(int(meta.get("n_docs") or 0), folder).checked_state()
    if dense.get("why") == "damaged":  # vectors cut short or overwritten: searches are BM25 alone
        refused = UNREADABLE_VECTORS in str(dense.get("note"))  # a chmod, not a refresh (R14-5)
        fix = "chmod u+r the file it names  # or run as the user who built the index" if refused else ""
        problems.append({"problem": dense["note"], "fix": fix or _DAMAGED_FIX})
    notes += _lacks(meta, dense)


def _lacks(meta: dict[str, Any], dense: dict[str, Any]) -> list[dict[str, str]]:
    """What a working index lacks, as notes ({note, fix}; [] when nothing): the shipped sources (index/*.toml)
    it was built without, e.g. an index of python-env only has no model-hub API, with each source's fix
    (pool.remedies.fix_lines, as the first launch, `index --refresh` and `index --status` say it); and
    whether its searches are BM25 alone (`dense`, retrieve.dense.DenseSide.checked_state: no vector stored,
    none of its sources is hybrid, or vectors of another embedder; damaged vectors are left out:
    check_index lists them as a problem). Not a problem: a python-env-only, BM25-only setup may be chosen
    on purpose (`index --refresh --only python-env`, offline first launch), so doctor's exit code stays 0."""
    from gorilla_tui.pool.sources import load_manifests  # deferred: as read_meta

    have = {s["name"] for s in meta.get("sources", []) if s.get("loaded")}
    try:
        manifests = load_manifests()
    except GorillaError:
        manifests = []
    missing = [m.name for m in manifests if m.name not in have]
    notes = []
    if missing:
        built = ", ".join(sorted(have)) or "nothing"
        notes.append({"note": f"the index has no {', '.join(missing)} docs (built from {built})",
                      "fix": "; ".join(fix_lines(missing, manifests))})  # fmt: skip
    if dense["state"] != "building" and not dense.get("docs") and dense.get("why") != "damaged":
        note = f"searches are {dense['note']}" if dense["note"].startswith("BM25 alone") else dense["note"]
        notes.append({"note": note, "fix": _INDEX_FIX})
    return notes
