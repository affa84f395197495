"""APIBench tier of tests/tui/test_likelihood.py: How select mode chose, in the TUI: likelihood scores and the
chosen-hit marker in the hits panel, the "chosen by …" line of the proposal panel (real Pipeline, real Torch
Hub pool, scripted backends)."""

from __future__ import annotations

from textual.widgets import DataTable

from gorilla_tui.config import Settings
from gorilla_tui.model import choice
from gorilla_tui.model.likelihood import scoring_context
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.tui.answer_text import choice_note
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.doc import DocScreen
from gorilla_tui.tui.widgets.hits import CHOSEN, CHOSEN_STYLE
from tests.tui.conftest import VIDEO_TASK, ask, screen_text
from tests.tui.test_likelihood import SIZE, _row_texts


class ContextScorer(ScriptedBackend):
    """A ScriptedBackend that can score (so select mode goes by likelihood): log p(task | context) is
    `scores[context]`, -100.0 for a context not in the table; every scored context is recorded."""

    def __init__(self, scores: dict[str, float]) -> None:
        super().__init__(["unused: select by likelihood never calls complete()"])
        self.scores = scores
        self.scored: list[str] = []

    def loglikelihoods(self, contexts, continuation, cancel=None) -> list[float]:
        self.scored += contexts
        return [self.scores.get(c, -100.0) for c in contexts]


async def test_likelihood_scores_and_the_chosen_hit_are_shown(torchhub_index, monkeypatch):
    # the display of a pure likelihood choice (the default rule fuses it with the BM25 rank: tests/apibench/
    # test_choice.py); with 3 hits no fusion lets hit 3 win, so pin the rule this screen test is about
    monkeypatch.setattr(choice, "CHOICE_RULE", "likelihood")
    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": "likelihood"})  # the manifests' rule
    hits = torchhub_index.search(VIDEO_TASK, k=5)
    assert len(hits) >= 3
    # the third BM25 hit is the most likely one; the others get distinct, lower scores
    scores = {scoring_context(h.doc): -60.0 - 7.25 * i for i, h in enumerate(hits)}
    winner = hits[2]
    scores[scoring_context(winner.doc)] = -41.24
    backend = ContextScorer(scores)
    app = create_app(Settings(mode="select"), backend=backend, index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        proposal = main.proposal
        assert proposal.select_by == "likelihood" and not backend.calls  # scored, no generation
        assert proposal.api_call == winner.doc.api_call.strip()
        assert len(backend.scored) == len(hits)

        panel = main.query_one("#hits")
        assert panel.chosen == 2 and panel.scored
        table = panel.query_one(DataTable)
        assert [str(c.label) for c in table.columns.values()][:3] == ["#", "bm25", "lm"]
        rows = _row_texts(table)
        assert len(rows) == len(hits)
        for i, (row, hit) in enumerate(zip(rows, hits, strict=True)):
            lm = "-41.2" if i == 2 else f"{-60.0 - 7.25 * i:.1f}"
            assert row.startswith(f"{hit.rank} {hit.score:.2f} {lm} "), row
            assert (CHOSEN in row) == (i == 2), row
        assert all(c.style == CHOSEN_STYLE for c in table.get_row_at(2))
        assert not any(getattr(c, "style", "") for c in table.get_row_at(0))
        assert "lm = log p(task | doc)" in panel.border_subtitle and "chosen" in panel.border_subtitle

        text = screen_text(app)
        assert "-41.2" in text and "-67.2" in text  # the scores are on screen
        chosen_lines = [line for line in text.splitlines() if CHOSEN.strip() + " slow_r50" in line]
        assert chosen_lines, text  # the marker is on the third hit's row (slow_r50), not the first
        assert not any(CHOSEN.strip() + " slowfast_r50" in line for line in text.splitlines())
        note = f"chosen by model likelihood among {len(hits)} hits: hit 3, lm -41.2"
        assert note[:40] in text  # the rule and the hit count; the panel cuts a long line with an ellipsis
        assert choice_note(proposal) == note

        # Enter on a hit shows its likelihood score in the full doc
        table.focus()
        table.move_cursor(row=2)
        await pilot.press("enter")
        await pilot.pause()
        assert isinstance(app.screen, DocScreen)
        assert "-41.24 nats, log p(task | doc)" in screen_text(app)
        await pilot.press("escape")

        # a small terminal keeps the call and the verdict; the choice line goes first
        await pilot.resize_terminal(40, 12)
        await pilot.pause()
        text = screen_text(app)
        assert "torch.hub.load(" in text and "✔ valid —" in text
        assert "chosen by model likelihood" not in text
