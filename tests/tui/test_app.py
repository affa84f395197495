"""Pilot tests of the main screen through create_app: real Pipeline, real Torch Hub pool, ScriptedBackend."""

from __future__ import annotations

import shutil
import subprocess
from dataclasses import replace

import pytest
from textual import events
from textual.widgets import DataTable, TextArea

from gorilla_tui.check.verdicts import incomplete
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from gorilla_tui.tui.answer_text import effective_call
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.screens.doc import DocScreen
from gorilla_tui.tui.screens.help import HelpScreen
from gorilla_tui.tui.widgets.task_input import TaskInput
from tests.tui.conftest import HALLUCINATED_CALL, VALID_CALL, VIDEO_TASK, WRONG_ARGS_CALL, ask, wait_for

SIZE = (120, 36)


async def test_history_records_task_and_proposal(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
    entries = History().search()
    assert [e.task for e in entries] == [VIDEO_TASK]
    assert entries[0].verdict == "valid" and entries[0].api_call == VALID_CALL


async def test_hallucination_did_you_mean_accepted_and_revalidated(make_app):
    app = make_app([" " + HALLUCINATED_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        assert main.proposal.verdict.kind == "hallucination"
        assert main.query_one("#badge").has_class("-hallucination")
        assert "torch.hub.load" in main.query_one("#verdict").suggestions
        await pilot.press("ctrl+n")
        await wait_for(pilot, lambda: main.proposal.verdict.kind != "hallucination")
        assert main.proposal.verdict.kind == "valid"
        assert effective_call(main.proposal) == VALID_CALL
        assert main.query_one("#code", TextArea).text == VALID_CALL
        assert main.query_one("#badge").has_class("-valid")
    saved = History().search()[0]
    assert saved.verdict == "valid" and saved.api_call == VALID_CALL


async def test_wrong_args_suggestion_chosen_from_list(make_app):
    app = make_app([" " + WRONG_ARGS_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        assert main.proposal.verdict.kind == "wrong_args"
        suggestions = main.query_one("#verdict").suggestions
        assert suggestions and all("facebookresearch/pytorchvideo" in s for s in suggestions[:1])
        options = main.query_one("#suggestions")
        options.focus()
        await pilot.press("down", "enter")  # the second suggestion
        await wait_for(pilot, lambda: main.proposal.api_call == suggestions[1])
        assert main.proposal.verdict.kind == "valid"


async def test_escape_cancels_and_new_task_cancels_the_running_one(make_app):
    long_answer = " " + " ".join(["torch.hub.load('a',"] + ["'x'"] * 60) + ")"
    app = make_app([long_answer, " " + VALID_CALL], delay=0.05)
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        backend = app.session.backend
        main.query_one(TaskInput).focus()
        await pilot.press(*"first task", "enter")
        await wait_for(pilot, lambda: len(main.query_one("#proposal").streamed_text) > 0)
        await pilot.press("escape")
        assert not main.running
        assert main.query_one("#proposal").border_subtitle == "cancelled"
        await wait_for(pilot, lambda: backend.last_stats.get("cancelled") is True)  # the model stopped
        assert main.proposal is None
        assert backend.last_stats["generated_tokens"] < 60

        # a new task while one runs: the first is cancelled, the second answered
        await ask(pilot, VIDEO_TASK)
        assert effective_call(main.proposal) == VALID_CALL


async def test_new_task_supersedes_running_one(make_app):
    app = make_app(
        [" " + " ".join(["torch.hub.load('a',"] + ["'x'"] * 80) + ")", " " + VALID_CALL], delay=0.03
    )
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        main.query_one(TaskInput).focus()
        await pilot.press(*"slow", "enter")
        await wait_for(pilot, lambda: len(main.query_one("#proposal").streamed_text) > 0)
        first_cancel = main._cancel
        await ask(pilot, VIDEO_TASK)
        assert first_cancel.is_set()
        assert main.proposal.task == VIDEO_TASK and main.proposal.verdict.kind == "valid"


async def test_copy_without_any_confirmable_clipboard_says_where_the_text_is(make_app, monkeypatch):
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = make_app([" " + VALID_CALL])
    saved = get_paths().cache / "last-copy.txt"
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        await pilot.press("ctrl+y")
        assert app.clipboard == VALID_CALL
        await wait_for(pilot, lambda: app.last_notice.startswith("call:"))
        assert app.last_notice == (
            f"call: not confirmed copied: OSC 52 sent, which your terminal may ignore; the text is in {saved}"
        )
        assert "copied to" not in app.last_notice
        assert saved.read_text() == VALID_CALL
        await pilot.click("#copy-code")
        assert app.clipboard == app.main.proposal.code
        await wait_for(pilot, lambda: app.last_notice.startswith("code:"))
        assert saved.read_text() == app.main.proposal.code


@pytest.fixture
def tmux_server(tmp_path, monkeypatch):
    """A private tmux server (its own socket under tmp_path, no config); $TMUX points the app at it, as
    inside a tmux pane. Yields the argv prefix that talks to it; the server is killed afterwards."""
    if shutil.which("tmux") is None:
        pytest.skip("tmux is not installed (apt-get install tmux)")
    sock = tmp_path / "tmux.sock"
    tmux = ["tmux", "-S", str(sock), "-f", "/dev/null"]
    subprocess.run([*tmux, "new-session", "-d", "-s", "t", "-x", "80", "-y", "24"], check=True, timeout=10)
    pid = subprocess.run([*tmux, "display", "-p", "#{pid}"], capture_output=True, text=True).stdout.strip()
    monkeypatch.setenv("TMUX", f"{sock},{pid},0")
    yield tmux
    subprocess.run([*tmux, "kill-server"], capture_output=True, timeout=10)


async def test_copy_inside_tmux_lands_in_the_tmux_buffer_and_the_tool(
    make_app, monkeypatch, tmp_path, tmux_server
):
    out = tmp_path / "clip.txt"
    tool = tmp_path / "bin" / "xclip"
    tool.parent.mkdir()
    tool.write_text(f"#!/bin/sh\ncat > {out}\n")
    tool.chmod(0o755)
    monkeypatch.setenv("PATH", f"{tool.parent}:/usr/bin:/bin")
    monkeypatch.setenv("DISPLAY", ":99")
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        await pilot.press("ctrl+y")
        await wait_for(pilot, lambda: "xclip" in app.last_notice)
        # tmux 3.3 has allow-passthrough off by default: no passthrough is claimed
        assert (
            app.last_notice
            == "call: copied to the tmux buffer (prefix+] pastes it) and xclip; OSC 52 also sent"
        )
        buffer = subprocess.run([*tmux_server, "show-buffer"], capture_output=True, text=True).stdout
        assert buffer == VALID_CALL
        subprocess.run([*tmux_server, "set-option", "-g", "allow-passthrough", "on"], check=True)
        await pilot.click("#copy-code")
        await wait_for(pilot, lambda: app.last_notice.startswith("code:"))
        assert app.last_notice.endswith("; OSC 52 (tmux passthrough) also sent")
        buffer = subprocess.run([*tmux_server, "show-buffer"], capture_output=True, text=True).stdout
        assert buffer == app.main.proposal.code
        assert out.read_text() == app.main.proposal.code


async def test_copy_of_a_proposal_that_is_not_valid_asks_once(make_app):
    app = make_app([" " + HALLUCINATED_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("n")
        assert app.clipboard == ""
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        await pilot.press("y")
        assert app.clipboard == HALLUCINATED_CALL
        await pilot.press("ctrl+g")  # confirmed once for this proposal: no second question
        assert not isinstance(app.screen, ConfirmScreen)
        assert app.clipboard == app.main.proposal.code


async def test_an_incomplete_verdict_has_its_own_badge_and_copy_asks_first(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        badge = main.query_one("#badge")
        assert badge.has_class("-valid")
        valid_colour = badge.styles.background
        proposal = replace(main.proposal, verdict=incomplete(main.proposal.verdict, ["src", "dst"]))
        main.show_proposal(proposal)  # what the pipeline hands over when Proposal.needs is not empty
        await pilot.pause()
        assert badge.has_class("-incomplete") and not badge.has_class("-valid")
        shown = str(badge.render())
        assert "incomplete" in shown and "needs: src, dst" in shown
        assert "needs" not in str(main.query_one("#diagnostics").render())  # said once, on the badge
        assert badge.styles.background != valid_colour  # app.tcss: #badge.-incomplete, a colour of its own
        await pilot.press("ctrl+y")
        assert isinstance(app.screen, ConfirmScreen)
        assert app.screen.question == (
            "The verdict is incomplete: this call still has placeholders to fill in (needs: src, dst)."
        )
        await pilot.press("n")
        assert app.clipboard == ""


async def test_history_screen_searches_and_reasks(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        await ask(pilot, "detect objects in street photos")
        await pilot.press("ctrl+r")
        screen = app.screen
        table = screen.query_one(DataTable)
        assert [e.task for e in screen.entries] == ["detect objects in street photos", VIDEO_TASK]
        await pilot.press(*"classify")
        assert [e.task for e in screen.entries] == [VIDEO_TASK] and table.row_count == 1
        before = app.main.finished
        await pilot.press("down", "enter")
        await wait_for(pilot, lambda: app.main.finished > before)
        assert app.screen is app.main
        assert app.main.proposal.task == VIDEO_TASK
        assert len(app.session.backend.calls) == 3


async def test_history_detail_keeps_the_fit_judgment(make_app):
    """The history screen's detail of a saved answer says what the answer said: nothing fits first, with the
    call named the nearest (issue 38); an answer saved before the fit judgment with the old out-of-pool flag
    ("match": "weak") reads as unsure; an answer not judged has no fit line."""
    from gorilla_tui.types import FIT_LINES

    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        saved = app.main.proposal.to_dict()
        assert saved["fit"] == ""  # the scripted backend cannot score text: not judged
        call = saved["api_call"]
        nothing = {**saved, "fit": "nothing", "api_call": "", "nearest_call": call}
        app.session.history.add("book a flight from Berlin to Rome", nothing)
        old = {k: v for k, v in saved.items() if k not in ("fit", "fit_line")} | {"match": "weak"}
        app.session.history.add("order a pizza", old)
        await pilot.press("ctrl+r")
        await pilot.pause()
        screen = app.screen
        assert [e.fit for e in screen.entries] == ["unsure", "nothing", ""]
        detail = screen.query_one("#history-detail")
        screen.query_one(DataTable).move_cursor(row=1)
        await pilot.pause()
        lines = str(detail.render()).splitlines()
        assert lines[1] == f"✘ {FIT_LINES['nothing']}" and lines[2].startswith(f"nearest: {call}")
        screen.query_one(DataTable).move_cursor(row=0)
        await pilot.pause()
        assert str(detail.render()).splitlines()[-1] == FIT_LINES["unsure"]
        screen.query_one(DataTable).move_cursor(row=2)
        await pilot.pause()
        assert VIDEO_TASK in str(detail.render()) and not any(
            x in str(detail.render()) for x in FIT_LINES.values()
        )


async def test_up_and_down_recall_earlier_tasks(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "first task")
        await ask(pilot, "second task")
        task_input = app.main.query_one(TaskInput)
        task_input.value = "draft"
        await pilot.press("up")
        assert task_input.value == "second task"
        await pilot.press("up")
        assert task_input.value == "first task"
        await pilot.press("down", "down")
        assert task_input.value == "draft"


async def test_recall_comes_from_saved_history(make_app):
    History().add("an older task from yesterday")
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        # the history is read after the first paint (App._start_loading, which also sets on_warning): one
        # pause() was not always enough for it on a busy machine
        await wait_for(pilot, lambda: app.session.history.on_warning is not None)
        await pilot.press("up")
        assert app.main.query_one(TaskInput).value == "an older task from yesterday"


async def test_multiline_paste_is_joined_with_a_notice(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        task_input = app.main.query_one(TaskInput)
        task_input.post_message(events.Paste("classify video\n\nclips on a phone\n"))
        await pilot.pause()
        assert task_input.value == "classify video clips on a phone"
        assert app.last_notice == "pasted 3 lines (1 blank): joined into one line with spaces"


async def test_backend_error_is_shown_and_the_app_keeps_running(make_app):
    app = make_app([" " + VALID_CALL], n_ctx=64)  # the prompt cannot fit a 64-token context
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        panel = app.main.query_one("#proposal")
        assert panel.border_subtitle == "error"
        assert "Error:" in str(panel.query_one("#stream").render())
        assert app.main.query_one("#status").state_kind == "error"
        await pilot.press("f1")  # still answering keys
        assert isinstance(app.screen, HelpScreen)


async def test_hit_enter_shows_the_full_doc(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        app.main.query_one("#hits-table").focus()
        await pilot.press("enter")
        assert isinstance(app.screen, DocScreen)
        assert app.screen.doc.id == app.main.query_one("#hits").hits[0].doc.id
        await pilot.press("escape")
        assert app.screen is app.main


async def test_help_lists_every_key(make_app):
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f1")
        assert isinstance(app.screen, HelpScreen)
        rows = app.screen.rows
        shown = {(key, what) for _, key, what in rows}
        for b in [*type(app).BINDINGS, *type(app.main).BINDINGS, *TaskInput.BINDINGS]:
            assert (b.key.replace(",", " / "), b.description) in shown, b.key
        keys = " ".join(key for key, _ in shown)
        for key in (
            "ctrl+q",
            "ctrl+c",
            "escape",
            "ctrl+y",
            "ctrl+g",
            "ctrl+n",
            "ctrl+r",
            "ctrl+o",
            "f5",
            "up",
            "enter",
        ):
            assert key in keys, key
        await pilot.press("escape")
        assert app.screen is app.main


async def test_a_copy_never_carries_terminal_controls(make_app, monkeypatch):
    """A hostile doc's api_call or example code may hold escape sequences or BEL; the copied text is pasted
    into a terminal later, so they are removed before it reaches OSC 52, tmux or a clipboard tool."""
    monkeypatch.delenv("TMUX", raising=False)
    monkeypatch.delenv("DISPLAY", raising=False)
    monkeypatch.delenv("WAYLAND_DISPLAY", raising=False)
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        app.copy_text("torch.hub.load('a/b', 'c')\x1b]0;owned\x07\x1b[31m\n\tx = 1\x07", "call")
        # a control next to no white space is removed, not made a space (break-it round 24, R24-7)
        assert app.clipboard == "torch.hub.load('a/b', 'c')\n\tx = 1"
        await wait_for(pilot, lambda: app.last_notice.startswith("call"))
        assert app.last_notice.startswith("call (control characters removed): ")
        saved = get_paths().cache / "last-copy.txt"
        assert "\x1b" not in saved.read_text() and "\x07" not in saved.read_text()


async def test_a_task_without_searchable_words_says_so(make_app):
    """Break-it finding: a task of emoji alone (no BM25 term) showed an empty hits panel and "no API doc
    matched" with no word on why. The app says the task has no searchable words (a warning toast)."""
    app = make_app([" " + VALID_CALL], mode="select")
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, "🚀🔥")
        assert app.main.query_one("#hits").hits == []
        assert app.last_notice.startswith("the task has no searchable words")
        app.last_notice = ""
        await ask(pilot, VIDEO_TASK)
        assert app.main.query_one("#hits").hits and app.last_notice == ""
