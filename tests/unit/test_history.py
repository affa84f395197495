"""history: tasks and proposals in SQLite under the user data dir."""

from __future__ import annotations

import sqlite3

from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from gorilla_tui.textsafe import MAX_TASK_CHARS, clean_task


def test_add_get_search_and_recall():
    h = History()
    first = h.add("classify images of birds")
    second = h.add(
        "translate 50% of a text_file",
        {"api_call": "pipeline('translation')", "verdict": {"verdict": "valid"}},
    )
    h.add("classify images of birds")  # asked again
    assert h.path == get_paths().history_db and h.path.exists()
    assert h.get(second).api_call == "pipeline('translation')" and h.get(second).verdict == "valid"
    assert h.get(first).proposal is None and h.get(12345) is None
    assert [e.task for e in h.search()][:2] == ["classify images of birds", "translate 50% of a text_file"]
    assert [e.id for e in h.search("50%")] == [second]  # % is matched literally
    assert [e.id for e in h.search("_file")] == [second]
    assert h.search("valid")[0].id == second  # the verdict is searchable
    assert h.recent_tasks() == ["classify images of birds", "translate 50% of a text_file"]


def test_set_proposal_and_runs():
    h = History()
    task_id = h.add("print hello")
    h.set_proposal(
        task_id, {"api_call": "print('hello')", "verdict": {"verdict": "valid", "api_call": "print('hello')"}}
    )
    assert h.get(task_id).api_call == "print('hello')"
    run_id = h.add_run(task_id, "print('hello')", 0, "hello\n")
    h.add_run(task_id, "while True: pass", None, "")
    runs = h.runs(task_id)
    assert [r["id"] for r in runs][0] == run_id
    assert [(r["exit_code"], r["output"]) for r in runs] == [(0, "hello\n"), (None, "")]


def test_a_damaged_row_does_not_hide_the_others():
    h = History()
    good = h.add("fine", {"api_call": "f()"})
    bad = h.add("broken")
    with sqlite3.connect(h.path) as con:
        con.execute("UPDATE tasks SET proposal_json = '{not json' WHERE id = ?", (bad,))
    entries = {e.id: e for e in h.search()}
    assert entries[bad].proposal is None and entries[good].api_call == "f()"


def test_a_task_is_saved_as_it_was_asked_without_escapes_and_cut():
    """`ask` and the TUI saved the task as typed: a pasted OSC 52 sequence came back into the task input
    with up/down, and a 1 MB paste was saved whole on every ask."""
    h = History()
    h.add("list files \x1b]52;c;aGk=\x07in a \u202edirectory\x1b[31m")
    h.add("classify images " * 10_000)
    h.add("\x1b[2J\x07")
    assert h.recent_tasks()[1:] == [
        clean_task("classify images " * 10_000)[0],
        "list files in a directory",
    ]
    assert len(h.recent_tasks()[1]) <= MAX_TASK_CHARS and h.recent_tasks()[0] == ""
