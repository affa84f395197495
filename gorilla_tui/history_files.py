"""The history file as the file system has it, before SQLite opens it: one that History leaves where it is and
saves nothing to (access_problem: no permission, not a regular file; break-it round 14, R14-6/8/9), and a
copy of it with its rollback journal for a judge that must not write to the real one (journal_copy, R14-10).
history.py uses both; `doctor` reaches them through History.refused and History.damage."""

from __future__ import annotations

import errno
import os
import shutil
import stat
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from gorilla_tui.paths import file_kind, permission_fix

__all__ = ["SIDECARS", "access_problem", "journal_copy"]

#: Suffixes of the files SQLite keeps beside a database (rollback journal, write-ahead log and its index).
SIDECARS = ("-journal", "-wal", "-shm")

#: errno values of an open that say the file's permissions (or a read-only file system) refuse it, not that
#: its content is damaged: such a file is left where it is (moving it aside would hide a sound history).
_REFUSED = {errno.EACCES, errno.EPERM, errno.EROFS}


def access_problem(path: Path) -> tuple[str, str] | None:
    """Why History cannot use the file at `path` though nothing says it is damaged, as (cause, fix), or None
    when it may be opened (it is not there yet and its folder may be written, or a regular file this process
    may read and write). Only os.stat, os.access and an open of a regular file: a FIFO is never opened (a
    read-only open blocks until a writer comes, and ignores Ctrl+C: `doctor` hung, R14-9).

    - a folder on the way that cannot be entered, or a file that cannot be opened to read and write (mode
      000, another user's, a read-only file system): "cannot open PATH: Permission denied" (R14-6, R14-8:
      a sound history of mode 000 was moved aside by the next ask);
    - a FIFO, a device or a socket where the file should be: "PATH is not a regular file (a FIFO)";
    - the same of SQLite's files beside it (SIDECARS: a FIFO journal blocked every open for ever, a folder
      there is no journal either);
    - a folder where the file should be, a symbolic link loop, a file where the folder should be: None; the
      open fails and History moves it aside as before (history.py, issue 17).
    The open of a regular file neither creates nor changes it. Never raises."""
    try:
        st = os.stat(path)
    except FileNotFoundError:  # made at first use, in a folder that must let it be made
        folder = path.parent
        if folder.is_dir() and not os.access(folder, os.W_OK | os.X_OK):
            return f"cannot create {path}: {os.strerror(errno.EACCES)}", permission_fix(path)
        return None
    except OSError as e:
        if e.errno in _REFUSED:  # a folder on the way cannot be entered
            return f"cannot open {path}: {e.strerror}", permission_fix(path)
        return None  # a loop, a file where a folder should be: the open fails, handled as damage
    if stat.S_ISDIR(st.st_mode):
        return None
    fix = f"mv {path} {path}.not-a-history  # the next ask starts a new history"
    problem = _file_problem(path, st, fix)
    if problem is not None or not stat.S_ISREG(st.st_mode):
        return problem
    for suffix in SIDECARS:  # SQLite opens them too: a FIFO journal blocked every use for ever
        side = path.with_name(path.name + suffix)
        try:
            side_st = os.stat(side)
        except OSError as e:
            if e.errno in _REFUSED:
                return f"cannot open {side}: {e.strerror}", permission_fix(side)
            continue
        fix = f"mv {side} {side}.not-a-journal  # SQLite's file beside the history; the history is kept"
        problem = _file_problem(side, side_st, fix, folders_too=True)
        if problem is not None:
            return problem
    if not os.access(path.parent, os.W_OK | os.X_OK):  # SQLite writes its journal beside the file
        return f"cannot write in {path.parent}: {os.strerror(errno.EACCES)}", permission_fix(path)
    return None


def _file_problem(
    path: Path, st: os.stat_result, fix: str, folders_too: bool = False
) -> tuple[str, str] | None:
    """access_problem's judgement of one existing file: not a regular file (`fix` its fix; a folder only
    when folders_too), or one that cannot be opened to read and write (the chmod fix)."""
    if not stat.S_ISREG(st.st_mode):
        if stat.S_ISDIR(st.st_mode) and not folders_too:
            return None
        return f"{path} is not a regular file ({file_kind(st.st_mode)})", fix
    try:
        os.close(os.open(path, os.O_RDWR | getattr(os, "O_NOCTTY", 0)))
    except OSError as e:
        if e.errno in _REFUSED:
            return f"cannot open {path} to read and write: {e.strerror}", permission_fix(path)
    return None


@contextmanager
def journal_copy(path: Path) -> Iterator[Path]:
    """A copy of the database `path` and of its rollback journal (`<name>-journal`, when there is one) in a
    temporary folder, removed after use: the path of the copied database. SQLite rolls a hot journal back
    when a read-write connection opens the database (a read-only one fails, SQLITE_READONLY_ROLLBACK: the
    journal is skipped only when its header is not a journal's; sqlite.org/lockingv3.html#hot_journals), so a
    judge opening the copy read-write sees what History's next open sees, and neither file is changed.

    Raises OSError when the copy cannot be made (a full temporary folder)."""
    with tempfile.TemporaryDirectory(prefix="gorilla-tui-history-") as tmp:
        copy = Path(tmp) / path.name
        shutil.copyfile(path, copy)
        journal = path.with_name(path.name + "-journal")
        if journal.is_file():
            shutil.copyfile(journal, copy.with_name(copy.name + "-journal"))
        yield copy
