"""End to end through the TUI with the real embedded model and the real APIBench Torch Hub index."""

from __future__ import annotations

import pytest

from gorilla_tui.config import load_settings
from gorilla_tui.history import History
from gorilla_tui.model.probe import CRASH_ENV
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.help import HelpScreen
from tests.tui.conftest import ask, wait_for


@pytest.mark.model
async def test_real_model_answers_a_task_in_the_tui(home_with_index):
    # nothing injected: the app loads the index from the user data dir and the embedded GGUF in workers
    app = create_app(load_settings())
    async with app.run_test(size=(120, 36)) as pilot:
        status = app.main.query_one("#status")
        await wait_for(pilot, lambda: app.session.index is not None, timeout=60)
        await wait_for(pilot, lambda: app.session.backend is not None, timeout=180)
        assert status.fields["model"] == "gemma3-270m" and status.fields["kernel"] == "cpu"
        await ask(pilot, "classify the sports activities in a video", timeout=180)
        proposal = app.main.proposal
        assert proposal is not None, app.main.query_one("#proposal").streamed_text
        # select mode: the grammar lets only the hits' api_calls through, so the call is one of them
        hit_calls = [h.doc.api_call for h in proposal.hits]
        assert proposal.api_call in hit_calls
        assert proposal.verdict.kind == "valid"
        assert app.main.query_one("#proposal").streamed_text.strip()  # tokens were streamed
        assert app.main.query_one("#badge").has_class("-valid")
        await pilot.press("ctrl+y")
        assert app.clipboard == proposal.api_call
    assert History().search()[0].api_call == proposal.api_call


@pytest.mark.model
async def test_model_crash_keeps_the_tui_alive_and_the_task_in_history(home_with_index, monkeypatch):
    monkeypatch.setenv(CRASH_ENV, "always")  # every probe child dies by a real SIGSEGV
    task = "classify the sports activities in a video"
    app = create_app(load_settings())
    async with app.run_test(size=(120, 36)) as pilot:
        await wait_for(pilot, lambda: app.session.backend_error is not None, timeout=180)
        await ask(pilot, task, timeout=60)
        panel = app.main.query_one("#proposal")
        assert panel.border_subtitle == "error"
        shown = str(panel.query_one("#stream").render())
        assert "llama.cpp crashed (SIGSEGV)" in shown and "CMAKE_ARGS" in shown
        assert app.main.query_one("#status").state_kind == "error"
        await pilot.press("f1")  # the app is alive and answers keys
        assert isinstance(app.screen, HelpScreen)
    assert [e.task for e in History().search()] == [task]
