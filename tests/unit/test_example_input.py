"""The task's inputs a model answer's code takes (fill/example_input.py task_inputs) and the slots of an
example's code (fill/example_slots.py), on code written as the hubs' examples write it (issue 37)."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.fill.example_input import TaskInput, feed, task_inputs
from gorilla_tui.pool.apidoc import ApiDoc


@pytest.mark.parametrize(
    ("task", "expected"),
    [
        ("classify the objects in photo.jpg", [TaskInput("image", "photo.jpg", "path")]),
        ("translate 'good morning' to German", [TaskInput("text", "good morning", "text")]),
        ("transcribe meeting.wav", [TaskInput("audio", "meeting.wav", "path")]),
        ("what is in https://x.org/cat.jpg?", [TaskInput("image", "https://x.org/cat.jpg", "url")]),
        ("summarize this: the council met", [TaskInput("text", "the council met", "text")]),
        ("recognise the action in dance.mp4", [TaskInput("video", "dance.mp4", "path")]),
        ("summarize notes.txt", [TaskInput("text", "notes.txt", "path")]),
        # no input: a file of no known kind, a page's URL, words alone
        ("classify the rows of sales.csv", []),
        ("summarize https://example.org/news/today", []),
        ("classify pictures of my cat", []),
    ],
)  # fmt: skip
def test_the_inputs_a_task_states(task: str, expected: list[TaskInput]) -> None:
    assert task_inputs(task) == expected


def test_a_text_file_is_read_whole() -> None:
    assert TaskInput("text", "notes.txt", "path").source == "open('notes.txt').read()"
    assert TaskInput("image", "it's.jpg", "path").source == '"it\'s.jpg"'  # a literal, never the raw text


def _doc(call: str, example: str, domain: str) -> ApiDoc:
    return ApiDoc(
        id="huggingface:1", source="huggingface", api_call=call, example_code=example, domain=domain
    )


def _constants(code: str) -> list[str]:
    return [
        n.value for n in ast.walk(ast.parse(code)) if isinstance(n, ast.Constant) and isinstance(n.value, str)
    ]


def test_a_written_file_is_no_slot_and_a_list_of_names_gets_a_list() -> None:
    example = (
        "model = load()\n"
        "image = Image.open('input.jpg')\n"
        "image.save('output.jpg')\n"
        "torch.hub.download_url_to_file('http://x.org/a.wav', dst='a.wav')\n"
        "inputs = [prepare(uri) for uri in uris]\n"
    )
    doc = _doc("load()", example, "Computer Vision Object Detection")
    fed = feed(doc, example, "find the cars in street.png")
    assert "Image.open('street.png')" in fed.code and "image.save('output.jpg')" in fed.code
    assert "dst='a.wav'" in fed.code and [a.origin for a in fed.arguments] == ["task"]
    both = feed(doc, example.replace("Image.open('input.jpg')", "None"), "find the cars in street.png")
    assert "for uri in ['street.png']" in both.code  # iterated: a list of the one file, not its characters


def test_a_kind_the_code_has_no_slot_for_is_unused_and_the_code_unchanged() -> None:
    example = "classifier = pipeline('sentiment-analysis')\nprint(classifier('I love this'))\n"
    doc = _doc("pipeline('sentiment-analysis')", example, "Natural Language Processing Text Classification")
    fed = feed(doc, example, "classify photo.jpg")
    assert fed.code == example and fed.arguments == [] and fed.unused == ["photo.jpg"]
    quoted = feed(doc, example, 'is "the battery died after two days" positive?')
    assert _constants(quoted.code) == ["sentiment-analysis", "the battery died after two days"]
    assert feed(doc, example, "classify product reviews").code == example  # no input: left as it is


def test_a_list_of_example_files_becomes_the_tasks_one_file() -> None:
    example = (
        "model = SpeechRecognitionModel('x')\npaths = ['/a/one.wav', '/a/two.wav']\nmodel.transcribe(paths)\n"
    )
    doc = _doc("SpeechRecognitionModel('x')", example, "Audio Automatic Speech Recognition")
    fed = feed(doc, example, "transcribe meeting.wav")
    assert "paths = ['meeting.wav']" in fed.code and fed.arguments[0].value == "['meeting.wav']"


def test_a_file_name_goes_to_a_pipeline_never_to_a_tensor_model() -> None:
    """transformers' pipelines read a path; a TensorFlow or Torch model called on `image` takes a tensor."""
    tensor = "model = hub.load('h')\nsegmentation = model(input_image)\n"
    doc = _doc("hub.load('h')", tensor, "Image segmentation")
    fed = feed(doc, tensor, "segment frame_001.png")
    assert fed.code == tensor and fed.unused == ["frame_001.png"]
    piped = "vqa = pipeline('visual-question-answering')\nvqa(image=image, question='what is it?')\n"
    doc = _doc("pipeline('visual-question-answering')", piped, "Multimodal Visual Question Answering")
    assert "vqa(image='frame_001.png'" in feed(doc, piped, "what is in frame_001.png").code


@pytest.mark.parametrize(
    ("domain", "kind"),
    [
        (
            "Multimodal Image-to-Text",
            "image",
        ),  # a caption model reads an image, though its domain ends "Text"
        ("Audio Text-to-Speech", "text"),
        ("Audio Speech-to-Text", "audio"),
        ("Classification", "image"),  # Torch Hub's image classifiers
        ("Text embedding", "text"),
        ("Computer Vision Video Classification", "video"),
        ("Reinforcement Learning", ""),
    ],
)
def test_the_kind_of_input_a_domain_reads(domain: str, kind: str) -> None:
    from gorilla_tui.fill.example_input import doc_kind

    assert doc_kind(_doc("f()", "", domain)) == kind


def test_a_list_of_example_texts_takes_every_text_the_task_quotes() -> None:
    example = "model = ST('m')\nsentences = ['An example', 'Each one']\nmodel.encode(sentences)"
    doc = _doc("ST('m')", example, "Natural Language Processing Sentence Similarity")
    fed = feed(doc, example, "how similar are 'the cat sat' and 'a cat was sitting'")
    assert "sentences = ['the cat sat', 'a cat was sitting']" in fed.code and fed.unused == []
    assert [a.value for a in fed.arguments] == ["['the cat sat', 'a cat was sitting']"]
