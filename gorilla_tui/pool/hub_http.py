"""Deadlines for the Hugging Face hub's HTTP (huggingface_hub over httpx2): a total deadline for the one
reachability probe, and a stall rule for downloads, each request run in a worker thread that the caller
stops waiting for.

httpx2's timeouts (huggingface_hub's HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT, 10 s each) count from
the last byte read, so a hub mirror (HF_ENDPOINT) that drips a byte a second was waited for forever: the
"5 s" probe, `model pull`, `index --refresh` and `eval run` hung with no output (break-it round 8, N1).
huggingface_hub has no total deadline of its own; its shared HTTP client (get_session) is given a response
hook (an httpx2 event hook) that counts every byte of every response body as it arrives, before httpx2
gathers the chunks (10 MiB) huggingface_hub reads, and a download's progress bar (hf_xet's too) counts.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any, TypeVar

__all__ = [
    "HUB_STALL_BYTES",
    "HUB_STALL_S",
    "HubStalled",
    "bounded",
    "counting_tqdm",
    "download",
    "stall_window",
]

#: A hub request is stalled when fewer than HUB_STALL_BYTES (64 KiB) arrived in the last stall_window()
#: seconds (HUB_STALL_S, 30 s, or HF_HUB_DOWNLOAD_TIMEOUT when that is set longer): a rate under ~2 KB/s.
HUB_STALL_S = 30.0
HUB_STALL_BYTES = 64 * 1024
#: How often (s) the waiting thread looks at the progress (and lets Ctrl+C in).
_POLL_S = 0.1

T = TypeVar("T")

#: Bytes of hub response bodies received so far in this process (one counter; any progress counts).
_received = [0]
#: Worker threads given up on: their next body chunk raises HubStalled, so they end at the next byte.
_abandoned: set[int] = set()
_installed = threading.Lock()


class HubStalled(TimeoutError):
    """A hub request given up: no answer within the probe's total deadline, or a stalled download."""


def stall_window() -> float:
    """Seconds of the stall rule: HUB_STALL_S, or huggingface_hub's HF_HUB_DOWNLOAD_TIMEOUT when longer."""
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    return max(HUB_STALL_S, float(constants.HF_HUB_DOWNLOAD_TIMEOUT))


def _count_body(response: Any) -> None:
    """httpx2 response hook (it runs before the body is read): the body is read through a stream that
    counts its bytes in _received, and stops a worker thread given up on."""
    import httpx2  # deferred: huggingface_hub's HTTP stack, only to fetch

    inner = response.stream

    class _CountingStream(httpx2.SyncByteStream):
        def __iter__(self) -> Any:
            for chunk in inner:
                if threading.get_ident() in _abandoned:
                    raise HubStalled("hub request given up")
                _received[0] += len(chunk)
                yield chunk

        def close(self) -> None:
            inner.close()

    response.stream = _CountingStream()


def _install() -> None:
    """Add the counting response hook to huggingface_hub's shared HTTP client (get_session), once per
    client: checked before every bounded call, so a client huggingface_hub made anew (after
    set_client_factory or close_session) is counted too."""
    from huggingface_hub.utils import get_session  # deferred: huggingface_hub (~0.15 s), only to fetch

    with _installed:
        client = get_session()
        hooks = client.event_hooks
        if _count_body not in hooks.get("response", []):
            hooks["response"] = [*hooks.get("response", []), _count_body]
            client.event_hooks = hooks


def counting_tqdm() -> Any:
    """huggingface_hub's progress bar class, counting its updates as progress (hf_xet downloads report
    their bytes there, not through httpx2); pass it as hf_hub_download's tqdm_class."""
    from huggingface_hub.utils import tqdm  # deferred: huggingface_hub (~0.15 s), only to fetch

    class _Counting(tqdm):  # type: ignore[misc,valid-type]
        def update(self, n: float | None = 1) -> Any:
            _received[0] += int(n or 0)
            return super().update(n)

    return _Counting


def bounded(fn: Callable[[], T], *, total: float | None = None) -> T:
    """fn() (a huggingface_hub call) run in a daemon worker thread, waited for until it returns, the
    `total` deadline (seconds) passes, or it stalls: fewer than HUB_STALL_BYTES of response bodies arrived
    in the last stall_window() seconds (a request still waiting for its headers receives none).

    Returns what fn returned; re-raises what it raised. Raises HubStalled (a TimeoutError, one line) when
    given up: the worker stops at its next body chunk. Ctrl+C (KeyboardInterrupt) is not held: the wait
    polls every 0.1 s."""
    _install()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread as it is
            box["error"] = e
        finally:
            done.set()

    worker = threading.Thread(target=work, name="hub-request", daemon=True)
    worker.start()
    window = stall_window()
    start = mark_at = time.monotonic()
    mark = _received[0]
    try:
        while not done.wait(_POLL_S):
            now = time.monotonic()
            if total is not None and now - start >= total:
                raise HubStalled(f"no answer within {total:g} s")
            if _received[0] - mark >= HUB_STALL_BYTES:
                mark, mark_at = _received[0], now
            elif now - mark_at >= window:
                raise HubStalled(
                    f"stalled: less than {HUB_STALL_BYTES // 1024} KiB received in {window:g} s "
                    "(HF_HUB_DOWNLOAD_TIMEOUT sets a longer window)"
                )
    except BaseException:
        if worker.ident is not None:
            _abandoned.add(worker.ident)
        raise
    if "error" in box:
        raise box["error"]
    return box["value"]


def download(repo_id: str, filename: str, *, offline: bool = False, **kwargs: Any) -> str:
    """The local path of `filename` of hub repo `repo_id`: huggingface_hub.hf_hub_download (keyword
    arguments passed on: repo_type, revision) under bounded()'s stall rule, or, when `offline` (the probe
    found the hub unreachable), read from the local cache alone (huggingface_hub.try_to_load_from_cache:
    no request at all; hf_hub_download's local_files_only still asked the endpoint for its agent registry,
    which waited on a dripping mirror).

    Raises huggingface_hub's LocalEntryNotFoundError when offline and not cached, HubStalled for a stalled
    download, and what hf_hub_download raises."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache  # deferred: only to fetch
    from huggingface_hub.errors import LocalEntryNotFoundError

    if offline:
        found = try_to_load_from_cache(repo_id=repo_id, filename=filename, **kwargs)
        if isinstance(found, str):
            return found
        raise LocalEntryNotFoundError(f"{repo_id}/{filename} is not in the local Hugging Face cache")
    tqdm_class = counting_tqdm()
    return bounded(
        lambda: hf_hub_download(repo_id=repo_id, filename=filename, tqdm_class=tqdm_class, **kwargs)
    )
