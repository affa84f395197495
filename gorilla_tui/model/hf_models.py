"""Model files on the Hugging Face hub: hf:OWNER/REPO/FILE.gguf specs parsed, the files fetched into (or
read from) huggingface_hub's cache behind one reachability probe and a stall rule (pool.hub, pool.hub_http),
and the disk space a download needs. model/registry.py resolves model specs with them (and re-exports them).
"""

from __future__ import annotations

import shutil
from pathlib import Path

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.hub import gguf_limit, hub_unreachable, parse_hf_spec
from gorilla_tui.pool.hub_http import bounded, download, inside_cache
from gorilla_tui.pool.manifest import FetchContext

__all__ = [
    "cached_file",
    "check_disk_space",
    "hf_cache_dir",
    "hf_download",
    "hub_cause",
    "parse_hf",
    "remote_size",
]


def hf_cache_dir() -> Path:
    """The folder huggingface_hub downloads into (HF_HUB_CACHE / HF_HOME honoured)."""
    import huggingface_hub.constants as hf_constants  # ~0.3 s import: only when a hub model is used

    return Path(hf_constants.HF_HUB_CACHE)


def check_disk_space(need_bytes: int, folder: Path, what: str) -> None:
    """Raise GorillaError (one line, the numbers) unless the file system holding `folder` (or its nearest
    existing parent) has `need_bytes` free (shutil.disk_usage). need_bytes <= 0 (size unknown): no check."""
    if need_bytes <= 0:
        return
    probe = folder
    while not probe.exists() and probe != probe.parent:
        probe = probe.parent
    free = shutil.disk_usage(probe).free
    if need_bytes > free:
        raise GorillaError(
            f"not enough disk space for {what}: it needs {need_bytes / 1e9:.2f} GB, "
            f"{free / 1e9:.2f} GB free in {probe}",
            hint="free some space, or set HF_HUB_CACHE to a disk with room",
        )


def remote_size(repo: str, filename: str) -> int:
    """The file's size from the hub (a HEAD request; huggingface_hub.get_hf_file_metadata), 0 when it cannot
    be asked (offline, HF_HUB_OFFLINE, no such file: hf_download then reports the error)."""
    import huggingface_hub.constants as hf_constants  # deferred: huggingface_hub (~0.15 s)
    from huggingface_hub import get_hf_file_metadata, hf_hub_url

    if hf_constants.HF_HUB_OFFLINE or hub_cause() is not None:
        return 0
    try:
        return int(bounded(lambda: get_hf_file_metadata(hf_hub_url(repo, filename), timeout=10)).size or 0)
    except Exception:  # noqa: BLE001 - any hub failure: size unknown, the download says why
        return 0


def hub_cause() -> str | None:
    """Why the Hugging Face hub cannot be reached now (one quick probe: pool.hub.hub_unreachable, as a
    refresh does), or None when it answers. Without it, offline, each hub request printed huggingface_hub's
    "Retrying in Ns" lines five times over ~25 s."""
    return hub_unreachable(FetchContext())


def hf_download(repo: str, filename: str) -> Path:
    """Fetch `filename` from Hugging Face repo `repo` with huggingface_hub.hf_hub_download (its cache, its
    progress bar, HF_HUB_OFFLINE honoured). When the hub cannot be reached (hub_cause) only the local cache
    is read, with huggingface_hub's warnings silenced. A download that stalls (pool.hub_http.bounded: under
    64 KiB in 30 s, or HF_HUB_DOWNLOAD_TIMEOUT) is given up, and one over pool.hub.gguf_limit (the free disk
    less 1 GB, at most 50 GB: by the hub's size, then the bytes received) is refused, and so is a body
    longer than the size the hub stated (a broken download), its partial file removed. Raises GorillaError
    (one line) with a hint when it is not available."""
    from huggingface_hub.errors import LocalEntryNotFoundError  # deferred: huggingface_hub (~0.3 s)
    from huggingface_hub.utils import logging as hf_logging  # deferred: with the errors above

    cause = hub_cause()
    verbosity = hf_logging.get_verbosity()
    if cause is not None:
        hf_logging.set_verbosity_error()  # its retry and offline warnings: the error below says it once
    try:
        limit, limit_name = gguf_limit()
        offline = cause is not None
        return Path(download(repo, filename, offline=offline, max_bytes=limit, limit_name=limit_name))
    except LocalEntryNotFoundError:
        from huggingface_hub import constants as hf_constants  # deferred: with the errors above

        why = f" ({cause})" if cause else ""
        offline = " (unset HF_HUB_OFFLINE)" if hf_constants.HF_HUB_OFFLINE else ""
        raise GorillaError(
            f"hf:{repo}/{filename} is not in the Hugging Face cache and cannot be downloaded now{why}",
            hint=f"connect to the network{offline} or pass a local .gguf path with --model",
        ) from None
    except Exception as e:  # noqa: BLE001 - HTTP errors, httpx2's ReadError on a reset, OSError, ValueError
        msg = str(e).splitlines()[0] if str(e) else type(e).__name__
        raise GorillaError(f"cannot fetch hf:{repo}/{filename}: {msg}") from None
    finally:
        hf_logging.set_verbosity(verbosity)


def parse_hf(spec: str) -> tuple[str, str]:
    """pool.hub.parse_hf_spec of a model spec: ("OWNER/REPO", "path/FILE.gguf"). Raises UsageError."""
    return parse_hf_spec(spec, "model")


def cached_file(repo: str, filename: str) -> Path | None:
    """The file's path in the local Hugging Face cache, or None (huggingface_hub.try_to_load_from_cache):
    None too for a link that resolves outside the cache (pool.hub_http.inside_cache: a hostile mirror's
    etag pointed it at a file of the user's, break-it round 11, R11-1), so no list, doctor line or hint
    (registry.model_file_fix: "rm ...") names a file outside the cache; hf_download then refuses it."""
    from huggingface_hub import try_to_load_from_cache  # deferred: huggingface_hub (~0.15 s)

    found = try_to_load_from_cache(repo_id=repo, filename=filename)
    return Path(found) if isinstance(found, str) and inside_cache(found) else None
