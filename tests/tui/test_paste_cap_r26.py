"""Break-it round 26 (partly): the TUI took a 12,800-character paste where `ask` and the MCP server refuse a
task over textsafe.MAX_TASK_INPUT_CHARS (10,000): the task input now refuses such a paste whole, says so,
and keeps what was typed; a paste within the cap is still cut to MAX_TASK_CHARS with its notice."""

from __future__ import annotations

from textual import events

from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS
from gorilla_tui.tui.widgets.task_input import TaskInput
from tests.tui.conftest import VALID_CALL, VIDEO_TASK


async def test_a_paste_over_the_task_cap_is_refused_with_a_notice(make_app) -> None:
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(120, 36)) as pilot:
        task_input = app.main.query_one(TaskInput)
        task_input.focus()
        task_input.value = VIDEO_TASK + " "
        task_input.cursor_position = len(task_input.value)
        paste = ("word " * 2560)[:12_800]  # the paste of break-it round 26
        assert len(VIDEO_TASK) + 1 + len(paste) > MAX_TASK_INPUT_CHARS
        task_input.post_message(events.Paste(paste))
        await pilot.pause()
        assert task_input.value == VIDEO_TASK + " "  # not taken, nothing typed lost
        assert app.last_notice == (
            f"paste not taken: the task would be {len(VIDEO_TASK) + 1 + len(paste):,} characters; at most "
            f"{MAX_TASK_INPUT_CHARS:,} are accepted (as by ask and the MCP server)"
        )
        task_input.post_message(events.Paste(paste[: MAX_TASK_INPUT_CHARS - len(task_input.value)]))
        await pilot.pause()
        assert len(task_input.value) == MAX_TASK_CHARS
        assert app.last_notice == f"task cut at {MAX_TASK_CHARS:,} characters (the longest task kept)"
