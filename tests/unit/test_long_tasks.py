"""Break-it round 15, P1: a long task's cost in `ask` is bounded (the figures: bench/long_tasks.py).

A 2,000-character task took ~100 s and 1.4 GB: the model scores log p(task | doc) token by token for every
hit, with a row of logits over Gemma 3's 262k vocabulary per task token, all in one decode, and filling
reads every value of the task. Now the model and the fillers read the task's first MODEL_TASK_WORDS words
(one warning says so; the search still reads it whole), and one decode asks for LOGIT_ROWS rows at most.
These tests assert those bounds, never a time.
"""

from __future__ import annotations

import pytest

from gorilla_tui import pipeline as pipeline_module
from gorilla_tui.config import Settings
from gorilla_tui.model import llama_backend
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.textsafe import MAX_TASK_CHARS, MODEL_TASK_WORDS, clean_task, model_words
from tests.unit.test_rerank import TableScorer

SENTENCE = (
    "I have a folder full of holiday photos and I want to copy every file of it into the folder backup so "
    "that nothing is lost when the laptop breaks, keeping the dates of the files as they are. "
)


def _task(chars: int) -> str:
    return (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]


def test_a_short_task_reaches_the_model_whole_and_a_long_one_its_first_words() -> None:
    short = clean_task(_task(200))[0]
    assert model_words(short) == (short, [])
    long = clean_task(_task(10_000))[0]  # cut to MAX_TASK_CHARS first, as every path does
    assert len(long) <= MAX_TASK_CHARS and len(long.split()) > MODEL_TASK_WORDS
    said, warning = model_words(long)
    assert said.split() == long.split()[:MODEL_TASK_WORDS]
    assert warning == [
        f"the task was shortened to {MODEL_TASK_WORDS} words (of {len(long.split())}) for the model; "
        "the search read all of it"
    ]


def test_ask_gives_the_model_and_the_fillers_the_shortened_task(stdlib_docs, monkeypatch) -> None:
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("shutil.copytree", "shutil.copy2", "os.listdir")])
    scorer = TableScorer(order=["copytree"])
    filled: list[str] = []
    real_fill = pipeline_module.fill

    def fill(backend, task, doc, **kw):
        filled.append(task)
        return real_fill(backend, task, doc, **kw)

    monkeypatch.setattr(pipeline_module, "fill", fill)
    task = _task(2_000)
    proposal = Pipeline(Settings(mode="select", k=3), index, scorer).ask(task)
    assert proposal.task == clean_task(task)[0]  # the proposal (and the history) keep the whole task
    assert scorer.scored and filled
    assert all(len(said.split()) == MODEL_TASK_WORDS for _, said in scorer.scored if said != "N/A")
    assert all(len(said.split()) == MODEL_TASK_WORDS for said in filled)
    assert any(w.startswith(f"the task was shortened to {MODEL_TASK_WORDS} words") for w in proposal.warnings)
    assert proposal.api_call.split("(")[0] in ("shutil.copytree", "shutil.copy2", "os.listdir")  # it answers


@pytest.mark.model
def test_scoring_asks_for_a_bounded_number_of_logit_rows(gemma_backend, monkeypatch) -> None:
    """A continuation of ~200 tokens is scored in decodes of at most LOGIT_ROWS rows of logits (llama.cpp
    keeps an output buffer as large as the largest), and the score is the one a single decode gives."""
    from gorilla_tui.model import llama_internals

    rows: list[int] = []
    real_decode = llama_internals.decode

    def decode(llm, tokens, *, first_pos, logits_at):
        rows.append(len(logits_at))
        return real_decode(llm, tokens, first_pos=first_pos, logits_at=logits_at)

    task = " ".join(_task(1_000).split())
    contexts = ["Here is an API.\nshutil.copytree: copy a folder.\nA user asks for this API: "]
    monkeypatch.setattr(llama_internals, "decode", decode)
    bounded = gemma_backend.loglikelihoods(contexts, task)
    assert max(rows) == llama_backend.LOGIT_ROWS and sum(rows) > 2 * llama_backend.LOGIT_ROWS
    rows.clear()
    monkeypatch.setattr(llama_backend, "LOGIT_ROWS", 10_000)  # the old way: every row in one decode
    whole = gemma_backend.loglikelihoods(contexts, task)
    assert max(rows) > 2 * 64
    assert bounded == pytest.approx(whole, abs=0.5)  # float32 sums over ~200 tokens, batch shapes differ
