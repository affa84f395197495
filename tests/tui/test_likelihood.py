"""How select mode chose, in the TUI: likelihood scores and the chosen-hit marker in the hits panel, the
"chosen by …" line of the proposal panel (real Pipeline, real Torch Hub pool, scripted backends)."""

from __future__ import annotations

from dataclasses import replace

from textual.widgets import DataTable

from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.session import choice_note, chosen_hit
from gorilla_tui.tui.widgets.hits import CHOSEN
from gorilla_tui.types import Proposal, Verdict
from tests.tui.conftest import VALID_CALL, VIDEO_TASK, ask, screen_text

SIZE = (120, 36)


def _row_texts(table: DataTable) -> list[str]:
    return [" ".join(str(c) for c in table.get_row_at(r)) for r in range(table.row_count)]


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
