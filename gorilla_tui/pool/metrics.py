"""Normalise an ApiDoc's raw `performance` JSON into measures (metric, value, dataset) in fixed units."""

from __future__ import annotations

import re
from dataclasses import asdict, dataclass, field
from typing import Any

from gorilla_tui.pool.metric_text import EMPTY as _EMPTY
from gorilla_tui.pool.metric_text import NUM as _NUM
from gorilla_tui.pool.metric_text import parse_value_text

#: Metrics whose values are percentages (0-100) after normalisation.
PERCENT_METRICS = frozenset({"top1", "top5", "accuracy", "miou", "map", "f1"})
#: Canonical unit of each metric (params in millions, FLOPs in GFLOPs per inference, sizes in MB).
UNITS = {m: "%" for m in PERCENT_METRICS} | {"params": "M", "flops": "GFLOPs", "size_mb": "MB"}

#: Dataset aliases -> canonical key. Matching is on the squashed name (lower case, letters and digits only);
#: a canonical key matches a squashed name that starts with it ("coco" matches "cocoval2017").
DATASETS: dict[str, tuple[str, ...]] = {
    "imagenet": ("imagenet", "ilsvrc"),
    "coco": ("coco", "mscoco"),
    "kinetics400": ("kinetics400", "k400"),
    "kinetics600": ("kinetics600",),
    "kinetics700": ("kinetics700",),
    "cityscapes": ("cityscapes",),
    "pascalvoc": ("pascalvoc", "voc2012", "voc2007", "pascal"),
    "ade20k": ("ade20k",),
    "cifar10": ("cifar10",),
    "cifar100": ("cifar100",),
    "bdd100k": ("bdd100k",),
    "audioset": ("audioset",),
    "somethingsomething": ("somethingsomething", "ssv2"),
    "squad": ("squad",),
    "openimages": ("openimages",),
}


def squash(text: str) -> str:
    """Lower-case text with everything but letters and digits removed ("Kinetics-400" -> "kinetics400")."""
    return re.sub(r"[^a-z0-9]", "", text.lower())


def canonical_dataset(name: Any) -> str | None:
    """A dataset name as written in the pool or a task -> canonical key of DATASETS, the squashed name for
    other datasets, or None for empty / "N/A" / non-string values."""
    if not isinstance(name, str) or name.strip().lower() in _EMPTY:
        return None
    sq = squash(name)
    for key, aliases in DATASETS.items():
        # cifar100 before cifar10 would matter; prefix on the longest alias first
        for alias in sorted(aliases, key=len, reverse=True):
            if sq.startswith(alias) and not (key == "cifar10" and sq.startswith("cifar100")):
                return key
    return sq or None


@dataclass(frozen=True)
class Measure:
    """One normalised number of a doc's performance.

    metric: "top1" | "top5" | "accuracy" (unqualified) | "miou" | "map" | "f1" (percent, 0-100),
    "params" (millions), "flops" (GFLOPs per inference), "size_mb" (MB), "pearson" (correlation, -1..1).
    dataset: canonical key (see canonical_dataset) or None when the record names none.
    variant: the model variant the number belongs to (a per-model dict key or "model" field), or None.
    path: where in the raw JSON it came from; note: how the raw value was converted ("" when as-is).
    """

    metric: str
    value: float
    dataset: str | None = None
    variant: str | None = None
    path: str = ""
    note: str = ""

    def describe(self) -> str:
        """Short text such as "top1=76.15 (imagenet; accuracy.top-1_error: error 23.85 -> 100 - error)"."""
        bits = [b for b in (self.dataset, self.variant, self.path, self.note) if b]
        return f"{self.metric}={self.value:g}" + (f" ({'; '.join(bits)})" if bits else "")


@dataclass
class Performance:
    """All measures found in one raw performance value, plus notes on what was skipped and why."""

    measures: list[Measure] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)

    def of(self, metric: str) -> list[Measure]:
        """Measures of one canonical metric, in document order."""
        return [m for m in self.measures if m.metric == metric]

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready dict (inverse of :meth:`from_dict`): {"measures": [Measure fields], "notes": [...]}."""
        return {"measures": [asdict(m) for m in self.measures], "notes": list(self.notes)}

    @classmethod
    def from_dict(cls, d: dict[str, Any]) -> Performance:
        """Rebuild from :meth:`to_dict` output. Raises TypeError / KeyError for another shape."""
        return cls([Measure(**m) for m in d.get("measures", [])], list(d.get("notes", [])))


def classify_key(key: str) -> tuple[str | None, bool]:
    """A performance key -> (canonical metric or None, is_error_rate).

    "top-1_error" / "Top-1 error" -> ("top1", True); "Top-1 Acc." / "top1" / "top_1" -> ("top1", False);
    "Mean IOU" / "mIOU(%)" / "Drivable mIoU (%)" -> "miou"; "mAPval0.5:0.95" / "mAP@0.5 (%)" -> "map";
    "Params (M)" / "parameters" -> "params"; "Flops (G)" / "GFLOPs" -> "flops"; "accuracy" / "acc" ->
    "accuracy"; "f1" -> "f1"; "pearson..." -> "pearson"; anything else -> None.
    """
    k = key.lower()
    sq = squash(key)
    error = "err" in k
    if re.search(r"top[\s_-]*1(?!\d)", k):
        return "top1", error
    if re.search(r"top[\s_-]*5(?!\d)", k):
        return "top5", error
    if "miou" in sq or "meaniou" in sq or "meanintersection" in sq:
        return "miou", error
    if sq.startswith("map") or "map@" in k or re.search(r"\bmap\b", k):
        return "map", error
    if sq.startswith("param") or sq in {"numparams", "nparams"}:
        return "params", False
    if "flop" in sq or "multadd" in sq or "multiplyadd" in sq:
        return "flops", False
    if sq in {"modelsizemb", "sizemb", "modelsize", "filesize"}:
        return "size_mb", False
    if sq in {"accuracy", "acc", "accuracy%"} or sq.startswith("accuracy") or sq.startswith("acc"):
        return "accuracy", error
    if sq in {"f1", "f1score"}:
        return "f1", False
    if "pearson" in sq:
        return "pearson", False
    return None, False


# words that make a digit-bearing key a metric name rather than a model variant ("ROUGE-1", "off-by-1")
_NOT_VARIANT = re.compile(
    r"recall|precision|speed|fps|iou|psnr|ssim|bleu|rouge|fid|sdr|sir|sar|stoi|wer|cer|loss|mse|off|exact|"
    r"resolution|latency|em\b|r2",
    re.IGNORECASE,
)
_SKIP_KEYS = {"name", "model", "model_structure", "resolution", "language", "speakers", "description"}
_SCALED = re.compile(r"^\s*" + _NUM + r"\s*([kmbgt])?\b", re.IGNORECASE)
_SCALE = {"k": 1e-3, "m": 1.0, "b": 1e3, "g": 1e3, "t": 1e6}


def _scaled(metric: str, key: str, value: Any) -> tuple[float, str] | None:
    """params / flops value -> (millions of params | GFLOPs, note); None when unreadable.

    Unit from the value's suffix ("25.6M", "600M", "1.2B") or the key ("Params (M)", "Flops (G)"); a bare
    number without any unit below 10,000 is read in the model-zoo unit (M params, GFLOPs: the PyTorchVideo
    model zoo's columns), a bare number >= 10,000 as a raw count.
    """
    if isinstance(value, bool):
        return None
    if isinstance(value, (int, float)):
        num, suffix = float(value), ""
    else:
        m = _SCALED.match(str(value))
        if not m or re.search(r"\d\s*[-/]\s*\d", str(value)):
            return None
        num, suffix = float(m.group(1)), (m.group(2) or "").lower()
    key_unit = re.search(r"\(([kmgbt])\)|^g(?=flop)|^m(?=flop)", key.strip().lower())
    unit = suffix or (key_unit.group(1) or key_unit.group(0) if key_unit else "")
    note = ""
    if not unit:
        if num >= 1e4:
            num, note = num / (1e9 if metric == "flops" else 1e6), "raw count"
        else:
            unit, note = ("g" if metric == "flops" else "m"), "unit not stated: model-zoo unit assumed"
    if unit:
        scale = _SCALE[unit]
        if metric == "flops":  # canonical GFLOPs
            scale = {"k": 1e-6, "m": 1e-3, "g": 1.0, "b": 1.0, "t": 1e3}[unit]
        num *= scale
    return num, note


class _Walker:
    """Collects raw leaves of a performance value, with the dataset / variant context they sit in."""

    def __init__(self) -> None:
        self.perf = Performance()
        self.group = 0

    def walk(self, node: Any, dataset: str | None, variant: str | None, path: str, hint: str | None) -> None:
        if node is None:
            return
        if isinstance(node, list):
            for i, item in enumerate(node):
                self.walk(item, dataset, variant, f"{path}[{i}]", hint)
            return
        if not isinstance(node, dict):
            self.leaf(hint, False, node, dataset, variant, path)
            return
        self.group += 1
        ds = node.get("dataset")
        if isinstance(ds, str):
            dataset = canonical_dataset(ds) or dataset
        elif isinstance(node.get("name"), str) and ("accuracy" in node or len(node) > 1):
            dataset = canonical_dataset(node["name"]) or dataset
        for vkey in ("model", "model_structure"):
            if isinstance(node.get(vkey), str):
                variant = node[vkey]
        for key, value in node.items():
            sub = f"{path}.{key}" if path else str(key)
            if key == "dataset":
                if isinstance(value, (dict, list)):
                    self.walk(value, dataset, variant, sub, hint)
                continue
            if key in _SKIP_KEYS:
                if key == "description" and isinstance(value, str) and re.search(r"\d", value):
                    self.perf.notes.append(f"{sub}: free text not read (numbers in prose are ambiguous)")
                continue
            metric, err = classify_key(str(key))
            if isinstance(value, (dict, list)):
                looks_variant = metric is None and not _NOT_VARIANT.search(str(key))
                self.walk(value, dataset, str(key) if looks_variant else variant, sub, metric or hint)
            elif metric is not None:
                self.leaf(metric, err, value, dataset, variant, sub)
            elif hint in PERCENT_METRICS and re.search(r"\d", str(key)) and not _NOT_VARIANT.search(str(key)):
                self.leaf(hint, False, value, dataset, str(key), sub)  # {"ResNeSt-50": 81.03}
            elif isinstance(value, (int, float, str)) and re.search(r"\d", str(value)):
                self.perf.notes.append(f"{sub}: {str(value)[:40]!r} not a known metric, skipped")

    def leaf(
        self, metric: str | None, err: bool, value: Any, dataset: str | None, variant: str | None, path: str
    ) -> None:
        if metric is None or isinstance(value, bool):
            return
        if metric in ("params", "flops", "size_mb"):
            got = _scaled(metric, path.rsplit(".", 1)[-1], value)
            if got is None:
                if str(value).strip().lower() not in _EMPTY:
                    self.perf.notes.append(f"{path}: {str(value)[:40]!r} unreadable, unknown")
                return
            self.add(Measure(metric, round(got[0], 6), dataset, variant, path, got[1]))
            return
        if isinstance(value, (int, float)):
            items = [(metric, float(value), False, err, None)]
        elif isinstance(value, str):
            items = parse_value_text(value, metric)
            if not items and value.strip().lower() not in _EMPTY and re.search(r"\d", value):
                self.perf.notes.append(f"{path}: {value[:60]!r} ambiguous, unknown")
        else:
            return
        for m, v, pct, e, ds_text in items:
            self.number(m, v, pct, e or err, canonical_dataset(ds_text) or dataset, variant, path)

    def number(
        self, metric: str, v: float, pct: bool, err: bool, dataset: str | None, variant: str | None, path: str
    ) -> None:
        notes = []
        if metric in ("pearson", "spearman"):
            if pct or v > 1:
                v, notes = v / 100, ["percent -> correlation"]
            self.add(Measure(metric, v, dataset, variant, path, "; ".join(notes)))
            return
        if not pct and v <= 1.0:
            notes.append(f"fraction {v:g} -> percent")
            v *= 100
        if err:
            notes.append(f"error {v:g} -> 100 - error")
            v = 100 - v
        if not 0 <= v <= 100:
            self.perf.notes.append(f"{path}: {v:g} outside 0-100 for a percentage, skipped")
            return
        self.add(Measure(metric, round(v, 4), dataset, variant, path, "; ".join(notes)))

    def add(self, m: Measure) -> None:
        self.perf.measures.append(m)
        self.groups.setdefault(id(self.perf.measures[-1]), self.group)

    groups: dict[int, int]


def _swap_error_pairs(perf: Performance, groups: dict[int, int]) -> None:
    """Top-5 accuracy can never be below top-1 accuracy; when a record labelled plain "top-1"/"top-5" has
    top-5 < top-1, the pair are error rates (torchvision's resnext rows) and become 100 - value."""
    by_group: dict[int, list[int]] = {}
    for i, m in enumerate(perf.measures):
        by_group.setdefault(groups.get(id(m), -1), []).append(i)
    for idx in by_group.values():
        t1 = [i for i in idx if perf.measures[i].metric == "top1" and "error" not in perf.measures[i].note]
        t5 = [i for i in idx if perf.measures[i].metric == "top5" and "error" not in perf.measures[i].note]
        if len(t1) == 1 and len(t5) == 1 and perf.measures[t5[0]].value < perf.measures[t1[0]].value:
            for i in (t1[0], t5[0]):
                m = perf.measures[i]
                note = "; ".join(filter(None, [m.note, "top-5 < top-1: read as error rates -> 100 - error"]))
                perf.measures[i] = Measure(
                    m.metric, round(100 - m.value, 4), m.dataset, m.variant, m.path, note
                )


def normalise_performance(raw: Any) -> Performance:
    """Raw ApiDoc.performance JSON (any APIBench / APIZoo shape) -> Performance.

    Rules (documented in docs/constraints.md): keys are classified by classify_key; error rates become
    accuracies (100 - error); a percentage without a "%" sign and <= 1.0 is a fraction (x 100), above 1.0 it
    is already a percent; percentages outside 0-100 are dropped; strings are read by parse_value_text, which
    yields nothing when ambiguous; "Not provided", "N/A", "" and null give no measure. Free-text
    "description" fields are never mined for numbers. Never raises.
    """
    w = _Walker()
    w.groups = {}
    try:
        w.walk(raw, None, None, "", "accuracy" if not isinstance(raw, (dict, list)) else None)
    except RecursionError:  # pathological nesting: keep what was read
        w.perf.notes.append("nesting too deep, rest skipped")
    _swap_error_pairs(w.perf, w.groups)
    return w.perf


def model_name(api_call: str) -> str | None:
    """The model a call loads: torch.hub's model='...' argument, or the last meaningful tfhub.dev / hub id
    path segment; None when the call names no model."""
    m = re.search(r"\bmodel\s*=\s*['\"]([^'\"]+)['\"]", api_call)
    if m:
        return m.group(1)
    m = re.search(r"['\"](?:https?://)?tfhub\.dev/([^'\"]+)['\"]", api_call)
    if m:
        parts = [p for p in m.group(1).split("/") if p and not p.isdigit()]
        return "/".join(parts) or None
    return None


_TORCH_REPO = re.compile(r"torch\.hub\.load\(\s*(?:repo_or_dir\s*=\s*)?['\"]([^'\"]+)['\"]")
_TFHUB = re.compile(r"['\"](?:https?://)?tfhub\.dev/([^'\"]+)['\"]")
_HF_ID = re.compile(r"['\"]([A-Za-z0-9][\w.-]*/[A-Za-z0-9][\w.-]*)['\"]")


def provider_id(api_call: str) -> str | None:
    """Who publishes the API a call loads, as a lower-case "owner/repo[/path]" id, or None when the call
    names no publisher (a Python library call, a REST path, a Hugging Face id without an owner).

    torch.hub.load's repo ("NVIDIA/DeepLearningExamples:torchhub" -> "nvidia/deeplearningexamples"), a
    tfhub.dev handle's path ("google/imagenet/mobilenet_v2_100_224/classification/4"), or the first quoted
    "owner/name" id of the call (Hugging Face: "facebook/bart-large-cnn").
    """
    m = _TORCH_REPO.search(api_call)
    if m:
        return m.group(1).split(":", 1)[0].strip().lower() or None
    m = _TFHUB.search(api_call)
    if m:
        return m.group(1).strip("/").lower() or None
    m = _HF_ID.search(api_call)
    if m and not m.group(1).startswith(("http", "/")):
        return m.group(1).lower()
    return None


def select_variant(measures: list[Measure], api_call: str) -> list[Measure]:
    """Measures of the variant the call loads, when the performance lists several variants and one of them
    is the called model (squashed names equal); otherwise all measures (the caller then sees a range)."""
    variants = {m.variant for m in measures if m.variant}
    name = model_name(api_call)
    if len(variants) > 1 and name:
        want = squash(name)
        chosen = [v for v in variants if squash(v) == want]
        if len(chosen) == 1:
            return [m for m in measures if m.variant in (chosen[0], None)]
    return measures
