"""Select by likelihood: the scoring context, the choice rule, LlamaBackend.loglikelihoods on the real model,
and pipeline.ask choosing the most likely hit."""

from __future__ import annotations

import numpy as np
import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import ContextOverflowError, UsageError
from gorilla_tui.model.choice import best
from gorilla_tui.model.likelihood import HEADER, can_score
from gorilla_tui.model.scripted import ScriptedBackend


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


def test_best_prefers_the_higher_score_then_the_earlier_hit():
    assert best([-3.0, -1.0, -2.0]) == 1
    assert best([-1.0, -5.0, -1.0]) == 0
    with pytest.raises(ValueError):
        best([])


def test_can_score_tells_the_backends_apart():
    assert not can_score(ScriptedBackend(["x"]))
    assert can_score(TableScorer())


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
    from gorilla_tui.model import llama_internals
    from gorilla_tui.model.profiles import extra_bufts_default

    contexts = [
        HEADER + "Classification: image classifier.\nA user asks: ",
        HEADER + "Speech: speech recognition.\nA user asks: ",
        "Totally different start: ",
    ]
    task = "sort my holiday photos of dogs and cats"
    before = "".join(gemma_backend.complete("The capital of France is", max_tokens=6))
    got = gemma_backend.loglikelihoods(contexts, task)
    # llama.cpp's defaults but the weight repacking, as "auto" sets it here (off on a CPU with AMX, where
    # the default segfaults on the first decode)
    params = {"n_ctx": 512, "logits_all": True, "use_extra_bufts": extra_bufts_default()[0]}
    ref_llm = llama_internals.new_llama(str(gemma_path), params)
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
