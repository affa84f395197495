"""The live index as a refresh finds it: what it holds, whether it can be trusted, and what to keep of it.

A refresh reads the live index before it loads any source (read_previous). The index is trusted (its docs
may be reused, and an unchanged refresh may keep it) only when it loads (store.read_stored: store and
tokenizer versions, shapes) and every file of its version folder still has the SHA-256 recorded in
STATE_FILE when it was built, by this code (pool.fingerprint.code_fingerprint). Anything else is rebuilt.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, IndexMissingError, UsageError
from gorilla_tui.pool.doc import ApiDoc, Diagnostic, LoadResult
from gorilla_tui.pool.fingerprint import FINGERPRINT_VERSION, code_fingerprint, file_digest
from gorilla_tui.pool.sources import FetchContext, Manifest, SourceLoad, fetch
from gorilla_tui.retrieve.index import ApiIndex, check_tokenizer
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as index_store
from gorilla_tui.store.fileio import MAX_META_BYTES, json_of
from gorilla_tui.store.integrity import MAX_STATE_BYTES, STATE_FILE, read_state  # noqa: F401 - re-exported
from gorilla_tui.store.vectors import MAX_DENSE_JSON_BYTES

# STATE_FILE (store/integrity.py, re-exported here), written by write_state: {"version": FINGERPRINT_VERSION,
# "code": code_fingerprint(), "extra": whether the caller's extra files (check's lookup) were written,
# "files": {path relative to the folder: {"sha256": SHA-256, "size": bytes}}, "sources": the meta.json source
# rows, ROW_KEYS only} for every file present when it was published but the dense side's
# (store.DENSE_FILES: dense.json records their sizes and SHA-256, checked by store.read_vectors and
# store.vectors_changed). A state written before the sizes were recorded maps each path to its SHA-256
# string; it is still read (each file then hashed).

#: What `index --status` and `doctor` say of a live index built by an older release without a STATE_FILE
#: (meta.json without integrity.RECORD_KEY): its files could not be checked against what they held when it
#: was built. A STATE_FILE missing from a version that has one, cut short or changed, is damage
#: (integrity.record_damage). A plain refresh does not trust such an index: it rebuilds it, with a new
#: STATE_FILE.
UNCHECKED_NOTE = (
    f"integrity not checked: built by an older version of gorilla-tui, without {STATE_FILE} "
    "(run `gorilla-tui index --refresh` to rebuild it with one)"
)
#: Keys of a meta.json source row copied into STATE_FILE, all that reread needs: when meta.json itself is
#: damaged, the next refresh still reads every source again from where it came (without the copy, a
#: refresh offline published python-env alone, dropping the other sources' docs).
ROW_KEYS = ("name", "title", "status", "origin", "files", "user")
#: Message of a source row whose docs were reused from the live index (its fingerprint did not change).
UNCHANGED = "unchanged"


def write_state(folder: Path, extra: bool, rows: Sequence[Any] = ()) -> None:
    """Write STATE_FILE into the build `folder` (every file under it hashed and its size in bytes recorded,
    the ROW_KEYS of its meta.json source `rows`; fsync'ed). Raises OSError."""
    files = {
        str(p.relative_to(folder)): {"sha256": file_digest(p, size), "size": size}
        for p in sorted(folder.rglob("*"))
        for size in (p.stat().st_size,)  # just written: hashed up to the size recorded
        # not a search's cache (rewritten later) nor the dense side (dense.json records it, embedded again
        # into a published version by `index --refresh --embedder X`)
        if p.is_file() and not p.name.startswith(integrity.VERIFIED) and p.name not in index_store.DENSE_FILES
    }
    sources = [{k: r[k] for k in ROW_KEYS if k in r} for r in rows if isinstance(r, dict) and r.get("name")]
    state = {"version": FINGERPRINT_VERSION, "code": code_fingerprint(), "extra": extra, "files": files,
             "sources": sources, integrity.EMBEDDERS_KEY: _embedders(folder)}  # fmt: skip
    state[integrity.SELF_KEY] = integrity.state_digest(state)  # its own damage is found as its own
    with open(folder / STATE_FILE, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=0)
        fh.flush()
        os.fsync(fh.fileno())
    # the files a search loads are recorded as verified now, hashed: the first search does not hash them again
    digests = {rel: entry["sha256"] for rel, entry in files.items()}
    integrity.remember(folder, [n for n in integrity.LOADED if n in files], digests)


def _embedders(folder: Path) -> list[str]:
    """The embedder spec of the dense.json this refresh wrote into its build `folder` (embedded before it
    is published), as integrity.EMBEDDERS_KEY lists it; [] when it has none yet."""
    try:
        info = json_of(folder / index_store.DENSE_META, MAX_DENSE_JSON_BYTES)
    except (OSError, ValueError):
        return []
    spec = info.get("embedder") if isinstance(info, dict) else None
    return [spec] if isinstance(spec, str) else []


def verify_state(folder: Path, changed: str | None) -> tuple[str, bool | None]:
    """(why the version `folder` cannot be trusted, "" when it can; whether it was built with the extra
    files, None when unknown). Not trusted: no or unreadable STATE_FILE (built by an older release), built
    by other code, or a file missing or changed since it was built. changed: changed_since_built(folder),
    computed once by the caller (hashing the files is the costly part)."""
    state = read_state(folder)
    if state is None:
        return f"{STATE_FILE} missing or unreadable", None
    if state.get("version") != FINGERPRINT_VERSION or state.get("code") != code_fingerprint():
        return "built by another version of gorilla-tui", None
    return changed or "", bool(state.get("extra"))


def changed_since_built(folder: Path) -> str | None:
    """Why a file of the version `folder` no longer has the SHA-256 that STATE_FILE recorded when it was
    built, or STATE_FILE itself is missing or changed ("x changed since it was built", "x is missing"; ""
    when every file still has it); None when the version has no record (built by an older release: nothing
    to compare with). integrity.index_damage, uncached.
    Whatever code built the folder, a recorded digest is still what the file held when it was published.
    A file whose size (os.stat) is not the one recorded is changed without being read (a 50 GB sparse file
    in its place is not hashed); else it costs one SHA-256 pass over the listed files (about 12 MB for the
    default index)."""
    return integrity.index_damage(folder)


def read_verified() -> tuple[index_store.StoredIndex, str]:
    """(the live index opened as a search opens it (index_store.read_stored), then every file checked
    against the size and SHA-256 recorded when it was built (changed_since_built); UNCHECKED_NOTE when its
    STATE_FILE is missing or unreadable, so nothing could be checked, else ""): what `index --status` and
    `doctor` show. A search checks the files it loads the same way (store/integrity.py), hashing each once
    per content; this hashes every recorded file each time (check's lookup too), and a change found drops
    the search's record of verified files, so a search then finds it as well.

    Raises:
        IndexMissingError: no index has been published.
        GorillaError: the index is damaged (what read_stored refuses, or a file changed since it was built),
            with DAMAGED_HINT, which a plain refresh follows (the index is then not trusted and is
            rebuilt from its sources); or another release built it (retrieve.tokenize.check_tokenizer,
            IndexOutdatedError for an older one, as ApiIndex.load refuses it).
    """
    stored = index_store.read_stored()
    # another release's tokenizer: what ApiIndex.load refuses first (search, ask exit 2; break-it round 13,
    # doctor said "no problems found" for it)
    check_tokenizer(stored.meta, stored.folder)
    if stored.damage:  # what a search says of it (store/integrity.py)
        raise index_store.damaged(stored.folder, stored.damage)
    why = changed_since_built(stored.folder)
    if why:
        raise index_store.damaged(stored.folder, why)
    return stored, UNCHECKED_NOTE if why is None else ""


@dataclass
class Previous:
    """The live index before this refresh: `index` when it could be read; else `damaged` says why and
    `rows` are its meta.json source rows when meta.json itself could still be read. `untrusted`: why its
    docs may not be reused ("" when they may: see the module docstring); same_extra: whether it was built
    with the extra files (check's lookup) exactly when this refresh writes them (else it cannot be kept as
    it is, though its docs may be reused)."""

    index: ApiIndex | None = None
    rows: list[dict[str, Any]] = field(default_factory=list)
    damaged: str = ""
    untrusted: str = "no live index"
    same_extra: bool = False

    @property
    def trusted(self) -> bool:
        return self.index is not None and not self.untrusted

    def counts(self) -> dict[str, int]:
        """Docs per source of the previous index (from its docs, else from its meta.json rows)."""
        if self.index is not None:
            return dict(Counter(d.source for d in self.index.docs))
        return {str(r.get("name")): int(r.get("loaded") or 0) for r in self.rows if r.get("name")}

    def fingerprint(self, name: str) -> str | None:
        """The fingerprint recorded for source `name` when the trusted live index was built, else None."""
        if not self.trusted:
            return None
        return next((r.get("fingerprint") for r in self.rows if r.get("name") == name), None)

    def reuse(self, name: str, fingerprint: str) -> SourceLoad | None:
        """Source `name` as the trusted live index holds it (its docs, its diagnostics from meta.json, its
        row's origin and files; message UNCHANGED) when `fingerprint` is the one recorded for it and it has
        docs there; else None."""
        if fingerprint is None or fingerprint != self.fingerprint(name):
            return None
        assert self.index is not None
        docs = [d for d in self.index.docs if d.source == name]
        if not docs:
            return None
        row = next(r for r in self.rows if r.get("name") == name)
        diags = [
            Diagnostic(
                str(d.get("file", "")), int(d.get("line") or 0), str(d.get("severity")), str(d.get("message"))
            )
            for d in self.index.meta.get("diagnostics", [])
            if isinstance(d, dict) and d.get("source") == name
        ]
        result = LoadResult(docs, diags)
        return SourceLoad(name, str(row.get("title") or name), "ok", str(row.get("origin") or ""),
                          list(row.get("files") or []), result, UNCHANGED, bool(row.get("user")),
                          fingerprint)  # fmt: skip

    def row(self, name: str) -> dict[str, Any]:
        """The live index's meta.json row of source `name` ({} when none)."""
        return next((dict(r) for r in self.rows if r.get("name") == name), {})


def read_previous(extra: bool) -> Previous:
    """Read the live index; any unreadable file (a truncated tf.npz, an emptied docs.json, a corrupt
    CURRENT, an index of another store or tokenizer version, a doc that no longer parses: a changed or
    unverifiable index has every doc parsed here, as a doc overwritten in place fails only when it is read)
    gives a Previous with `damaged` set, whose sources are read again; one that loads but fails verify_state
    (changed since it was built, another code version) has `untrusted` set; extra: whether this refresh
    writes extra files."""
    try:
        index = ApiIndex.load()
    except IndexMissingError:
        return Previous()
    except GorillaError as e:
        return Previous(rows=meta_rows(), damaged=str(e), untrusted=str(e))
    except Exception as e:  # noqa: BLE001 - whatever a damaged file raises, the index is rebuilt
        why = f"{type(e).__name__}: {str(e)[:120]}"
        return Previous(rows=meta_rows(), damaged=why, untrusted=why)
    rows = index.meta.get("sources")
    rows = [r for r in rows if isinstance(r, dict)] if isinstance(rows, list) else []
    assert index.path is not None
    changed = changed_since_built(index.path)
    if changed is None or changed:  # not verifiable (an older release) or changed: parse every doc now, as
        try:  # one overwritten in place fails only when it is read (in the middle of the refresh)
            for _ in index.docs:
                pass
        except GorillaError as e:
            why = changed or str(e)
            return Previous(rows=rows, damaged=why, untrusted=why)
    why, built_extra = verify_state(index.path, changed)
    return Previous(index, rows, untrusted=why, same_extra=built_extra == extra)


def meta_rows() -> list[dict[str, Any]]:
    """The source rows of the live index's meta.json; when it cannot be read either, the copy of them in
    its STATE_FILE (ROW_KEYS only); when CURRENT itself is corrupt or names no folder, those of the newest
    version folder that has them; [] when none can be read."""
    try:
        _, meta = index_store.read_meta(None)
        rows = meta.get("sources") if isinstance(meta, dict) else None
    except Exception:  # noqa: BLE001 - meta.json unreadable too: its rows as STATE_FILE recorded them
        rows = None
    if not isinstance(rows, list):
        try:
            live = index_store.current_version(None)
        except GorillaError:  # CURRENT corrupt: the version folders are still there
            live = None
        for folder in _version_folders(live):
            rows = _rows_of(folder, with_meta=folder != live)
            if rows:
                break
    return [r for r in rows if isinstance(r, dict) and r.get("name")] if isinstance(rows, list) else []


def _version_folders(live: Path | None) -> list[Path]:
    """The live version folder first (when CURRENT names one that exists), then the other version folders
    of the index root, newest first (their names start with the time they were published: store.publish)."""
    root = index_store.index_root(None)
    others = sorted((p for p in root.glob("v-*") if p.is_dir() and p != live), reverse=True)
    return ([live] if live is not None and live.is_dir() else []) + others


def _rows_of(folder: Path, with_meta: bool) -> list[Any] | None:
    """The source rows recorded in `folder`: its meta.json's (with_meta), else its STATE_FILE's copy."""
    for name, key in (("meta.json", "sources"), (STATE_FILE, "sources")):
        if name == "meta.json" and not with_meta:
            continue
        if name == STATE_FILE:
            rows = (read_state(folder) or {}).get(key)  # a FIFO or a link to a device is never read
        else:
            try:
                rows = json_of(folder / name, MAX_META_BYTES).get(key)
            except Exception:  # noqa: BLE001 - unreadable: the next place
                continue
        if isinstance(rows, list) and rows:
            return rows
    return None


def kept(previous: ApiIndex, refreshed: set[str]) -> list[tuple[dict[str, Any], list[ApiDoc]]]:
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
        row["message"] = "not refreshed: kept from the previous index (index --refresh --clean drops it)"
        out.append((row, docs))
    return out


def reread(
    rows: list[dict[str, Any]],
    done: set[str],
    manifests: list[Manifest],
    ctx: FetchContext,
    emit: Any,
    user_load: Any,
    why: str = "the previous index could not be read",
) -> list[SourceLoad]:
    """Read again the sources of a previous index that is not reused as it is (damaged, changed since it
    was built, built by another version; its meta.json rows) that were not refreshed now: a user source
    from its path under its name (user_load(path, taken, max_bytes, strict=False, name=name)), a manifest
    source from the local folder it came from (else its remote). A source that cannot be read again is
    left out (reported by dropped, or kept by the caller). emit: refresh's ProgressFn; why: the reason, in
    each row's message."""
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
                # under the name it was given (--source NAME=PATH), not its file's stem
                load = user_load(
                    origin, [t for t in taken if t != name], ctx.max_bytes, strict=False, name=name
                )
            except UsageError as e:
                load = SourceLoad(name, name, "unreachable", origin, message=str(e), user=True)
        else:
            load = SourceLoad(
                name, name, "unreachable", origin, message=f"{origin or name}: not found", user=True
            )
        if load.status == "ok":
            load.message = f"re-read: {why}"
        emit("done", name, load)
        out.append(load)
    return out


def dropped(
    previous: Previous, docs: list[ApiDoc], loads: list[SourceLoad], keep_previous: bool
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
