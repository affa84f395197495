"""APIBench tier of tests/unit/test_performance.py: The performance normaliser on every metadata shape of the
real APIBench Torch Hub / TF Hub / HF files."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.pool.metrics import (
    normalise_performance,
    select_variant,
)


def _raw(apibench: Path, hub: str) -> list[object]:
    path = apibench / "api" / f"{hub}_api.jsonl"
    return [json.loads(line).get("performance") for line in path.read_text().splitlines() if line.strip()]


def _one(perf, metric: str) -> float:
    values = [m.value for m in perf.of(metric)]
    assert len(values) == 1, (metric, perf.measures)
    return values[0]


@pytest.fixture(scope="module")
def torch_raw(apibench: Path) -> list[object]:
    return _raw(apibench, "torchhub")


def test_torchhub_known_values(torch_raw: list[object]) -> None:
    # line 1: {"dataset": "Kinetics 400", "accuracy": {"top_1": 74.58, ...}, "Flops (G)": 54.52, ...}
    p = normalise_performance(torch_raw[0])
    assert _one(p, "top1") == 74.58 and _one(p, "top5") == 91.63
    assert _one(p, "flops") == 54.52 and _one(p, "params") == 32.45
    assert {m.dataset for m in p.measures} == {"kinetics400"}
    # line 56: resnet50 {"top-1_error": 23.85} -> 76.15
    assert _one(normalise_performance(torch_raw[55]), "top1") == pytest.approx(76.15)
    # line 17: {"ResNeXt-101 32x8d": {"Top-1 Acc.": "82.2"}} (a string)
    assert _one(normalise_performance(torch_raw[16]), "top1") == 82.2
    # line 40: googlenet {"Top-1 error": "30.22"} (an error rate as a string)
    assert _one(normalise_performance(torch_raw[39]), "top1") == pytest.approx(69.78)
    # line 46: {"ResNeSt-50": 81.03} -> an unqualified accuracy of the variant
    m = normalise_performance(torch_raw[45]).of("accuracy")
    assert [(x.value, x.variant, x.dataset) for x in m] == [(81.03, "ResNeSt-50", "imagenet")]
    # line 78: x3d_s "flops": 2.96, "params": 3.79 without units -> model-zoo units, noted
    p = normalise_performance(torch_raw[77])
    assert _one(p, "params") == 3.79 and "unit not stated" in p.of("params")[0].note
    # line 87: [{"dataset": "ImageNet", "accuracy": {"parameters": "25.6M", "top1": "78.21"}}]
    p = normalise_performance(torch_raw[86])
    assert _one(p, "params") == 25.6 and _one(p, "top1") == 78.21
    # line 12: "accuracy": [{"model": ..., "Mean IOU": 66.4, "Global Pixelwise Accuracy": 92.4}]
    p = normalise_performance(torch_raw[11])
    assert _one(p, "miou") == 66.4 and p.of("accuracy") == [] and p.measures[0].dataset == "coco"


def test_top5_below_top1_means_error_rates(torch_raw: list[object]) -> None:
    # line 59: resnext50_32x4d {"top-1": 22.38, "top-5": 6.3}: labelled accuracies, but top-5 < top-1
    p = normalise_performance(torch_raw[58])
    assert _one(p, "top1") == pytest.approx(77.62) and _one(p, "top5") == pytest.approx(93.7)
    assert "error rates" in p.of("top1")[0].note
    # line 60: the model key sits beside "dataset", not under "accuracy"
    assert _one(normalise_performance(torch_raw[59]), "top1") == pytest.approx(79.31)


def test_unknown_stays_unknown(torch_raw: list[object]) -> None:
    for line in (4, 7, 8, 9, 11, 16, 22, 24, 27, 82, 83, 84, 85, 86):  # "N/A", "Not provided", null, prose
        assert normalise_performance(torch_raw[line - 1]).measures == [], line
    # prose in "description" is never mined (line 81: "accuracy of 81.2% on ImageNet" in a sentence)
    p = normalise_performance(torch_raw[80])
    assert p.measures == [] and "free text" in p.notes[0]
    # line 23: "~0.5% top1 improvement over ResNet50 v1" is not a top-1 of 0.5
    assert normalise_performance(torch_raw[22]).measures == []


def test_torchhub_counts(torch_raw: list[object]) -> None:
    perfs = [normalise_performance(r) for r in torch_raw]
    assert sum(bool(p.of("top1")) for p in perfs) == 55
    assert sum(bool(p.of("params")) for p in perfs) == 11  # lines 1, 77, 78, 87-94
    assert sum(bool(p.of("flops")) for p in perfs) == 3
    assert sum(bool(p.of("miou")) for p in perfs) == 7  # 2, 3, 12, 13, 14, 33, 34
    for p in perfs:
        for m in p.measures:
            if m.metric in ("top1", "top5", "accuracy", "miou", "map"):
                assert 0 <= m.value <= 100


def test_yolov5_variants_and_selection(torch_raw: list[object]) -> None:
    p = normalise_performance(torch_raw[14])
    assert {m.variant for m in p.of("map")} == {
        "YOLOv5s6",
        "YOLOv5m6",
        "YOLOv5l6",
        "YOLOv5x6",
        "YOLOv5x6 TTA",
    }
    # no variant is the called model "yolov5s": every variant stays (a range)
    assert len(select_variant(p.of("map"), "torch.hub.load('ultralytics/yolov5', model='yolov5s')")) == 15
    only = select_variant(p.of("map"), "torch.hub.load('ultralytics/yolov5', model='YOLOv5m6')")
    assert {m.variant for m in only} == {"YOLOv5m6"}


def test_tfhub_shapes(apibench: Path) -> None:
    raw = _raw(apibench, "tensorflowhub")
    assert _one(normalise_performance(raw[5]), "accuracy") == 71.0  # "71.0%"
    assert _one(normalise_performance(raw[28]), "accuracy") == pytest.approx(77.9)  # "0.779": a fraction
    p = normalise_performance(raw[127])  # "Top-1 Accuracy: 80.9%, Top-5 Accuracy: 95.2%"
    assert _one(p, "top1") == 80.9 and _one(p, "top5") == 95.2
    assert _one(normalise_performance(raw[43]), "map") == 81.7  # "81.7% mAP"
    assert _one(normalise_performance(raw[258]), "map") == pytest.approx(22.0)  # "mAP of 0.22"
    assert _one(normalise_performance(raw[475]), "miou") == 82.1  # "... mean intersection-over-union (mIOU)"
    assert _one(normalise_performance(raw[9]), "pearson") == 0.803  # a correlation, not a percentage
    for line in (
        13,
        75,
        78,
        196,
        219,
        566,
    ):  # PSNR/dB, bare "mAP@0.5IOU", "80-90%", "Top-1 accuracy", ">=70%"
        assert normalise_performance(raw[line - 1]).measures == [], line
    perfs = [normalise_performance(r) for r in raw]
    # lines 123 128 136 160 204 206 237 240 289 393 410 449 481 494 502 553 577 591 595 650
    assert sum(bool(p.of("top1")) for p in perfs) == 20
    assert sum(bool(p.of("miou")) for p in perfs) == 1


def test_huggingface_never_raises_and_drops_nonsense(apibench: Path) -> None:
    raw = _raw(apibench, "huggingface")
    perfs = [normalise_performance(r) for r in raw]
    assert len(perfs) == 936
    for p in perfs:
        for m in p.measures:
            if m.metric in ("top1", "top5", "accuracy", "miou", "map", "f1"):
                assert 0 <= m.value <= 100
    # {"dataset": [{"name": "WikiAnswers", "accuracy": 77427422}, ...]} is a count, not an accuracy
    counts = next(i for i, r in enumerate(raw) if "77427422" in json.dumps(r))
    assert perfs[counts].measures == [] and "outside 0-100" in perfs[counts].notes[0]
    # {"dataset": "Something-Something-v2", "accuracy": {"top-1": 70.6, "top-5": 92.6}}
    ssv2 = next(
        i for i, r in enumerate(raw) if "Something-Something-v2" in json.dumps(r) and "70.6" in json.dumps(r)
    )
    assert [(m.metric, m.value, m.dataset) for m in perfs[ssv2].measures] == [
        ("top1", 70.6, "somethingsomething"),
        ("top5", 92.6, "somethingsomething"),
    ]
