"""Pilot test of hybrid retrieval in the TUI: an index built at first launch answers at once (BM25), embeds
its docs in the background with a status-bar note, turns hybrid, and the hits panel shows each hit's
source."""

from __future__ import annotations

import shutil

from textual.widgets import DataTable

from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.tui.app import create_app
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, wait_first_launch, wait_for

SIZE = (120, 36)


async def test_an_index_built_in_the_tui_turns_hybrid_in_the_background(apibench, dense, tmp_path):
    mirror = tmp_path / "mirror"  # Torch Hub only: the other hubs are not in it, python-env is BM25
    mirror.mkdir()
    shutil.copy(apibench / "api" / "torchhub_api.jsonl", mirror)
    settings = Settings(mirrors=[str(mirror)])  # first launch builds from it, no dialog
    app = create_app(settings, backend=ScriptedBackend([" " + VALID_CALL] * 2), show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await wait_first_launch(pilot)
        status = app.main.query_one("#status")
        seen: set[str] = set()

        def hybrid() -> bool:
            seen.add(status.fields["index"])
            return status.fields["index"].endswith("· hybrid")

        await wait_for(pilot, hybrid, timeout=600)
        assert (
            any("embedding" in label for label in seen) or app.session.index.dense_state()["state"] == "ready"
        )
        await ask(pilot, VIDEO_TASK, timeout=60)
        table = app.main.query_one("#hits-table", DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert "source" in labels
        sources = {str(table.get_row_at(i)[labels.index("source")]) for i in range(table.row_count)}
        assert table.row_count and sources <= {"torch", "python"}
