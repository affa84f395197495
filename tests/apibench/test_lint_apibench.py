"""APIBench tier of tests/unit/test_lint.py: check/lint.py without an index: file discovery, Markdown /
notebook blocks, reason-code filters and inline ignores (real tree-sitter, real APIBench Torch Hub pool)."""

from __future__ import annotations

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import load_file


@pytest.fixture(scope="module")
def torchhub(apibench) -> Validator:
    return Validator(load_file(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs)


def test_findings_ignores_and_roles(torchhub):
    code = (
        "import torch\n"
        "a = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\n"
        "b = torch.hub.load('pytorch/vision', 'resnet5000')\n"
        "c = torch.hub.load('pytorch/vision', 'resnet9')  # gorilla: ignore[wrong_args:unknown_model]\n"
        "d = torch.hub.load('pytorch/vision', 'resnet8')  # gorilla: ignore[hallucination]\n"
        "e = torch.hub.load('pytorch/vision',\n    'resnet7')  # gorilla: ignore\n"
        "f = my_helper(3)\n"
    )
    found = lint.check_block(torchhub, "x.py", lint.Block(code))
    assert [(f.line, f.col, f.reason) for f in found] == [
        (3, 5, "wrong_args:unknown_model"),
        (5, 5, "wrong_args:unknown_model"),
    ]
    assert "model='resnet5000' is not in the API pool" in found[0].message
    assert any("resnet50'" in s for s in found[0].suggestions)
    broken = lint.check_block(torchhub, "y.py", lint.Block("import torch\ntorch.hub.load('a/b'\n", 10))
    assert [(f.line, f.reason) for f in broken] == [(12, "unparseable:python_syntax")]
