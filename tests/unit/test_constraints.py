"""Constraint parsing, checking and reranking on hand-labelled tasks over the real Torch Hub and TF Hub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import tomllib

from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.retrieve.constraints import (
    Constraint,
    apply_constraints,
    check_doc,
    overall,
    parse_constraints,
    proposal_constraints,
    rerank,
)
from gorilla_tui.types import Hit, Proposal, Verdict

TASKS = tomllib.loads(
    (Path(__file__).resolve().parent.parent / "data" / "constraint_tasks.toml").read_text()
)["task"]


@pytest.fixture(scope="module")
def pools(apibench: Path) -> dict[str, list[ApiDoc]]:
    return {h: load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs for h in ("torchhub", "tensorflowhub")}


def _line(doc: ApiDoc) -> int:
    return int(doc.id.rsplit(":", 1)[1])


def _parsed(task: str) -> list[list[object]]:
    return [[c.metric, c.op, c.value, c.dataset or ""] for c in parse_constraints(task)]


def test_task_file_is_big_enough() -> None:
    assert len(TASKS) >= 30
    assert {t["hub"] for t in TASKS} == {"torchhub", "tensorflowhub"}
    assert len({t["id"] for t in TASKS}) == len(TASKS)


@pytest.mark.parametrize("item", TASKS, ids=[t["id"] for t in TASKS])
def test_hand_labelled_task(item: dict, pools: dict[str, list[ApiDoc]]) -> None:
    assert _parsed(item["task"]) == item["constraints"]
    constraints = parse_constraints(item["task"])
    satisfied = sorted(
        _line(d) for d in pools[item["hub"]] if overall(check_doc(constraints, d)) == "satisfied"
    )
    assert satisfied == sorted(item["satisfying"])


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
        ("translate English to French with a T5 model", []),
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


def _hits(docs: list[ApiDoc], lines: list[int]) -> list[Hit]:
    by_line = {_line(d): d for d in docs}
    return [Hit(by_line[n], 10.0 - i, i + 1) for i, n in enumerate(lines)]


def test_rerank_groups_keep_bm25_order(pools: dict[str, list[ApiDoc]]) -> None:
    th = pools["torchhub"]
    # resnet18 69.76 (violates), proxylessnas_cpu (accuracy without dataset: unknown), densenet121 74.65
    # (violates), resnet152 78.31 (ok), ntsnet (no metadata: unknown), wide_resnet50_2 78.51 (ok)
    hits = _hits(th, [54, 50, 29, 58, 8, 75])
    cs = parse_constraints("ImageNet classifier with top-1 of at least 78%")
    new, reports = rerank(hits, cs)
    assert [_line(h.doc) for h in new] == [58, 75, 50, 8, 54, 29]
    assert [h.rank for h in new] == [1, 2, 3, 4, 5, 6]
    assert [r.status for r in reports] == [
        "satisfied",
        "satisfied",
        "unknown",
        "unknown",
        "violated",
        "violated",
    ]
    assert [r.bm25_rank for r in reports] == [4, 6, 2, 5, 1, 3]
    first = reports[0].to_dict()["checks"][0]
    assert first["status"] == "satisfied" and first["actual"] == pytest.approx(78.31)
    assert "error" in first["used"][0]
    dropped, _ = rerank(hits, cs, drop_violating=True)
    assert [_line(h.doc) for h in dropped] == [58, 75, 50, 8]
    # no constraints: unchanged
    assert rerank(hits, []) == (hits, [])


def test_apply_constraints_nothing_satisfies_names_closest(pools: dict[str, list[ApiDoc]]) -> None:
    hits = _hits(pools["torchhub"], [54, 56, 17, 29])  # 69.76, 76.15, 82.2, 74.65
    result = apply_constraints("ImageNet model with top-1 accuracy of at least 84%", hits)
    assert not result.satisfied_any
    assert "No candidate meets every constraint" in result.message
    assert "resnext101_32x8d_wsl" in result.message and "82.2" in result.message
    assert result.hits[0].doc.api_call.find("resnet18") > 0  # all violate: BM25 order kept
    json.dumps(result.report)  # JSON-ready


def test_apply_constraints_unknown_message_and_empty() -> None:
    doc = ApiDoc(id="x:1", source="x", api_call="f()", performance={"accuracy": "N/A"})
    result = apply_constraints("top-1 above 70%", [Hit(doc, 1.0, 1)])
    assert not result.satisfied_any and "lacks metadata" in result.message
    plain = apply_constraints("classify images of dogs", [Hit(doc, 1.0, 1)])
    assert plain.constraints == [] and plain.message == "" and plain.report == []


def test_proposal_constraints_round_trip(pools: dict[str, list[ApiDoc]]) -> None:
    doc = next(d for d in pools["torchhub"] if _line(d) == 78)  # x3d_s
    cs = parse_constraints("Kinetics-400 action recognition on a Raspberry Pi with top-1 above 70%")
    rows = proposal_constraints(cs, doc)
    assert [r["status"] for r in rows] == ["satisfied"] * 3
    assert rows[0]["actual"] == 73.33 and rows[0]["dataset"] == "kinetics400"
    proposal = Proposal(task="t", api_call=doc.api_call, code="", verdict=Verdict("valid"), constraints=rows)
    assert json.loads(json.dumps(proposal.to_dict()))["constraints"][1]["metric"] == "params"
    assert [r["status"] for r in proposal_constraints(cs, None)] == ["unknown"] * 3


def test_mixed_values_are_unknown(pools: dict[str, list[ApiDoc]]) -> None:
    yolo = next(d for d in pools["torchhub"] if _line(d) == 15)
    (check,) = check_doc([Constraint("map", ">", 50.0, "%", "coco", "mAP above 50")], yolo)
    assert check.status == "unknown" and (check.low, check.high) == (43.3, 72.0)
    assert check.to_dict()["actual"] == [43.3, 72.0]


def test_search_with_constraints_widens(pools: dict[str, list[ApiDoc]]) -> None:
    from gorilla_tui.retrieve.constraints import search_with_constraints
    from gorilla_tui.retrieve.index import ApiIndex

    index = ApiIndex.build(pools["torchhub"])
    task = "Tiny image classifier with at most 3 million parameters."
    narrow = apply_constraints(task, index.search(task, k=20))
    assert not narrow.satisfied_any  # the 20 best BM25 hits state no parameter count <= 3 M
    result = search_with_constraints(index, task, k=5)
    assert result.satisfied_any and "widened" in result.message
    assert {_line(h.doc) for h in result.hits[:2]} == {91, 92} and len(result.hits) == len(result.report) == 5
    plain = search_with_constraints(index, "classify images of dogs", k=3)
    assert plain.constraints == [] and len(plain.hits) == 3
