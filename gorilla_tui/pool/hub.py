"""Files of a manifest on the Hugging Face hub (huggingface_hub.hf_hub_download), with one quick reachability
probe per refresh so that an offline refresh never waits through huggingface_hub's retries."""

from __future__ import annotations

import os
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.hub_http import bounded, download
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceUnavailable

#: Seconds the one reachability probe of the Hugging Face hub may take in all (a HEAD of the hub endpoint;
#: a total deadline, pool.hub_http.bounded: a mirror that drips a byte a second is given up too).
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
