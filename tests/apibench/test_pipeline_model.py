"""pipeline.ask with the real embedded model over the APIBench Torch Hub pool (select mode)."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.model.backend import LlamaBackend
from gorilla_tui.pipeline import Pipeline

SPORTS = "I want to classify sports activities in videos"


@pytest.mark.model
def test_select_mode_real_model_sports_videos(torchhub_index, gemma_backend):
    pipe = Pipeline(Settings(mode="select", k=5), torchhub_index, gemma_backend)
    p = pipe.ask(SPORTS)
    assert p.verdict.kind == "valid"
    assert p.api_call in [h.doc.api_call.strip() for h in p.hits]
    assert p.code_source == "example_code" and p.code == p.verdict.matched.example_code
    assert "pytorchvideo" in p.api_call


@pytest.mark.model
def test_select_mode_respects_a_tiny_n_ctx(torchhub_index, gemma_path):
    be = LlamaBackend(gemma_path, params={"n_ctx": 512, "n_threads": 1})
    p = Pipeline(Settings(mode="select", k=10, select_by="grammar"), torchhub_index, be).ask(SPORTS)
    assert p.warnings and p.verdict.kind == "valid"
    assert be.last_stats["prompt_tokens"] + 1 <= be.n_ctx
