"""GBNF choice grammars: escaping, and (with the real model) that decoding emits only one of the options."""

from __future__ import annotations

import pytest

from gorilla_tui.model.grammar import choice_grammar, gbnf_literal, unique_options

NASTY = ['f("a\\\\b")', "g('x')\n", 'h(s="tab\there")', "k(\x01)"]


def test_literal_escapes_quotes_backslashes_and_controls():
    assert gbnf_literal('say "hi"\\') == '"say \\"hi\\"\\\\"'
    assert gbnf_literal("a\nb\tc\x01") == '"a\\nb\\tc\\x01"'


def test_unique_options_strips_dedupes_and_keeps_order():
    assert unique_options([" b ", "a", "b", ""]) == ["b", "a"]
    with pytest.raises(ValueError):
        choice_grammar(["", "  "])


def test_llama_cpp_parses_grammar_of_nasty_options():
    from llama_cpp import LlamaGrammar

    text = choice_grammar(NASTY, lead=" ")
    assert text.count("|") == len(NASTY) - 1
    LlamaGrammar.from_string(text, verbose=False)  # raises on a grammar llama.cpp cannot parse


@pytest.mark.model
def test_grammar_really_constrains_the_model(gemma_backend):
    options = ["zebra.stripes(count=3)", "quux_frobnicate('x')"]
    prompt = "The capital of France is"  # unconstrained, the model would say " Paris"
    free = "".join(gemma_backend.complete(prompt, max_tokens=4))
    assert "zebra" not in free and "quux" not in free
    out = "".join(gemma_backend.complete(prompt, max_tokens=20, grammar=choice_grammar(options, lead=" ")))
    assert out.strip() in options
