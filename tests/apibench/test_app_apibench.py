"""APIBench tier of tests/tui/test_app.py: Pilot tests of the main screen through create_app: real Pipeline,
real Torch Hub pool, ScriptedBackend."""

from __future__ import annotations

from textual.widgets import DataTable, TextArea

from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask
from tests.tui.test_app import SIZE


async def test_ask_shows_hits_streamed_tokens_and_verdict(make_app, torchhub_index):
    app = make_app([" " + VALID_CALL], delay=0.01)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK, type_it=True)
        main = app.main
        expected = [h.doc.id for h in torchhub_index.search(VIDEO_TASK, k=5)]
        assert [h.doc.id for h in main.query_one("#hits").hits] == expected
        table = main.query_one("#hits-table", DataTable)
        assert table.row_count == len(expected)
        # every streamed piece reached the panel, in order
        assert main.query_one("#proposal").streamed_text == " " + VALID_CALL
        assert main.proposal.verdict.kind == "valid"
        assert main.query_one("#verdict").verdict.kind == "valid"
        assert main.query_one("#badge").has_class("-valid")
        assert main.query_one("#code", TextArea).text == f"import torch\n{VALID_CALL}"  # with its import
        assert main.query_one("#code", TextArea).language == "python"
        # the matched-API card names the matched doc
        assert main.proposal.verdict.matched.id == "torchhub:77"
        card = str(main.query_one("#card").render())
        assert card  # rendered
        assert "answered: valid" in main.query_one("#status").fields["state"]
