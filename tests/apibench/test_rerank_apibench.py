"""APIBench tier of tests/unit/test_rerank.py: Select by likelihood: the scoring context, the choice rule,
LlamaBackend.loglikelihoods on the real model, and pipeline.ask choosing the most likely hit."""

from __future__ import annotations

import threading

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.model import choice
from gorilla_tui.model.choice import best
from gorilla_tui.model.likelihood import HEADER, LEAD, query_likelihoods, scoring_context
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import AskCancelled, Pipeline, shared_prefix
from tests.unit.test_rerank import TableScorer

SPORTS = "I want to classify sports activities in videos"


def test_scoring_context_uses_domain_functionality_and_a_clipped_description(torchhub_index):
    doc = next(d for d in torchhub_index.docs if "slowfast_r50" in d.api_call)
    ctx = scoring_context(doc)
    assert ctx.startswith(HEADER) and ctx.endswith(LEAD)
    assert f"{doc.domain}: {doc.functionality}. " in ctx
    body = ctx[len(HEADER) : -len(LEAD)]
    assert len(body) <= len(doc.domain) + len(doc.functionality) + 4 + 200
    assert doc.description[:50] in " ".join(body.split())


def test_scoring_context_of_a_doc_without_domain_falls_back_to_name_then_call(torchhub_index):
    doc = torchhub_index.docs[0]
    no_domain = type(doc)(id="x", source="s", api_call="json.loads(s)", api_name="json.loads")
    assert scoring_context(no_domain) == HEADER + "json.loads" + LEAD
    bare = type(doc)(id="y", source="s", api_call="json.loads(s)")
    assert scoring_context(bare) == HEADER + "json.loads(s)" + LEAD


def test_query_likelihoods_scores_each_distinct_context_once(torchhub_index):
    docs = torchhub_index.pool("torchhub")[:4]
    docs = docs + [docs[1]]  # the same doc twice (TF Hub has many docs that render the same)
    be = TableScorer()
    scores = query_likelihoods(be, "  classify   birds ", docs)
    assert len(scores) == 5 and scores[1] == scores[4]
    assert len(be.scored) == 4 and {c for c, _ in be.scored} == {scoring_context(d) for d in docs}
    assert {t for _, t in be.scored} == {"classify birds"}


def test_pipeline_selects_the_hit_the_scorer_likes_best(torchhub_index, monkeypatch):
    # the pure likelihood argmax (the default rule fuses it with the BM25 rank: tests/apibench/test_choice.py)
    monkeypatch.setattr(choice, "CHOICE_RULE", "likelihood")
    hits = Pipeline(Settings(mode="select", k=5), torchhub_index, TableScorer()).retrieve(SPORTS)
    assert len(hits) >= 3
    favourite = hits[2].doc  # not BM25's first
    be = TableScorer(order=[scoring_context(favourite)])
    p = Pipeline(Settings(mode="select", k=5), torchhub_index, be).ask(SPORTS)
    assert p.select_by == "likelihood" and p.api_call == favourite.api_call.strip()
    assert p.verdict.kind == "valid" and be.calls == []  # no generation at all
    assert [h.lm_score for h in p.hits] == [0.0 if h.doc is favourite else -1.0 for h in p.hits]
    assert p.to_dict()["hits"][2]["lm_score"] == 0.0 and p.to_dict()["select_by"] == "likelihood"


def test_pipeline_falls_back_to_the_grammar_when_asked_or_when_it_cannot_score(torchhub_index):
    hits = Pipeline(Settings(mode="select", k=5), torchhub_index, TableScorer()).retrieve(SPORTS)
    call = hits[2].doc.api_call.strip()
    answer = call[len(shared_prefix([h.doc.api_call.strip() for h in hits])) :]  # the grammar's part
    be = TableScorer(order=[scoring_context(hits[0].doc)])
    be.texts = [answer]
    p = Pipeline(Settings(mode="select", k=5, select_by="grammar"), torchhub_index, be).ask(SPORTS)
    assert p.select_by == "grammar" and p.api_call == call and be.scored == [] and len(be.calls) == 1
    q = Pipeline(Settings(mode="select", k=5), torchhub_index, ScriptedBackend([answer])).ask(SPORTS)
    assert q.select_by == "grammar" and q.api_call == call and all(h.lm_score is None for h in q.hits)
    g = Pipeline(Settings(mode="generate", k=5), torchhub_index, be).ask(SPORTS)
    assert g.select_by == "" and be.scored == []


def test_cancel_while_scoring_raises_and_keeps_nothing(torchhub_index):
    be = TableScorer(stop_after=2)
    cancel = threading.Event()
    with pytest.raises(AskCancelled):
        Pipeline(Settings(mode="select", k=5), torchhub_index, be).ask(SPORTS, cancel=cancel)
    assert len(be.scored) == 2


@pytest.mark.model
def test_select_by_likelihood_end_to_end_on_the_real_model(torchhub_index, gemma_backend, monkeypatch):
    # the pure likelihood argmax (the default rule fuses it with the BM25 rank: tests/apibench/test_choice.py)
    monkeypatch.setattr(choice, "CHOICE_RULE", "likelihood")
    p = Pipeline(Settings(mode="select", k=5), torchhub_index, gemma_backend).ask(SPORTS)
    assert p.select_by == "likelihood" and p.verdict.kind == "valid"
    scores = [h.lm_score for h in p.hits]
    assert all(s is not None and s < 0 for s in scores)
    assert p.api_call == p.hits[best(scores)].doc.api_call.strip()
    assert p.timings["generate"] > 0 and p.code_source == "example_code"


@pytest.mark.model
def test_a_long_task_in_a_small_n_ctx_falls_back_to_the_grammar(torchhub_index, gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    be = LlamaBackend(gemma_path, params={"n_ctx": 512, "n_threads": 1})
    # within the model's 200 words (textsafe.MODEL_TASK_WORDS), each word several tokens: too long for n_ctx
    task = SPORTS + " " + " ".join(f"with-detail-number-{i}" for i in range(120))
    p = Pipeline(Settings(mode="select", k=3), torchhub_index, be).ask(task)
    assert p.select_by == "grammar" and p.verdict.kind == "valid"
    assert any("chose with the grammar" in w for w in p.warnings)
