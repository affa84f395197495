"""Break-it round 30 (F-L5): with config.toml's `hub` naming no source of the index, the TUI's status bar said
"ready" (and "· BM25") and the problem showed only after a task, as "unknown source", without config.toml or
the fix. Now the state says it and a notice gives services.hub_problem's words and fix, before any task."""

from __future__ import annotations

from tests.tui.conftest import screen_text, wait_for


async def test_a_hub_naming_no_source_is_said_before_any_task(make_app):
    app = make_app([" x"], hub="nosuch")
    async with app.run_test(size=(140, 30)) as pilot:
        await wait_for(pilot, lambda: app.last_notice != "")
        assert app.last_notice.startswith("hub 'nosuch' in config.toml is not a source of the index")
        assert 'set hub to one of them (or to "" for all)' in app.last_notice
        shown = " ".join(screen_text(app).split())
        assert "hub in config.toml is not a source" in shown, shown
        assert "not a source" in app.session.index_label and "BM25" not in app.session.index_label


async def test_a_hub_that_is_a_source_is_ready(make_app):
    app = make_app([" x"], hub="torchhub")
    async with app.run_test(size=(140, 30)) as pilot:
        await pilot.pause()
        assert app.session.hub_problem() is None
        assert "not a source" not in " ".join(screen_text(app).split())
