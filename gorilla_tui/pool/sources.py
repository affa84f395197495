"""Source manifests (index/*.toml) -> files (Hugging Face hub, a local mirror, a path) -> loaded ApiDocs."""

from __future__ import annotations

import fnmatch
import importlib
import re
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from gorilla_tui.pool.expansion import attach_questions, read_questions
from gorilla_tui.resources import data_files

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import (
    FORMATS,
    MAX_SOURCE_BYTES,
    Diagnostic,
    LoadResult,
    SourceRejected,
    doc_files,
    load_paths,
    source_files,
)
from gorilla_tui.pool.fingerprint import combine, files_part

#: Remote types a manifest's [remote] table may name. "hf": huggingface_hub.hf_hub_download of each file
#: (repo_id, repo_type, revision); "path": a local folder (`path`); "url": documentation only (not fetched,
#: e.g. a GitHub folder; use `--from DIR` with a local copy, or set `path`).
REMOTE_TYPES = ("hf", "path", "url")


@dataclass(frozen=True)
class Manifest:
    """One source manifest (index/<file>.toml).

    name: short source name (torchhub, apizoo, ...), unique; title: display name; kind: loader kind, a key
    of LOADERS ("docs": files in a doc `format`; "python-env": the local Python environment, issue 9);
    format: one of pool.FORMATS (for kind "docs"); files: file names or glob patterns (matched
    case-insensitively) as they are named remotely and in a mirror folder; mirror_subdirs: sub-folders of
    a --from folder also searched; remote: the [remote] table; license, homepage, citation: provenance;
    questions: optional training-split question files (APIBench train format) whose questions are attached to
    their docs (pool/expansion.py; never an eval set); questions_subdirs: where they sit in a --from folder
    (searched under the folder and its parent, so `--from .../apibench/api` finds `.../apibench/eval`);
    extra: any other keys (for other kinds); origin: the manifest file name.
    """

    name: str
    title: str
    kind: str = "docs"
    format: str = "jsonl"
    files: tuple[str, ...] = ()
    mirror_subdirs: tuple[str, ...] = ()
    remote: dict[str, Any] = field(default_factory=dict)
    license: str = ""
    homepage: str = ""
    citation: str = ""
    questions: tuple[str, ...] = ()
    questions_subdirs: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    origin: str = ""


class SourceUnavailable(Exception):
    """A source could not be fetched. status: "unreachable" (remote failed), "not in mirror" (its files
    are not in the --from folders), "unsupported" (no loader for its kind)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class FetchContext:
    """How a refresh fetches: mirrors are the --from folders (None: use each manifest's remote).
    `hub_error`: None until the Hugging Face hub was checked (hub_unreachable), then "" when it answers or
    the short cause when it does not, so later hub files read the local cache only and fail fast instead of
    each waiting through huggingface_hub's retries (about 25 s per file without network).
    `max_bytes`: the size limit of one source (pool.doc.MAX_SOURCE_BYTES; `--max-source-mb`)."""

    mirrors: list[Path] | None = None
    hub_error: str | None = None
    max_bytes: int = MAX_SOURCE_BYTES


@dataclass
class SourceLoad:
    """What fetching and loading one source gave: status "ok", "refused" (pool.doc.SourceRejected: its
    content never reaches the index) or a SourceUnavailable status; origin: where the files came from;
    files: the local files read; result: docs and diagnostics; message: why not ok; user: a --source or
    config `sources` path (re-read from `origin` when the previous index cannot be read); fingerprint: the
    content fingerprint of its inputs (source_fingerprint, user_fingerprint; None when unknown)."""

    name: str
    title: str
    status: str
    origin: str = ""
    files: list[str] = field(default_factory=list)
    result: LoadResult = field(default_factory=LoadResult)
    message: str = ""
    user: bool = False
    fingerprint: str | None = None


#: Loaders by manifest kind: a callable(manifest, ctx) -> (origin, files, LoadResult), or "module:function"
#: imported on first use (so a kind can live in its own module, e.g. issue 9's python-env source).
Loader = Callable[[Manifest, FetchContext], "tuple[str, list[str], LoadResult]"]
LOADERS: dict[str, Loader | str] = {"python-env": "gorilla_tui.pool.pyenv.source:load_source"}


def register_loader(kind: str, loader: Loader | str) -> None:
    """Add or replace the loader for manifest kind `kind`."""
    LOADERS[kind] = loader


def _loader(kind: str) -> Loader:
    loader = LOADERS.get(kind)
    if loader is None:
        raise SourceUnavailable("unsupported", f"no loader for source kind {kind!r}")
    if isinstance(loader, str):
        module, _, attr = loader.partition(":")
        try:
            loader = getattr(importlib.import_module(module), attr)
        except (ImportError, AttributeError):
            raise SourceUnavailable(
                "unsupported", f"loader {LOADERS[kind]} for kind {kind!r} is not installed"
            ) from None
        LOADERS[kind] = loader
    return loader


# ---------------------------------------------------------------------------------------------------------
# manifests


def parse_manifest(data: dict[str, Any], origin: str) -> Manifest:
    """Validate one manifest's TOML table. Raises UsageError naming `origin` for a missing name, a bad kind
    or format, or a remote type not in REMOTE_TYPES."""
    known = {
        "name",
        "title",
        "kind",
        "format",
        "files",
        "mirror_subdirs",
        "remote",
        "license",
        "homepage",
        "citation",
        "questions",
        "questions_subdirs",
    }
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{origin}: a source manifest needs a `name`")
    kind = str(data.get("kind", "docs"))
    fmt = str(data.get("format", "jsonl"))
    if kind == "docs" and fmt not in FORMATS:
        raise UsageError(f"{origin}: unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    remote = data.get("remote", {})
    if not isinstance(remote, dict) or remote.get("type", "path") not in REMOTE_TYPES:
        raise UsageError(f"{origin}: [remote] type must be one of {', '.join(REMOTE_TYPES)}")
    files = data.get("files", [])
    if kind == "docs" and (not isinstance(files, list) or not files):
        raise UsageError(f"{origin}: a docs source needs a non-empty `files` list")
    questions = data.get("questions", [])
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise UsageError(f"{origin}: `questions` must be a list of file names")
    if any("eval" in q.lower() for q in questions):
        raise UsageError(f"{origin}: `questions` must name training splits, never an eval set")
    return Manifest(
        name=name.strip(),
        title=str(data.get("title", name)),
        kind=kind,
        format=fmt,
        files=tuple(map(str, files)),
        mirror_subdirs=tuple(map(str, data.get("mirror_subdirs", []))),
        remote=dict(remote),
        license=str(data.get("license", "")),
        homepage=str(data.get("homepage", "")),
        citation=str(data.get("citation", "")),
        questions=tuple(questions),
        questions_subdirs=tuple(map(str, data.get("questions_subdirs", []))),
        extra={k: v for k, v in data.items() if k not in known},
        origin=origin,
    )


def load_manifests() -> list[Manifest]:
    """Every manifest shipped in the package's index/ folder (gorilla_tui.resources.data_files("index")),
    sorted by file name. Raises UsageError for invalid TOML, a bad manifest or a duplicate name."""
    manifests: list[Manifest] = []
    for f in data_files("index"):
        try:
            data = tomllib.loads(f.read_text(encoding="utf-8"))
        except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
            raise UsageError(f"index/{f.name}: invalid TOML: {e}") from None
        manifests.append(parse_manifest(data, f"index/{f.name}"))
    names = [m.name for m in manifests]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"duplicate source names in index/: {', '.join(dupes)}")
    return manifests


# ---------------------------------------------------------------------------------------------------------
# fetching the files of a "docs" manifest


def _match(folder: Path, pattern: str) -> list[Path]:
    if not folder.is_dir():
        return []
    if not any(c in pattern for c in "*?["):
        exact = folder / pattern
        return [exact] if exact.is_file() else []
    pat = pattern.lower()
    return sorted(p for p in folder.iterdir() if p.is_file() and fnmatch.fnmatch(p.name.lower(), pat))


def find_in_folder(manifest: Manifest, folder: Path) -> list[Path] | None:
    """The manifest's files in `folder` or one of its mirror_subdirs (the first folder that has every file
    pattern), or None."""
    for cand in [folder, *(folder / s for s in manifest.mirror_subdirs)]:
        found = [_match(cand, pattern) for pattern in manifest.files]
        if found and all(found):
            return [p for group in found for p in group]
    return None


#: Seconds the one reachability probe of the Hugging Face hub may take (a HEAD of the hub endpoint).
HUB_PROBE_TIMEOUT = 5.0
#: What a remote-source row suggests when its files could not be fetched.
MIRROR_HINT = "use --from DIR with a local copy of the files"


def clip(text: str, limit: int = 160) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary (with "...") when longer."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    head, sep, _ = cut.rpartition(" ")
    return (head if sep and len(head) > limit // 2 else cut).rstrip(" ,;:") + "..."


def _offline() -> bool:
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    is_offline = getattr(constants, "is_offline_mode", None)
    return bool(is_offline() if callable(is_offline) else constants.HF_HUB_OFFLINE)


def hub_unreachable(ctx: FetchContext) -> str | None:
    """Why the Hugging Face hub cannot be used in this refresh (a short cause), or None when it answers.

    Checked once per FetchContext and remembered in ctx.hub_error ("" = reachable): HF_HUB_OFFLINE=1 gives
    "offline (HF_HUB_OFFLINE=1)" at once; otherwise one HEAD of huggingface_hub.constants.ENDPOINT through
    huggingface_hub's own HTTP session, without retries, limited to HUB_PROBE_TIMEOUT seconds. Without this
    probe hf_hub_download retries a failed connection 5 times (~25 s per file, "Retrying in 1s" lines).
    """
    if ctx.hub_error is None:
        if _offline():
            ctx.hub_error = "offline (HF_HUB_OFFLINE=1)"
        else:
            from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch
            from huggingface_hub.utils import get_session

            try:
                get_session().head(constants.ENDPOINT, timeout=HUB_PROBE_TIMEOUT)
                ctx.hub_error = ""
            except Exception as e:  # noqa: BLE001 - DNS, refused, timeout, proxy: all mean "unreachable"
                ctx.hub_error = f"network unreachable ({clip(str(e) or type(e).__name__, 80)})"
    return ctx.hub_error or None


def hf_files(manifest: Manifest, ctx: FetchContext) -> list[Path]:
    """Download (or take from the local Hugging Face cache) each file with huggingface_hub.hf_hub_download.

    Honours HF_HUB_OFFLINE / HF_HUB_CACHE / HF_ENDPOINT. When the hub is unreachable (hub_unreachable: one
    quick probe per refresh) only the local cache is read (local_files_only: no retries, no wait). Raises
    SourceUnavailable("unreachable") with a one-line reason naming this manifest's own file, its cause and
    MIRROR_HINT.
    """
    remote = manifest.remote
    repo_id = str(remote.get("repo_id", ""))
    if not repo_id:
        raise SourceUnavailable("unreachable", f"{manifest.origin}: [remote] needs repo_id")
    from huggingface_hub import hf_hub_download  # deferred: huggingface_hub (~0.15 s), only to fetch
    from huggingface_hub.utils import logging as hf_logging

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # its retry warnings would garble the progress display
    paths: list[Path] = []
    try:
        for name in manifest.files:
            cause = hub_unreachable(ctx)
            try:
                local = hf_hub_download(
                    repo_id=repo_id,
                    filename=name,
                    repo_type=str(remote.get("repo_type", "dataset")),
                    revision=str(remote.get("revision", "main")),
                    local_files_only=cause is not None,
                )
            except Exception as e:  # noqa: BLE001 - network, auth, missing file: all mean "unreachable"
                if cause is not None:
                    why = f"{cause}, and not in the local Hugging Face cache"
                else:
                    why = clip(str(e).strip().splitlines()[0] if str(e).strip() else type(e).__name__)
                    if not _is_missing_entry(e):
                        ctx.hub_error = clip(why, 100)  # later hub files: local cache only
                msg = f"cannot fetch {repo_id}/{name} from the Hugging Face hub: {why}; {MIRROR_HINT}"
                raise SourceUnavailable("unreachable", msg) from None
            paths.append(Path(local))
    finally:
        hf_logging.set_verbosity(verbosity)
    return paths


def _is_missing_entry(e: Exception) -> bool:
    from huggingface_hub.errors import (  # deferred: huggingface_hub (~0.15 s), only to fetch
        EntryNotFoundError,
        LocalEntryNotFoundError,
    )

    return isinstance(e, EntryNotFoundError) and not isinstance(e, LocalEntryNotFoundError)


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
        raise SourceUnavailable("not in mirror", f"{', '.join(manifest.files)} not found in {where}")
    kind = manifest.remote.get("type", "path")
    if kind == "hf":
        origin = f"hf://{manifest.remote.get('repo_type', 'dataset')}s/{manifest.remote['repo_id']}"
        return origin, hf_files(manifest, ctx), None
    path = str(manifest.remote.get("path", "") or "")
    if path:
        folder = Path(path).expanduser()
        files = find_in_folder(manifest, folder)
        if files:
            return str(folder), files, folder
        raise SourceUnavailable("unreachable", f"{', '.join(manifest.files)} not found in {folder}")
    url = manifest.remote.get("url", manifest.homepage)
    raise SourceUnavailable(
        "unreachable",
        f"not downloadable ({url}); pass a local copy with --from DIR or --source {manifest.name}=DIR",
    )


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
            result.diagnostics.append(
                Diagnostic(name, 0, "note", "training questions not found: docs not expanded")
            )
            continue
        try:
            pairs, diags = read_questions(path)
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
        except SourceUnavailable:
            return None
    subdirs = manifest.questions_subdirs
    for cand in [folder, *(folder / s for s in subdirs), *(folder.parent / s for s in subdirs)]:
        found = _match(cand, name)
        if found:
            return found[0]
    return None


register_loader("docs", load_docs_source)


# ---------------------------------------------------------------------------------------------------------
# fingerprints: has a source changed since the live index was built? (issue 18)

#: Fingerprint functions by manifest kind: callable(manifest, ctx) -> hex str, or "module:function"
#: (imported on first use, like LOADERS). A kind without one is always rebuilt.
Fingerprinter = Callable[[Manifest, FetchContext], str]
FINGERPRINTS: dict[str, Fingerprinter | str] = {"python-env": "gorilla_tui.pool.pyenv.source:fingerprint"}


def docs_fingerprint(manifest: Manifest, ctx: FetchContext) -> str:
    """Fingerprint of a kind "docs" source (pool.fingerprint.combine): the manifest, the size limit, where
    its files are found and each file's size and SHA-256, and the same for its training-questions files.
    Resolves the files as load_docs_source does (a hub file is downloaded or read from the local cache).
    Raises SourceUnavailable or OSError when they cannot be resolved or read."""
    origin, files, folder = _docs_files(manifest, ctx)
    questions = [questions_file(manifest, ctx, name, folder) for name in manifest.questions]
    found = [q for q in questions if q is not None]
    return combine("docs", manifest, ctx.max_bytes, origin, files_part(files), files_part(found))


FINGERPRINTS["docs"] = docs_fingerprint


def source_fingerprint(manifest: Manifest, ctx: FetchContext) -> str | None:
    """The fingerprint of a manifest source's inputs, or None when it cannot be told (no fingerprint
    function for its kind, files not found or unreadable: the source is then loaded as usual, which
    reports why). Never raises."""
    fn = FINGERPRINTS.get(manifest.kind)
    try:
        if isinstance(fn, str):
            module, _, attr = fn.partition(":")
            fn = FINGERPRINTS[manifest.kind] = getattr(importlib.import_module(module), attr)
        return fn(manifest, ctx) if fn is not None else None
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
        return combine("user", str(p), name, title, max_bytes, files_part(files))
    except (SourceRejected, OSError):
        return None


def fetch(manifest: Manifest, ctx: FetchContext) -> SourceLoad:
    """Fetch and load one manifest's docs; never raises for an unreachable or refused source (status
    "refused" for pool.doc.SourceRejected; the message says why)."""
    try:
        origin, files, result = _loader(manifest.kind)(manifest, ctx)
    except SourceUnavailable as e:
        return SourceLoad(manifest.name, manifest.title, e.status, message=str(e))
    except SourceRejected as e:
        return SourceLoad(manifest.name, manifest.title, "refused", message=str(e))
    return SourceLoad(manifest.name, manifest.title, "ok", origin, files, result)


#: A source name in `--source NAME=PATH` (and config.toml `sources`).
_SOURCE_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_.-]*$")


def split_source(spec: str | Path) -> tuple[str | None, Path]:
    """`--source` value -> (name or None, path). "NAME=PATH" names the source (NAME: letters, digits, "_",
    ".", "-"); a value that is an existing path, or has no valid NAME before its first "=", is a plain PATH
    (the source is then named after its stem)."""
    text = str(spec)
    name, sep, rest = text.partition("=")
    if sep and rest and _SOURCE_NAME.match(name) and not Path(text).expanduser().exists():
        return name, Path(rest).expanduser()
    return None, Path(text).expanduser()


def _missing_why(text: str) -> str:
    """Why a `--source` value that names no existing path was refused: a NAME=PATH whose NAME is not a
    source name or whose PATH is empty says so, rather than "no such file" for the whole value."""
    name, sep, rest = text.partition("=")
    if sep and not rest:
        return f"no path after {name + '='!r} (--source NAME=PATH)"
    if sep and not _SOURCE_NAME.match(name) and Path(rest).expanduser().exists():
        return (
            f"{name!r} is not a source name (letters, digits, '_', '.', '-', starting with a letter or "
            "digit): --source NAME=PATH"
        )
    return "no such file or folder"


def source_name(spec: str | Path) -> str:
    """The name a `--source` value gives its source: NAME of "NAME=PATH", else the folder name or the file
    name without suffix."""
    name, p = split_source(spec)
    if name:
        return name
    return p.resolve().name if p.is_dir() else p.stem


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
    name = name or given or source_name(path)
    if not p.exists():
        raise UsageError(f"--source {path}: {_missing_why(str(path))}")
    if name in taken:
        raise UsageError(
            f"--source {path}: the source name {name!r} is already used; name it: --source OTHER={p}"
        )
    if p.is_dir() and not doc_files(p):
        raise UsageError(f"--source {path}: no *.json or *.jsonl file in that folder")
    result = load_paths([p], name, max_bytes=max_bytes)
    files = [str(p)] if not p.is_dir() else [str(f) for f in doc_files(p)]
    return SourceLoad(name, title or f"user docs ({p})", "ok", str(p), files, result, user=True)
