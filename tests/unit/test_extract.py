"""extract(): every response format of the released Gorilla outputs, and hostile text."""

from __future__ import annotations

import json

from gorilla_tui.check.extract import extract
from gorilla_tui.parsing import parse


def _responses(apibench, hub, name):
    path = apibench / "responses" / hub / f"response_{hub}_Gorilla_{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_gorilla_fields_inline(apibench):
    text = _responses(apibench, "tensorflowhub", "FT_0_shot")[0]["text"]
    ex = extract(text)
    assert ex.format == "gorilla"
    assert ex.api_call.startswith("hub.KerasLayer('https://tfhub.dev/google/imagenet/mobilenet_v2_100_224/")
    assert ex.domain == "Image feature vector" and ex.provider == "TensorFlow Hub"
    assert "import tensorflow_hub as hub\nmodel" in ex.code  # escaped \n undone
    assert not parse(ex.code).root_node.has_error


def test_gorilla_fields_one_per_line():
    text = ("<<<domain>>>: NLP\n<<<api_call>>>: pipeline('ner', model='dslim/bert-base-NER')\n"
            "<<<api_provider>>>: Hugging Face Transformers\n<<<explanation>>>: 1. Import.\n"
            "<<<code>>>: from transformers import pipeline\n"
            "ner = pipeline('ner', model='dslim/bert-base-NER')")  # fmt: skip
    ex = extract(text)
    assert ex.api_call == "pipeline('ner', model='dslim/bert-base-NER')"
    assert ex.explanation == "1. Import."
    assert ex.code.endswith("ner = pipeline('ner', model='dslim/bert-base-NER')")


def test_torchhub_dict_string_with_escaped_quotes(apibench):
    rows = _responses(apibench, "torchhub", "FT_0_shot")
    ex = extract(rows[0]["text"])
    assert ex.format == "dict"
    assert (
        ex.api_call == "model = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)"
    )
    assert ex.domain == "Video Classification"
    assert ex.code.startswith("import torch\nmodel = torch.hub.load(")
    escaped = "{'domain': 'C', 'api_call': \\\"model = torch.hub.load(\\\"pytorch/vision\\\", \\\"mobilenet_v2\\\")\\\", 'api_provider': 'PyTorch'}"  # noqa: E501
    assert extract(escaped).api_call == 'model = torch.hub.load("pytorch/vision", "mobilenet_v2")'


def test_every_torchhub_api_call_field_parses(apibench):
    """The api_call field of the dict-string responses is recovered as Python in nearly every line."""
    rows = _responses(apibench, "torchhub", "FT_0_shot") + _responses(apibench, "torchhub", "FT_bm25")
    calls = [extract(r["text"]).api_call for r in rows]
    good = [c for c in calls if c and not parse(c).root_node.has_error]
    assert len(good) >= 0.95 * len(rows)


def test_fences_with_and_without_tag():
    for fence in ("```python\n", "```\n", "```py title\n"):
        ex = extract(f"Here you go:\n{fence}import torch\nm = torch.hub.load('a/b', 'c')\n```\nEnjoy.")
        assert ex.format == "fence"
        assert ex.code == "import torch\nm = torch.hub.load('a/b', 'c')"
        assert "Here you go" in ex.explanation and "Enjoy" in ex.explanation


def test_prose_only_and_prose_around_code():
    assert extract("I cannot help with that").code == ""
    ex = extract("Load it like this:\nmodel = hub.load('https://tfhub.dev/x/1')\nThat is all, friend.")
    assert ex.code == "model = hub.load('https://tfhub.dev/x/1')"
    assert extract("").format == "empty"


def test_json_tool_call_format():
    ex = extract(
        '[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet50"}}]'
    )
    assert ex.format == "json"
    assert ex.api_call == "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50')"
    openai = '{"function": {"name": "f", "arguments": "{\\"headers\\": {\\"k\\": \\"v\\"}, \\"n\\": 1}"}}'
    assert extract(openai).api_call == "f(headers={'k': 'v'}, n=1)"
    assert extract('[{"name": "not a name!", "arguments": {}}]').format != "json"


def test_several_calls_kept_in_code():
    ex = extract("import torch\nmodel = torch.hub.load('a/b', 'c')\nmodel.eval()")
    assert ex.format == "code" and ex.code.count("\n") == 2
