"""Words for the matched-API card and the proposal: task constraints as a person would say them, and which
hits select mode set aside and why. Pure formatting of Proposal fields (no textual import)."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from typing import Any

from gorilla_tui.constraints.check import check_doc
from gorilla_tui.constraints.parse import DEVICES, FRAMEWORKS, Constraint, framework_keys
from gorilla_tui.tui.naming import display_name
from gorilla_tui.types import Hit, Proposal

#: Constraint.metric -> how it is written (constraints/parse.py lists the metrics).
METRIC_WORDS = {
    "top1": "top-1",
    "top5": "top-5",
    "accuracy": "accuracy",
    "miou": "mIoU",
    "map": "mAP",
    "params": "params",
    "flops": "FLOPs",
    "size_mb": "size",
}
#: Constraint.unit -> the unit written after the bound ("GFLOPs" is said as "G" after "FLOPs").
UNIT_WORDS = {"%": " %", "M": " M", "GFLOPs": " G", "MB": " MB"}
#: Canonical dataset keys (pool/metrics.py DATASETS) -> their usual spelling.
DATASET_WORDS = {
    "imagenet": "ImageNet",
    "coco": "COCO",
    "kinetics400": "Kinetics-400",
    "kinetics600": "Kinetics-600",
    "kinetics700": "Kinetics-700",
    "cityscapes": "Cityscapes",
    "pascalvoc": "PASCAL VOC",
    "ade20k": "ADE20K",
    "cifar10": "CIFAR-10",
    "cifar100": "CIFAR-100",
    "bdd100k": "BDD100K",
    "audioset": "AudioSet",
    "somethingsomething": "Something-Something",
    "squad": "SQuAD",
    "openimages": "Open Images",
}
OP_WORDS = {">=": "≥", "<=": "≤", ">": ">", "<": "<"}
#: Status -> the mark after the number.
STATUS_MARK = {"satisfied": "✔", "violated": "✘", "unknown": "unknown"}
_DEVICE_NAMES = tuple(name for name, _, _ in DEVICES)
_DEVICE_TEXT = re.compile(r"^(.+?) \(.*\)$")


def _num(value: float) -> str:
    return f"{value:g}"


def device_of(source_text: str) -> str | None:
    """The device a budget came from ("Raspberry Pi (rpi)" -> "Raspberry Pi"; see DEVICES), else None."""
    m = _DEVICE_TEXT.match(source_text or "")
    return m.group(1) if m and m.group(1) in _DEVICE_NAMES else None


def bound_words(c: dict[str, Any]) -> str:
    """The requirement of one Proposal.constraints item, e.g. "top-1 ≥ 80 % on ImageNet", "params ≤ 64 M
    for a Raspberry Pi", "provider nvidia", "a PyTorch API" or "translates en → fr"."""
    if c.get("metric") == "provider":
        return f"provider {c.get('value')}"
    if c.get("metric") == "framework":
        names = [FRAMEWORKS[k][0] if k in FRAMEWORKS else k for k in framework_keys(str(c.get("value")))]
        return f"a {' or '.join(names)} API"  # "a PyTorch or TensorFlow API": either is allowed
    if c.get("metric") == "language":
        src, _, tgt = str(c.get("value")).partition(">")
        return f"translates {src or 'any language'} → {tgt or 'any language'}"
    metric = METRIC_WORDS.get(str(c.get("metric")), str(c.get("metric")))
    unit = UNIT_WORDS.get(str(c.get("unit", "")), f" {c.get('unit')}" if c.get("unit") else "")
    text = f"{metric} {OP_WORDS.get(str(c.get('op')), c.get('op'))} {_num(float(c.get('value', 0)))}{unit}"
    if c.get("dataset"):
        text += f" on {DATASET_WORDS.get(c['dataset'], c['dataset'])}"
    device = device_of(str(c.get("source_text", "")))
    if device:
        text += f" for {'an' if device[0] in 'aeiou' else 'a'} {device}"
    return text


def actual_words(c: dict[str, Any]) -> str:
    """The number(s) the check used: "85.1", "70.2-85.1", the publisher or framework of a provider or
    framework constraint ("nvidia/deeplearningexamples", "PyTorch"), or "" when none applied."""
    actual = c.get("actual")
    if actual is None:
        return ""
    if isinstance(actual, str):
        return actual
    if isinstance(actual, list | tuple):
        return f"{_num(float(actual[0]))}-{_num(float(actual[1]))}"
    return _num(float(actual))


def constraint_words(c: dict[str, Any], with_note: bool = False) -> str:
    """One constraint with its outcome: "top-1 ≥ 80 % on ImageNet: 85.1 ✔", "params ≤ 6 M for a phone:
    12.3 ✘", "params ≤ 64 M for a Raspberry Pi: unknown" (with_note: "… unknown (no params in the
    metadata)")."""
    status = str(c.get("status", "unknown"))
    actual = actual_words(c)
    outcome = f"{actual} {STATUS_MARK.get(status, status)}" if actual else STATUS_MARK.get(status, status)
    text = f"{bound_words(c)}: {outcome}"
    if with_note and status == "unknown" and c.get("note"):
        text += f" ({c['note']})"
    return text


def constraints_sentence(constraints: list[dict[str, Any]]) -> str:
    """Every constraint of a proposal on one line, joined by "; " ("" when there is none)."""
    return "; ".join(constraint_words(c) for c in constraints)


def _constraint(c: dict[str, Any]) -> Constraint | None:
    names = [f.name for f in fields(Constraint)]
    try:
        return Constraint(**{n: c.get(n) for n in names})
    except TypeError:
        return None


@dataclass(frozen=True)
class SetAside:
    """A hit select mode did not choose among: rank (1-based), name (tui.naming.display_name), why."""

    rank: int
    name: str
    why: str

    def __str__(self) -> str:
        return f"#{self.rank} {self.name}: {self.why}"


def set_aside(proposal: Proposal) -> list[SetAside]:
    """The hits of a select-mode proposal that were not candidates, or that fail a stated constraint, each
    with its reason, in rank order.

    Reasons, from the proposal's own fields: the doc is flagged with no repaired call (its api_call is
    not valid Python, so pipeline.Pipeline never offers it); likelihood mode scored the others but not
    this one (Hit.lm_score None); the doc violates a task constraint (constraints.check.check_doc over
    Proposal.constraints: such hits are ranked last). Empty in generate mode."""
    if not proposal.select_by:
        return []
    cons = [c for c in (_constraint(d) for d in proposal.constraints) if c is not None]
    scored = any(h.lm_score is not None for h in proposal.hits)
    usable = [h for h in proposal.hits if _offered(h)]
    out = []
    for h in proposal.hits:
        why = _why(h, cons, scored and proposal.select_by == "likelihood", bool(usable))
        if why:
            out.append(SetAside(h.rank, display_name(h.doc), why))
    return out


def aside_words(aside: list[SetAside]) -> str:
    """The set-aside hits on one line, grouped by reason: "#1, #2, #3 MEAL_V2: not offered (api_call is
    not valid Python); #5 x3d_s: ranked last: fails FLOPs ≤ 13.5 G for a Raspberry Pi (54.5)"."""
    groups: dict[str, list[SetAside]] = {}
    for a in aside:
        groups.setdefault(a.why, []).append(a)
    parts = []
    for why, items in groups.items():
        names = list(dict.fromkeys(a.name for a in items))
        parts.append(f"{', '.join(f'#{a.rank}' for a in items)} {', '.join(names)}: {why}")
    return "; ".join(parts)


def _offered(hit: Hit) -> bool:
    """Whether select mode offers this hit's call (pipeline.Pipeline: not flagged, or flagged with a
    Python-valid repaired call, pool/repair.py)."""
    return not hit.doc.flagged or bool(getattr(hit.doc, "repaired", None))


def _why(hit: Hit, cons: list[Constraint], scored: bool, any_usable: bool) -> str:
    if not _offered(hit) and any_usable:
        return "not offered (api_call is not valid Python)"
    if scored and hit.lm_score is None:
        return "not scored (left out of the prompt)"
    violated = [ch for ch in check_doc(cons, hit.doc) if ch.status == "violated"] if cons else []
    if violated:
        words = [f"{bound_words(d)} ({actual_words(d)})" for d in (ch.to_dict() for ch in violated)]
        return "ranked last: fails " + ", ".join(words)
    return ""
