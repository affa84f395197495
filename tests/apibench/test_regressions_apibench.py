"""APIBench tier of tests/tui/test_regressions.py: Regressions found by the tester: first-launch index dialog,
small terminals, hit names and column widths, example code that is not Python, the paste notice, and a refresh
waiting for another one."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import DataTable, Input, Log

from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as index_store
from gorilla_tui.tui.answer_text import code_problem
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.naming import display_name
from gorilla_tui.tui.screens.confirm import ConfirmScreen
from gorilla_tui.tui.screens.index_setup import WAITING, IndexSetupScreen
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, screen_text, wait_for


@pytest.fixture(scope="module")
def tfhub_docs(apibench):
    return load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
async def test_f8_types_a_folder_waits_for_the_lock_and_lists_failed_sources(
    apibench, gorilla_home, tmp_path, tfhub_docs
):
    mirror = tmp_path / "api"
    mirror.mkdir()
    (mirror / "torchhub_api.jsonl").symlink_to(apibench / "api" / "torchhub_api.jsonl")
    index = ApiIndex.build(tfhub_docs)
    app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=index, show_timings=False)
    async with app.run_test(size=(120, 36)) as pilot:
        await pilot.press("f8")
        await wait_for(pilot, lambda: isinstance(app.screen, IndexSetupScreen) and app.screen.is_mounted)
        await pilot.pause()
        screen = app.screen
        assert app.focused is screen.query_one("#index-from", Input)  # typing goes into the folder
        assert "APIBench api/ files" in screen_text(app)  # the offline note is on screen
        with index_store.refresh_lock():  # another refresh (e.g. a CLI run) holds the lock
            await pilot.press(*str(mirror))
            assert screen.query_one("#index-from", Input).value == str(mirror)
            await pilot.press("enter")
            await wait_for(pilot, lambda: WAITING in screen.query_one(Log).lines, timeout=10)
            assert screen.building and WAITING in str(screen.query_one("#index-reason").render())
        await wait_for(pilot, lambda: not screen.building, timeout=60)
        # torchhub came from the folder; the hubs missing from it are named, with the CLI hint
        assert app.screen is screen, "closed without saying which sources failed"
        summary = screen.summary
        assert "torchhub (94 APIs)" in summary
        assert "tensorflowhub" in summary.split("Not built:")[1]
        assert "huggingface" in summary.split("Not built:")[1]
        assert "gorilla-tui index --refresh --from DIR" in summary
        assert app.last_notice == summary
        assert "Not built:" in str(screen.query_one("#index-reason").render())
        await pilot.press("escape")
        assert app.screen is app.main
        assert "torchhub" in app.session.index.sources
        assert "docs" in app.main.query_one("#status").fields["index"]


def test_generic_api_names_are_named_after_the_identifying_argument(tfhub_docs, torchhub_docs):
    mobilenet = next(
        d
        for d in tfhub_docs
        if d.api_name == "model_id"
        and d.api_call
        == "hub.load('https://tfhub.dev/google/imagenet/mobilenet_v2_130_224/classification/5')"
    )
    assert display_name(mobilenet) == "imagenet/mobilenet_v2_130_224/classification/5"
    generic = [d for d in tfhub_docs if d.api_name == "model_id"]
    assert len(generic) > 100
    names = [display_name(d) for d in generic]
    assert sum(n == "model_id" for n in names) <= 1  # one entry has no handle in its api_call
    assert all(n in d.api_call for n, d in zip(names, generic, strict=True) if n != "model_id")
    deeplab = next(d for d in torchhub_docs if d.api_name == "torch.hub.load" and "deeplabv3" in d.api_call)
    assert display_name(deeplab).startswith("deeplabv3_")
    named = next(d for d in torchhub_docs if d.api_name == "slow_r50")
    assert display_name(named) == "slow_r50"  # a real api_name is kept


async def test_hits_table_shows_derived_names_and_uses_the_width(tfhub_docs):
    index = ApiIndex.build(tfhub_docs)
    app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=index, show_timings=False)
    hits = index.search("classify images with mobilenet v2 130 224", k=5)
    assert any(h.doc.api_name == "model_id" for h in hits)
    widths = {}
    for size in ((120, 36), (200, 36)):
        async with app.run_test(size=size) as pilot:
            panel = app.main.query_one("#hits")
            panel.set_hits(hits)
            await pilot.pause()
            table = panel.query_one(DataTable)
            col = [str(c.label) for c in table.columns.values()].index("api")  # after the source column
            names = [str(table.get_cell_at((r, col))) for r in range(table.row_count)]
            assert "model_id" not in names
            assert names == [display_name(h.doc) for h in hits]
            columns = list(table.columns.values())
            used = sum(c.get_render_width(table) for c in columns)
            assert panel.content_size.width - 2 <= used <= panel.content_size.width
            widths[size] = columns[col].width
        app = create_app(Settings(), backend=ScriptedBackend([" x"]), index=index, show_timings=False)
    assert widths[(200, 36)] > widths[(120, 36)] >= 15  # the source column (hybrid retrieval) takes its share


async def test_example_code_that_is_not_python_is_flagged_and_run_asks_twice(make_app, apibench):
    hf = load_jsonl(apibench / "api" / "huggingface_api.jsonl", "huggingface").docs
    doc = next(d for d in hf if "from_pretrained(facebook/dpr-question" in d.example_code)
    problem = code_problem(doc.example_code)
    assert problem and problem.endswith("syntax error")
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=(120, 36)) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        assert not main.query_one("#code-note").display  # valid code: no note
        bad = replace(main.proposal, code=doc.example_code, code_source="example_code")
        main.show_proposal(bad)
        await pilot.pause()
        note = main.query_one("#code-note")
        assert note.display
        assert f"this example code from the doc is not valid Python: {problem}" in str(note.render())
        assert "not valid Python" in screen_text(app)
        await pilot.press("ctrl+g")  # copy still works (the verdict is valid: no question)
        assert app.clipboard == doc.example_code
        await pilot.press("f5", "y")
        assert isinstance(app.screen, ConfirmScreen) and "not valid Python" in app.screen.question
        await pilot.press("n")
        assert app.screen is main
