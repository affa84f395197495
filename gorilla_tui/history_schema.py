"""The database History keeps, as SQLite has it: the tables History makes, the check of a file it did not
make, and the read-only reading `doctor` judges a file by. history.py opens the connections and decides what
a failure means (moved aside, left as it is, nothing saved).

- `SCHEMA`, `add_missing_run_columns`: the tables and index made at History's first use of a file, and the
  runs columns a file of an older release lacks;
- `schema_problem`: why History cannot use a database of another schema (it is then moved aside with this
  cause, and `doctor` names the same cause);
- `judge`: History.damage's reading of a file opened read-only (quick_check, schema_problem, its tables);
- `text_of`: a TEXT value of the database as str, whatever its bytes.
"""

from __future__ import annotations

import sqlite3

#: The tables and index History makes where they are not there yet (runs: one row per sandbox run).
SCHEMA = """
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

#: What History's statements need of a database it did not make (an older release's, another program's, an
#: edited one): each name that is there must be of this kind (tables and views and indexes share one name
#: space), and each table must have these columns (runs' duration_s and truncated excepted: they are added,
#: add_missing_run_columns). A name that is not there is made by SCHEMA.
_KINDS = {"tasks": "table", "runs": "table", "tasks_ts": "index"}
_A = {"table": "a table", "view": "a view", "index": "an index"}
_COLUMNS = {
    "tasks": ("id", "ts", "task", "proposal_json"),
    "runs": ("id", "task_id", "ts", "code", "exit_code", "output"),
}


def schema_problem(con: sqlite3.Connection) -> str | None:
    """Why History cannot use the database open on `con` as it is (one line: a name of _KINDS that is
    something else, "tasks is a view, not a table"; a table without a column its statements name, "table
    tasks has no column ts"), or None when it can (names not there yet are made at its first use). Reads
    only. History runs it before it makes its tables (_connect: such a file is moved aside with this
    cause) and History.damage for `doctor`, so the two agree (break-it round 13, R13-1: a sound SQLite
    file whose `tasks` was `tasks(x)` or a view was "no problems found" in doctor, then moved aside by the
    next ask). Raises sqlite3.Error when the schema cannot be read."""
    found = dict(
        con.execute(
            "SELECT lower(name), type FROM sqlite_master WHERE type IN ('table', 'view', 'index') "
            "AND lower(name) IN (?, ?, ?)",
            tuple(_KINDS),
        ).fetchall()
    )
    for name, kind in _KINDS.items():
        if name in found and found[name] != kind:
            return f"{name} is {_A[found[name]]}, not {_A[kind]}"
    for table, needed in _COLUMNS.items():
        if table not in found:
            continue
        have = {str(r[1]).lower() for r in con.execute(f"PRAGMA table_info({table})")}
        missing = [c for c in needed if c not in have]
        if missing:
            return f"table {table} has no column{'s' if len(missing) > 1 else ''} {', '.join(missing)}"
    return None


def add_missing_run_columns(con: sqlite3.Connection) -> None:
    """Files written before runs had duration_s/truncated get those columns (ALTER TABLE ADD COLUMN)."""
    have = {r[1] for r in con.execute("PRAGMA table_info(runs)")}
    if "duration_s" not in have:
        con.execute("ALTER TABLE runs ADD COLUMN duration_s REAL")
    if "truncated" not in have:
        con.execute("ALTER TABLE runs ADD COLUMN truncated INTEGER NOT NULL DEFAULT 0")


def judge(uri: str) -> str | None:
    """History.damage's reading of the database at the SQLite URI `uri`: the damage found ("file is not a
    database", a schema_problem), or None. Raises sqlite3.Error when it cannot be opened or read."""
    con = sqlite3.connect(uri, uri=True, timeout=5.0)
    con.text_factory = text_of
    try:
        found = [row[0] for row in con.execute("PRAGMA quick_check").fetchall()]
        if found != ["ok"]:
            return "; ".join(str(f) for f in found)[:120] or "quick_check found damage"
        problem = schema_problem(con)  # the check a use makes before it makes its tables
        if problem is not None:
            return problem
        tables = {r[0] for r in con.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
        for table in ("tasks", "runs"):
            if table in tables:
                con.execute(f"SELECT * FROM {table} LIMIT 1").fetchall()  # noqa: S608 - fixed names
    finally:
        con.close()
    return None


def text_of(data: bytes) -> str:
    """A TEXT value of the database as str (sqlite3 text_factory): UTF-8, a byte that is not U+FFFD."""
    return data.decode("utf-8", "replace")
