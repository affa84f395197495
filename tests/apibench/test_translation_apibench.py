"""A translation's direction over the real Hugging Face pool of APIBench (constraints/languages.py): every
OPUS-MT model reads as the pair its id names, and a task that states a direction gets no model of another
direction before one of its own."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from gorilla_tui.constraints.check import check_doc, overall
from gorilla_tui.constraints.languages import translation_of
from gorilla_tui.constraints.parse import parse_constraints
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.retrieve.index import ApiIndex


@pytest.fixture(scope="module")
def hf_docs(apibench: Path) -> list[ApiDoc]:
    return load_jsonl(apibench / "api" / "huggingface_api.jsonl", "huggingface").docs


def test_every_opus_mt_model_reads_as_the_pair_its_id_names(hf_docs: list[ApiDoc]) -> None:
    opus = [(d, m) for d in hf_docs if (m := re.search(r"opus-mt-(?:tc-big-)?(\w+)-(\w+)'", d.api_call))]
    assert len(opus) >= 15
    for doc, m in opus:
        assert translation_of(doc) == (m.group(1).lower(), m.group(2).lower()), doc.api_call


def test_only_models_of_another_direction_violate(hf_docs: list[ApiDoc]) -> None:
    constraints = parse_constraints("translate this english sentence to french")
    status = {d.api_call: overall(check_doc(constraints, d)) for d in hf_docs}
    violated = [call for call, s in status.items() if s == "violated"]
    assert "pipeline('translation_fr_to_en', model='Helsinki-NLP/opus-mt-fr-en')" in violated
    assert all(translation_of(d) is not None for d in hf_docs if status[d.api_call] == "violated")
    assert status["translate('input_text', model='Helsinki-NLP/opus-mt-en-fr')"] == "satisfied"
    assert status["T5ForConditionalGeneration.from_pretrained('t5-3b')"] == "satisfied"  # many to many


@pytest.mark.parametrize(
    ("task", "pair"),
    [
        ("translate this english sentence to french", ("en", "fr")),
        ("translate my french notes to english", ("fr", "en")),
        ("translate a paragraph from English into German", ("en", "de")),
    ],
)
def test_the_first_translator_found_goes_the_asked_way(hf_docs: list[ApiDoc], task: str, pair) -> None:
    index = ApiIndex.build([d for d in hf_docs if d.domain.startswith("Natural Language Processing")])
    unranked = [translation_of(h.doc) for h in index.search(task, k=10)]
    assert any(p is not None and p != pair for p in unranked)  # the words alone find other directions
    hits = search_with_constraints(index, task, k=5).hits
    pairs = [translation_of(h.doc) for h in hits]
    assert pair in pairs
    assert all(p is None or p == pair for p in pairs[: pairs.index(pair) + 1])
