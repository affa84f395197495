"""APIBench tier of tests/tui/test_screens.py: Pilot tests of settings, index setup, model loading states, the
sandbox run and the first paint."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.tui.app import create_app
from tests.tui.conftest import wait_first_launch
from tests.tui.test_screens import SIZE


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
async def test_first_launch_builds_the_sources_of_a_configured_mirror(apibench, gorilla_home, tmp_path):
    """`mirrors` in config.toml names a local folder: its sources are built on first launch (no network)."""
    from gorilla_tui.model.scripted import ScriptedBackend

    mirror = tmp_path / "api"
    mirror.mkdir()
    (mirror / "torchhub_api.jsonl").symlink_to(apibench / "api" / "torchhub_api.jsonl")
    settings = Settings(mirrors=[str(mirror)])
    app = create_app(settings, backend=ScriptedBackend([" x"]), show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_first_launch(pilot)
        assert app.screen is app.main
        assert {"torchhub", "python-env"} <= set(app.session.index.sources)
        assert [name for name, _ in app.first_launch.missing] == ["huggingface", "tensorflowhub", "apizoo"]
        assert not app.first_launch.network
        assert "torchhub" in app.main.query_one("#status").fields["index"]
