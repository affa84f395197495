"""Assignments to attributes and subscripts (`self.model = other.thing`, `d[k] = v`) are not aliases and
never crash the call-site scan (they did: an IndexError that took `eval run` down on a Hugging Face example),
while `load = torch.hub.load` stays an alias; on the small pool of tests/data/pool."""

from __future__ import annotations

import pytest

from gorilla_tui.check.callsite import scan
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import ApiDoc


@pytest.mark.parametrize("code", ["self.model = other.thing", "x[0] = y", "a.b = c", "a.b, c[0] = d, e.f"])
def test_attribute_and_subscript_targets_are_scanned(code: str) -> None:
    assert scan(code).calls == []


def test_example_code_with_attribute_assignments_is_checked(small_pool: list[ApiDoc]) -> None:
    validator = Validator(small_pool)
    code = (
        "import torch\n"
        "class Runner:\n"
        "    def __init__(self):\n"
        "        self.load = torch.hub.load\n"
        "        self.model = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\n"
    )
    verdict = validator.check(code)
    assert verdict.kind == "valid", verdict.diagnostics
    aliased = validator.check("load = torch.hub.load\nm = load('pytorch/vision', 'resnet5000')")
    assert aliased.kind == "wrong_args"  # the alias is still followed to torch.hub.load
