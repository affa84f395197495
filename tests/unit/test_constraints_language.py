"""A translation's direction as a constraint (constraints/languages.py): what a task asks in everyday words,
what a model id translates, and which model ids satisfy a task. Over the real Hugging Face pool:
tests/apibench/test_translation_apibench.py."""

from __future__ import annotations

import pytest

from gorilla_tui.constraints.languages import translation_asked, translation_holds, translation_of
from gorilla_tui.constraints.parse import parse_constraints, without_constraints
from gorilla_tui.pool.doc import ApiDoc


@pytest.mark.parametrize(
    ("task", "asked"),
    [
        ("translate this english sentence to french", ("en", "fr")),
        ("Translate this text from German into Spanish", ("de", "es")),
        ("English to French subtitles for my video", ("en", "fr")),
        ("translate 'bonjour' to english", ("", "en")),
        ("translate this French text", ("fr", "")),
        ("translate the menu in italian", ("", "it")),
        ("I need a Polish to English translator", ("pl", "en")),
        ("a manual in English that needs to be translated into Spanish", ("en", "es")),
        ("a voice message in Spanish. Translate it to English", ("es", "en")),
        ("a document written in French, and they need it translated into English", ("fr", "en")),
        ("summarise this German article", None),  # a language alone is no translation
        ("convert english text to speech", None),  # "to" before no language
        ("write an email in german", None),
        ("polish the wording of my essay", None),  # the verb, not the language
        ("sort a list of numbers", None),
    ],
)
def test_the_direction_a_task_asks_for(task: str, asked: tuple[str, str] | None) -> None:
    assert translation_asked(task) == asked


def _doc(call: str, name: str = "", domain: str = "") -> ApiDoc:
    return ApiDoc(id="huggingface:1", source="huggingface", api_call=call, api_name=name, domain=domain)


@pytest.mark.parametrize(
    ("call", "pair"),
    [
        ("pipeline('translation_fr_to_en', model='Helsinki-NLP/opus-mt-fr-en')", ("fr", "en")),
        ("AutoModelForSeq2SeqLM.from_pretrained('Helsinki-NLP/opus-mt-en-de')", ("en", "de")),
        ("MarianMTModel.from_pretrained('pytorch-models/opus-mt-tc-big-en-pt')", ("en", "pt")),
        ("MarianMTModel.from_pretrained('Helsinki-NLP/opus-mt-ROMANCE-en')", ("romance", "en")),
        ("load_model_ensemble_and_task_from_hf_hub('facebook/textless_sm_en_fr')", ("en", "fr")),
        ("T5ForConditionalGeneration.from_pretrained('t5-3b')", None),  # many to many: no pair
        ("AutoModel.from_pretrained('T-Systems/cross-en-de-roberta')", None),  # no translator
    ],
)
def test_the_pair_a_model_id_translates(call: str, pair: tuple[str, str] | None) -> None:
    assert translation_of(_doc(call, domain="Natural Language Processing")) == pair


def test_a_group_covers_its_languages_and_a_side_left_open_takes_any() -> None:
    assert translation_holds("en>fr", "en>romance")
    assert not translation_holds("en>de", "en>romance")
    assert translation_holds(">en", "romance>en") and translation_holds("fr>", "fr>es")
    assert not translation_holds("en>fr", "fr>en")


def test_the_task_keeps_its_language_words_for_the_retriever() -> None:
    task = "translate this english sentence to french"
    [language] = [c for c in parse_constraints(task) if c.metric == "language"]
    assert (language.op, language.value, language.describe()) == ("=", "en>fr", "translation en -> fr")
    assert without_constraints(task) == task  # "english", "french" still find the translators
