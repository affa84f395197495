"""`eval run --endpoint --concurrency` and select by likelihood over an endpoint, against a real
`python -m llama_cpp.server` serving the embedded GGUF (loopback), through a fault-injecting proxy that
answers some requests 503/429 and delays the others by random amounts (so answers finish out of order)."""

from __future__ import annotations

import pytest

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.remote import prompt_logprob

pytestmark = [pytest.mark.model, pytest.mark.slow]


def test_a_response_without_prompt_logprobs_is_refused() -> None:
    """What llama.cpp's llama-server answers to echo + logprobs (generated tokens only): no prompt scores."""
    generated_only = {"choices": [{"text": " x", "logprobs": None}]}
    with pytest.raises(GorillaError, match="no prompt log-probabilities"):
        prompt_logprob(generated_only, start=0, end=10)
