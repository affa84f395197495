"""Hypothesis fuzz of extract + validate: any string gets a verdict, never an exception (a few thousand
examples here; bench/fuzz_validator.py runs 100,000)."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from gorilla_tui.check.extract import extract
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.types import VERDICTS

_PIECES = [
    "torch.hub.load(", "'pytorch/vision'", ", ", "model=", ")", "(", "[", "]", "{", "}", "'", '"', "\\'",
    '\\"', "\\n", "\n", "```python\n", "```", "<<<api_call>>>: ", "<<<code>>>: ", "{'api_call': ",
    "'code': ", '[{"name": "f", "arguments": {', "}}]", "pipeline(", "hub.KerasLayer(", "\x00", "\ud800",
    "GET /api/v1/namespaces/{namespace}/pods", "f(a=-x)", "lambda: ", "**", "*", "=", ":", "#", "\\",
    "AutoModel.from_pretrained(", "é漢字🙂", "\t", "'''", '"""', "a.", "().",
]  # fmt: skip


@st.composite
def hostile(draw: st.DrawFn, scale: int = 1) -> str:
    """Arbitrary unicode text, or a mix of response-format pieces, optionally blown up (nested up to
    2,000 x scale levels, repeated up to 200 x scale times; scale=10 gives inputs of ~1 MB)."""
    kind = draw(st.integers(0, 5))
    if kind == 0:
        return draw(st.text(st.characters(codec=None), max_size=300))
    parts = draw(st.lists(st.sampled_from(_PIECES) | st.text(max_size=8), max_size=40))
    text = "".join(parts)
    if kind == 4:
        depth = draw(st.integers(100, 2_000 * scale))
        text = draw(st.sampled_from(["(", "[", "{", "f(", "a."])) * depth + text
    if kind == 5 and text:
        text = text * draw(st.integers(1, 200 * scale))
    return text


@pytest.fixture(scope="module")
def validator(apibench):
    return Validator(load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs)


@pytest.mark.slow
@settings(max_examples=2000, deadline=None, database=None, suppress_health_check=list(HealthCheck))
@given(text=hostile())
def test_any_text_gets_a_verdict(validator, text):
    ex = extract(text)
    assert isinstance(ex.code, str)
    assert validator.check(text).kind in VERDICTS


@pytest.mark.slow  # megabyte inputs through every parser: ~20 s on a loaded 2-core machine
def test_one_megabyte_and_deep_nesting(validator):
    assert validator.check("x = 1\n" * 200_000).kind == "no_call"
    assert validator.check("[" * 200_000).kind in ("unparseable", "no_call")
    deep = validator.check("f(" * 50_000 + ")" * 50_000)  # CPython refuses > 200 nested brackets
    assert deep.kind == "unparseable" and "limit of 200" in deep.diagnostics[0]
    assert validator.check("f(" * 150 + ")" * 150).kind == "hallucination"
