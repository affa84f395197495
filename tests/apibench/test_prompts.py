"""Prompt templates: fixed prefix first, per-family formats, and trimming to fit the token budget."""

from __future__ import annotations

import pytest

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.prompts import FAMILIES, build_prompt, fit_prompt
from gorilla_tui.pool.doc import load_jsonl


@pytest.fixture(scope="module")
def docs(apibench):
    return load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs[:5]


@pytest.mark.parametrize("family", FAMILIES)
def test_prefix_is_identical_across_tasks(family, docs):
    a = build_prompt(family, "classify birds", docs[:2], "select")
    b = build_prompt(family, "detect cars in video", docs[2:4], "generate")
    assert a.prefix == b.prefix
    assert a.text.startswith(a.prefix) and "classify birds" in a.body
    assert docs[0].api_call in a.text


def test_gorilla_format_is_retriever_aware(docs):
    p = build_prompt("gorilla", "classify birds", docs[:1], "generate")
    assert "###USER: classify birds\nUse this API documentation for reference: {" in p.text
    assert p.text.endswith("###ASSISTANT: ")


def test_openfunctions_v2_format(docs):
    p = build_prompt("openfunctions-v2", "classify birds", docs[:1], "generate")
    assert (
        "### Instruction: <<function>>[" in p.text and "<<question>>classify birds\n### Response: " in p.text
    )


def test_unknown_family():
    with pytest.raises(GorillaError):
        build_prompt("nope", "t", [], "select")


def words(text: str) -> int:  # a deterministic stand-in tokenizer for the trimming logic
    return len(text.split())


def test_fit_keeps_everything_at_the_exact_boundary(docs):
    full = build_prompt("fewshot", "classify birds", docs, "select")
    p, kept, notes = fit_prompt("fewshot", "classify birds", docs, "select", words(full.text), words)
    assert p.text == full.text and kept == docs and notes == []
    p, kept, notes = fit_prompt("fewshot", "classify birds", docs, "select", words(full.text) - 1, words)
    assert words(p.text) <= words(full.text) - 1 and notes


def test_fit_drops_docs_then_cuts_task(docs):
    one = build_prompt("gorilla", "classify birds " * 50, docs[:1], "generate", "minimal")
    p, kept, notes = fit_prompt(
        "gorilla", "classify birds " * 50, docs, "generate", words(one.text) - 20, words
    )
    assert len(kept) == 1 and "task cut to fit n_ctx" in notes and words(p.text) <= words(one.text) - 20
    with pytest.raises(GorillaError):
        fit_prompt("gorilla", "x", docs, "generate", 3, words)
