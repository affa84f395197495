"""Select by likelihood: the scoring context, the choice rule, LlamaBackend.loglikelihoods on the real model,
and pipeline.ask choosing the most likely hit."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import ContextOverflowError, UsageError
from gorilla_tui.model import likelihood
from gorilla_tui.model.likelihood import HEADER, LEAD, best, can_score, query_likelihoods, scoring_context
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import AskCancelled, Pipeline, shared_prefix

SPORTS = "I want to classify sports activities in videos"


class TableScorer(ScriptedBackend):
    """A ScriptedBackend that can score: log-likelihood = -(position of the context in `order`), recording
    every loglikelihoods call; stops after `stop_after` contexts by setting the cancel event."""

    def __init__(self, order: list[str] | None = None, stop_after: int | None = None) -> None:
        super().__init__(["unused"])
        self.order, self.stop_after, self.scored = order or [], stop_after, []

    def loglikelihoods(self, contexts, continuation, cancel=None):
        out = []
        for c in contexts:
            if cancel is not None and cancel.is_set():
                break
            self.scored.append((c, continuation))
            hit = next((i for i, key in enumerate(self.order) if key in c), len(self.order))
            out.append(-float(hit))
            if self.stop_after is not None and len(self.scored) >= self.stop_after and cancel is not None:
                cancel.set()
        return out


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


def test_best_prefers_the_higher_score_then_the_earlier_hit():
    assert best([-3.0, -1.0, -2.0]) == 1
    assert best([-1.0, -5.0, -1.0]) == 0
    with pytest.raises(ValueError):
        best([])


def test_query_likelihoods_scores_each_distinct_context_once(torchhub_index):
    docs = torchhub_index.pool("torchhub")[:4]
    docs = docs + [docs[1]]  # the same doc twice (TF Hub has many docs that render the same)
    be = TableScorer()
    scores = query_likelihoods(be, "  classify   birds ", docs)
    assert len(scores) == 5 and scores[1] == scores[4]
    assert len(be.scored) == 4 and {c for c, _ in be.scored} == {scoring_context(d) for d in docs}
    assert {t for _, t in be.scored} == {"classify birds"}


def test_can_score_tells_the_backends_apart():
    assert not can_score(ScriptedBackend(["x"]))
    assert can_score(TableScorer())


def test_pipeline_selects_the_hit_the_scorer_likes_best(torchhub_index, monkeypatch):
    # the pure likelihood argmax (the default rule fuses it with the BM25 rank: tests/apibench/test_choice.py)
    monkeypatch.setattr(likelihood, "CHOICE_RULE", "likelihood")
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


def test_select_by_is_validated():
    with pytest.raises(UsageError, match="select_by must be one of likelihood, grammar"):
        Settings(select_by="vibes").validate()


# --- the real model --------------------------------------------------------------------------------------


def reference_loglik(llm, context: str, continuation: str) -> float:
    """log p(continuation | context) from llama-cpp-python's own high-level eval with every logit kept."""
    pre = llm.tokenize(context.encode(), add_bos=True, special=False)
    cont = llm.tokenize(continuation.encode(), add_bos=False, special=False)
    llm.reset()
    llm.eval(pre + cont)
    rows = np.array(llm.scores[len(pre) - 1 : len(pre) + len(cont) - 1], dtype=np.float64)
    top = rows.max(axis=1, keepdims=True)
    lse = top[:, 0] + np.log(np.exp(rows - top).sum(axis=1))
    return float(sum(rows[i, t] - lse[i] for i, t in enumerate(cont)))


@pytest.mark.model
def test_loglikelihoods_match_llama_cpp_and_leave_generation_intact(gemma_backend, gemma_path):
    import llama_cpp

    contexts = [
        HEADER + "Classification: image classifier.\nA user asks: ",
        HEADER + "Speech: speech recognition.\nA user asks: ",
        "Totally different start: ",
    ]
    task = "sort my holiday photos of dogs and cats"
    before = "".join(gemma_backend.complete("The capital of France is", max_tokens=6))
    got = gemma_backend.loglikelihoods(contexts, task)
    ref_llm = llama_cpp.Llama(model_path=str(gemma_path), n_ctx=512, logits_all=True, verbose=False)
    want = [reference_loglik(ref_llm, c, task) for c in contexts]
    assert got == pytest.approx(want, abs=0.5)  # batch shapes differ: float32 sums over ~10 tokens
    assert got[0] > got[1]  # an image task is likelier after an image classifier's doc
    assert gemma_backend.loglikelihoods(contexts[:1], task) == pytest.approx(got[:1], abs=1e-3)
    after = "".join(gemma_backend.complete("The capital of France is", max_tokens=6))
    assert after == before  # the KV cache bookkeeping was reset: generation is unchanged


@pytest.mark.model
def test_loglikelihoods_refuse_text_longer_than_n_ctx(gemma_backend):
    with pytest.raises(ContextOverflowError, match="n_ctx"):
        gemma_backend.loglikelihoods(["short"], "word " * 3000)


@pytest.mark.model
def test_select_by_likelihood_end_to_end_on_the_real_model(torchhub_index, gemma_backend, monkeypatch):
    # the pure likelihood argmax (the default rule fuses it with the BM25 rank: tests/apibench/test_choice.py)
    monkeypatch.setattr(likelihood, "CHOICE_RULE", "likelihood")
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
    task = SPORTS + " " + " ".join(f"with detail number {i}" for i in range(120))
    p = Pipeline(Settings(mode="select", k=3), torchhub_index, be).ask(task)
    assert p.select_by == "grammar" and p.verdict.kind == "valid"
    assert any("chose with the grammar" in w for w in p.warnings)
