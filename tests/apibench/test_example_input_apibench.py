"""A model answer's code carries the task's input (fill/example_input.py; issue 37 items 1 and 6), on the
real APIBench pools: the example's own placeholder (``Image.open(filename)``, ``url = '...jpg'``,
``embed(['Hello world'])``) gives way to the task's file, URL or text, and the answer lists it."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.config import Settings
from gorilla_tui.fill.example_input import feed
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.retrieve.index import ApiIndex


@pytest.fixture(scope="module")
def pools(apibench: Path) -> dict[str, list]:
    return {
        hub: load_jsonl(apibench / "api" / f"{hub}_api.jsonl", hub).docs
        for hub in ("torchhub", "tensorflowhub", "huggingface")
    }


def _constants(code: str) -> list[str]:
    return [
        n.value for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def _ask(docs: list, doc, task: str):
    pipe = Pipeline(Settings(mode="select"), ApiIndex.build(docs), ScriptedBackend(["x"]), retriever="oracle")
    return pipe.ask(task, oracle_doc=doc)


def test_a_torch_hub_answer_opens_the_tasks_photo(pools) -> None:
    docs = pools["torchhub"]
    checker = Validator(docs)
    doc = next(
        d for d in docs if "Image.open(filename)" in d.example_code and checker.check(d.example_code).ok
    )
    p = _ask(docs, doc, "classify the objects in photo.jpg")
    assert p.api_call == doc.call  # the complete call keeps what it has
    assert "Image.open('photo.jpg')" in p.code and "filename" not in p.code
    assert [a.to_dict() for a in p.arguments] == [
        {"name": "filename", "value": "'photo.jpg'", "origin": "task", "call": 0}
    ]
    assert p.unused == [] and p.verdict.kind == "valid"
    assert checker.check_code(p.code).ok  # the fed code passes the check as the example did
    # no input stated: the example as the doc has it
    assert "Image.open(filename)" in _ask(docs, doc, "classify the objects in my photos").code


def test_a_downloaded_example_image_gives_way_to_a_local_file_or_a_url(pools) -> None:
    doc = next(d for d in pools["huggingface"] if d.api_name == "facebook/dino-vits8")
    assert "Image.open(requests.get(url, stream=True).raw)" in doc.example_code
    local = feed(doc, doc.example_code, "embed the picture cat.png")
    assert "Image.open(url)" in local.code and "url = 'cat.png'" in local.code  # no download of a local file
    web = feed(doc, doc.example_code, "embed the picture https://example.org/a/cat.png")
    assert "url = 'https://example.org/a/cat.png'" in web.code
    assert "Image.open(requests.get(url, stream=True).raw)" in web.code


def test_tensorflow_hub_examples_take_the_tasks_image_and_text(pools) -> None:
    docs = pools["tensorflowhub"]
    keras = next(d for d in docs if "load_img('path/to/image.jpg'" in d.example_code)
    fed = feed(keras, keras.example_code, "what flower is in tulip.png")
    assert "load_img('tulip.png'" in fed.code and fed.arguments[0].value == "'tulip.png'"
    use = next(d for d in docs if "embed(['Hello world'" in d.example_code)
    fed = feed(use, use.example_code, "embed the sentence 'the quick brown fox'")
    assert "embed(['the quick brown fox'])" in fed.code
    assert fed.arguments[0].value == "['the quick brown fox']" and fed.arguments[0].origin == "task"


def test_a_pipeline_shown_alone_is_applied_to_the_tasks_input(pools) -> None:
    docs = pools["huggingface"]
    asr = next(d for d in docs if d.call.startswith("pipeline('automatic-speech-recognition'")
               and not d.example_code.strip())  # fmt: skip
    p = _ask(docs, asr, "transcribe meeting.wav")
    assert p.code.endswith(f"pipe = {asr.call}\nprint(pipe('meeting.wav'))")
    assert "from transformers import pipeline" in p.code
    assert [(a.value, a.origin) for a in p.arguments] == [("'meeting.wav'", "task")]
    # an input of another kind is not forced in: it is listed unused and the call is shown alone
    q = _ask(docs, asr, "transcribe the words in 'scan.jpg'")
    assert "pipe(" not in q.code and q.arguments == [] and q.unused == ["scan.jpg"]


def test_a_text_pipelines_example_sentence_gives_way_to_the_tasks(pools) -> None:
    docs = pools["huggingface"]
    doc = next(d for d in docs if d.call.startswith("pipeline('translation_")
               and "translation('" in d.example_code.replace(" ", ""))  # fmt: skip
    fed = feed(doc, doc.example_code, "translate 'good morning' please")
    assert "good morning" in _constants(fed.code) and fed.arguments[0].origin == "task"


def test_a_text_to_image_pipeline_and_a_text_embedding_shown_alone_take_the_tasks_text(pools) -> None:
    """Diffusers' text-to-image pipelines take the prompt first and TensorFlow Hub's text embeddings a batch
    of strings (example_input.APPLIED); the call itself is kept as the doc has it."""
    docs = pools["huggingface"]
    sd = next(d for d in docs if d.call.startswith("StableDiffusionPipeline.from_pretrained("))
    p = _ask(docs, sd, "make a picture from the prompt 'a red bicycle on a brick wall'")
    assert p.api_call == sd.call and "image = pipe('a red bicycle on a brick wall').images[0]" in p.code
    assert "from diffusers import StableDiffusionPipeline" in p.code  # the import the doc names
    tf = pools["tensorflowhub"]
    use = next(d for d in tf if d.domain == "Text embedding" and d.call.startswith("hub.load("))
    fed = feed(use, use.call, "embed the sentence 'the quick brown fox'")
    assert fed.code == f"embed = {use.call}\nprint(embed(['the quick brown fox']))"
    # an image is no text: not applied, listed unused
    other = feed(use, use.call, "embed photo.jpg")
    assert other.code == use.call and other.arguments == [] and other.unused == ["photo.jpg"]
