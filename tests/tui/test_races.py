"""Races between the TUI's thread workers and its widgets (brief raceaudit): each test drives one race
deterministically (a held lock, a gated call, an exit while a worker runs), never with a sleep."""

from __future__ import annotations

import asyncio
import threading
import time
from dataclasses import replace

import pytest
from textual.widgets import Input, Log

from gorilla_tui.config import Settings
from gorilla_tui.history import History
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.store import versions as store
from gorilla_tui.tui.answer_text import effective_call
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.index_setup import WAITING, IndexSetupScreen
from gorilla_tui.tui.screens.run import RunScreen
from tests.conftest import SMALL_POOL
from tests.tui.conftest import HALLUCINATED_CALL, VALID_CALL, VIDEO_TASK, ask, wait_for

SIZE = (120, 36)


@pytest.mark.slow  # a real build from the TUI's dialog
async def test_closing_the_build_dialog_during_a_build_hands_its_index_to_the_app(torchhub_index):
    """F8, build from the small pool's folder, Escape while the build waits for the refresh lock: the
    dialog's widgets are gone when the build reports. Before, its first progress line raised NoMatches in
    the worker (query_one(ProgressBar) on the removed dialog), which cut the refresh short: no index was
    published and the app kept the old one. Now the build ends and the app answers from its index."""
    app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexSetupScreen) and app.screen.is_mounted)
        dialog = app.screen
        dialog.query_one("#index-from", Input).value = str(SMALL_POOL)
        with store.refresh_lock():  # another refresh runs: the build waits for it, the dialog says so
            await pilot.press("ctrl+b")
            await wait_for(pilot, lambda: WAITING in dialog.query_one(Log).lines, timeout=60)
            await pilot.press("escape")  # "it keeps going if you close this"
            assert app.screen is app.main and not dialog.is_attached and dialog.building
        await wait_for(pilot, lambda: app.session.index is not torchhub_index, timeout=120)
        index = app.session.index
        assert {d.source for d in index.docs} >= {"torchhub", "tensorflowhub", "huggingface"}
        assert len(index.docs) > len(torchhub_index.docs) and index.path is not None
        assert app.main.query_one("#status").fields["index"] == app.session.index_label
        assert app.last_notice.startswith("Built the API pool: ")
        assert dialog.built is index and not dialog.building


async def test_quitting_during_a_sandbox_run_stops_it_and_records_it(make_app):
    """Ctrl+Q while F5's run prints and sleeps: the run screen goes with the app (on_unmount stops the run),
    and the worker's last hop to the UI thread found no screen (NoMatches '#run-state') or no app
    ("App is not running"), so the run was never recorded in the history. Now it is, as stopped."""
    app = make_app([" " + HALLUCINATED_CALL])
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        code = "import time\nprint('start', flush=True)\ntime.sleep(30)"
        app.main.proposal = replace(app.main.proposal, code=code)
        await pilot.press("f5", "y", "y")  # run, and run anyway (the verdict is not valid)
        assert isinstance(app.screen, RunScreen)
        run = app.screen
        await wait_for(pilot, lambda: "start" in run.query_one(Log).lines, timeout=60)
        history, task_id = app.session.history, app.main.task_id
        assert history.runs(task_id) == []
        await pilot.press("ctrl+q")
    assert run.cancel.is_set()
    deadline = time.monotonic() + 30  # the worker thread outlives the app: wait for its record
    while not history.runs(task_id) and time.monotonic() < deadline:
        await asyncio.sleep(0.05)
    (row,) = history.runs(task_id)
    assert row["code"] == code and row["exit_code"] is None and "start" in row["output"]
    assert row["duration_s"] < 30 and run.result is not None and run.result.stopped


async def test_a_did_you_mean_check_that_ends_after_a_new_ask_does_not_replace_its_answer(make_app):
    """Ctrl+N on a hallucination starts the re-validation in a worker; a new task asked before it ends got
    the old, re-validated proposal over its own answer (MainScreen.proposal too, so Ctrl+Y copied the
    old call). The check is held at its start (a gate around the real Session.accept_suggestion) until the
    new answer is in; then released: the new answer stays, and the accepted call is saved to its task."""
    app = make_app([" " + HALLUCINATED_CALL, " " + VALID_CALL])
    entered, release = threading.Event(), threading.Event()
    accept = app.session.accept_suggestion

    def gated(proposal, suggestion):
        entered.set()
        release.wait(60)
        return accept(proposal, suggestion)

    app.session.accept_suggestion = gated
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        first_id = main.task_id
        assert main.proposal.verdict.kind == "hallucination"
        await pilot.press("ctrl+n")
        await wait_for(pilot, entered.is_set)
        await ask(pilot, "load a video classification model from the hub")
        second = main.proposal
        assert second.verdict.kind == "valid" and main.task_id != first_id
        release.set()
        await wait_for(pilot, lambda: "did-you-mean check ended after a new task" in app.last_notice)
        assert main.proposal is second and effective_call(main.proposal) == VALID_CALL
        assert main.query_one("#badge").has_class("-valid")
        assert main.query_one("#proposal").border_subtitle != "did-you-mean accepted, re-validated"
    first = History().get(first_id)
    assert first.verdict == "valid" and first.api_call == VALID_CALL  # accepted for the task it was for


async def test_a_status_update_after_the_screens_are_gone_is_ignored(make_app):
    """A worker's hop to the UI thread (call_from_thread(app.status, ...): the embedding's progress, a first
    launch's next source) can run while the app shuts down, after Textual emptied the screen stack: the
    status bar then raised IndexError (self.main: screen_stack[0]) into the worker.
    Driven here by calling them once the app has exited, its screen stack empty."""
    app = make_app([" x"])
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, lambda: app.main.query_one("#status").fields["state"] == "ready")
    assert app.screen_stack == []
    app.status(index="embedding 10/20")
    app.set_state("ready", "ready")


async def test_an_answer_that_ends_while_a_modal_is_up_is_shown_under_it(make_app):
    """The ask worker's events (hits, tokens, verdict, AskEnded) reach MainScreen while F1's help screen
    is on top: they must land in the main screen's widgets, not fail on the modal's. The ask is held
    before the model (a gate around the real Session.wait_backend) until the help screen is up."""
    from textual.widgets import TextArea

    from gorilla_tui.tui.screens.help import HelpScreen

    app = make_app([" " + VALID_CALL])
    entered, release = threading.Event(), threading.Event()
    wait_backend = app.session.wait_backend

    def gated(cancel):
        entered.set()
        release.wait(60)
        return wait_backend(cancel)

    app.session.wait_backend = gated
    async with app.run_test(size=SIZE) as pilot:
        main = app.main
        main.query_one("#task").value = VIDEO_TASK
        main.query_one("#task").focus()
        await pilot.press("enter")
        await wait_for(pilot, entered.is_set)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        release.set()
        await wait_for(pilot, lambda: main.finished == 1)
        await pilot.pause()
        assert isinstance(app.screen, HelpScreen)  # still on top
        assert main.proposal is not None and main.proposal.verdict.kind == "valid"
        assert main.query_one("#code", TextArea).text == f"import torch\n{VALID_CALL}"  # with its import
        assert main.query_one("#badge").has_class("-valid")
        assert main.query_one("#status").fields["state"].startswith("answered")


async def test_a_model_error_posted_while_a_modal_is_up_reaches_the_panel_under_it(torchhub_index, tmp_path):
    """LoadState("model", "error") from the load worker while F1's help screen is on top (the load is held
    by a gate around the real Session.load_backend until the modal is up): the app writes the error into
    the main screen's proposal panel (App.main is the bottom screen), not into the modal."""
    from gorilla_tui.tui.screens.help import HelpScreen

    missing = tmp_path / "absent.gguf"
    app = create_app(Settings(model=str(missing)), index=torchhub_index, show_timings=False)
    entered, release = threading.Event(), threading.Event()
    load_backend = app.session.load_backend

    def gated():
        entered.set()
        release.wait(60)
        return load_backend()

    app.session.load_backend = gated
    async with app.run_test(size=SIZE) as pilot:
        await wait_for(pilot, entered.is_set)
        await pilot.press("f1")
        await wait_for(pilot, lambda: isinstance(app.screen, HelpScreen))
        release.set()
        status = app.main.query_one("#status")
        await wait_for(pilot, lambda: status.state_kind == "error")
        assert isinstance(app.screen, HelpScreen)
        shown = str(app.main.query_one("#proposal").query_one("#stream").render())
        assert "the model could not be loaded" in shown and missing.name in shown
        assert app.last_notice.startswith("model not loaded: ")


async def test_a_task_asked_before_the_history_is_read_stays_in_the_recall(make_app, monkeypatch):
    """CI (stress run of tests/tui, test_up_and_down_recall_earlier_tasks): the app reads the history for
    up/down recall after the first paint (App._start_loading, call_after_refresh); on a busy machine the
    first ask came before it, while its worker had not saved the task yet, and set_recall replaced the
    recall list with the history's (empty): Up no longer found the first task. Driven here by running
    _start_loading after that ask, with the ask's history.add held by a gate."""
    from gorilla_tui.tui.app import GorillaApp
    from gorilla_tui.tui.widgets.task_input import TaskInput

    start_loading = GorillaApp._start_loading
    monkeypatch.setattr(GorillaApp, "_start_loading", lambda self: None)  # run by hand below
    app = make_app([" " + VALID_CALL, " " + VALID_CALL])
    app.session.history.add("a task from yesterday")
    entered, release = threading.Event(), threading.Event()
    add = app.session.history.add

    def gated(task, *args, **kwargs):
        entered.set()
        release.wait(60)
        return add(task, *args, **kwargs)

    app.session.history.add = gated
    async with app.run_test(size=SIZE) as pilot:
        task_input = app.main.query_one(TaskInput)
        task_input.value = "first task"
        task_input.focus()
        await pilot.press("enter")
        await wait_for(pilot, entered.is_set)  # asked, not saved yet
        start_loading(app)  # the history is read now: it does not hold "first task"
        release.set()
        await wait_for(pilot, lambda: app.main.finished == 1)
        await ask(pilot, "second task")
        task_input.value = "draft"
        await pilot.press("up")
        assert task_input.value == "second task"
        await pilot.press("up")
        assert task_input.value == "first task"
        await pilot.press("up")
        assert task_input.value == "a task from yesterday"
        await pilot.press("down", "down", "down")
        assert task_input.value == "draft"
