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


def test_calls_past_the_cap_are_said_to_be_unchecked(torchhub):
    """The validator reads the first callsite.MAX_CALLS calls of a piece of code; a file with more used to
    pass in silence (a wrong model on line 2,003 of a 2,003-call file: no finding, exit 0). The findings
    in the first calls are still reported, and the block's note says how many calls were not checked."""
    from gorilla_tui.check.callsite import MAX_CALLS, left_out_note, scan

    calls = [
        f"x{i} = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)" for i in range(MAX_CALLS)
    ]
    calls[5] = "bad = torch.hub.load('pytorch/vision', 'resnet5000')"
    tail = [
        "y = torch.hub.load('pytorch/vision', 'resnet201')",
        "z = torch.hub.load('pytorch/vision', 'resnet18')",
    ]
    code = "\n".join(["import torch", *calls, *tail]) + "\n"
    assert scan(code).left_out == 2 and len(scan(code).calls) == MAX_CALLS
    notes: list[str] = []
    found = lint.check_block(torchhub, "big.py", lint.Block(code), notes=notes)
    assert [(f.line, f.reason) for f in found] == [(7, "wrong_args:unknown_model")]
    assert notes == [f"big.py: 2 calls after the first {MAX_CALLS:,} were not checked"]
    assert left_out_note(1) == f"1 call after the first {MAX_CALLS:,} was not checked"
    assert torchhub.check_code(code).diagnostics[-1] == notes[0].removeprefix("big.py: ")
    small: list[str] = []
    lint.check_block(torchhub, "small.py", lint.Block("\n".join(["import torch", *tail])), notes=small)
    assert small == [] and scan("\n".join(tail)).left_out == 0
