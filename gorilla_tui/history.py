"""SQLite history of tasks, their proposals and sandbox runs (get_paths().history_db): History, its reads
and writes, and what it does when the file fails (moved aside, left as it is, or nothing saved).

Beside it: the tables and the check of a database History did not make, and the read-only judgment of a
file for `doctor` (history_schema.py); what a stored row reads as (history_rows.py); the file as the file
system has it, before SQLite opens it (history_files.py).
"""

from __future__ import annotations

import errno
import json
import os
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeVar

from gorilla_tui.errors import UsageError
from gorilla_tui.history_files import SIDECARS, access_problem, journal_copy
from gorilla_tui.history_rows import HistoryEntry, entry, stored_task
from gorilla_tui.history_schema import SCHEMA, add_missing_run_columns, judge, schema_problem, text_of
from gorilla_tui.paths import get_paths
from gorilla_tui.textsafe import clean_task

T = TypeVar("T")

#: SQLite result codes that say nothing is wrong with the file itself (sqlite.org/rescode.html): BUSY,
#: LOCKED (another process writes now) and FULL (the disk is full). The file is then not moved aside.
_NOT_THE_FILE = {5, 6, 13}
#: SQLITE_READONLY_ROLLBACK: a read-only connection met a hot journal it may not roll back (rescode.html).
_READONLY_ROLLBACK = 776
#: Longest one history operation may work (seconds; lock waits are the busy timeout's, also 5 s), enforced
#: by a progress handler (sqlite.org/c3ref/progress_handler.html) every _STEPS_PER_CHECK VM steps: a trigger
#: that never ends kept `run` busy forever after its result (break-it round 9). SQLITE_INTERRUPT: its code.
DEADLINE_SECONDS = 5.0
_STEPS_PER_CHECK = 10_000
_INTERRUPTED = 9


class History:
    """The history database. Every method opens its own short connection, so one History may be used from
    the UI thread and from worker threads alike. The file and its folder are created on first use.

    Tables: tasks(id, ts, task, proposal_json) and runs(id, task_id, ts, code, exit_code, output,
    duration_s, truncated).

    Never raises for a damaged history: a file that cannot be opened, read or written (not a database,
    truncated, a folder in its place) is moved aside to `<name>.broken-<UTC time>` (never deleted) and a
    new one is started; when even that fails, or the disk is full, or another process holds it, nothing is
    saved. A file its permissions refuse, or a FIFO or a device in its place, is not damaged: it is left
    where it is and nothing is saved or read (history_files.access_problem; break-it round 14). An
    operation still running after DEADLINE_SECONDS (a trigger that never ends) is interrupted: nothing is
    saved, and the history is not used again by this History (each later call returns at once). Each case
    gives one warning line, kept in `warnings` (each message once) and passed to on_warning(message);
    writes then return None and reads an empty result.
    """

    def __init__(self, path: Path | None = None, on_warning: Callable[[str], None] | None = None) -> None:
        self.path = Path(path) if path else get_paths().history_db
        self._ready = False
        self.warnings: list[str] = []
        self._lock = threading.Lock()
        self._recovering = threading.Lock()
        self._on_warning = on_warning
        self._stalled = False  # an operation ran past DEADLINE_SECONDS: the history is left alone

    @property
    def on_warning(self) -> Callable[[str], None] | None:
        """Called with each warning line once; setting it replays the warnings already given (so a UI
        that connects late still shows one that a worker thread met first)."""
        return self._on_warning

    @on_warning.setter
    def on_warning(self, callback: Callable[[str], None] | None) -> None:
        with self._lock:
            self._on_warning = callback
            earlier = list(self.warnings)
        for message in earlier if callback is not None else ():
            callback(message)

    def _warn(self, message: str) -> None:
        with self._lock:
            if message in self.warnings:
                return
            self.warnings.append(message)
            callback = self._on_warning
        if callback is not None:
            callback(message)

    def _safe(self, op: Callable[[sqlite3.Connection], T], default: T) -> T:
        """op(connection) in a transaction; on a failure, the recovery described in the class docstring."""
        if self._stalled:
            return default
        refused = access_problem(self.path)
        if refused is not None:
            self._warn(f"history not saved: {refused[0]} (it is left as it is)")
            return default
        try:
            with self._connect() as con:
                return op(con)
        except (sqlite3.Error, OSError) as e:
            error = e
        if getattr(error, "sqlite_errorcode", None) == _INTERRUPTED:
            self._stalled = True  # neither retried nor moved aside: the file reads; its work never ends
            why = f"an operation took over {DEADLINE_SECONDS:g} s; not used again until the next start"
            self._warn(f"history not saved ({why}): {self.path}")
            return default
        with self._recovering:  # one thread at a time moves a file aside
            return self._recover(op, default, error)

    def _recover(self, op: Callable[[sqlite3.Connection], T], default: T, error: BaseException) -> T:
        try:  # another thread may have started a new history meanwhile
            with self._connect() as con:
                return op(con)
        except (sqlite3.Error, OSError) as e:
            error = e
        why = _reason(error)
        if not _file_at_fault(error):
            self._warn(f"history not saved ({why}): {self.path}")
            return default
        moved = self._move_aside()
        if moved is None:
            self._warn(f"history unavailable ({why}) and could not be moved aside: {self.path}")
            return default
        try:
            with self._connect() as con:
                result = op(con)
        except (sqlite3.Error, OSError) as e:
            self._restore(moved)
            self._warn(f"history unavailable ({why}; a new one failed too: {_reason(e)}): {self.path}")
            return default
        self._warn(
            f"history could not be read or written ({why}): moved aside to {moved}; a new one was started"
        )
        return result

    def refused(self) -> tuple[str, str] | None:
        """(cause, fix) when this history is left where it is and nothing is saved to it though it is not
        damaged (history_files.access_problem: its permissions refuse it, a FIFO in its place), else None.
        For `doctor`: the warning each use gives."""
        return access_problem(self.path)

    def damage(self) -> str | None:
        """Why this history would be moved aside at its next use (the cause its warning gives, _reason),
        or None when it reads, is not made yet or is refused (refused(): left as it is, never opened here).
        Nothing is written: the file is opened read-only and read as a use reads it (`PRAGMA quick_check`,
        the schema check a use makes first, schema_problem, then its tables), and a failure counts as
        History counts it (_file_at_fault: a full disk or a lock is not the file's). A hot journal beside it,
        which a read-only connection may not roll back, is judged on a copy of both
        (history_files.journal_copy) opened as a use opens it: a stray journal of random bytes is skipped by
        that open, and was "cannot be read" here (break-it round 14, R14-10). For `doctor` (break-it round
        12: a history.sqlite3 of random bytes, which `ask` moves aside, was "no problems found"; round 13:
        one of another schema)."""
        if self.refused() is not None or (not self.path.exists() and not self.path.is_symlink()):
            return None
        try:
            return judge(f"{self.path.absolute().as_uri()}?mode=ro")
        except sqlite3.Error as e:
            if getattr(e, "sqlite_errorcode", None) != _READONLY_ROLLBACK:
                return _reason(e) if _file_at_fault(e) else None
        try:
            with journal_copy(self.path) as copy:
                return judge(copy.as_uri())
        except sqlite3.Error as e:
            return _reason(e) if _file_at_fault(e) else None
        except OSError:
            return None  # no room for the copy: not judged

    def _move_aside(self) -> Path | None:
        """Rename the database (and its journal files) to <name>.broken-<UTC time>[-n]; None when the
        rename fails (nothing there, or the folder is not writable)."""
        stamp = time.strftime("%Y%m%dT%H%M%SZ", time.gmtime())
        target = self.path.with_name(f"{self.path.name}.broken-{stamp}")
        n = 1
        try:
            while target.exists():
                n += 1
                target = self.path.with_name(f"{self.path.name}.broken-{stamp}-{n}")
            os.rename(self.path, target)
        except OSError:
            return None
        for suffix in SIDECARS:
            side = self.path.with_name(self.path.name + suffix)
            if side.exists():
                try:
                    os.rename(side, target.with_name(target.name + suffix))
                except OSError:
                    pass  # a stale journal of the broken file; the new database starts without it
        self._ready = False
        return target

    def _restore(self, moved: Path) -> None:
        """Put a moved-aside database back when no new one could be started (the new file, if any, holds
        nothing: its first write failed)."""
        try:
            os.replace(moved, self.path)
        except OSError:
            pass
        self._ready = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=5.0)
        # a row whose text is not UTF-8 (an edited database) raised OperationalError ("Could not decode to
        # UTF-8"), which moved the whole database aside: such text is read with U+FFFD in place of the bytes
        con.text_factory = text_of
        deadline = time.monotonic() + DEADLINE_SECONDS
        con.set_progress_handler(lambda: time.monotonic() > deadline, _STEPS_PER_CHECK)
        try:
            if not self._ready:
                problem = schema_problem(con)  # a file of another schema: moved aside with this cause
                if problem is not None:
                    raise sqlite3.DatabaseError(problem)
                con.executescript(SCHEMA)
                add_missing_run_columns(con)
                self._ready = True
            with con:  # commit on success, roll back on error
                yield con
        finally:
            con.close()

    def add(self, task: str, proposal: dict[str, Any] | None = None) -> int | None:
        """Save a task (and its proposal dict, if known already); returns the new row id, or None when the
        history could not be written (a warning says why). The task is saved as it was asked
        (textsafe.clean_task: escape sequences and control characters dropped, cut to MAX_TASK_CHARS), not
        as typed: a pasted escape sequence came back into the task input with up/down, and a 1 MB paste
        was saved whole on every ask."""
        try:
            task = clean_task(task)[0]
        except UsageError:  # nothing but blanks and control characters
            task = ""
        blob = json.dumps(proposal) if proposal is not None else None

        def op(con: sqlite3.Connection) -> int:
            cur = con.execute(
                "INSERT INTO tasks (ts, task, proposal_json) VALUES (?, ?, ?)", (time.time(), task, blob)
            )
            return int(cur.lastrowid or 0)

        return self._safe(op, None)

    def set_proposal(self, task_id: int | None, proposal: dict[str, Any]) -> None:
        """Attach (or replace) the proposal of a saved task, e.g. after a did-you-mean was accepted
        (task_id None: the task was not saved; nothing to do)."""
        if task_id is None:
            return
        blob = json.dumps(proposal)
        self._safe(
            lambda con: con.execute("UPDATE tasks SET proposal_json = ? WHERE id = ?", (blob, task_id)), None
        )

    def get(self, task_id: int) -> HistoryEntry | None:
        """The entry with this id, or None."""
        row = self._safe(
            lambda con: con.execute(
                "SELECT id, ts, task, proposal_json FROM tasks WHERE id = ?", (task_id,)
            ).fetchone(),
            None,
        )
        return entry(row) if row else None

    def search(self, query: str = "", limit: int = 200) -> list[HistoryEntry]:
        """Entries newest first; `query` keeps those whose task, proposed api_call or verdict contains it
        (case-insensitive substring, SQLite LIKE with % and _ escaped; json_extract reads the proposal)."""
        sql = "SELECT id, ts, task, proposal_json FROM tasks"
        params: list[Any] = []
        if query.strip():
            pattern = "%" + query.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            # json_extract raises "malformed JSON" for one row that is no JSON (SQLite's depth limit: 1,000),
            # which moved the whole database aside: rows that are not valid JSON match by their task alone
            fields = ("task",) + tuple(
                f"CASE WHEN json_valid(proposal_json) THEN json_extract(proposal_json, '{path}') END"
                for path in ("$.api_call", "$.verdict.verdict")
            )
            sql += " WHERE " + " OR ".join(f"{f} LIKE ? ESCAPE '\\'" for f in fields)
            params += [pattern] * len(fields)
        sql += " ORDER BY ts DESC, id DESC LIMIT ?"
        params.append(limit)
        return [entry(r) for r in self._safe(lambda con: con.execute(sql, params).fetchall(), [])]

    def recent_tasks(self, limit: int = 100) -> list[str]:
        """Distinct task texts, newest first (for up/down recall in the task input)."""
        sql = "SELECT task FROM tasks GROUP BY task ORDER BY MAX(ts) DESC, MAX(id) DESC LIMIT ?"
        rows = self._safe(lambda con: con.execute(sql, (limit,)).fetchall(), [])
        # cleaned as they were saved: a row of an old or edited database may hold an escape sequence, which
        # up/down put into the task input (it set the terminal's title)
        return list(dict.fromkeys(stored_task(r[0]) for r in rows))

    def add_run(
        self,
        task_id: int | None,
        code: str,
        exit_code: int | None,
        output: str,
        *,
        duration_s: float | None = None,
        truncated: bool = False,
    ) -> int:
        """Record one sandbox run of `code` (exit_code None: stopped, timed out or killed by a signal;
        duration_s: wall-clock seconds; output: the sandbox's already truncated output, truncated: True when
        some was dropped); returns the row id, or None when the history could not be written."""

        def op(con: sqlite3.Connection) -> int:
            cur = con.execute(
                "INSERT INTO runs (task_id, ts, code, exit_code, output, duration_s, truncated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (task_id, time.time(), code, exit_code, output, duration_s, int(truncated)),
            )
            return int(cur.lastrowid or 0)

        return self._safe(op, None)

    def runs(self, task_id: int) -> list[dict[str, Any]]:
        """Runs of one task, oldest first, as dicts with the column names as keys."""

        def op(con: sqlite3.Connection) -> list[dict[str, Any]]:
            con.row_factory = sqlite3.Row
            rows = con.execute("SELECT * FROM runs WHERE task_id = ? ORDER BY id", (task_id,)).fetchall()
            return [dict(r) for r in rows]

        return self._safe(op, [])


def _file_at_fault(e: BaseException) -> bool:
    """False for a full disk or a database another process holds (moving the file would not help)."""
    if isinstance(e, sqlite3.Error):
        code = getattr(e, "sqlite_errorcode", None)
        return code is None or code & 0xFF not in _NOT_THE_FILE  # & 0xFF: the primary of an extended code
    return getattr(e, "errno", None) not in (errno.ENOSPC, errno.EDQUOT)


def _reason(e: BaseException) -> str:
    """A short cause for a warning line: SQLite's message ("file is not a database", "database or disk is
    full") or the OS one."""
    text = getattr(e, "strerror", None) or str(e) or type(e).__name__
    return " ".join(text.split())[:120]
