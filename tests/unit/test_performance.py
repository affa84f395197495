"""The performance normaliser: metadata keys and values; on every metadata shape of the real APIBench Torch
Hub / TF Hub / HF files: tests/apibench/test_performance_apibench.py."""

from __future__ import annotations

import pytest

from gorilla_tui.pool.metrics import (
    canonical_dataset,
    classify_key,
    model_name,
    parse_value_text,
)


@pytest.mark.parametrize(
    ("key", "expected"),
    [
        ("top-1_error", ("top1", True)),
        ("Top-1 error", ("top1", True)),
        ("Top-1 Acc.", ("top1", False)),
        ("top1", ("top1", False)),
        ("top_5", ("top5", False)),
        ("Mean IOU", ("miou", False)),
        ("Drivable mIoU (%)", ("miou", False)),
        ("mAPval0.5:0.95", ("map", False)),
        ("Params (M)", ("params", False)),
        ("Flops (G)", ("flops", False)),
        ("Recall (%)", (None, False)),
        ("Global Pixelwise Accuracy", (None, False)),
    ],
)
def test_classify_key(key: str, expected: tuple[str | None, bool]) -> None:
    assert classify_key(key) == expected


def test_value_text_and_helpers() -> None:
    assert parse_value_text("86.7% (SNLI), 78.6% (MultiNLI)", "accuracy") == [
        ("accuracy", 86.7, True, False, "SNLI"),
        ("accuracy", 78.6, True, False, "MultiNLI"),
    ]
    assert parse_value_text("280.22 +/- 13.03", "accuracy") == []
    assert canonical_dataset("COCO val2017") == "coco" and canonical_dataset("Kinetics-400") == "kinetics400"
    assert canonical_dataset("CIFAR-100") == "cifar100" and canonical_dataset("N/A") is None
    assert model_name("torch.hub.load(repo_or_dir='pytorch/vision', model='resnet18')") == "resnet18"
    assert model_name("hub.load('https://tfhub.dev/google/yamnet/1')") == "google/yamnet"
