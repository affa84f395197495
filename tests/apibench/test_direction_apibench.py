"""A task's direction between modalities against the model hubs' domains (retrieve/direction.py, issue 38):
real APIBench docs, a real BM25 index over them."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.retrieve.direction import domain_direction, goes_against, one_that_does_it, task_direction
from gorilla_tui.retrieve.index import ApiIndex

HUBS = ("torchhub", "tensorflowhub", "huggingface")


@pytest.fixture(scope="module")
def hub_docs(apibench: Path) -> list[ApiDoc]:
    return [d for hub in HUBS for d in load_jsonl(apibench / "api" / f"{hub}_api.jsonl", hub).docs]


def test_only_the_domains_that_name_a_direction_get_one(hub_docs: list[ApiDoc]) -> None:
    directions = {d.domain: domain_direction(d.domain) for d in hub_docs}
    assert directions["Audio Text-to-Speech"] == ("text", "audio")
    assert directions["Audio Automatic Speech Recognition"] == ("audio", "text")
    assert directions["Audio Speech-to-Text"] == ("audio", "text")  # TensorFlow Hub
    assert directions["Multimodal Image-to-Text"] == ("image", "text")
    assert directions["Multimodal Text-to-Image"] == ("text", "image")
    assert directions["Natural Language Processing Text2Text Generation"] == ("text", "text")
    named = {dom for dom, way in directions.items() if way is not None}
    assert "Image classification" not in named and "Computer Vision Object Detection" not in named
    assert "Natural Language Processing Summarization" not in named and "" not in named


def test_a_task_states_its_direction_in_everyday_words() -> None:
    assert task_direction("transcribe a podcast episode to text") == ("audio", "text")
    assert task_direction("turn a spoken voice note into text") == (None, "text")
    assert task_direction("read this sentence out loud") == (None, "audio")
    assert task_direction("make a picture from a text prompt") == ("text", None)
    assert task_direction("classify pictures of my cat") == (None, None)
    assert task_direction("convert the unix timestamp into a date") == (None, None)


def test_a_doc_ending_or_starting_elsewhere_is_against_the_task_and_no_other() -> None:
    to_text = task_direction("turn the meeting recording into text")
    assert goes_against(task_direction("transcribe the meeting"), "Multimodal Image-to-Text")  # from audio
    assert goes_against(to_text, "Audio Text-to-Speech")
    assert goes_against(to_text, "Multimodal Text-to-Image")  # starts from what the task wants
    assert not goes_against(to_text, "Audio Automatic Speech Recognition")
    assert not goes_against(to_text, "Multimodal Image-to-Text")  # ends in text too
    assert not goes_against(to_text, "Natural Language Processing Text2Text Generation")
    assert goes_against(to_text, "Audio Audio-to-Audio")  # ends in audio, not text
    assert not goes_against(to_text, "Image classification")
    assert not goes_against(task_direction("read it out loud"), "Audio Text-to-Speech")
    assert goes_against(task_direction("read it out loud"), "Audio Automatic Speech Recognition")
    assert not goes_against(task_direction("sort a list"), "Audio Text-to-Speech")


def test_the_search_leaves_out_docs_that_go_the_other_way(hub_docs: list[ApiDoc]) -> None:
    audio = [d for d in hub_docs if d.domain.startswith("Audio")]
    index = ApiIndex.build(audio)
    task = "transcribe a podcast episode to text with a hugging face speech model"
    undirected = index.search("podcast episode text hugging face speech model", k=5)
    assert any(h.doc.domain == "Audio Text-to-Speech" for h in undirected)  # the words alone find them
    hits = index.search(task, k=5)
    assert hits and [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert not any(h.doc.domain == "Audio Text-to-Speech" for h in hits)
    assert any(domain_direction(h.doc.domain) == ("audio", "text") for h in hits)
    spoken = index.search("read my sentence out loud with a text to speech model", k=5)
    assert spoken and not any(domain_direction(h.doc.domain) == ("audio", "text") for h in spoken)


def test_one_doc_that_does_exactly_what_the_task_states_reaches_the_hits() -> None:
    domains = [
        "Natural Language Processing Conversational",
        "Audio Voice Activity Detection",
        "Image classification",
        "Audio Automatic Speech Recognition",
        "Audio Speech-to-Text",
    ]
    both = task_direction("transcribe an mp3 of my lecture into text")
    assert one_that_does_it(domains, 3, both, str) == [*domains[:2], domains[3], domains[2], domains[4]]
    kept = one_that_does_it(domains, 4, both, str)  # already among the first 4: unchanged
    assert kept == domains
    assert one_that_does_it(domains, 3, task_direction("turn this voice memo into text"), str) == domains
    assert one_that_does_it(domains[:3], 2, both, str) == domains[:3]  # no doc does it
