"""The choice among hits with the real embedded model (model/likelihood.py `margin`): the model's
log p(task | doc) leaves hit 1 only when it clearly prefers another hit. Real standard-library docs
(python-env as the default index reads them), a small real BM25 index, the real pipeline."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.model import choice
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex

pytestmark = pytest.mark.model


def _index(stdlib_docs, names: list[str]) -> ApiIndex:
    by_name = {d.api_name: d for d in stdlib_docs}
    return ApiIndex.build([by_name[n] for n in names])


def _ask(index: ApiIndex, backend, task: str):
    settings = Settings(mode="select", select_by="likelihood", k=5, fill=False)
    return Pipeline(settings, index, backend).ask(task)


def test_a_nat_or_two_does_not_overturn_the_first_hit(stdlib_docs, gemma_backend, monkeypatch):
    """Everyday task pw-loads: the four json functions share every word of the task; json.loads is hit 1
    and the model reads the task about a nat more likely after json.dumps. RRF gave the answer to
    json.dumps (the opposite of parsing); the margin rule keeps json.loads."""
    index = _index(stdlib_docs, ["json.loads", "json.dumps", "json.load", "json.dump"])
    task = "parse the json text i got back from the server into a dict"
    hits = index.search(task, k=5)
    assert hits[0].doc.api_name == "json.loads"

    proposal = _ask(index, gemma_backend, task)
    assert proposal.choice_rule == "margin"
    assert proposal.api_call == hits[0].doc.api_call.strip()
    lm = {h.doc.api_name: h.lm_score for h in proposal.hits}
    best = max(lm, key=lambda n: lm[n])
    assert best != "json.loads" and 0 < lm[best] - lm["json.loads"] <= choice.LM_MARGIN

    # A rule that follows the model's scores gives the answer to the likelier hit: the nat decides. (RRF, the
    # rule before, ties hit 1 and the likeliest hit when their two ranks are swapped, so whether it moved
    # depended on llama.cpp's kernel path: bench/kernel_paths.py.)
    monkeypatch.setattr(choice, "CHOICE_RULE", "likelihood")
    moved = _ask(index, gemma_backend, task)
    assert moved.api_call != hits[0].doc.api_call.strip()
    assert moved.api_call.startswith(best + "(")


def test_a_clear_preference_still_moves_the_choice(stdlib_docs, gemma_backend, monkeypatch):
    """The model still decides when it clearly prefers another hit: with LM_MARGIN below the gap the
    most likely hit is chosen, above it hit 1 stays (the same scores, the same pipeline)."""
    index = _index(stdlib_docs, ["json.loads", "json.dumps", "json.load", "json.dump"])
    task = "parse the json text i got back from the server into a dict"
    proposal = _ask(index, gemma_backend, task)
    lm = [h.lm_score for h in proposal.hits]
    top = max(range(len(lm)), key=lambda i: lm[i])
    gap = lm[top] - lm[0]
    monkeypatch.setattr(choice, "LM_MARGIN", gap / 2)
    assert _ask(index, gemma_backend, task).api_call == proposal.hits[top].doc.api_call.strip()
    monkeypatch.setattr(choice, "LM_MARGIN", gap * 2)
    assert _ask(index, gemma_backend, task).api_call == proposal.hits[0].doc.api_call.strip()


def test_margin_choice_rule():
    """Hit 1 unless another hit is more than the margin above it; ties go to the better rank."""
    assert choice.margin_choice([-50.0, -47.0, -60.0], margin=4.0) == 0
    assert choice.margin_choice([-50.0, -45.0, -44.0], margin=4.0) == 2
    assert choice.margin_choice([-50.0, -46.0], margin=4.0) == 0  # exactly the margin: kept
    assert choice.choose([-50.0, -40.0], None, "margin") == (1 if choice.LM_MARGIN < 10 else 0)
    with pytest.raises(ValueError):
        choice.margin_choice([])


def test_retrieval_ties_are_the_hits_of_hit_1s_source_within_the_tie_gap():
    f = 0.024330  # python-env's hits 1 and 2 of "when was report.pdf last modified" (BM25 / dense swapped)
    fused = [f, 0.024326, 0.023938, f, None]
    sources = ["python-env", "python-env", "python-env", "apizoo", "python-env"]
    assert choice.retrieval_ties(fused, sources) == [0, 1]  # 0.017 %: tied; 1.6 %: not; another pool: not
    assert choice.retrieval_ties([None, f], sources[:2]) == [0]  # hit 1 not ranked by the search
    assert choice.retrieval_ties([], []) == []


def test_the_model_breaks_a_retrieval_tie_and_only_a_tie():
    lm = [-61.7, -56.7, -61.8]  # os.path.basename, os.path.getmtime, os.stat (recorded, lit-mtime)
    assert choice.margin_choice(lm) == 0  # 5 nats: under LM_MARGIN
    assert choice.margin_choice(lm, ties=[0, 1]) == 1
    assert choice.margin_choice(lm, ties=[0, 2]) == 0  # the tied hit is less likely
    assert choice.margin_choice([-50.0, -50.0], ties=[0, 1]) == 0  # equal: the better rank
    assert choice.choose(lm, None, "margin", ties=[0, 1]) == 1
    assert choice.choose(lm, None, "first", ties=[0, 1]) == 0  # other rules read no ties


def test_the_pipeline_passes_the_searchs_ties_to_the_choice(stdlib_docs, gemma_backend, monkeypatch):
    """The real search's fused scores reach the choice: with every hit of the source counted as tied
    (TIE_GAP 1) the model's most likely hit is chosen; with none (TIE_GAP 0) hit 1 stays."""
    index = _index(stdlib_docs, ["json.loads", "json.dumps", "json.load", "json.dump"])
    task = "parse the json text i got back from the server into a dict"
    monkeypatch.setattr(choice, "TIE_GAP", 0.0)
    proposal = _ask(index, gemma_backend, task)
    assert all(h.fused is not None and h.fused > 0 for h in proposal.hits)
    assert proposal.api_call == proposal.hits[0].doc.api_call.strip()
    lm = [h.lm_score for h in proposal.hits]
    top = max(range(len(lm)), key=lambda i: lm[i])
    assert top != 0
    monkeypatch.setattr(choice, "TIE_GAP", 1.0)
    assert _ask(index, gemma_backend, task).api_call == proposal.hits[top].doc.api_call.strip()


def test_a_hit_the_constraints_moved_down_is_no_tie_unless_within_the_gap():
    sources = ["python-env"] * 3
    assert choice.retrieval_ties([0.0240, 0.0246, 0.02401], sources) == [0, 2]  # 0.0246: 2.5 % above
