"""Source manifests (index/*.toml) -> files (Hugging Face hub, a local mirror, a path) -> loaded ApiDocs.

The manifests themselves are pool/manifest.py, the Hugging Face hub files pool/hub.py (their names are
re-exported here); this module resolves a source's files, loads them, fingerprints them (pool/fingerprint.py)
and reads the user's own sources (what a `--source` value names: pool/source_spec.py).
"""

from __future__ import annotations

import fnmatch
import os
import stat
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.paths import expand_user, file_kind, path_exists
from gorilla_tui.pool.doc import (
    MAX_SOURCE_BYTES,
    Diagnostic,
    LoadResult,
    SourceRejected,
    doc_files,
    load_paths,
    source_files,
)
from gorilla_tui.pool.expansion import attach_questions, read_questions
from gorilla_tui.pool.files import too_big
from gorilla_tui.pool.fingerprint import combine, files_part
from gorilla_tui.pool.hand_questions import HAND_QUESTIONS_DIR as HAND_QUESTIONS_DIR
from gorilla_tui.pool.hand_questions import NO_TRAINING_SPLIT, hand_questions_text, with_hand_questions
from gorilla_tui.pool.hub import HUB_PROBE_TIMEOUT as HUB_PROBE_TIMEOUT
from gorilla_tui.pool.hub import MIRROR_HINT as MIRROR_HINT
from gorilla_tui.pool.hub import clip as clip
from gorilla_tui.pool.hub import hf_files
from gorilla_tui.pool.hub import hub_unreachable as hub_unreachable
from gorilla_tui.pool.manifest import REMOTE_TYPES as REMOTE_TYPES
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceKind, SourceUnavailable, source_kind
from gorilla_tui.pool.manifest import load_manifests as load_manifests
from gorilla_tui.pool.manifest import parse_manifest as parse_manifest
from gorilla_tui.pool.remedies import add_fix
from gorilla_tui.pool.source_spec import (
    NO_DOC_FILES,
    check_utf8_names,
    missing_why,
    source_name,
    split_source,
)


@dataclass
class SourceLoad:
    """What fetching and loading one source gave: status "ok", "refused" (pool.doc.SourceRejected: its
    content never reaches the index) or a SourceUnavailable status; origin: where the files came from;
    files: the local files read; result: docs and diagnostics; message: why not ok; user: a --source or
    config `sources` path (re-read from `origin` when the previous index cannot be read); fingerprint: the
    content fingerprint of its inputs (source_fingerprint, user_fingerprint; None when unknown); copy: a
    user source named like a built-in one (`--source apizoo=DIR`), which is that source's copy (its
    hand-written questions, their vectors)."""

    name: str
    title: str
    status: str
    origin: str = ""
    files: list[str] = field(default_factory=list)
    result: LoadResult = field(default_factory=LoadResult)
    message: str = ""
    user: bool = False
    fingerprint: str | None = None
    copy: bool = False


#: A source kind's loader: callable(manifest, ctx) -> (origin, files, LoadResult) (manifest.SourceKind.load).
Loader = Callable[[Manifest, FetchContext], "tuple[str, list[str], LoadResult]"]
#: A source kind's fingerprint: callable(manifest, ctx) -> hex str (manifest.SourceKind.fingerprint).
Fingerprinter = Callable[[Manifest, FetchContext], str]


# ---------------------------------------------------------------------------------------------------------
# the files of a "docs" manifest


def _match(folder: Path, pattern: str) -> list[Path]:
    if not folder.is_dir():
        return []
    if not any(c in pattern for c in "*?["):
        exact = folder / pattern
        return [exact] if exact.is_file() else []
    pat = pattern.lower()
    found = sorted(p for p in folder.iterdir() if p.is_file() and fnmatch.fnmatch(p.name.lower(), pat))
    for p in found:
        check_utf8_names(p, "--from")
    return found


def find_in_folder(manifest: Manifest, folder: Path) -> list[Path] | None:
    """The manifest's files in `folder` or one of its mirror_subdirs (the first folder that has every file
    pattern), or None."""
    for cand in [folder, *(folder / s for s in manifest.mirror_subdirs)]:
        found = [_match(cand, pattern) for pattern in manifest.files]
        if found and all(found):
            return [p for group in found for p in group]
    return None


def _not_files(manifest: Manifest, folders: list[Path]) -> str:
    """What is in the mirrors under a manifest file's exact name but is no regular file ("torchhub_api.jsonl
    in /m is a FIFO"), so "not found" does not hide a file that is there but cannot be read; "" for none."""
    seen = []
    for folder in folders:
        for name in (n for n in manifest.files if not any(c in n for c in "*?[")):
            try:
                mode = os.stat(folder / name).st_mode
            except OSError:
                continue
            if not stat.S_ISREG(mode):
                seen.append(f"{folder / name} is {file_kind(mode)}, not a file")
    return "; ".join(seen)


def load_docs_source(manifest: Manifest, ctx: FetchContext) -> tuple[str, list[str], LoadResult]:
    """Loader of kind "docs": resolve the manifest's files (the --from mirrors when given, else its remote),
    load them in its format and attach the manifest's training questions when they can be found
    (with_questions). Returns (origin, files, LoadResult); raises SourceUnavailable."""
    origin, files, folder = _docs_files(manifest, ctx)
    result = load_paths(files, manifest.name, manifest.format, ctx.max_bytes)
    return origin, [str(p) for p in files], with_questions(manifest, ctx, result, folder)


def _docs_files(manifest: Manifest, ctx: FetchContext) -> tuple[str, list[Path], Path | None]:
    """(origin, files, the local folder they were found in or None for the hub); raises SourceUnavailable."""
    if ctx.mirrors is not None:
        for folder in ctx.mirrors:
            files = find_in_folder(manifest, folder)
            if files:
                return str(files[0].parent), files, folder
        where = ", ".join(str(m) for m in ctx.mirrors)
        odd = _not_files(manifest, ctx.mirrors)
        why = f"{', '.join(manifest.files)} not found in {where}" + (f" ({odd})" if odd else "")
        raise SourceUnavailable("not in mirror", why)
    kind = manifest.remote.get("type", "path")
    if kind == "hf":
        origin = f"hf://{manifest.remote.get('repo_type', 'dataset')}s/{manifest.remote['repo_id']}"
        return origin, hf_files(manifest, ctx), None
    path = str(manifest.remote.get("path", "") or "")
    if path:
        folder = expand_user(path)
        files = find_in_folder(manifest, folder)
        if files:
            return str(folder), files, folder
        raise SourceUnavailable("unreachable", f"{', '.join(manifest.files)} not found in {folder}")
    raise SourceUnavailable("unreachable", f"not downloadable; to add it: {add_fix(manifest)}")


def with_questions(
    manifest: Manifest, ctx: FetchContext, result: LoadResult, folder: Path | None
) -> LoadResult:
    """Attach the manifest's training questions to `result`'s docs (pool/expansion.py) and return `result`.

    The files are looked for in `folder` (the mirror or path the docs came from), its questions_subdirs and
    those of its parent; with folder None (docs from the hub) they are downloaded with hf_hub_download. A
    missing or unreadable questions file is not an error: the docs load unexpanded and a diagnostic
    (severity "note") says which file was not found."""
    for name in manifest.questions:
        path = questions_file(manifest, ctx, name, folder)
        if path is None:
            result.diagnostics.append(Diagnostic(name, 0, "note", NO_TRAINING_SPLIT))
            continue
        try:
            pairs, diags = read_questions(path, ctx.max_bytes)
        except OSError as e:
            why = e.strerror or type(e).__name__
            result.diagnostics.append(Diagnostic(name, 0, "note", f"cannot read training questions: {why}"))
            continue
        result.diagnostics.extend(diags[:20])  # a corrupt file: the first notes say enough
        if len(diags) > 20:
            result.diagnostics.append(Diagnostic(name, 0, "note", f"{len(diags) - 20} more unusable lines"))
        if attach_questions(result.docs, pairs) == 0:
            result.diagnostics.append(
                Diagnostic(name, 0, "note", "no usable training question: docs not expanded")
            )
    return result


def questions_file(manifest: Manifest, ctx: FetchContext, name: str, folder: Path | None) -> Path | None:
    """Where training-questions file `name` of `manifest` is (see with_questions), or None."""
    if folder is None:
        try:
            return hf_files(replace(manifest, files=(name,)), ctx)[0]
        except (SourceUnavailable, SourceRejected):  # over the size limit too: the docs load unexpanded
            return None
    subdirs = manifest.questions_subdirs
    for cand in [folder, *(folder / s for s in subdirs), *(folder.parent / s for s in subdirs)]:
        found = _match(cand, name)
        if found:
            return found[0]
    return None


# ---------------------------------------------------------------------------------------------------------
# fingerprints: has a source changed since the live index was built? (issue 18)


def docs_fingerprint(manifest: Manifest, ctx: FetchContext) -> str:
    """Fingerprint of a kind "docs" source (pool.fingerprint.combine): the manifest, the size limit, where
    its files are found and each file's size and SHA-256, and the same for its training-questions files.
    Resolves the files as load_docs_source does (a hub file is downloaded or read from the local cache).
    Raises SourceUnavailable or OSError when they cannot be resolved or read, SourceRejected when they hold
    more than the size limit (os.stat sizes: a 10 GB file is not hashed only for the load to refuse it)."""
    origin, files, folder = _docs_files(manifest, ctx)
    if sum(f.stat().st_size for f in files) > ctx.max_bytes:
        raise too_big(manifest.name, ctx.max_bytes)
    questions = [questions_file(manifest, ctx, name, folder) for name in manifest.questions]
    found = [q for q in questions if q is not None]
    limit = ctx.max_bytes  # counted as read (R10-6): a file of st_size 0 may never end
    return combine("docs", manifest, limit, origin, files_part(files, limit), files_part(found, limit))


#: The built-in kind "docs" (manifest `format` files: APIBench, APIZoo, ...), declared as the
#: `gorilla_tui.sources` entry point "docs" in pyproject.toml.
DOCS = SourceKind(load=load_docs_source, fingerprint=docs_fingerprint)


def source_fingerprint(manifest: Manifest, ctx: FetchContext) -> str | None:
    """The fingerprint of a manifest source's inputs, or None when it cannot be told (no fingerprint
    function for its kind, files not found or unreadable: the source is then loaded as usual, which
    reports why). Never raises."""
    try:
        fn = source_kind(manifest.kind).fingerprint
        if fn is None:
            return None
        hand = [hand_questions_text(name) for name in manifest.hand_questions]
        return combine("hand", fn(manifest, ctx), hand) if hand else fn(manifest, ctx)
    except Exception:  # noqa: BLE001 - unknown means "rebuild it", and the load says what is wrong
        return None


def user_fingerprint(path: str | Path, max_bytes: int, name: str, title: str = "") -> str | None:
    """Fingerprint of a user source (`--source [NAME=]PATH`, config `sources`): its name, title, path,
    size limit and each doc file's size and SHA-256; None when the path is not a regular file or folder of
    them (FIFO, device, missing: never opened here) or is over max_bytes (the load then refuses it)."""
    p = split_source(path)[1]
    try:
        files = source_files([p])
        if sum(f.stat().st_size for f in files) > max_bytes:
            return None
        return combine("user", str(p), name, title, max_bytes, files_part(files, max_bytes))
    except (SourceRejected, OSError):
        return None


def fetch(manifest: Manifest, ctx: FetchContext) -> SourceLoad:
    """Fetch and load one manifest's docs; never raises for an unreachable or refused source (status
    "refused" for pool.doc.SourceRejected; the message says why)."""
    try:
        origin, files, result = source_kind(manifest.kind).load(manifest, ctx)
    except SourceUnavailable as e:
        return SourceLoad(manifest.name, manifest.title, e.status, message=str(e))
    except SourceRejected as e:
        return SourceLoad(manifest.name, manifest.title, "refused", message=str(e))
    return SourceLoad(
        manifest.name, manifest.title, "ok", origin, files, with_hand_questions(manifest, result)
    )


def user_source(
    path: str | Path,
    taken: Sequence[str] = (),
    max_bytes: int = MAX_SOURCE_BYTES,
    name: str | None = None,
    title: str = "",
) -> SourceLoad:
    """Load a user file or folder (`--source [NAME=]PATH`, Settings.sources) read-only as one source, named
    `name`, else NAME of "NAME=PATH", else after its stem (folder name, or file name without suffix); the
    format is detected per file (pool.detect_format). title: shown instead of "user docs (PATH)".

    Raises UsageError when the path does not exist, holds no doc file, or its name is already `taken`
    (the message says how to name it); pool.doc.SourceRejected when it is refused whole (not a regular
    file or folder, over max_bytes, mostly not docs; see pool.doc.load_paths).
    """
    given, p = split_source(path)
    if not path_exists(p):
        raise UsageError(f"--source {path}: {missing_why(str(path))}")
    name = name or given or source_name(path)
    if name in taken:
        raise UsageError(
            f"--source {path}: the source name {name!r} is already used; name it: --source OTHER={p}"
        )
    not_read: list = []  # links out of it, FIFOs, devices: each with its cause (doc_files)
    if p.is_dir() and not doc_files(p, not_read):
        why = ""
        if not_read:
            first = f"{Path(not_read[0].file).name}: {not_read[0].message.removesuffix(': not read')}"
            why = f"; {len(not_read)} file(s) not read ({first})"
        raise UsageError(f"--source {path}: {NO_DOC_FILES.removesuffix(')')}{why})")
    result = load_paths([p], name, max_bytes=max_bytes)
    files = [str(p)] if not p.is_dir() else [str(f) for f in doc_files(p)]
    return SourceLoad(name, title or f"user docs ({p})", "ok", str(p), files, result, user=True)
