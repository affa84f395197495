"""Break-it round 9 (partly held, issue 42 kind 3): a history.sqlite3 holding a trigger that never ends (a
recursive CTE on INSERT INTO runs, a planted or edited file) made `run` hang after it printed its result,
writing the history forever. A history operation is interrupted past history.DEADLINE_SECONDS: one warning,
and the exit status is the run's."""

from __future__ import annotations

import os
import sqlite3
import subprocess
import sys
from pathlib import Path

from gorilla_tui.cli import main
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
WORKTREE = str(Path(__file__).resolve().parents[2])
#: A bound on the whole command, far above the deadline (5 s) and a run of print(1); main never ended.
BOUND = 120

ENDLESS = (
    "CREATE TRIGGER endless BEFORE INSERT ON runs BEGIN SELECT count(*) FROM (WITH RECURSIVE r(i) AS "
    "(SELECT 1 UNION ALL SELECT i + 1 FROM r) SELECT i FROM r); END"
)


def test_a_history_trigger_that_never_ends_does_not_hold_run(gorilla_home: Path, tmp_path: Path) -> None:
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    History().add("an earlier task")  # a history of the current schema, then the planted trigger
    db = get_paths().history_db
    with sqlite3.connect(db) as con:
        con.execute(ENDLESS)
    code = tmp_path / "p1.py"
    code.write_text("print(1)\n")
    (tmp_path / "tmp").mkdir()
    proc = subprocess.Popen(
        [sys.executable, "-m", "gorilla_tui", "run", str(code), "--yes"],
        stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env=dict(os.environ, PYTHONPATH=WORKTREE, TMPDIR=str(tmp_path / "tmp")),
    )  # fmt: skip
    try:
        out, err = proc.communicate(timeout=BOUND)
    finally:
        proc.kill()
        proc.wait()
    assert proc.returncode == 0, err  # the run's status: print(1) ran and exited 0
    assert out.splitlines() == ["1"], out  # the code's output; the report is on stderr
    warnings = [line for line in err.splitlines() if line.startswith("gorilla-tui: warning: history")]
    why = "an operation took over 5 s; not used again until the next start"
    assert warnings == [f"gorilla-tui: warning: history not saved ({why}): {db}"], err
    assert "internal error" not in err and "Traceback" not in err
    assert db.exists() and not list(db.parent.glob("history.sqlite3.broken-*"))  # kept, not moved aside
