"""Deadlines for the Hugging Face hub's HTTP (huggingface_hub over httpx2): a total deadline for the one
reachability probe, and a stall rule for downloads, each request run in a worker thread that the caller
stops waiting for.

httpx2's timeouts (huggingface_hub's HF_HUB_ETAG_TIMEOUT and HF_HUB_DOWNLOAD_TIMEOUT, 10 s each) count from
the last byte read, so a hub mirror (HF_ENDPOINT) that drips a byte a second was waited for forever: the
"5 s" probe, `model pull`, `index --refresh` and `eval run` hung with no output (break-it round 8, N1).
huggingface_hub has no total deadline of its own; its shared HTTP client (get_session) is given a response
hook (an httpx2 event hook) that counts every byte of every response body as it arrives, before httpx2
gathers the chunks (10 MiB) huggingface_hub reads, and a download's progress bar (hf_xet's too) counts.

Bytes are capped too (break-it round 9, R1: a mirror's endless body without a Content-Length was held in
memory, RSS 4 GB in 8 s, and a 300 MB file was downloaded whole before a source's 64 MB limit refused it,
left in the cache). download() is given the file's size limit: the hub's size of the file (a HEAD,
huggingface_hub.get_hf_file_metadata) over it is refused before any byte is read, and the bytes written to
the file (its progress bar's count) are refused as soon as they pass it, or pass the size the hub stated (a
longer body is a broken download: round 10, R10-10); a body read whole into memory (the
agent registry huggingface_hub fetches for its user agent, an error's body) may hold at most
HUB_HELD_BYTES that no progress bar counted. A refused download's partial file is removed from the cache.

Nothing a hub answer says becomes a path outside the cache (break-it round 11, R11-1: huggingface_hub 2.4
joins a mirror's ETag to the cache's blobs folder unchecked, so `ETag: "/tmp/x"` or `"../../x"` wrote the
body, and a lock, anywhere the user can write, or took an existing file there as the download). Every hub
answer's X-Repo-Commit and etag are checked for the shape the hub gives (_check_names, a response hook)
before huggingface_hub reads them, and a file download() hands back must resolve inside the cache
(inside_cache).
"""

from __future__ import annotations

import os
import re
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

__all__ = [
    "HUB_HELD_BYTES",
    "HUB_STALL_BYTES",
    "HUB_STALL_S",
    "HubRefused",
    "HubStalled",
    "HubTooLarge",
    "bounded",
    "counting_tqdm",
    "download",
    "hub_size",
    "inside_cache",
    "stall_window",
]

#: A hub request is stalled when fewer than HUB_STALL_BYTES (64 KiB) arrived in the last stall_window()
#: seconds (HUB_STALL_S, 30 s, or HF_HUB_DOWNLOAD_TIMEOUT when that is set longer): a rate under ~2 KB/s.
HUB_STALL_S = 30.0
HUB_STALL_BYTES = 64 * 1024
#: How often (s) the waiting thread looks at the progress (and lets Ctrl+C in).
_POLL_S = 0.1
#: Bytes of hub response bodies one request may hold in memory beyond those its download's progress bar
#: counted as written to the file: huggingface_hub streams a download to its file in chunks of its
#: DOWNLOAD_CHUNK_SIZE (10 MiB), and reads small JSON bodies whole (the agent registry, error bodies: a few
#: KB from the real hub), so 32 MiB is three chunks and thousands of times a JSON answer.
HUB_HELD_BYTES = 32 * 1024 * 1024
#: The shape of a hub file's etag, which huggingface_hub makes a file name in the cache (blobs/ETAG,
#: .locks/REPO/ETAG.lock): the hub gives the git blob SHA-1 (40 hex) of a small file and the SHA-256 (64
#: hex) of an LFS or Xet file; letters, digits, '-' and '_' (an S3 mirror's "md5-N" fits) never make a path.
ETAG_SHAPE = re.compile(r"[0-9A-Za-z_-]{1,128}")
#: The shape of a commit (X-Repo-Commit), a folder name in the cache (snapshots/COMMIT, .no_exist/COMMIT):
#: git's SHA-1, 40 hex digits (huggingface_hub's own REGEX_COMMIT_HASH).
COMMIT_SHAPE = re.compile(r"[0-9a-f]{40}")

T = TypeVar("T")

#: Bytes of hub response bodies received so far in this process (one counter; any progress counts).
_received = [0]
#: Worker threads given up on: their next body chunk raises HubStalled, so they end at the next byte.
_abandoned: set[int] = set()
_installed = threading.Lock()


class HubStalled(TimeoutError):
    """A hub request given up: no answer within the probe's total deadline, or a stalled download."""


class HubTooLarge(ValueError):
    """A hub file over its size limit (by the hub's size or by the bytes received; `over_limit` True), or a
    response body held in memory over HUB_HELD_BYTES (False); the message is one line saying which."""

    def __init__(self, message: str, *, over_limit: bool = True) -> None:
        super().__init__(message)
        self.over_limit = over_limit


class HubRefused(ValueError):
    """A hub answer refused for its shape before huggingface_hub used it (a commit or an etag that would
    name a path outside the cache), or a cached file that resolves outside the cache; one line, without
    the value the server sent."""


class _Guard:
    """The byte limits of one bounded() worker: `limit` bytes of the file (None: no limit); `written`: the
    bytes its progress bars counted (written to the file)."""

    def __init__(self, limit: int | None) -> None:
        self.limit, self.written = limit, 0

    def held(self, got: int, written_before: int) -> None:
        """Raise HubTooLarge when a response body of which `got` bytes arrived holds more than
        HUB_HELD_BYTES beyond those written to the file since it began (`written_before` then)."""
        if got - (self.written - written_before) > HUB_HELD_BYTES:
            raise HubTooLarge(
                f"an answer of more than {HUB_HELD_BYTES // 2**20} MiB held in memory", over_limit=False
            )

    def file(self, n: int) -> None:
        self.written += n
        if self.limit is not None and self.written > self.limit:
            raise HubTooLarge(f"more than {self.limit / 1e6:g} MB received")


#: The _Guard of each live bounded() worker thread, by thread ident.
_guards: dict[int, _Guard] = {}


def stall_window() -> float:
    """Seconds of the stall rule: HUB_STALL_S, or huggingface_hub's HF_HUB_DOWNLOAD_TIMEOUT when longer."""
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    return max(HUB_STALL_S, float(constants.HF_HUB_DOWNLOAD_TIMEOUT))


def _count_body(response: Any) -> None:
    """httpx2 response hook (it runs before the body is read): the body is read through a stream that
    counts its bytes in _received, applies the worker's _Guard and stops a worker thread given up on. A
    compressed body is refused (HubTooLarge): every request asks for none (_install), and its bytes
    received would not bound its bytes decoded (a 32 MiB gzip body decodes to ~32 GB)."""
    import httpx2  # deferred: huggingface_hub's HTTP stack, only to fetch

    encodings = {e.strip().lower() for e in response.headers.get("content-encoding", "").split(",")}
    if encodings - {"", "identity"}:
        shown = " ".join(response.headers.get("content-encoding", "").split())[:40]
        raise HubTooLarge(f"a compressed answer ({shown!r}) though none was asked for", over_limit=False)
    inner = response.stream

    class _CountingStream(httpx2.SyncByteStream):
        def __iter__(self) -> Any:
            guard = _guards.get(threading.get_ident())
            got, written_before = 0, guard.written if guard is not None else 0
            for chunk in inner:
                if threading.get_ident() in _abandoned:
                    raise HubStalled("hub request given up")
                _received[0] += len(chunk)
                got += len(chunk)
                if guard is not None:
                    guard.held(got, written_before)
                yield chunk

        def close(self) -> None:
            inner.close()

    response.stream = _CountingStream()


def _check_names(response: Any) -> None:
    """httpx2 response hook (before huggingface_hub reads the answer): raise HubRefused when the answer's
    X-Repo-Commit is not COMMIT_SHAPE, or, with a commit, its etag (X-Linked-Etag, else ETag, normalised as
    huggingface_hub's _normalize_etag does) is not ETAG_SHAPE. huggingface_hub joins both to cache paths
    unchecked (file_download: blobs/ETAG, .no_exist/COMMIT/FILE on a 404) and uses an etag only from an
    answer with a commit (FileMetadataError otherwise), so an answer without one (the reachability probe's
    HEAD of the endpoint: the hub's web page) keeps whatever etag it has."""
    headers = response.headers
    commit = headers.get("x-repo-commit")
    if commit is None:
        return
    if not COMMIT_SHAPE.fullmatch(commit):
        raise HubRefused("the hub's answer names a commit that is not 40 hex digits (X-Repo-Commit): refused")
    name = "X-Linked-Etag" if headers.get("x-linked-etag") else "ETag"
    etag = headers.get(name)
    if etag is not None and not ETAG_SHAPE.fullmatch(etag.lstrip("W/").strip('"')):
        raise HubRefused(
            f"the hub's answer names the file by an etag that is not a hex or SHA-256 value ({name}): refused"
        )


def inside_cache(path: str | Path, cache_dir: str | Path | None = None) -> bool:
    """Whether `path`, its links followed (Path.resolve), lies inside the Hugging Face cache (`cache_dir`,
    default huggingface_hub's HF_HUB_CACHE), or inside its repo's folder or that folder's blobs (each
    resolved: a cache, a repo or a blobs folder the user moved to another disk behind a link is still the
    cache). A file whose link a hostile mirror pointed elsewhere (R11-1) is then never read as a download,
    named in a hint or deleted."""
    from huggingface_hub import constants  # deferred: huggingface_hub (~0.15 s), only to fetch

    root = Path(os.path.abspath(cache_dir or constants.HF_HUB_CACHE))
    file = Path(os.path.abspath(path))
    try:
        found, homes = file.resolve(), [root.resolve()]
        if file.is_relative_to(root) and file != root:
            repo = root / file.relative_to(root).parts[0]
            homes += [repo.resolve(), (repo / "blobs").resolve()]
    except (OSError, RuntimeError):  # a link loop: not a file of the cache
        return False
    return any(found.is_relative_to(home) for home in homes)


def _install() -> None:
    """Add the counting response hook to huggingface_hub's shared HTTP client (get_session), and ask for
    uncompressed answers (Accept-Encoding: identity, as huggingface_hub's own HEAD of a file's size does),
    once per client: checked before every bounded call, so a client huggingface_hub made anew (after
    set_client_factory or close_session) is counted too. The shape check of names (_check_names) goes
    with it."""
    from huggingface_hub.utils import get_session  # deferred: huggingface_hub (~0.15 s), only to fetch

    with _installed:
        client = get_session()
        client.headers["Accept-Encoding"] = "identity"
        hooks = client.event_hooks
        if _count_body not in hooks.get("response", []):
            hooks["response"] = [*hooks.get("response", []), _check_names, _count_body]
            client.event_hooks = hooks


def counting_tqdm() -> Any:
    """huggingface_hub's progress bar class, counting its updates as progress (hf_xet downloads report
    their bytes there, not through httpx2); pass it as hf_hub_download's tqdm_class. A bar made in a
    bounded() worker applies its _Guard: a `total` (the Content-Length) over the limit raises HubTooLarge
    before a byte is read, and so do the bytes written once they pass it (counted in the worker thread;
    hf_xet's updates from its own threads only count as progress: its size is the hub's, checked first)."""
    from huggingface_hub.utils import tqdm  # deferred: huggingface_hub (~0.15 s), only to fetch

    class _Counting(tqdm):  # type: ignore[misc,valid-type]
        def __init__(self, *args: Any, **kwargs: Any) -> None:
            guard = _guards.get(threading.get_ident())
            total, limit = kwargs.get("total"), guard.limit if guard is not None else None
            if limit is not None and isinstance(total, int) and total > limit:
                raise HubTooLarge(f"its length is {total / 1e6:.1f} MB, more than {limit / 1e6:g} MB")
            super().__init__(*args, **kwargs)

        def update(self, n: float | None = 1) -> Any:
            _received[0] += int(n or 0)
            guard = _guards.get(threading.get_ident())
            if guard is not None:
                guard.file(int(n or 0))
            return super().update(n)

    return _Counting


def bounded(fn: Callable[[], T], *, total: float | None = None, max_bytes: int | None = None) -> T:
    """fn() (a huggingface_hub call) run in a daemon worker thread, waited for until it returns, the
    `total` deadline (seconds) passes, or it stalls: fewer than HUB_STALL_BYTES of response bodies arrived
    in the last stall_window() seconds (a request still waiting for its headers receives none). Its bytes
    are capped (_Guard): a file over `max_bytes` (None: no file limit), a body held in memory over
    HUB_HELD_BYTES.

    Returns what fn returned; re-raises what it raised. Raises HubStalled (a TimeoutError, one line) when
    given up: the worker stops at its next body chunk; HubTooLarge (one line) past a byte cap. Ctrl+C
    (KeyboardInterrupt) is not held: the wait polls every 0.1 s."""
    _install()
    box: dict[str, Any] = {}
    done = threading.Event()

    def work() -> None:
        ident = threading.get_ident()
        _abandoned.discard(ident)  # a thread given up on before had this ident: it has ended
        _guards[ident] = _Guard(max_bytes)
        try:
            box["value"] = fn()
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread as it is
            box["error"] = e
        finally:
            _guards.pop(ident, None)
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


def download(
    repo_id: str, filename: str, *, max_bytes: int, limit_name: str, offline: bool = False, **kwargs: Any
) -> str:
    """The local path of `filename` of hub repo `repo_id`: huggingface_hub.hf_hub_download (keyword
    arguments passed on: repo_type, revision) under bounded()'s stall rule and byte caps, or, when
    `offline` (the probe found the hub unreachable), read from the local cache alone
    (huggingface_hub.try_to_load_from_cache: no request at all; hf_hub_download's local_files_only still
    asked the endpoint for its agent registry, which waited on a dripping mirror).

    max_bytes: the file's size limit (`limit_name` names it in the message: "the size limit of one source
    (...)"): the hub's size of it (hub_size: a HEAD) over it is refused before the download, and so is the
    download once its bytes pass it; a refused download's partial file is removed from the cache. When the
    hub states a size, the download also stops once its bytes pass that size: a body longer than the hub
    said is a broken download (break-it round 10, R10-10: a mirror whose HEAD said 100 bytes sent an endless
    body, written at 0.5-0.7 GB/s until the disk had 1 GB left).

    The answers' commit and etag are shape-checked before huggingface_hub makes them paths (_check_names),
    and the file handed back resolves inside the cache (inside_cache; a link a mirror pointed elsewhere
    in an earlier run is refused, never read).

    Raises huggingface_hub's LocalEntryNotFoundError when offline and not cached, HubStalled for a stalled
    download, HubTooLarge (one line) over max_bytes (`over_limit` True) or past the hub's stated size
    (False), HubRefused for an answer or a cached link refused so, and what hf_hub_download raises."""
    from huggingface_hub import hf_hub_download, try_to_load_from_cache  # deferred: only to fetch
    from huggingface_hub.errors import LocalEntryNotFoundError

    if offline:
        found = try_to_load_from_cache(repo_id=repo_id, filename=filename, **kwargs)
        if isinstance(found, str):
            return _in_cache(found, kwargs.get("cache_dir"))
        raise LocalEntryNotFoundError(f"{repo_id}/{filename} is not in the local Hugging Face cache")
    size, etag = hub_size(repo_id, filename, **kwargs)
    if size is not None and size > max_bytes:
        raise HubTooLarge(f"the hub says {size / 1e6:.1f} MB, more than {max_bytes / 1e6:g} MB, {limit_name}")
    tqdm_class = counting_tqdm()
    started = time.time()
    try:
        local = bounded(
            lambda: hf_hub_download(repo_id=repo_id, filename=filename, tqdm_class=tqdm_class, **kwargs),
            max_bytes=max_bytes if size is None else size,
        )
        return _in_cache(local, kwargs.get("cache_dir"))
    except HubTooLarge as e:
        _drop_partial(repo_id, etag, started, **kwargs)
        if not e.over_limit:
            raise
        if size is not None:
            raise HubTooLarge(
                f"a broken download: more bytes arrived than the {size:,} the hub stated for the file",
                over_limit=False,
            ) from None
        raise HubTooLarge(f"{e}, {limit_name}") from None


def hub_size(repo_id: str, filename: str, **kwargs: Any) -> tuple[int | None, str | None]:
    """(size in bytes, etag) of a hub file from its metadata (huggingface_hub.get_hf_file_metadata: a HEAD,
    under bounded()), each None when the hub does not say; (None, None) when it cannot be asked (the
    download then says why). Raises HubStalled / HubTooLarge when the HEAD stalls or its body is endless,
    HubRefused for a commit or etag of another shape (_check_names)."""
    from huggingface_hub import get_hf_file_metadata, hf_hub_url  # deferred: only to fetch

    url = hf_hub_url(repo_id, filename, repo_type=kwargs.get("repo_type"), revision=kwargs.get("revision"))
    try:
        meta = bounded(lambda: get_hf_file_metadata(url, timeout=10), max_bytes=0)
    except (HubStalled, HubTooLarge, HubRefused):
        raise
    except Exception:  # noqa: BLE001 - 404, auth, offline: hf_hub_download raises it (or reads the cache)
        return None, None
    return (int(meta.size) if meta.size is not None else None), meta.etag


def _drop_partial(repo_id: str, etag: str | None, started: float, **kwargs: Any) -> None:
    """Remove the partial file (blobs/ETAG.incomplete) a refused download left in huggingface_hub's cache:
    the one of `etag`, or, when the hub gave none, those changed since `started` (time.time())."""
    from huggingface_hub import constants  # deferred: only to fetch
    from huggingface_hub.file_download import repo_folder_name

    if etag is not None and not ETAG_SHAPE.fullmatch(etag):
        return  # not a name in the cache (_check_names refused its answer): nothing of it to remove
    repo = repo_folder_name(repo_id=repo_id, repo_type=kwargs.get("repo_type") or "model")
    blobs = Path(kwargs.get("cache_dir") or constants.HF_HUB_CACHE) / repo / "blobs"
    try:
        found = [blobs / f"{etag}.incomplete"] if etag else list(blobs.glob("*.incomplete"))
        for path in found:
            if path.is_file() and (etag or path.stat().st_mtime >= started - 1):
                path.unlink()
    except OSError:  # already gone, or the cache is not writable: nothing more to do here
        pass


def _in_cache(local: str, cache_dir: str | Path | None) -> str:
    """`local` (a file huggingface_hub handed back) when it resolves inside the cache (inside_cache); else
    HubRefused, naming the link in the cache (removing a link leaves the file it points at)."""
    if inside_cache(local, cache_dir):
        return local
    raise HubRefused(
        f"the cached file {local} is a link that points outside the Hugging Face cache: refused, not read "
        "(remove that link, not the file it points at, then fetch again)"
    )
