"""The folder of one sandboxed run on the host: made with an owner lock (flock(2)) that the app and the
sandbox's supervisor hold for the run's life, and removed by the next run once nothing holds it."""

from __future__ import annotations

import fcntl
import os
import shutil
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import safe_line

#: Prefix of every run's folder (under tempfile.gettempdir() unless base_dir is given).
RUN_PREFIX = "gorilla-run-"


#: A run folder without an owner lock (made by an older version) is removed once older than this.
UNOWNED_STALE_S = 3700.0


def clean_stale_runs(base_dir: str | Path | None = None) -> list[Path]:
    """Remove the folders of dead runs under `base_dir` (default: tempfile.gettempdir()); returns them.

    A run's folder holds `.owner`, flock(2)-ed by the app and the sandbox's supervisor for the run's life;
    a folder whose `.owner` can be locked has no live run. Kept folders (`.kept`, from keep=True) stay; a
    folder without `.owner` (an older version's) is removed once older than UNOWNED_STALE_S."""
    base = Path(base_dir or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = [p for p in base.iterdir() if p.name.startswith(RUN_PREFIX)]
    except OSError:
        return removed
    for folder in entries:
        try:
            if (folder / ".kept").exists() or not folder.is_dir() or folder.is_symlink():
                continue
            owner = folder / ".owner"
            if owner.exists():
                fd = os.open(owner, os.O_RDONLY)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                finally:
                    os.close(fd)
            elif time.time() - folder.stat().st_mtime < UNOWNED_STALE_S:
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


def check_run_base(base_dir: str | Path | None, exposed: Sequence[str]) -> None:
    """Refuse a folder for runs (`base_dir`, default tempfile.gettempdir(): $TMPDIR) that lies inside one of
    the folders the sandbox shows the code read-only (`exposed`: isolation.visible_paths()). Its run's root
    would be bound into the new root with them and its scratch mount could not be undone: every run failed
    at setup and was reported as "killed by SIGKILL" (break-it round 20, R20-3: TMPDIR=/usr/local/tmp).

    Raises:
        UsageError: the folder is inside an exposed one (exit 2), naming TMPDIR when it came from there.
    """
    base = os.path.realpath(base_dir if base_dir is not None else tempfile.gettempdir())
    for path in exposed:
        real = os.path.realpath(path)
        if base == real or base.startswith(real.rstrip("/") + "/"):
            where = "TMPDIR" if base_dir is None else "the run folder"
            raise UsageError(
                f"the sandbox cannot run code from {where} {safe_line(base)}: it is inside "
                f"{safe_line(real)}, which the code sees read-only",
                hint="set TMPDIR to a folder outside the system and Python folders, e.g. TMPDIR=/tmp",
            )


def new_run_dir(base_dir: str | Path | None = None) -> tuple[Path, int]:
    """Make a run's folder under `base_dir` (default: tempfile.gettempdir()) and take its owner lock.

    Returns:
        (the folder, resolved; the open, flock(2)-ed file descriptor of its `.owner`, which the caller
        closes when the run is over).

    Raises:
        OSError: the folder or its lock file cannot be made.
    """
    root = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=base_dir)).resolve()
    # the owner lock is taken before `.owner` appears under its name, so a cleaner never sees it free
    lock_fd = os.open(root / ".owner.new", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    fcntl.flock(lock_fd, fcntl.LOCK_EX)
    os.write(lock_fd, f"{os.getpid()}\n".encode())
    os.rename(root / ".owner.new", root / ".owner")
    return root, lock_fd
