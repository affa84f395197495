"""pipeline.ask end to end on the small pool of tests/data/pool: real retrieval and validator, a scripted
backend for the events (the real model on APIBench: tests/apibench/test_pipeline_model.py)."""

from __future__ import annotations

import dataclasses
import threading

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import MAX_TASK_CHARS, AskCancelled, Pipeline, shared_prefix
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.types import DoneEvent, ErrorEvent, HitsEvent, TokenEvent, VerdictEvent

SPORTS = "I want to classify sports activities in videos"


def test_shared_prefix_cuts_at_a_delimiter():
    opts = ["torch.hub.load('a', 'slow_r50')", "torch.hub.load('a', 'slowfast_r50')"]
    assert shared_prefix(opts) == "torch.hub.load('a', '"
    assert shared_prefix(opts[:1]) == "" and shared_prefix(["f(", "f(x)"]) == ""


def test_generate_mode_events_and_verdict(small_index):
    text = ("<<<domain>>>: Video Classification\n<<<api_call>>>: model = torch.hub.load("
            "'facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)\n<<<api_provider>>>: PyTorch\n"
            "<<<explanation>>>: Load the 3D ResNet.\n<<<code>>>: import torch")  # fmt: skip
    be = ScriptedBackend([text])
    events = []
    pipe = Pipeline(Settings(mode="generate"), small_index, be, family="gorilla")
    p = pipe.ask(SPORTS, on_event=events.append)
    kinds = [type(e) for e in events]
    assert kinds[0] is HitsEvent and kinds[-2:] == [VerdictEvent, DoneEvent] and TokenEvent in kinds
    assert p.verdict.kind == "valid" and "slow_r50" in p.api_call and p.code_source == "model"
    assert set(p.timings) >= {"retrieve", "prompt", "first_token", "generate", "validate", "total"}


def test_generate_mode_catches_a_hallucination(small_index):
    be = ScriptedBackend(["<<<api_call>>>: magicvision.videos.classify('sports')"])
    p = Pipeline(Settings(mode="generate"), small_index, be).ask(SPORTS)
    assert p.verdict.kind == "hallucination"


@pytest.mark.parametrize(
    "text",
    [
        " torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slow_r50', pretrained=True)"
        " -- a 3D ResNet for video classification",
        "model = torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50', pretrained=True)",
    ],
)
def test_generate_mode_without_an_api_call_field_proposes_the_call_it_checked(small_index, text):
    """The embedded model in generate mode answers with a bare call and words, no <<<api_call>>> field:
    `ask` printed "call (none)" and --json "api_call": "" above a valid verdict (Ctrl+Y copied nothing)."""
    p = Pipeline(Settings(mode="generate"), small_index, ScriptedBackend([text])).ask(SPORTS)
    assert p.verdict.kind == "valid" and p.api_call == p.verdict.api_call
    assert p.api_call.startswith("torch.hub.load(") and "slow_r50" in p.api_call


def test_empty_and_huge_tasks(small_index):
    be = ScriptedBackend(["<<<api_call>>>: x()"])
    pipe = Pipeline(Settings(mode="generate"), small_index, be)
    events = []
    with pytest.raises(UsageError, match="empty"):
        pipe.ask("   \n ", on_event=events.append)
    assert isinstance(events[-1], ErrorEvent)
    p = pipe.ask("classify videos of sports " * 4000)  # ~100 KB
    assert len(p.task) <= MAX_TASK_CHARS and any("truncated" in w for w in p.warnings)


def test_cancel_raises_and_emits_error(small_index):
    cancel = threading.Event()
    be = ScriptedBackend(["<<<api_call>>>: a b c d e f g"])
    events = []

    def on_event(e):
        events.append(e)
        if isinstance(e, TokenEvent):
            cancel.set()

    with pytest.raises(AskCancelled):
        Pipeline(Settings(mode="generate"), small_index, be).ask(SPORTS, on_event=on_event, cancel=cancel)
    assert isinstance(events[-1], ErrorEvent) and events[-1].message == "cancelled"


def test_oracle_retriever_needs_a_doc(small_index):
    pipe = Pipeline(Settings(), small_index, ScriptedBackend(["x"]), retriever="oracle")
    with pytest.raises(UsageError, match="oracle"):
        pipe.ask(SPORTS)
    doc = small_index.docs[0]
    p = pipe.ask(SPORTS, oracle_doc=doc)  # one candidate: chosen without a model call
    assert [h.doc for h in p.hits] == [doc] and p.api_call == doc.api_call.strip()


def test_constraints_in_the_task_rerank_hits_and_reach_the_proposal(small_index):
    task = "image classification model with at least 80% top-1 accuracy on ImageNet"
    plain = small_index.search(task, k=5)
    # the ground truth from the pool's metadata: MEAL-V2 ResNeSt-50 (80.67 top-1) meets it, ResNet-50 (76.13)
    # does not
    be = ScriptedBackend(["<<<api_call>>>: torch.hub.load('szq0214/MEAL-V2', 'meal_v2', 'mealv2_resnest50')"])
    pipe = Pipeline(Settings(mode="generate", k=5), small_index, be)
    proposal = pipe.ask(task)
    reranked = [h.doc.api_call for h in proposal.hits]
    assert reranked != [h.doc.api_call for h in plain]  # the constraint changed the order
    assert "mealv2_resnest50" in reranked[0]
    assert [c["metric"] for c in proposal.constraints] == ["top1"]
    assert proposal.constraints[0]["value"] == 80.0 and proposal.constraints[0]["dataset"] == "imagenet"
    assert any("meet every constraint" in w for w in proposal.warnings)
    assert proposal.to_dict()["constraints"] == proposal.constraints


def test_backend_warnings_reach_the_proposal(small_index):
    be = ScriptedBackend(["<<<api_call>>>: torch.hub.load('facebookresearch/pytorchvideo', 'slow_r50')"])
    be.warnings = ["kernel profile cuda requested, but this llama-cpp-python build has no GPU offload"]
    p = Pipeline(Settings(mode="generate"), small_index, be).ask(SPORTS)
    assert p.warnings == be.warnings and p.to_dict()["warnings"] == be.warnings
    assert Pipeline(Settings(mode="generate"), small_index, ScriptedBackend(["x"])).ask(SPORTS).warnings == []


def test_the_matched_entry_is_the_chosen_doc_when_docs_share_a_call(small_pool):
    """Several docs can have one api_call (APIBench's TensorFlow Hub pool: 696 docs, 80 calls; "extract
    feature vectors from photos" chose tensorflowhub:291, whose example code was shown, while the verdict,
    the matched-API card and --json named tensorflowhub:46, the first pool entry with that call, with
    another description, example and performance). The verdict's matched entry is the chosen doc."""
    original = next(d for d in small_pool if d.source == "tensorflowhub" and "classification" in d.call)
    sibling = dataclasses.replace(
        original,
        id=original.id + "-sibling",
        description="Sort photos of garden birds by species with a small mobile network.",
        example_code=f"import tensorflow_hub as hub\nbirds = {original.call}",
        performance={"dataset": "ImageNet", "accuracy": "71.0%"},
    )
    pool = [*small_pool, sibling]  # the original comes first: the checker's first entry for that call
    settings = Settings(mode="select", select_by="grammar", hub="tensorflowhub")
    pipe = Pipeline(settings, ApiIndex.build(pool), ScriptedBackend([original.call]))
    p = pipe.ask("sort photos of garden birds by species")
    assert p.hits[0].doc.id == sibling.id and p.code == sibling.example_code
    assert p.verdict.kind == "valid" and p.verdict.matched is not None
    assert p.verdict.matched.id == sibling.id
    assert [c.matched for c in p.verdict.calls if c.kind == "valid"] == [sibling.id]
    assert (
        Pipeline(settings, ApiIndex.build(pool), ScriptedBackend([original.call]))
        .validator.check(original.call)
        .matched.id
        == original.id
    )  # the checker alone still names the first entry


def test_the_checker_prefers_the_given_doc_among_entries_of_one_identity(small_pool):
    """Validator.check(code, prefer=DOC_ID): among pool entries the call matches with the same identity the
    doc `prefer` names is the match (what select mode passes for its chosen doc), in the verdict and its
    per-call rows; a `prefer` that is not among them changes nothing."""
    from gorilla_tui.check.validator import Validator

    original = next(d for d in small_pool if d.source == "tensorflowhub" and "classification" in d.call)
    sibling = dataclasses.replace(original, id=original.id + "-sibling", description="another doc")
    validator = Validator([*small_pool, sibling])
    assert validator.check(original.call).matched.id == original.id
    v = validator.check(original.call, prefer=sibling.id)
    assert v.kind == "valid" and v.matched.id == sibling.id and [c.matched for c in v.calls] == [sibling.id]
    other = next(d for d in small_pool if d.source == "torchhub")
    assert validator.check(original.call, prefer=other.id).matched.id == original.id
