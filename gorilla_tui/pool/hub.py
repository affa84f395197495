"""Files of a manifest on the Hugging Face hub (huggingface_hub.hf_hub_download), with one quick reachability
probe per refresh so that an offline refresh never waits through huggingface_hub's retries."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.hub_http import HubTooLarge, bounded, download
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceUnavailable

#: Seconds the one reachability probe of the Hugging Face hub may take in all (a HEAD of the hub endpoint;
#: a total deadline, pool.hub_http.bounded: a mirror that drips a byte a second is given up too).
HUB_PROBE_TIMEOUT = 5.0
#: What a remote-source row suggests when its files could not be fetched.
MIRROR_HINT = "use --from DIR with a local copy of the files"
#: How a hub file over a source's size limit names that limit (pool.files.too_big says it so for a file).
SOURCE_LIMIT = "the size limit of one source (raise it with --max-source-mb)"


#: Bytes a GGUF download (a model, an embedder) leaves free on the disk of huggingface_hub's cache: a pull
#: never fills the disk the index, the history and the system write to (issue 42, kind 3: a disk left full).
DISK_RESERVE = 1_000_000_000


def gguf_limit() -> tuple[int, str]:
    """(size limit in bytes, how to name it) of a GGUF download (`model pull`, an hf: model or embedder):
    the free disk space of huggingface_hub's cache (HF_HUB_CACHE, or its nearest existing parent) less
    DISK_RESERVE, and at most huggingface_hub's MAX_HTTP_DOWNLOAD_SIZE (50 GB: the largest file it
    downloads over HTTP, the hub's limit of one file). Not a fixed size as a source's 64 MB: GGUFs are GBs
    (Gemma 3 270M 0.25 GB, an 8B model at 4 bits ~5 GB), so the disk is the real bound; a body with no
    Content-Length then ends where the disk would be full, not after it."""
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    probe = Path(constants.HF_HUB_CACHE)
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    room = shutil.disk_usage(probe).free - DISK_RESERVE
    top = int(constants.MAX_HTTP_DOWNLOAD_SIZE)
    if room < top:
        name = f"the free disk space in {probe} less {DISK_RESERVE / 1e9:g} GB"
        return max(0, room), f"{name} (set HF_HUB_CACHE to a disk with room)"
    return top, f"{top / 1e9:g} GB, the largest file huggingface_hub downloads over HTTP"


def clip(text: str, limit: int = 160) -> str:
    """`text` on one line, at most `limit` characters, cut at a word boundary (with "...") when longer."""
    text = " ".join(text.split())
    if len(text) <= limit:
        return text
    cut = text[: limit - 3]
    head, sep, _ = cut.rpartition(" ")
    return (head if sep and len(head) > limit // 2 else cut).rstrip(" ,;:") + "..."


def hf_spec_problem(repo_id: str, filename: str) -> str | None:
    """Why huggingface_hub would refuse this repo id (its validate_repo_id, as hf_hub_download and
    try_to_load_from_cache raise it: "'a b/c' is not a Hugging Face repo id (...)") or file name (a "."
    or ".." part); None when both are fine. Checked where an hf: spec is parsed (a model, an
    embedder), so `doctor`, `ask`, `model pull` and `index --embedder` refuse it alike, before any lookup
    (break-it round 8, N6: doctor's cache lookup was "internal error: HFValidationError")."""
    from huggingface_hub.errors import HFValidationError  # deferred: huggingface_hub (~0.15 s)
    from huggingface_hub.utils import validate_repo_id

    try:
        validate_repo_id(repo_id)
    except HFValidationError:
        shown = clip(repo_id, 60)
        return f"{shown!r} is not a Hugging Face repo id (OWNER/NAME of letters, digits, '-', '_' and '.')"
    if any(part in (".", "..") for part in filename.split("/")):
        return "the file name cannot hold a '.' or '..' part"
    return None


def parse_hf_spec(spec: str, what: str = "model") -> tuple[str, str]:
    """ "hf:OWNER/REPO/path/FILE.gguf" -> ("OWNER/REPO", "path/FILE.gguf"), for a model or an embedder
    (`what`, named in the error). Raises UsageError (one line) for another shape, or a repo id or file name
    huggingface_hub refuses (hf_spec_problem)."""
    parts = spec[3:].strip("/").split("/")
    if len(parts) < 3 or not all(parts) or not parts[-1].endswith(".gguf"):
        raise UsageError(f"bad {what} spec {spec!r}: expected hf:OWNER/REPO/FILE.gguf")
    repo, filename = "/".join(parts[:2]), "/".join(parts[2:])
    problem = hf_spec_problem(repo, filename)
    if problem:
        raise UsageError(f"bad {what} spec {spec!r}: {problem}")
    return repo, filename


def _offline() -> bool:
    """Whether HF_HUB_OFFLINE says offline: the variable as it is now (huggingface_hub's own truthy values),
    else huggingface_hub's constant, which it read once when first imported (a variable set later, as a
    test or a long-lived process may, would otherwise be missed)."""
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    env = os.environ.get("HF_HUB_OFFLINE")
    if env is not None:
        return env.strip().upper() in _TRUE
    is_offline = getattr(constants, "is_offline_mode", None)
    return bool(is_offline() if callable(is_offline) else constants.HF_HUB_OFFLINE)


#: The values huggingface_hub reads as true for HF_HUB_OFFLINE (huggingface_hub.constants._is_true).
_TRUE = frozenset({"1", "ON", "YES", "TRUE"})


def hub_unreachable(ctx: FetchContext) -> str | None:
    """Why the Hugging Face hub cannot be used in this refresh (a short cause), or None when it answers.

    Checked once per FetchContext and remembered in ctx.hub_error ("" = reachable): HF_HUB_OFFLINE=1 gives
    "offline (HF_HUB_OFFLINE=1)" at once; otherwise one HEAD of huggingface_hub.constants.ENDPOINT through
    huggingface_hub's own HTTP session, without retries, given up after HUB_PROBE_TIMEOUT seconds in all
    (hub_http.bounded: a total deadline, not httpx2's timeout between two bytes). Without this
    probe hf_hub_download retries a failed connection 5 times (~25 s per file, "Retrying in 1s" lines).
    """
    if ctx.hub_error is None:
        if _offline():
            ctx.hub_error = "offline (HF_HUB_OFFLINE=1)"
        else:
            from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch
            from huggingface_hub.utils import get_session

            try:
                bounded(
                    lambda: get_session().head(constants.ENDPOINT, timeout=HUB_PROBE_TIMEOUT),
                    total=HUB_PROBE_TIMEOUT,
                )
                ctx.hub_error = ""
            except Exception as e:  # noqa: BLE001 - DNS, refused, timeout, proxy: all mean "unreachable"
                ctx.hub_error = f"network unreachable ({clip(str(e) or type(e).__name__, 80)})"
    return ctx.hub_error or None


def hf_files(manifest: Manifest, ctx: FetchContext) -> list[Path]:
    """Download (or take from the local Hugging Face cache) each file with huggingface_hub.hf_hub_download
    (hub_http.download).

    Honours HF_HUB_OFFLINE / HF_HUB_CACHE / HF_ENDPOINT. When the hub is unreachable (hub_unreachable: one
    quick probe per refresh) only the local cache is read (hub_http.download: no request, no wait). Raises
    SourceUnavailable("unreachable") with a one-line reason naming this manifest's own file, its cause and
    MIRROR_HINT; a download that stalls (hub_http.bounded: under 64 KiB in 30 s) is given up with that cause.
    A file over the source's size limit (ctx.max_bytes: the hub's size, then the bytes received;
    hub_http.download, nothing left in the cache) raises SourceRejected, as a local file over it does.
    """
    remote = manifest.remote
    repo_id = str(remote.get("repo_id", ""))
    if not repo_id:
        raise SourceUnavailable("unreachable", f"{manifest.origin}: [remote] needs repo_id")
    from huggingface_hub.utils import logging as hf_logging  # deferred: huggingface_hub, only to fetch

    verbosity = hf_logging.get_verbosity()
    hf_logging.set_verbosity_error()  # its retry warnings would garble the progress display
    paths: list[Path] = []
    try:
        for name in manifest.files:
            cause = hub_unreachable(ctx)
            try:
                local = download(
                    repo_id,
                    name,
                    repo_type=str(remote.get("repo_type", "dataset")),
                    revision=str(remote.get("revision", "main")),
                    offline=cause is not None,
                    max_bytes=ctx.max_bytes,
                    limit_name=SOURCE_LIMIT,
                )
            except HubTooLarge as e:
                if e.over_limit:
                    raise SourceRejected(f"{repo_id}/{name}: {e}") from None
                ctx.hub_error = clip(str(e), 100)  # a hostile mirror: later hub files, local cache only
                msg = f"cannot fetch {repo_id}/{name} from the Hugging Face hub: {e}; {MIRROR_HINT}"
                raise SourceUnavailable("unreachable", msg) from None
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
