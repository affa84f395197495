"""pipeline.ask end to end: real retrieval and validator; scripted backend for events, real model."""

from __future__ import annotations

import threading

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import MAX_TASK_CHARS, AskCancelled, Pipeline, shared_prefix
from gorilla_tui.types import DoneEvent, ErrorEvent, HitsEvent, TokenEvent, VerdictEvent

SPORTS = "I want to classify sports activities in videos"


def test_shared_prefix_cuts_at_a_delimiter():
    opts = ["torch.hub.load('a', 'slow_r50')", "torch.hub.load('a', 'slowfast_r50')"]
    assert shared_prefix(opts) == "torch.hub.load('a', '"
    assert shared_prefix(opts[:1]) == "" and shared_prefix(["f(", "f(x)"]) == ""


def test_generate_mode_events_and_verdict(torchhub_index):
    text = ("<<<domain>>>: Video Classification\n<<<api_call>>>: model = torch.hub.load("
            "'facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)\n<<<api_provider>>>: PyTorch\n"
            "<<<explanation>>>: Load the 3D ResNet.\n<<<code>>>: import torch")  # fmt: skip
    be = ScriptedBackend([text])
    events = []
    pipe = Pipeline(Settings(mode="generate"), torchhub_index, be, family="gorilla")
    p = pipe.ask(SPORTS, on_event=events.append)
    kinds = [type(e) for e in events]
    assert kinds[0] is HitsEvent and kinds[-2:] == [VerdictEvent, DoneEvent] and TokenEvent in kinds
    assert p.verdict.kind == "valid" and "slow_r50" in p.api_call and p.code_source == "model"
    assert set(p.timings) >= {"retrieve", "prompt", "first_token", "generate", "validate", "total"}


def test_generate_mode_catches_a_hallucination(torchhub_index):
    be = ScriptedBackend(["<<<api_call>>>: magicvision.videos.classify('sports')"])
    p = Pipeline(Settings(mode="generate"), torchhub_index, be).ask(SPORTS)
    assert p.verdict.kind == "hallucination"


def test_empty_and_huge_tasks(torchhub_index):
    be = ScriptedBackend(["<<<api_call>>>: x()"])
    pipe = Pipeline(Settings(mode="generate"), torchhub_index, be)
    events = []
    with pytest.raises(UsageError, match="empty"):
        pipe.ask("   \n ", on_event=events.append)
    assert isinstance(events[-1], ErrorEvent)
    p = pipe.ask("classify videos of sports " * 4000)  # ~100 KB
    assert len(p.task) <= MAX_TASK_CHARS and any("truncated" in w for w in p.warnings)


def test_cancel_raises_and_emits_error(torchhub_index):
    cancel = threading.Event()
    be = ScriptedBackend(["<<<api_call>>>: a b c d e f g"])
    events = []

    def on_event(e):
        events.append(e)
        if isinstance(e, TokenEvent):
            cancel.set()

    with pytest.raises(AskCancelled):
        Pipeline(Settings(mode="generate"), torchhub_index, be).ask(SPORTS, on_event=on_event, cancel=cancel)
    assert isinstance(events[-1], ErrorEvent) and events[-1].message == "cancelled"


def test_oracle_retriever_needs_a_doc(torchhub_index):
    pipe = Pipeline(Settings(), torchhub_index, ScriptedBackend(["x"]), retriever="oracle")
    with pytest.raises(UsageError, match="oracle"):
        pipe.ask(SPORTS)
    doc = torchhub_index.docs[0]
    p = pipe.ask(SPORTS, oracle_doc=doc)  # one candidate: chosen without a model call
    assert [h.doc for h in p.hits] == [doc] and p.api_call == doc.api_call.strip()


@pytest.mark.model
def test_select_mode_real_model_sports_videos(torchhub_index, gemma_backend):
    pipe = Pipeline(Settings(mode="select", k=5), torchhub_index, gemma_backend)
    p = pipe.ask(SPORTS)
    assert p.verdict.kind == "valid"
    assert p.api_call in [h.doc.api_call.strip() for h in p.hits]
    assert p.code_source == "example_code" and p.code == p.verdict.matched.example_code
    assert "pytorchvideo" in p.api_call


@pytest.mark.model
def test_select_mode_respects_a_tiny_n_ctx(torchhub_index, gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    be = LlamaBackend(gemma_path, params={"n_ctx": 512, "n_threads": 1})
    p = Pipeline(Settings(mode="select", k=10, select_by="grammar"), torchhub_index, be).ask(SPORTS)
    assert p.warnings and p.verdict.kind == "valid"
    assert be.last_stats["prompt_tokens"] + 1 <= be.n_ctx


def test_constraints_in_the_task_rerank_hits_and_reach_the_proposal(torchhub_index):
    task = "image classification model with at least 80% top-1 accuracy on ImageNet"
    plain = torchhub_index.search(task, k=5)
    # the ground truth from the pool's metadata: MEAL-V2 ResNeSt-50 (80.67 top-1) meets it, ResNet-50 does not
    be = ScriptedBackend(["<<<api_call>>>: torch.hub.load('szq0214/MEAL-V2', 'meal_v2', 'mealv2_resnest50')"])
    pipe = Pipeline(Settings(mode="generate", k=5), torchhub_index, be)
    proposal = pipe.ask(task)
    reranked = [h.doc.api_call for h in proposal.hits]
    assert reranked != [h.doc.api_call for h in plain]  # the constraint changed the order
    assert "mealv2_resnest50" in reranked[0]
    assert [c["metric"] for c in proposal.constraints] == ["top1"]
    assert proposal.constraints[0]["value"] == 80.0 and proposal.constraints[0]["dataset"] == "imagenet"
    assert any("meet every constraint" in w for w in proposal.warnings)
    assert proposal.to_dict()["constraints"] == proposal.constraints


def test_backend_warnings_reach_the_proposal(torchhub_index):
    be = ScriptedBackend(["<<<api_call>>>: torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50')"])
    be.warnings = ["kernel profile cuda requested, but this llama-cpp-python build has no GPU offload"]
    p = Pipeline(Settings(mode="generate"), torchhub_index, be).ask(SPORTS)
    assert p.warnings == be.warnings and p.to_dict()["warnings"] == be.warnings
    assert (
        Pipeline(Settings(mode="generate"), torchhub_index, ScriptedBackend(["x"])).ask(SPORTS).warnings == []
    )


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
    assert p.code == p.api_call and p.code_source == "model"
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
