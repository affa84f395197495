"""APIBench tier of tests/unit/test_extract.py: extract(): every response format of the released Gorilla
outputs, and hostile text."""

from __future__ import annotations

import json

from gorilla_tui.check.extract import extract
from gorilla_tui.parsing import parse


def _responses(folder, hub, name):
    path = folder / hub / f"response_{hub}_Gorilla_{name}.jsonl"
    return [json.loads(line) for line in path.read_text().splitlines()]


def test_gorilla_fields_inline(apibench_responses):
    text = _responses(apibench_responses, "tensorflowhub", "FT_0_shot")[0]["text"]
    ex = extract(text)
    assert ex.format == "gorilla"
    assert ex.api_call.startswith("hub.KerasLayer('https://tfhub.dev/google/imagenet/mobilenet_v2_100_224/")
    assert ex.domain == "Image feature vector" and ex.provider == "TensorFlow Hub"
    assert "import tensorflow_hub as hub\nmodel" in ex.code  # escaped \n undone
    assert not parse(ex.code).root_node.has_error


def test_torchhub_dict_string_with_escaped_quotes(apibench_responses):
    rows = _responses(apibench_responses, "torchhub", "FT_0_shot")
    ex = extract(rows[0]["text"])
    assert ex.format == "dict"
    assert (
        ex.api_call == "model = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)"
    )
    assert ex.domain == "Video Classification"
    assert ex.code.startswith("import torch\nmodel = torch.hub.load(")
    escaped = "{'domain': 'C', 'api_call': \\\"model = torch.hub.load(\\\"pytorch/vision\\\", \\\"mobilenet_v2\\\")\\\", 'api_provider': 'PyTorch'}"  # noqa: E501
    assert extract(escaped).api_call == 'model = torch.hub.load("pytorch/vision", "mobilenet_v2")'


def test_every_torchhub_api_call_field_parses(apibench_responses):
    """The api_call field of the dict-string responses is recovered as Python in nearly every line."""
    rows = _responses(apibench_responses, "torchhub", "FT_0_shot") + _responses(
        apibench_responses, "torchhub", "FT_bm25"
    )
    calls = [extract(r["text"]).api_call for r in rows]
    good = [c for c in calls if c and not parse(c).root_node.has_error]
    assert len(good) >= 0.95 * len(rows)
