"""pipeline.ask with the real embedded model over the APIBench Torch Hub pool (select mode)."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.model.backend import LlamaBackend
from gorilla_tui.pipeline import Pipeline

SPORTS = "I want to classify sports activities in videos"


@pytest.mark.model
def test_select_mode_real_model_sports_videos(torchhub_index, gemma_backend, monkeypatch):
    # unexpanded pool: BM25's first hit is Silero VAD (wrong); the raw likelihood argmax overrules it, while
    # the default rank fusion keeps it (the trade-off measured in docs/benchmarks.md, "Choice rule")
    from gorilla_tui.model import choice

    monkeypatch.setattr(choice, "CHOICE_RULE", "likelihood")
    pipe = Pipeline(Settings(mode="select", k=5), torchhub_index, gemma_backend)
    p = pipe.ask(SPORTS)
    assert p.verdict.kind == "valid"
    assert p.api_call in [h.doc.api_call.strip() for h in p.hits]
    assert p.code_source == "example_code" and p.code == p.verdict.matched.example_code
    assert "pytorchvideo" in p.api_call


@pytest.mark.model
def test_select_mode_default_rule_on_the_expanded_pool_sports_videos(apibench, gemma_backend):
    # the pool as `index --refresh` builds it: Torch Hub docs expanded with the training questions
    from gorilla_tui.pool.doc import load_jsonl
    from gorilla_tui.pool.expansion import attach_questions, read_questions
    from gorilla_tui.retrieve.index import ApiIndex

    docs = load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs
    pairs, _ = read_questions(apibench / "eval" / "torchhub_train.json")
    assert attach_questions(docs, pairs) > 0
    p = Pipeline(Settings(mode="select", k=5), ApiIndex.build(docs), gemma_backend).ask(SPORTS)
    assert p.verdict.kind == "valid" and "pytorchvideo" in p.api_call


@pytest.mark.model
def test_select_mode_respects_a_tiny_n_ctx(torchhub_index, gemma_path):
    be = LlamaBackend(gemma_path, params={"n_ctx": 512, "n_threads": 1})
    p = Pipeline(Settings(mode="select", k=10, select_by="grammar"), torchhub_index, be).ask(SPORTS)
    assert p.warnings and p.verdict.kind == "valid"
    assert be.last_stats["prompt_tokens"] + 1 <= be.n_ctx
