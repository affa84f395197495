"""Untrusted text on the TUI's screen (issue 42, kind 2): a doc's name, a path, a source's title, a history
row of an old or edited database, a model's name and a suggestion of the pool are shown through
textsafe.safe_text and never read as markup: escape sequences visible ("\\x1b"), markup shown as text, no
crash. Each test drives the app of the factory (create_app) with Textual's pilot and reads the screen."""

from __future__ import annotations

import io
import json
import sqlite3
from dataclasses import replace

from rich.console import Console

from gorilla_tui.config import Settings
from gorilla_tui.history import History
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.paths import get_paths
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.textsafe import MAX_BLOCK_CHARS, MAX_BLOCK_LINES
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.doc import DocScreen, doc_table
from gorilla_tui.tui.screens.history import HistoryScreen
from gorilla_tui.tui.screens.index_setup import IndexSetupScreen
from gorilla_tui.tui.screens.settings import SettingsScreen
from gorilla_tui.tui.widgets.task_input import TaskInput
from gorilla_tui.tui.widgets.verdict import VerdictBadge
from tests.tui.conftest import VALID_CALL, screen_text, wait_for

SIZE = (140, 40)
#: An OSC title sequence, a CSI sequence, markup that renders ("[red]") and markup that raised ("[/x]",
#: "[/b]": a closing tag nothing opened).
OSC, CSI = "\x1b]0;pwned\x07", "\x1b[2J"
HOSTILE = f"evil{OSC}[red]red[/x]x[/b]{CSI}"
#: What safe_text makes of it: the controls as visible escapes, the brackets as they are.
SHOWN = "evil\\x1b]0;pwned\\x07[red]red[/x]x[/b]\\x1b[2J"


def _assert_safe(text: str) -> None:
    """No escape sequence and no BEL reached the screen."""
    assert "\x1b" not in text and "\x07" not in text and "\x9b" not in text, repr(text)


async def test_the_doc_view_title_shows_a_hostile_api_name_as_it_is(torchhub_docs):
    """The full-doc view put a doc's raw api_name into its border title: the OSC sequence set the terminal
    title, "[red]" rendered and "[/x]" crashed the app."""
    doc = replace(torchhub_docs[0], api_name=HOSTILE)
    app = create_app(
        Settings(mode="generate"), backend=ScriptedBackend([" " + VALID_CALL]), index=ApiIndex.build([doc])
    )
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(DocScreen(doc, score=1.0))
        await pilot.pause()
        assert isinstance(app.screen, DocScreen)
        text = screen_text(app)
        _assert_safe(text)
        assert SHOWN[:40] in text  # the title, then the table's api_name row, both as typed
        assert text.count("evil\\x1b]0;pwned\\x07[red]red") == 2


async def test_the_verdict_badge_shows_a_hostile_suggestion_as_it_is(make_app):
    """Accepting a did-you-mean showed "checking SUGGESTION …" as markup: a pool entry's api_call with
    "[/x]" crashed the app."""
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        badge = app.main.query_one(VerdictBadge)
        badge.clear(f"checking {HOSTILE} …")
        await pilot.pause()
        text = screen_text(app)
        _assert_safe(text)
        assert f"checking {SHOWN}"[:60] in text


def _edited_history() -> None:
    """A history database as an older version or a hand edit leaves it: a timestamp that is text, markup
    in a verdict, escape sequences in tasks, a proposal that is not an object."""
    h = History()
    h.add("classify images of birds", {"api_call": "f()", "verdict": {"verdict": "valid"}})
    h.add("detect objects")
    h.add("read a csv file")
    with sqlite3.connect(get_paths().history_db) as con:
        con.execute(
            "UPDATE tasks SET ts = 'yesterday', proposal_json = ?, task = ? WHERE id = 1",
            (
                json.dumps({"api_call": f"g({CSI})", "verdict": {"verdict": "[/x][red]valid"}}),
                f"list{OSC} files",
            ),
        )
        con.execute(
            "UPDATE tasks SET ts = 1e300, proposal_json = '5', task = ? WHERE id = 2", (f"{OSC}[/b]",)
        )
        con.execute("UPDATE tasks SET ts = 4102444800, proposal_json = '[\"x\"]' WHERE id = 3")


async def test_the_history_screen_shows_edited_rows_without_crashing(make_app):
    """A non-numeric timestamp crashed the history screen (ValueError); markup in a verdict was read as
    markup ("[/x]" crashed it); a proposal that is not an object raised AttributeError. A bad time shows
    as "unknown", every cell as it is."""
    _edited_history()
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("ctrl+r")
        await wait_for(pilot, lambda: isinstance(app.screen, HistoryScreen))
        await pilot.pause()
        screen = app.screen
        assert len(screen.entries) == 3
        text = screen_text(app)
        _assert_safe(text)
        assert text.count("unknown") == 2 and "2100-01-01" in text  # the two bad times, and a good one
        assert "[/x][red]valid" in text and "list files" in text and "g(\\x1b[2J)" in text
        for _ in range(3):  # each row's detail line too
            await pilot.press("down")
            await pilot.pause()
            _assert_safe(screen_text(app))


async def test_up_arrow_recall_puts_no_escape_sequence_into_the_task_input(make_app):
    """Up-arrow recall put a stored task's escape sequence into the task input, which wrote it to the
    terminal (the OSC sequence changed the terminal's title). Recalled tasks are cleaned as they were
    saved (textsafe.clean_task)."""
    _edited_history()
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        task_input = app.main.query_one(TaskInput)
        await wait_for(pilot, lambda: len(task_input._recall) == 3)
        task_input.focus()
        seen = []
        for _ in range(3):
            await pilot.press("up")
            await pilot.pause()
            seen.append(task_input.value)
            _assert_safe(task_input.value)
            _assert_safe(screen_text(app))
        assert "list files" in seen and "[/b]" in seen


async def test_the_index_dialog_shows_a_hostile_reason_and_source_path_as_they_are(make_app):
    """The build dialog's reason and its list of sources (the user's own paths, a manifest's title, an
    error's text) were Static markup: a path with "[/b]" crashed the app."""
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(
            IndexSetupScreen([f"/data/{HOSTILE}.jsonl"], f"the index could not be loaded: {HOSTILE}")
        )
        await pilot.pause()
        assert isinstance(app.screen, IndexSetupScreen)
        text = screen_text(app)
        _assert_safe(text)
        assert f"loaded: {SHOWN}"[:50] in text and f"/data/{SHOWN}"[:50] in text


async def test_the_status_bar_shows_a_hostile_model_name_as_it_is(make_app):
    """The status bar wrote the model's name (a .gguf path, an endpoint's model) and the index's source
    names to the terminal raw."""
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        app.status(model=HOSTILE, index=f"8 docs ({HOSTILE})")
        await pilot.pause()
        text = screen_text(app)
        _assert_safe(text)
        assert "evil\\x1b]0;pwned\\x07[red]" in text


async def test_the_settings_dialog_shows_a_hostile_hub_and_kernel_as_they_are(torchhub_index):
    """The hub filter's and the kernel's choices (source names of the index, config.toml's values) were
    markup: "[/x]" in one crashed the settings dialog."""
    settings = Settings(mode="generate", hub=HOSTILE, kernel=f"k{HOSTILE}")
    app = create_app(
        settings, backend=ScriptedBackend([" " + VALID_CALL]), index=torchhub_index, show_timings=False
    )
    async with app.run_test(size=SIZE) as pilot:
        app.push_screen(SettingsScreen(settings, ["torchhub", HOSTILE]))
        await pilot.pause()
        assert isinstance(app.screen, SettingsScreen)
        text = screen_text(app)
        _assert_safe(text)
        assert "evil\\x1b]0;pwned\\x07[red]" in text and "kevil\\x1b]0;pwned" in text


async def test_a_paste_never_puts_controls_or_bidi_overrides_in_the_input(make_app):
    """Break-it round 8: a bracketed paste of "hello \\x9b2J world \\u202e rtl" put the C1 CSI and the
    right-to-left override raw on the terminal (the input renders its value as it is; only submit and
    history recall cleaned it). A paste is now cleaned as a typed task is; its lines are still joined."""
    from textual import events

    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        task_input = app.main.query_one(TaskInput)
        task_input.post_message(events.Paste("hello \x9b2J world \u202e rtl\x1b[31m red\r\nnext line"))
        await pilot.pause()
        value = task_input.value
        assert all(c not in value for c in "\x9b\u202e\x1b\r\n")
        assert value.split() == ["hello", "world", "rtl", "red", "next", "line"]


def test_a_byte_that_is_not_utf8_does_not_end_textuals_input(make_app):
    """Break-it round 8: Alt+a in xterm's eightBitInput mode (0xE1) raised UnicodeDecodeError in Textual's
    input thread (Textualize/textual#6456): a traceback over the screen, and no keys after it. Once the app
    is made, the decoder Textual's Linux driver builds replaces such a byte."""
    from textual.drivers import linux_driver

    make_app([" " + VALID_CALL])
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"load \xe1a resnet", final=False) == "load \ufffda resnet"


async def test_line_breaks_in_a_one_line_place_stay_on_its_line(make_app):
    """A line of the TUI (the status bar's model name, the verdict badge) shows a line break of the text it
    quotes as a visible escape (textsafe.safe_text's one-line default): LF, CR, U+2028 and NEL never start
    a line of their own on the screen."""
    breaks = "a\nb\rc\u2028d\x85e"
    shown = "a\\x0ab\\x0dc\\u2028d\\x85e"
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        app.status(model=f"m{breaks}")
        app.main.query_one(VerdictBadge).clear(f"n{breaks}")
        await pilot.pause()
        lines = screen_text(app).splitlines()
        _assert_safe("\n".join(lines))
        assert any(f"m{shown}" in line for line in lines) and any(f"n{shown}" in line for line in lines)


def test_the_doc_view_shows_a_huge_example_and_description_cut_with_where_they_are_whole(torchhub_docs):
    """Break-it round 12: a doc's 1 MB example_code (80,000 lines) was shown whole (16 MB of panel for
    `ask`). The full-doc view keeps each block field within textsafe's block caps and says where it is
    whole."""
    huge = "zfrob.run(1)\n" * 80_000
    doc = replace(torchhub_docs[0], example_code=huge, description=huge)
    console = Console(width=120, record=True, file=io.StringIO())
    console.print(doc_table(doc, score=1.0))
    text = console.export_text()
    assert text.count("more lines") == 2 and "`search --json` has it whole" in text
    assert len(text.splitlines()) < 3 * MAX_BLOCK_LINES and len(text) < 3 * MAX_BLOCK_CHARS


def test_a_pasted_escape_sequence_is_removed_whole_and_keeps_the_paste_in_order(make_app):
    """Break-it round 32, finding 9: Textual's parser sent what followed an ESC inside a bracketed paste as
    key presses ahead of the paste ("^[31mred.txt^[0mdelete the file" in the task input, then
    os.remove('31mred.txt')). The drivers' decoder (tui/driver_input.py) removes the sequences inside the
    paste, for every place a read may split the bytes, and leaves keys outside a paste alone."""
    from textual import events
    from textual._xterm_parser import XTermParser
    from textual.drivers import linux_driver

    make_app([" " + VALID_CALL])  # the factory makes the drivers' decoder the lenient, paste-safe one
    data = b"\x1b[200~delete the file \x1b[38;5;196mred.txt\x1b[0m\x1b]0;title\x07\x1b[201~x"
    for cut in range(3, len(data)):
        decode = linux_driver.getincrementaldecoder("utf-8")().decode
        text = decode(data[:cut], final=False) + decode(data[cut:], final=False)
        got = [e for e in XTermParser().feed(text) if isinstance(e, events.Paste | events.Key)]
        assert [type(e) for e in got] == [events.Paste, events.Key], cut
        assert got[0].text == "delete the file red.txt" and got[1].character == "x", cut
    decode = linux_driver.getincrementaldecoder("utf-8")().decode
    assert decode(b"\x1b", final=False) == "\x1b" and decode(b"[A", final=False) == "[A"
