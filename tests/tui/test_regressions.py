"""Regressions found by the tester: first-launch index dialog, small terminals, hit names and column
widths, example code that is not Python, the paste notice, and a refresh waiting for another one."""

from __future__ import annotations

from textual import events

from gorilla_tui.tui.widgets.task_input import TaskInput
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, screen_text


async def test_small_terminal_shows_the_call_and_the_verdict_word(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(40, 12)) as pilot:
        await ask(pilot, VIDEO_TASK)
        await pilot.pause()
        main = app.main
        assert main.has_class("-narrow") and main.has_class("-short")
        assert not main.query_one("#left").display  # hits and matched-API panels hidden
        text = screen_text(app)
        assert "torch.hub.load(" in text  # the call (head of the code area)
        assert "✔ valid —" in text  # the verdict word on one line, not "vali" / "d —"
        await pilot.resize_terminal(120, 36)
        await pilot.pause()
        assert not main.has_class("-narrow") and not main.has_class("-short")
        assert main.query_one("#left").display


async def test_paste_notice_counts_every_line(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(120, 36)) as pilot:
        task_input = app.main.query_one(TaskInput)
        task_input.post_message(events.Paste("classify video\n\nclips\non a phone"))
        await pilot.pause()
        assert task_input.value == "classify video clips on a phone"
        assert app.last_notice == "pasted 4 lines (1 blank): joined into one line with spaces"
