"""The refresh lock: refreshes of one index run one at a time (filelock on root/refresh.lock), and the one
line for an OSError met while writing the index (disk full, permission)."""

from __future__ import annotations

import contextlib
import errno
import os
import shutil
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path

from gorilla_tui.errors import GorillaError
from gorilla_tui.paths import read_regular_text
from gorilla_tui.store.fileio import POINTER, index_root, reclaim_root
from gorilla_tui.store.fileio import write_synced as _write

LOCK = "refresh.lock"
#: Written by the lock holder: "PID START_EPOCH_SECONDS" (what a waiting refresh reports).
LOCK_OWNER = "refresh.lock.owner"
#: Largest LOCK_OWNER read, bytes: it holds "PID TIME" (about 30); a larger one names no owner.
OWNER_BYTES = 256
#: Seconds a refresh waits for another one to finish before it gives up (a refresh of the three hubs,
#: APIZoo and python-env takes 15-25 s on 2 cores, bench/refresh_memory.py; a FIFO or /dev/zero source
#: can no longer hang one).
LOCK_WAIT = 600.0


@contextmanager
def refresh_lock(
    root: Path | None = None, timeout: float = -1, on_wait: Callable[[str], None] | None = None
) -> Iterator[str]:
    """Hold the refresh lock (filelock on root/refresh.lock): refreshes run one at a time. Yields the note
    of fileio.reclaim_root ("" when nothing was moved): a file in place of the root or of the data folder,
    and a folder (or FIFO, link) in place of the lock, its owner file or CURRENT.tmp, are moved aside first.

    The holder writes its PID and start time to root/refresh.lock.owner. timeout: seconds to wait (-1 =
    forever). on_wait(message) is called once when the lock is taken by another process ("waiting for
    PID N for M s to finish"). Raises GorillaError when it cannot be acquired in time
    ("lock held by PID N for M s") or the folder cannot be written (index_write_error).
    """
    from filelock import FileLock, Timeout  # deferred: filelock (~0.015 s); search and check never lock

    root = index_root(root)
    # CURRENT itself is moved aside by publish: until then read_previous reads it as damaged, and takes the
    # sources to read again from the newest version folder (build/previous.py meta_rows)
    reclaimed = reclaim_root(root, (POINTER + ".tmp", LOCK, LOCK_OWNER))
    try:
        root.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(root / LOCK))
        try:
            lock.acquire(timeout=0)
        except Timeout:
            if on_wait is not None:
                on_wait(f"waiting for {lock_holder(root)} to finish")
            if timeout == 0:
                raise
            lock.acquire(timeout=timeout)
    except Timeout:
        raise GorillaError(
            f"another refresh holds {root / LOCK}: {lock_holder(root)}; try again when it is done"
        ) from None
    except OSError as e:
        raise index_write_error(e, root) from None
    try:
        try:
            _write(root / LOCK_OWNER, f"{os.getpid()} {time.time():.0f}".encode())
        except OSError:
            pass  # only informative: a full disk is reported by the write that matters
        yield reclaimed
    finally:
        with contextlib.suppress(OSError):
            (root / LOCK_OWNER).unlink(missing_ok=True)
        lock.release()


def lock_holder(root: Path | None = None) -> str:
    """Who holds the refresh lock, from root/refresh.lock.owner: "PID N for M s" ("another process" when
    unknown)."""
    try:
        pid, started = read_regular_text((root or index_root()) / LOCK_OWNER, OWNER_BYTES).split()[:2]
        return f"PID {int(pid)} for {max(0.0, time.time() - float(started)):.0f} s"
    except (OSError, ValueError):
        return "another process"


def index_write_error(e: OSError, root: Path, needed: int | None = None) -> GorillaError:
    """One line for an OSError met while writing the index under `root`: disk full (with the free space
    from shutil.disk_usage and the `needed` bytes when known), permission or read-only file system, else
    the OS message. Returns the GorillaError (the caller raises it)."""
    where = index_root(root)
    if e.errno in (errno.ENOSPC, errno.EDQUOT):
        try:
            free = f"{shutil.disk_usage(where).free / 1e6:.1f} MB free"
        except OSError:
            free = "free space unknown"
        need = f", about {needed / 1e6:.1f} MB needed" if needed else ""
        return GorillaError(f"disk full: cannot write the index in {where} ({free}{need})")
    if e.errno in (errno.EACCES, errno.EPERM, errno.EROFS):
        what = "read-only file system" if e.errno == errno.EROFS else "permission denied"
        return GorillaError(f"{what}: cannot write the index in {where} ({e.filename or where})")
    return GorillaError(f"cannot write the index in {where}: {e.strerror or e}")
