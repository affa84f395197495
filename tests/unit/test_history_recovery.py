"""A history that cannot be opened or written is moved aside (never deleted) and a new one started, with one
warning; when nothing can be done, nothing is saved and nothing raises (issue 17)."""

from __future__ import annotations

import os
import threading
from pathlib import Path

from gorilla_tui.history import History
from gorilla_tui.paths import get_paths


def test_a_truncated_history_is_moved_aside_and_a_new_one_started() -> None:
    h = History()
    h.add("kept in the old file")
    db = get_paths().history_db
    data = db.read_bytes()
    db.write_bytes(data[: len(data) // 3])  # truncated
    seen: list[str] = []
    h = History(on_warning=seen.append)
    task_id = h.add("asked after the damage", {"api_call": "f()"})
    assert task_id == 1 and h.get(task_id).api_call == "f()"
    (aside,) = db.parent.glob("history.sqlite3.broken-*")
    assert aside.read_bytes() == data[: len(data) // 3]  # moved, byte for byte, never deleted
    assert seen == h.warnings and len(seen) == 1
    assert (
        seen[0].startswith("history could not be read or written (") and f"moved aside to {aside}" in seen[0]
    )


def test_a_folder_in_the_way_is_moved_aside_too() -> None:
    db = get_paths().history_db
    db.mkdir(parents=True)
    (db / "keep.txt").write_text("a person's file")
    h = History()
    assert h.recent_tasks() == [] and h.add("task") == 1
    (aside,) = db.parent.glob("history.sqlite3.broken-*")
    assert (aside / "keep.txt").read_text() == "a person's file" and db.is_file()


def test_when_nothing_can_be_written_nothing_raises_and_one_warning_is_given(tmp_path: Path) -> None:
    blocker = tmp_path / "not-a-folder"
    blocker.write_text("a file where the data folder should be")
    seen: list[str] = []
    h = History(blocker / "history.sqlite3", on_warning=seen.append)
    assert h.add("task") is None and h.add_run(None, "print(1)", 0, "1\n") is None
    assert h.search() == [] and h.runs(1) == [] and h.get(1) is None
    assert len(seen) == 1 and "could not be moved aside" in seen[0] and str(blocker) in seen[0]
    assert blocker.read_text() == "a file where the data folder should be"


def test_threads_meeting_a_corrupt_history_move_it_aside_once() -> None:
    db = get_paths().history_db
    db.parent.mkdir(parents=True)
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(4000))
    h = History()
    ids: list[int | None] = []
    threads = [threading.Thread(target=lambda i=i: ids.append(h.add(f"task {i}"))) for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sorted(ids) == list(range(1, 9))  # every task saved in the one new history
    # one move aside: the database, plus its journal when a thread had opened one (History._move_aside)
    moved = [
        f
        for f in db.parent.glob("history.sqlite3.broken-*")
        if not f.name.endswith(("-journal", "-wal", "-shm"))
    ]
    assert len(moved) == 1 and len(h.warnings) == 1
