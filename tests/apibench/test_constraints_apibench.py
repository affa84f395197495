"""APIBench tier of tests/unit/test_constraints.py: Constraint parsing, checking and reranking on hand-
labelled tasks over the real Torch Hub and TF Hub."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.constraints.check import check_doc, overall
from gorilla_tui.constraints.parse import Constraint, parse_constraints
from gorilla_tui.constraints.rank import apply_constraints, proposal_constraints, rerank
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.types import Hit, Proposal, Verdict
from tests.unit.test_constraints import TASKS, _parsed


@pytest.fixture(scope="module")
def pools(apibench: Path) -> dict[str, list[ApiDoc]]:
    return {h: load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs for h in ("torchhub", "tensorflowhub")}


def _line(doc: ApiDoc) -> int:
    return int(doc.id.rsplit(":", 1)[1])


def _hits(docs: list[ApiDoc], lines: list[int]) -> list[Hit]:
    by_line = {_line(d): d for d in docs}
    return [Hit(by_line[n], 10.0 - i, i + 1) for i, n in enumerate(lines)]


@pytest.mark.parametrize("item", TASKS, ids=[t["id"] for t in TASKS])
def test_hand_labelled_task(item: dict, pools: dict[str, list[ApiDoc]]) -> None:
    assert _parsed(item["task"]) == item["constraints"]
    constraints = parse_constraints(item["task"])
    satisfied = sorted(
        _line(d) for d in pools[item["hub"]] if overall(check_doc(constraints, d)) == "satisfied"
    )
    assert satisfied == sorted(item["satisfying"])


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
    from gorilla_tui.constraints.rank import search_with_constraints
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
