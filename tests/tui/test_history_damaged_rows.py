"""Break-it pass 4, break 7: stored text that cannot be read. A history row whose proposal is nested 5,000
deep crashed the history screen (RecursionError from json.loads, a traceback, exit 0); a row whose text is
not UTF-8 made SQLite raise, and the whole history was moved aside as broken; one row that is no JSON made
every search of the history raise ("malformed JSON" from json_extract) and move it aside too. Each such
row is kept with its task, counted ("1 history row could not be read"), and the others are shown."""

from __future__ import annotations

import sqlite3

from gorilla_tui.history import History
from gorilla_tui.history_rows import unreadable_rows
from gorilla_tui.paths import get_paths
from gorilla_tui.tui.screens.history import HistoryScreen
from tests.tui.conftest import VALID_CALL, screen_text, wait_for

DEEP = '{"a":' * 5000 + "1" + "}" * 5000


def _damaged_history() -> History:
    h = History()
    h.add("classify images of birds", {"api_call": "f()", "verdict": {"verdict": "valid"}})
    h.add("detect objects", {"api_call": "g()"})
    h.add("read a csv file", {"api_call": "h()"})
    with sqlite3.connect(get_paths().history_db) as con:
        con.execute("UPDATE tasks SET proposal_json = ? WHERE id = 2", (DEEP,))
        con.execute("UPDATE tasks SET task = CAST(x'6373ff76' AS TEXT) WHERE id = 3")
    return h


def test_damaged_rows_are_read_counted_and_never_move_the_history_aside() -> None:
    h = _damaged_history()
    entries = h.search()
    assert [e.task for e in entries] == ["cs\ufffdv", "detect objects", "classify images of birds"]
    assert [e.damaged for e in entries] == [False, True, False] and entries[1].proposal is None
    assert unreadable_rows(entries) == "1 history row could not be read (answer not shown)"
    assert [e.id for e in h.search("f()")] == [1] and [e.id for e in h.search("detect")] == [2]
    assert h.recent_tasks() == ["cs\ufffdv", "detect objects", "classify images of birds"]
    assert h.warnings == [] and sorted(p.name for p in h.path.parent.iterdir()) == [h.path.name]


async def test_the_history_screen_shows_the_count_of_rows_it_could_not_read(make_app) -> None:
    _damaged_history()
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(140, 40)) as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause()
        assert len(app.screen.entries) == 3
        text = screen_text(app)
        assert "History · 1 history row could not be read" in text and "detect objects" in text
        await pilot.press("down", "down")  # the damaged row's detail line
        await pilot.pause()
        assert "→ (the answer could not be read)" in screen_text(app)
        app.screen.query_one("#history-search").focus()
        await pilot.press("d", "e", "t")  # a search over the damaged row
        await pilot.pause()
        assert [e.task for e in app.screen.entries] == ["detect objects"]
