"""The TUI with a history that cannot be opened or written (issue 17): the answer is shown, the history is
moved aside (never deleted) or left alone on a full disk, and the one-line warning appears once."""

from __future__ import annotations

import os
import sqlite3

import gorilla_tui.history as history_module
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, wait_for

SIZE = (120, 36)


def _spy(app) -> list[str]:
    shown: list[str] = []
    notify = app.notify

    def spy(message, **kwargs):
        shown.append(str(message))
        return notify(message, **kwargs)

    app.notify = spy
    return shown


async def test_a_corrupt_history_is_moved_aside_and_the_warning_shown_once(make_app):
    db = get_paths().history_db
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(2000))
    app = make_app([" " + VALID_CALL, " " + VALID_CALL])
    shown = _spy(app)
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: any("history" in m for m in shown))
        await ask(pilot, VIDEO_TASK)
        await ask(pilot, VIDEO_TASK)
        assert app.main.proposal.verdict.kind == "valid"  # the answer is shown
    warnings = [m for m in shown if "history" in m]
    assert len(warnings) == 1 and warnings[0].startswith("history could not be read or written (")
    assert "moved aside to" in warnings[0] and "a new one was started" in warnings[0]
    assert len(list(db.parent.glob("history.sqlite3.broken-*"))) == 1
    assert [e.task for e in History().search()] == [VIDEO_TASK, VIDEO_TASK]  # the new history works


async def test_a_history_that_cannot_be_written_warns_once_and_answers_go_on(make_app, monkeypatch):
    real_connect = sqlite3.connect

    def full(*args, **kwargs):
        real_connect(*args, **kwargs).close()
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = 13  # SQLITE_FULL
        raise error

    app = make_app([" " + VALID_CALL, " " + VALID_CALL])
    shown = _spy(app)
    async with app.run_test(size=SIZE) as pilot:
        monkeypatch.setattr(history_module.sqlite3, "connect", full)
        await ask(pilot, VIDEO_TASK)
        assert app.main.proposal.verdict.kind == "valid"
        await ask(pilot, VIDEO_TASK)
        assert app.main.proposal.verdict.kind == "valid"
    warnings = [m for m in shown if "history" in m]
    assert warnings == [f"history not saved (database or disk is full): {get_paths().history_db}"]
