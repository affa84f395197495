"""SQLite history of tasks, their proposals and sandbox runs (get_paths().history_db)."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gorilla_tui.paths import get_paths

_SCHEMA = """
CREATE TABLE IF NOT EXISTS tasks (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    task TEXT NOT NULL,
    proposal_json TEXT
);
CREATE INDEX IF NOT EXISTS tasks_ts ON tasks(ts);
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    task_id INTEGER REFERENCES tasks(id) ON DELETE SET NULL,
    ts REAL NOT NULL,
    code TEXT NOT NULL,
    exit_code INTEGER,
    output TEXT NOT NULL DEFAULT '',
    duration_s REAL,
    truncated INTEGER NOT NULL DEFAULT 0
);
"""


@dataclass(frozen=True)
class HistoryEntry:
    """One saved task. ts: seconds since the epoch (UTC); proposal: Proposal.to_dict() or None (not answered:
    cancelled, failed, or still running). verdict and api_call are read from the proposal ("" when none)."""

    id: int
    ts: float
    task: str
    proposal: dict[str, Any] | None

    @property
    def verdict(self) -> str:
        return str(((self.proposal or {}).get("verdict") or {}).get("verdict") or "")

    @property
    def api_call(self) -> str:
        """The proposal's api_call, else the call its verdict was decided on ("" when none)."""
        p = self.proposal or {}
        return str(p.get("api_call") or (p.get("verdict") or {}).get("api_call") or "")


class History:
    """The history database. Every method opens its own short connection, so one History may be used from
    the UI thread and from worker threads alike. The file and its folder are created on first use.

    Tables: tasks(id, ts, task, proposal_json) and runs(id, task_id, ts, code, exit_code, output,
    duration_s, truncated).
    Raises sqlite3.Error only for a corrupt or unwritable file.
    """

    def __init__(self, path: Path | None = None) -> None:
        self.path = Path(path) if path else get_paths().history_db
        self._ready = False

    @contextmanager
    def _connect(self) -> Iterator[sqlite3.Connection]:
        if not self._ready:
            self.path.parent.mkdir(parents=True, exist_ok=True)
        con = sqlite3.connect(self.path, timeout=5.0)
        try:
            if not self._ready:
                con.executescript(_SCHEMA)
                _add_missing_run_columns(con)
                self._ready = True
            with con:  # commit on success, roll back on error
                yield con
        finally:
            con.close()

    def add(self, task: str, proposal: dict[str, Any] | None = None) -> int:
        """Save a task (and its proposal dict, if known already); returns the new row id."""
        blob = json.dumps(proposal) if proposal is not None else None
        with self._connect() as con:
            cur = con.execute(
                "INSERT INTO tasks (ts, task, proposal_json) VALUES (?, ?, ?)", (time.time(), task, blob)
            )
            return int(cur.lastrowid or 0)

    def set_proposal(self, task_id: int, proposal: dict[str, Any]) -> None:
        """Attach (or replace) the proposal of a saved task, e.g. after a did-you-mean was accepted."""
        with self._connect() as con:
            con.execute("UPDATE tasks SET proposal_json = ? WHERE id = ?", (json.dumps(proposal), task_id))

    def get(self, task_id: int) -> HistoryEntry | None:
        """The entry with this id, or None."""
        with self._connect() as con:
            row = con.execute(
                "SELECT id, ts, task, proposal_json FROM tasks WHERE id = ?", (task_id,)
            ).fetchone()
        return _entry(row) if row else None

    def search(self, query: str = "", limit: int = 200) -> list[HistoryEntry]:
        """Entries newest first; `query` keeps those whose task, proposed api_call or verdict contains it
        (case-insensitive substring, SQLite LIKE with % and _ escaped; json_extract reads the proposal)."""
        sql = "SELECT id, ts, task, proposal_json FROM tasks"
        params: list[Any] = []
        if query.strip():
            pattern = "%" + query.strip().replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_") + "%"
            fields = (
                "task",
                "json_extract(proposal_json, '$.api_call')",
                "json_extract(proposal_json, '$.verdict.verdict')",
            )
            sql += " WHERE " + " OR ".join(f"{f} LIKE ? ESCAPE '\\'" for f in fields)
            params += [pattern] * len(fields)
        sql += " ORDER BY ts DESC, id DESC LIMIT ?"
        params.append(limit)
        with self._connect() as con:
            return [_entry(r) for r in con.execute(sql, params).fetchall()]

    def recent_tasks(self, limit: int = 100) -> list[str]:
        """Distinct task texts, newest first (for up/down recall in the task input)."""
        with self._connect() as con:
            rows = con.execute(
                "SELECT task FROM tasks GROUP BY task ORDER BY MAX(ts) DESC, MAX(id) DESC LIMIT ?", (limit,)
            ).fetchall()
        return [r[0] for r in rows]

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
        some was dropped); returns the row id."""
        with self._connect() as con:
            cur = con.execute(
                "INSERT INTO runs (task_id, ts, code, exit_code, output, duration_s, truncated)"
                " VALUES (?, ?, ?, ?, ?, ?, ?)",
                (task_id, time.time(), code, exit_code, output, duration_s, int(truncated)),
            )
            return int(cur.lastrowid or 0)

    def runs(self, task_id: int) -> list[dict[str, Any]]:
        """Runs of one task, oldest first, as dicts with the column names as keys."""
        with self._connect() as con:
            con.row_factory = sqlite3.Row
            rows = con.execute("SELECT * FROM runs WHERE task_id = ? ORDER BY id", (task_id,)).fetchall()
        return [dict(r) for r in rows]


def _add_missing_run_columns(con: sqlite3.Connection) -> None:
    """Files written before runs had duration_s/truncated get those columns (ALTER TABLE ADD COLUMN)."""
    have = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
    if "duration_s" not in have:
        con.execute("ALTER TABLE runs ADD COLUMN duration_s REAL")
    if "truncated" not in have:
        con.execute("ALTER TABLE runs ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0")


def _entry(row: tuple[Any, ...]) -> HistoryEntry:
    proposal = None
    if row[3]:
        try:
            proposal = json.loads(row[3])
        except json.JSONDecodeError:  # a damaged row must not hide the others
            proposal = None
    return HistoryEntry(id=int(row[0]), ts=float(row[1]), task=str(row[2]), proposal=proposal)
