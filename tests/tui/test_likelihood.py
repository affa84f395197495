"""How select mode chose, in the TUI: likelihood scores and the chosen-hit marker in the hits panel, the
"chosen by …" line of the proposal panel (real Pipeline, real Torch Hub pool, scripted backends)."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import DataTable

from gorilla_tui.config import Settings
from gorilla_tui.model import likelihood
from gorilla_tui.model.likelihood import scoring_context
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.screens.doc import DocScreen
from gorilla_tui.tui.session import choice_note, chosen_hit
from gorilla_tui.tui.widgets.hits import CHOSEN, CHOSEN_STYLE
from gorilla_tui.types import Proposal, Verdict
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, screen_text

SIZE = (120, 36)


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


def _row_texts(table: DataTable) -> list[str]:
    return [" ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]


async def test_likelihood_scores_and_the_chosen_hit_are_shown(torchhub_index, monkeypatch):
    # the display of a pure likelihood choice (the default rule fuses it with the BM25 rank: tests/apibench/
    # test_choice.py); with 3 hits no fusion lets hit 3 win, so pin the rule this screen test is about
    monkeypatch.setattr(likelihood, "CHOICE_RULE", "likelihood")
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
        assert [str(c.label) for c in table.columns.values()][:3] == ["#", "score", "lm"]
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
        note = f"chosen by likelihood among {len(hits)} hits: hit 3, lm -41.2"
        assert note in text
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
        assert "chosen by likelihood" not in text


async def test_grammar_choice_marks_the_hit_without_likelihood_scores(torchhub_index):
    hits = torchhub_index.search(VIDEO_TASK, k=5)
    # the hits' calls share "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='", which
    # the pipeline puts in the prompt: the model writes the rest, here the second hit's
    rest = hits[1].doc.api_call.split("model='", 1)[1]
    backend = ScriptedBackend([rest])
    app = create_app(Settings(mode="select"), backend=backend, index=torchhub_index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        main = app.main
        assert main.proposal.select_by == "grammar" and backend.calls
        assert main.proposal.api_call == hits[1].doc.api_call.strip()
        panel = main.query_one("#hits")
        assert panel.chosen == 1 and not panel.scored
        table = panel.query_one(DataTable)
        assert "lm" not in [str(c.label) for c in table.columns.values()]
        rows = _row_texts(table)
        assert [CHOSEN in r for r in rows] == [i == 1 for i in range(len(hits))]
        text = screen_text(app)
        assert f"chosen by grammar among {len(hits)} hits" in text
        assert "lm = log p" not in text


async def test_generate_mode_shows_no_choice(make_app):
    app = make_app([" " + VALID_CALL])  # generate mode
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        panel = app.main.query_one("#hits")
        assert panel.chosen is None and not panel.scored
        assert not app.main.query_one("#choice").has_class("-shown")
        text = screen_text(app)
        assert CHOSEN.strip() not in text and "chosen by" not in text


def test_choice_note_after_a_did_you_mean_and_with_one_candidate(torchhub_index):
    hits = [replace(h, lm_score=-50.0 - i) for i, h in enumerate(torchhub_index.search(VIDEO_TASK, k=5))]
    call = hits[0].doc.api_call.strip()
    verdict = Verdict("valid", api_call=call, matched=hits[0].doc)
    chosen = Proposal(task=VIDEO_TASK, api_call=call, code=call, verdict=verdict, hits=hits,
                      select_by="likelihood")  # fmt: skip
    assert chosen_hit(chosen) == 0
    assert choice_note(chosen) == f"chosen by likelihood among {len(hits)} hits: hit 1, lm -50.0"
    other = next(d.api_call for d in torchhub_index.docs if d.api_call not in {h.doc.api_call for h in hits})
    replaced = replace(chosen, api_call=other, code=other, code_source="did-you-mean")
    assert chosen_hit(replaced) is None
    assert choice_note(replaced).endswith(", then replaced by a did-you-mean")
    only = replace(chosen, hits=hits[:1], select_by="grammar")
    assert choice_note(only) == "the only candidate call among 1 hit: nothing to choose"
    assert (
        choice_note(replace(chosen, select_by="")) == "" and chosen_hit(replace(chosen, select_by="")) is None
    )
