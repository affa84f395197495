"""Constraint parsing on hand-labelled phrasings, device budgets, and the messages of constraints no doc
answers; checking and reranking over the real Torch Hub and TF Hub:
tests/apibench/test_constraints_apibench.py."""

from __future__ import annotations

from pathlib import Path

import pytest
import tomllib

from gorilla_tui.constraints.parse import parse_constraints, without_constraints
from gorilla_tui.constraints.rank import apply_constraints, search_with_constraints
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.types import Hit

TASKS = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "data" / "constraint_tasks.toml").read_text()
)["task"]


def _parsed(task: str) -> list[list[object]]:
    return [[c.metric, c.op, c.value, c.dataset or ""] for c in parse_constraints(task)]


def test_task_file_is_big_enough() -> None:
    assert len(TASKS) >= 30
    assert {t["hub"] for t in TASKS} == {"torchhub", "tensorflowhub"}
    assert len({t["id"] for t in TASKS}) == len(TASKS)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("top-1 accuracy of at least 84% on ImageNet", [["top1", ">=", 84.0, "imagenet"]]),
        ("top1 >= 80%", [["top1", ">=", 80.0, ""]]),
        ("top-1 ≥ 80 percent", [["top1", ">=", 80.0, ""]]),
        ("with 80% top-1 accuracy", [["top1", ">=", 80.0, ""]]),
        ("top-5 accuracy above 95%", [["top5", ">", 95.0, ""]]),
        ("top-5 error under 5%", [["top5", ">", 95.0, ""]]),
        ("mIoU no less than 70 on Cityscapes", [["miou", ">=", 70.0, "cityscapes"]]),
        ("mean intersection over union better than 0.75", [["miou", ">", 75.0, ""]]),
        ("mAP@0.5 above 60 on COCO", [["map", ">", 60.0, "coco"]]),
        ("mean average precision of 45 or more", [["map", ">=", 45.0, ""]]),
        ("accuracy above 90% on CIFAR-10", [["accuracy", ">", 90.0, "cifar10"]]),
        ("better than ResNet-50, with top-1 over 80%", [["top1", ">", 80.0, ""]]),
        ("fewer than 5 million parameters", [["params", "<", 5.0, ""]]),
        ("at most 1.5B params", [["params", "<=", 1500.0, ""]]),
        ("5,000,000 parameters or fewer", [["params", "<=", 5.0, ""]]),
        ("no more than 500k parameters", [["params", "<=", 0.5, ""]]),
        ("under 600 MFLOPs", [["flops", "<", 0.6, ""]]),
        ("at most 4 GFLOPs", [["flops", "<=", 4.0, ""]]),
        ("less than 2 billion FLOPs", [["flops", "<", 2.0, ""]]),
        ("model file smaller than 100 MB", [["size_mb", "<", 100.0, ""]]),
        ("should use less than 2 GB of memory", [["size_mb", "<", 2048.0, ""]]),
        ("need <= 25M params, >= 80% top1", [["params", "<=", 25.0, ""], ["top1", ">=", 80.0, ""]]),
        # numbers that are not constraints
        ("classify 1000 categories of 224x224 images", []),
        ("In 2019 I took 500 photos of my 3 dogs", []),
        ("translate English to French with a T5 model", [["language", "=", "en>fr", ""]]),  # T5 is no number
        ("", []),
    ],
)
def test_parse_phrasings(text: str, expected: list[list[object]]) -> None:
    assert _parsed(text) == expected


def test_device_budgets() -> None:
    assert _parsed("it must run on a Raspberry Pi") == [["params", "<=", 64.0, ""], ["flops", "<=", 13.5, ""]]
    assert _parsed("for my Android phone") == [["flops", "<=", 0.6, ""], ["params", "<=", 6.0, ""]]
    assert [c[0] for c in _parsed("deploy on an Arduino microcontroller")] == ["size_mb", "params", "flops"]
    assert _parsed("runs on a Jetson Nano")[1] == ["flops", "<=", 47.0, ""]
    # an explicit bound wins over the device's budget for the same metric
    assert _parsed("on a Raspberry Pi with fewer than 10M parameters") == [
        ["params", "<", 10.0, ""],
        ["flops", "<=", 13.5, ""],
    ]
    src = parse_constraints("must run on a raspberry pi 4")[0].source_text
    assert src.startswith("Raspberry Pi")


def test_values_state_no_constraint() -> None:
    """Break-it round 30 (F-L2): a constraint is read from the request, never from the task's values (code in
    backticks, quoted text, the input a colon hands over, APIBench's ###Input)."""
    assert _parsed("search for the pattern '\\d{3}-\\d{4}' in `phone`") == []
    assert _parsed("run sentiment analysis on 'I love this phone'") == []
    assert _parsed('count the words in "my phone has fewer than 5 million apps"') == []
    assert _parsed("translate to German: the phone is on the table") == [["language", "=", ">de", ""]]
    assert _parsed("Summarize the article.\n###Input: Apple's new iPhone, made by Google") == []
    # the request keeps its own: a device word, a bound, a provider outside the quotes
    assert _parsed("classify 'cat.jpg' on my phone") == [["flops", "<=", 0.6, ""], ["params", "<=", 6.0, ""]]
    assert _parsed('"an image classifier with fewer than 5M parameters"') == [["params", "<", 5.0, ""]]
    assert without_constraints("classify `img` with fewer than 5M parameters") == "classify `img` with"


def test_apply_constraints_unknown_message_and_empty() -> None:
    doc = ApiDoc(id="x:1", source="x", api_call="f()", performance={"accuracy": "N/A"})
    result = apply_constraints("top-1 above 70%", [Hit(doc, 1.0, 1)])
    assert not result.satisfied_any and "lacks metadata" in result.message
    plain = apply_constraints("classify images of dogs", [Hit(doc, 1.0, 1)])
    assert plain.constraints == [] and plain.message == "" and plain.report == []


@pytest.mark.parametrize(
    ("task", "search_text"),
    [
        ("an image classifier under 5 million parameters", "an image classifier"),
        ("classify images with fewer than 5,000,000 params", "classify images with"),
        (
            "detect objects with top-1 accuracy of at least 80% on ImageNet",
            "detect objects with of on ImageNet",
        ),
        ("segment roads, mIoU above 67 on Cityscapes", "segment roads, on Cityscapes"),
        ("detect objects under 600 MFLOPs, made by facebook", "detect objects ,"),
        ("load a resnet from pytorch/vision", "load a resnet"),
        ("a model file under 50 MB for a phone", "a model for a phone"),  # device words stay
        ("summarize this text with pytorch", "summarize this text with pytorch"),  # framework words stay
        ("summarize this text", "summarize this text"),
        ("top-5 error below 5 %", ""),
    ],
)
def test_search_text_drops_the_constraint_words(task: str, search_text: str) -> None:
    """Issue 19: the words read as a constraint are not searched for (without_constraints)."""
    assert without_constraints(task) == search_text


@pytest.mark.parametrize(
    ("task", "search_text", "parsed"),
    [
        ("an image classifier with 5M params or less", "an image classifier with", "params <= 5M"),
        ("an image classifier with 5M params or more", "an image classifier with", "params >= 5M"),
        ("a model with 5 million parameters or fewer", "a model with", "params <= 5M"),
        ("a classifier of 80 % top-1 accuracy or better", "a classifier of", "top1 >= 80%"),
        ("a 50 MB model or smaller", "a model", "size_mb <= 50MB"),
        ("a detector with no more than 5M params", "a detector with", "params <= 5M"),
        ("a detector with at least 5M params", "a detector with", "params >= 5M"),
        ("a classifier below 5M params", "a classifier", "params < 5M"),
        ("a classifier above 5M params", "a classifier", "params > 5M"),
        # "under" is no comparator here: the constraint's own is "or less", and only that goes
        ("fits under the desk, with 5M params or less", "fits under the desk, with", "params <= 5M"),
    ],
)
def test_the_whole_comparative_phrase_of_a_constraint_leaves_the_search_text(
    task: str, search_text: str, parsed: str
) -> None:
    """Break-it finding: "an image classifier with 5M params or less" searched for "or less" (the trailing
    comparator after the metric words was not read, and "or more" there was read as "<="). The whole
    comparative phrase of a parsed constraint goes, with the parser's own reading."""
    assert [c.describe() for c in parse_constraints(task)] == [parsed]
    assert without_constraints(task) == search_text


@pytest.mark.parametrize("task", ["pick 5 apples or less", "a tokenizer under 5 words", "10 classes or more"])
def test_a_comparative_phrase_of_no_constraint_stays(task: str) -> None:
    """Comparative words go only when they belong to a parsed constraint."""
    assert parse_constraints(task) == [] and without_constraints(task) == task


def test_constraint_words_do_not_pull_in_other_apis(small_index) -> None:
    """Issue 19: "under 5 million parameters" searched as words ranked a detector whose description says
    "parameters" above the image classifiers; the constraint still reranks (and is reported)."""
    task = "an image classifier under 5 million parameters"
    small_index.literals = (
        False  # the task as typed: its number too (retrieve/query/literals.py masks it now)
    )
    try:
        whole = search_with_constraints(small_index, task, k=3, query=task)
    finally:
        small_index.literals = True
    assert whole.hits[0].doc.domain == "Object Detection"  # what the constraint words found
    result = search_with_constraints(small_index, task, k=3)
    assert {h.doc.domain.lower() for h in result.hits} == {"image classification"}
    assert [c.describe() for c in result.constraints] == ["params < 5M"]
    assert len(result.report) == 3 and "every constraint (params < 5M)" in result.message


def test_one_ask_parses_once_and_checks_each_candidate_once(small_index, monkeypatch) -> None:
    """One ask passes parse -> check -> rank once each (issue 41): one scan of the task (parse._scan), one
    check_doc per candidate, and the proposed doc's constraints read from those checks (for_doc)."""
    from gorilla_tui.constraints import parse, rank

    scans, checked = [], []
    real_scan, real_check = parse._scan, rank.check_doc
    monkeypatch.setattr(parse, "_scan", lambda text: scans.append(text) or real_scan(text))
    monkeypatch.setattr(
        rank, "check_doc", lambda cs, doc, perf=None: checked.append(doc.id) or real_check(cs, doc, perf)
    )
    result = search_with_constraints(small_index, "copy a file, with fewer than 5 million parameters", k=3)
    assert result.constraints and result.hits
    assert len(scans) == 1
    assert sorted(checked) == sorted(set(checked)) == sorted(result.checks)
    proposed = result.for_doc(result.hits[0].doc)
    assert [c["metric"] for c in proposed] == ["params"]
    assert len(checked) == len(result.checks)  # for_doc checked nothing again
