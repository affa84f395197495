"""Each call once among the hits as shown (types.group_by_call): APIBench's TensorFlow Hub pool has 696 docs
but 80 distinct api_calls, and the hits panel, `search` and `ask` showed one call up to five times. The
hits themselves, and the choice among them, are unchanged: JSON keeps every hit."""

from __future__ import annotations

import json
from collections import Counter
from pathlib import Path

import pytest
from textual.widgets import DataTable

from gorilla_tui import services
from gorilla_tui.cli import ask as ask_cli
from gorilla_tui.cli import main
from gorilla_tui.config import Settings
from gorilla_tui.model.grammar import unique_options
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import shared_prefix
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.tui.app import create_app
from gorilla_tui.types import call_key
from tests.tui.conftest import ask

#: Five hits of one call (universal-sentence-encoder/4, five docs), and five hits of three calls.
ONE_CALL_TASK = "embed sentences so that I can compare how similar they are"
USE4 = "hub.load('https://tfhub.dev/google/universal-sentence-encoder/4')"
MIXED_TASK = "classify images of flowers"


@pytest.fixture(scope="module")
def tfhub_index(apibench: Path) -> ApiIndex:
    """A BM25 index of the real TensorFlow Hub API pool of APIBench (696 docs)."""
    return ApiIndex.build(load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs)


def test_search_text_shows_each_call_once_and_json_keeps_every_hit(
    apibench: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "250")  # one table row per line
    assert main(["index", "--refresh", "--from", str(apibench / "api"), "--only", "tensorflowhub"]) == 0
    capsys.readouterr()
    for task in (ONE_CALL_TASK, MIXED_TASK):
        assert main(["search", task, "-k", "5", "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)["hits"]
        assert len(hits) == 5 and [h["rank"] for h in hits] == [1, 2, 3, 4, 5]  # every hit, as before
        counts = Counter(h["api_call"] for h in hits)
        assert [h["call_hits"] for h in hits] == [counts[h["api_call"]] for h in hits]
        assert len(counts) < 5  # the pool repeats its calls
        assert main(["search", task, "-k", "5"]) == 0
        table = capsys.readouterr().out
        rows = [line for line in table.splitlines() if "tensorflowhub" in line]
        assert len(rows) == len(counts)  # each call once
        first = {}
        for h in hits:
            first.setdefault(h["api_call"], h)
        for row, (call, h) in zip(
            rows, first.items(), strict=True
        ):  # in the order of each call's best-ranked hit
            assert table.count(call) == 1 and call in row
            cells = [c.strip() for c in row.split("│")]
            assert cells[1] == str(h["rank"])  # the best-ranked doc's row
            assert cells[3] == (f"x{counts[call]}" if counts[call] > 1 else "")
        assert "docs xN: this call stands for N of the hits" in table
    assert main(["search", ONE_CALL_TASK, "-k", "5"]) == 0
    assert "x5" in capsys.readouterr().out


def test_ask_panel_lists_each_call_once_and_the_choice_saw_every_hit(
    tfhub_index: ApiIndex, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")
    settings = Settings(mode="select", select_by="grammar", k=5)
    mixed = tfhub_index.search(MIXED_TASK, k=5)
    second = next(h.doc.call for h in mixed if call_key(h.doc) != call_key(mixed[0].doc))
    # the text all options share goes into the prompt (pipeline._choose_by_grammar): the model writes the rest
    shared = shared_prefix(unique_options([h.doc.call for h in mixed]))
    pipeline = services.build_pipeline(settings, tfhub_index, ScriptedBackend([second[len(shared) :]]))
    proposal = pipeline.ask(MIXED_TASK)
    assert [h.doc.id for h in proposal.hits] == [h.doc.id for h in mixed]  # retrieval unchanged
    assert proposal.api_call == second and proposal.verdict.kind == "valid"
    ask_cli._print_panel(proposal.to_dict(), proposal.hits)
    out = capsys.readouterr().out
    shown = out[out.index("hits:") :]
    counts = Counter(call_key(h.doc) for h in mixed)
    for h in mixed:
        assert shown.count(h.doc.api_call) == 1
    repeated = next(h for h in mixed if counts[call_key(h.doc)] > 1)
    line = next(line for line in shown.splitlines() if repeated.doc.api_call in line)
    assert line.replace("│", " ").split()[:3] == [
        str(repeated.rank),
        f"{repeated.score:.2f}",
        f"x{counts[call_key(repeated.doc)]}",
    ]


async def test_hits_panel_shows_each_call_once_with_its_count(tfhub_index: ApiIndex) -> None:
    expected = tfhub_index.search(ONE_CALL_TASK, k=5)
    assert [h.doc.call for h in expected] == [USE4] * 5
    app = create_app(
        Settings(mode="select", select_by="grammar", k=5),
        backend=ScriptedBackend([USE4, USE4]),
        index=tfhub_index,
        show_timings=False,
    )
    async with app.run_test(size=(140, 36)) as pilot:
        await ask(pilot, ONE_CALL_TASK)
        panel = app.main.query_one("#hits")
        table = app.main.query_one("#hits-table", DataTable)
        assert [h.doc.id for h in panel.hits] == [h.doc.id for h in expected]  # every hit is kept
        assert [h.doc.id for h in app.main.proposal.hits] == [h.doc.id for h in expected]
        assert table.row_count == 1 and [str(c) for c in table.get_row_at(0)][:3] == [
            "1",
            f"{expected[0].score:.2f}",
            "x5",
        ]
        assert panel.border_subtitle.startswith("5 hits · 1 call · ▶ chosen")
        assert str(table.get_row_at(0)[-2]).startswith("▶ ")  # the chosen call's row
        table.focus()
        await pilot.press("enter")  # the row's doc: the best-ranked of the five
        await pilot.pause()
        assert app.screen.doc is expected[0].doc
        await pilot.press("escape")

        await ask(pilot, MIXED_TASK)
        mixed = tfhub_index.search(MIXED_TASK, k=5)
        counts = Counter(call_key(h.doc) for h in mixed)
        assert table.row_count == len(counts) < 5
        firsts = [h for h in mixed if h is next(x for x in mixed if call_key(x.doc) == call_key(h.doc))]
        for row, hit in enumerate(firsts):
            cells = [str(c) for c in table.get_row_at(row)]
            n = counts[call_key(hit.doc)]
            assert cells[0] == str(hit.rank) and cells[2] == (f"x{n}" if n > 1 else "")
