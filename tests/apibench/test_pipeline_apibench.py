"""pipeline.ask on the APIBench Torch Hub pool: repaired calls of flagged entries, example code shown only
when it passes the check, and the code shown in generate mode checked too (entries only the real pool has)."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import Pipeline

SPORTS = "I want to classify sports activities in videos"


def test_select_mode_proposes_the_repaired_call_of_a_flagged_entry(torchhub_index):
    """MEAL V2 api_calls are not valid Python (positional after keyword): the repaired call is proposed."""
    doc = next(d for d in torchhub_index.docs if "mealv2_mobilenetv3_small_075" in d.api_call)
    assert doc.flagged and doc.repaired
    pipe = Pipeline(Settings(mode="select"), torchhub_index, ScriptedBackend(["x"]), retriever="oracle")
    p = pipe.ask("a small accurate ImageNet classifier", oracle_doc=doc)
    assert p.api_call == doc.repaired
    assert p.verdict.kind == "valid" and p.verdict.matched.id == doc.id
    assert "repo_or_dir=" in p.verdict.matched.api_call  # the original stays on the doc


def test_select_mode_shows_the_example_only_when_it_passes_the_check(torchhub_index):
    doc = next(d for d in torchhub_index.docs if d.id == "torchhub:23")  # example: a broken `with` block
    pipe = Pipeline(Settings(mode="select"), torchhub_index, ScriptedBackend(["x"]), retriever="oracle")
    p = pipe.ask("segment the objects in a photo", oracle_doc=doc)
    assert p.verdict.kind == "valid"
    assert p.code == f"import torch\n{p.api_call}" and p.code_source == "model"  # the call, with its import
    assert any("example code does not pass the check" in w for w in p.warnings)


@pytest.mark.parametrize(
    ("code", "kind"),
    [
        ("import torch\nprint 'loading'\nm = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50')",
         "unparseable"),
        ("import torch\nm = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r51')", "wrong_args"),
        ("import torch\nm = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50')\nm.eval()", "valid"),
    ],
)  # fmt: skip
def test_generate_mode_checks_the_code_shown_too(torchhub_index, code, kind):
    text = ("<<<api_call>>>: torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)\n"
            f"<<<code>>>: {code}")  # fmt: skip
    pipe = Pipeline(Settings(mode="generate"), torchhub_index, ScriptedBackend([text]), family="gorilla")
    p = pipe.ask(SPORTS)
    assert p.code.startswith("import torch") and p.verdict.kind == kind, p.verdict
    if kind != "valid":
        assert p.verdict.diagnostics[0] == "the api_call is valid, but the code shown is not"
