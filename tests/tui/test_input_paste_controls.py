"""Break-it round 9 (issue 42, kind 2; round 8's N4 in other inputs): a bracketed paste holding a C1 CSI
(U+009B), a right-to-left override (U+202E) and an escape sequence, into every text input of the app: the
task, the settings dialog (ctrl+o: model, k), the history search (ctrl+r) and the index build's folder
(F8). Only the task input was cleaned; the others rendered the raw characters, which the terminal acted on.
Each screen is opened with its key, as a person does, and the paste reaches the focused input as the
terminal's does (App.on_event forwards events.Paste to the focused widget)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from textual import events
from textual.widgets import Input

import gorilla_tui.tui
from gorilla_tui.tui.screens.history import HistoryScreen
from gorilla_tui.tui.screens.index_setup import IndexSetupScreen
from gorilla_tui.tui.screens.main import MainScreen
from gorilla_tui.tui.screens.settings import SettingsScreen
from gorilla_tui.tui.widgets.text_input import SafeInput
from tests.tui.conftest import VALID_CALL, screen_text, wait_for

SIZE = (140, 40)
PASTE = "hello \x9b2J world \u202e rtl \x1b]0;pwned\x07 \u2066end"
#: Characters a terminal acts on instead of showing (C1 CSI, bidi overrides and isolates, ESC, BEL).
RAW = "\x9b\u202e\u2066\x1b\x07"


@pytest.mark.parametrize(
    "key,screen",
    [(None, MainScreen), ("ctrl+o", SettingsScreen), ("ctrl+r", HistoryScreen), ("f8", IndexSetupScreen)],
)
async def test_a_hostile_paste_into_any_input_never_reaches_the_screen_raw(make_app, key, screen) -> None:
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        if key:
            await pilot.press(key)
        await wait_for(pilot, lambda: isinstance(app.screen, screen))
        inputs = list(app.screen.query(Input))
        assert inputs, f"no input on {screen.__name__}"
        for widget in inputs:
            widget.focus()
            await pilot.pause()
            app.post_message(events.Paste(PASTE))
            await pilot.pause()
            assert not any(c in widget.value for c in RAW), (widget.id, widget.value)
            if widget.type == "text":  # set-k (type integer) refuses the paste whole
                assert widget.value.split()[:3] == ["hello", "world", "rtl"], (widget.id, widget.value)
            text = screen_text(app)
            assert not any(c in text for c in RAW), (widget.id, repr(text))
            assert isinstance(widget, SafeInput), widget.id  # one input class cleans every value


def test_no_screen_builds_a_plain_input_or_an_editable_text_area() -> None:
    """Every text input of tui/ is a SafeInput (or a subclass): a screen added later with a plain
    textual Input, or a TextArea one can type into, would bring the raw paste back. Read from the source,
    as test_architecture reads imports."""
    tui = Path(gorilla_tui.tui.__file__).parent
    plain = []
    for path in sorted(tui.rglob("*.py")):
        for number, line in enumerate(path.read_text().splitlines(), start=1):
            if re.search(r"(?<![A-Za-z_])Input\(", line) or (
                "TextArea(" in line and "read_only=True" not in line
            ):
                plain.append(f"{path.relative_to(tui)}:{number}: {line.strip()}")
    assert plain == [], plain
