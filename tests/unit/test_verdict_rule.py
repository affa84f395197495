"""Issue 15, `valid` must mean it: the parts of the verdict rule that need no pool (calls inside sentences,
pool entries repaired from their example code). The rule on the default pool (APIBench hubs + APIZoo +
python-env): tests/apibench/test_verdict_rule_apibench.py.
"""

from __future__ import annotations

from gorilla_tui.check.extract import embedded_calls, extract
from gorilla_tui.pool.repair import repair_call


def test_embedded_calls_need_a_balanced_argument_list():
    text = "Call os.path.join('a', ('b')) then x = json.loads(s) but not foo.bar( unclosed"
    assert embedded_calls(text) == ["os.path.join('a', ('b'))", "x = json.loads(s)"]
    assert extract("```python\nimport torch\n```\nthen torch.hub.load('a', 'b')").format == "fence"


def test_repair_call_from_example_code_and_trailing_dot():
    fixed = repair_call(
        "pipeline('image-to-text', model=acme/vit-gpt2-captioning-v1.0)",
        "from transformers import pipeline\n"
        "cap = pipeline('image-to-text', model='acme/vit-gpt2-captioning-v1.0')",
    )
    assert fixed == (
        "pipeline('image-to-text', model='acme/vit-gpt2-captioning-v1.0')",
        "from example_code",
    )
    assert repair_call("CLIPModel.from_pretrained('openai/clip-vit-base-patch32').") == (
        "CLIPModel.from_pretrained('openai/clip-vit-base-patch32')",
        "trailing '.' removed",
    )
    assert (
        repair_call("./run.sh --download_model mio/amadeus", "./run.sh --download_model mio/amadeus") is None
    )
    assert repair_call("torch.hub.load('a/b', 'c')") is None  # parses already
