"""The second step of the constraints of an ask: each hit's doc against each constraint parse.py read
(check_doc -> Check per constraint, overall -> one status per doc), from the doc's performance metadata
(pool/metrics.py), the publisher its call names and its framework. Imports parse.py and vocab.py, never
rank.py (the third step)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.constraints.languages import translation_holds, translation_of
from gorilla_tui.constraints.parse import Constraint
from gorilla_tui.constraints.vocab import framework_matches, provider_matches
from gorilla_tui.pool.metrics import Measure, Performance, normalise_performance, provider_id, select_variant

#: The metrics whose value is a word, not a number: publisher, framework, translation direction.
_WORD_METRICS = ("provider", "framework", "language")
#: The status of one check, and the order rank.py sorts hits by (best first).
STATUSES = ("satisfied", "unknown", "violated")
#: top-1 and an unqualified "accuracy" stand in for each other only on classification benchmarks, where the
#: single headline accuracy is the top-1 accuracy (ImageNet, CIFAR, Kinetics, Something-Something).
_FALLBACK = {"top1": "accuracy", "accuracy": "top1"}
CLASSIFICATION_DATASETS = frozenset(
    {"imagenet", "cifar10", "cifar100", "kinetics400", "kinetics600", "kinetics700", "somethingsomething"}
)


@dataclass
class Check:
    """One constraint checked against one doc. status: "satisfied" | "violated" | "unknown".
    low / high: the smallest and largest applicable value (equal when one number applies; None when none
    does); used: the measures read ("top1=76.15 (imagenet; ...)"); note: why unknown, or a fallback used."""

    constraint: Constraint
    status: str
    low: float | None = None
    high: float | None = None
    used: list[str] = field(default_factory=list)
    note: str = ""

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the constraint's fields + status, actual (a number, [low, high], the provider id or
        None), used, note."""
        actual: Any = (
            None if self.low is None else (self.low if self.low == self.high else [self.low, self.high])
        )
        if self.constraint.metric in _WORD_METRICS and self.used:
            actual = self.used[0]
        return self.constraint.to_dict() | {
            "status": self.status,
            "actual": actual,
            "used": list(self.used),
            "note": self.note,
        }


def holds(c: Constraint, actual: float | str) -> bool:
    """Whether a number (in the unit of `c`), a provider key for "provider" or a doc's "source|framework"
    for "framework" (vocab.framework_matches) satisfies constraint `c`."""
    if c.metric == "provider":
        return provider_matches(str(c.value), str(actual))
    if c.metric == "framework":
        source, _, framework = str(actual).partition("|")
        return framework_matches(str(c.value), source, framework)
    if c.metric == "language":
        return translation_holds(str(c.value), str(actual))
    return {
        ">=": actual >= c.value,
        ">": actual > c.value,
        "<=": actual <= c.value,
        "<": actual < c.value,
    }[c.op]


def _applicable(c: Constraint, measures: list[Measure], api_call: str) -> tuple[list[Measure], str]:
    notes = []
    metric_ms = [m for m in measures if m.metric == c.metric]
    if c.dataset:
        undated = [m for m in metric_ms if m.dataset is None]
        metric_ms = [m for m in metric_ms if m.dataset == c.dataset]
        if not metric_ms and undated:
            notes.append(f"{c.metric} given without a dataset; {c.dataset} required")
    if not metric_ms and c.metric in _FALLBACK:
        alt = [
            m
            for m in measures
            if m.metric == _FALLBACK[c.metric]
            and (not c.dataset or m.dataset == c.dataset)
            and (m.dataset is None or m.dataset in CLASSIFICATION_DATASETS)
        ]
        if alt:
            metric_ms = alt
            notes = [f"no {c.metric}; unqualified {_FALLBACK[c.metric]} used"]
    if not metric_ms and c.metric == "size_mb":
        params = [m for m in measures if m.metric == "params"]
        metric_ms = [
            Measure("size_mb", round(m.value * 4, 3), m.dataset, m.variant, m.path, "params x 4 bytes")
            for m in params
        ]
        if metric_ms:
            notes = ["size from params x 4 bytes (fp32)"]
    return select_variant(metric_ms, api_call), "; ".join(notes)


def _check_provider(c: Constraint, doc: Any) -> Check:
    """A provider constraint against the publisher the doc's api_call names (pool.metrics.provider_id)."""
    pid = provider_id(getattr(doc, "api_call", "") or "")
    if pid is None:
        return Check(c, "unknown", note="the call names no publisher")
    return Check(c, "satisfied" if holds(c, pid) else "violated", used=[pid])


def _check_framework(c: Constraint, doc: Any) -> Check:
    """A framework constraint against the doc's source and APIBench framework field (never unknown: every
    doc has a source). used: the doc's framework, or its source when the field is empty."""
    source, framework = getattr(doc, "source", ""), getattr(doc, "framework", "") or ""
    status = "satisfied" if holds(c, f"{source}|{framework}") else "violated"
    return Check(c, status, used=[framework or source])


def _check_language(c: Constraint, doc: Any) -> Check:
    """A translation-direction constraint against the pair the doc's model id or pipeline task names
    (languages.translation_of): violated only by a model of another direction. A doc that names no pair (no
    translator, or a many-to-many model: t5, mbart-50, nllb) satisfies it with a note, so it keeps its
    place: of the 40 APIBench Hugging Face eval tasks read as stating a direction, 19 have such a model (or
    none) as their API (t5-3b, mt5-base, flan-t5-xl), and ranking the named pairs above them would lose
    those."""
    pair = translation_of(doc)
    if pair is None:
        return Check(c, "satisfied", note="the model names no translation direction")
    actual = f"{pair[0]}>{pair[1]}"
    return Check(c, "satisfied" if holds(c, actual) else "violated", used=[actual])


def check_doc(constraints: list[Constraint], doc: Any, perf: Performance | None = None) -> list[Check]:
    """Check every constraint against one ApiDoc's normalised performance (pool.metrics.normalise_performance;
    pass `perf` when it is already known, e.g. ApiIndex.performance(doc)) and, for a provider constraint,
    the publisher its api_call names.

    A constraint is satisfied when every applicable number meets it, violated when none does, unknown
    when no number applies (metadata missing, other dataset) or the numbers disagree (several variants).
    A provider constraint is unknown when the call names no publisher (a library call, a REST path); a
    language constraint is violated only by a model of another translation direction.
    """
    if perf is None and any(c.metric not in _WORD_METRICS for c in constraints):
        perf = normalise_performance(getattr(doc, "performance", None))
    out = []
    for c in constraints:
        if c.metric == "provider":
            out.append(_check_provider(c, doc))
            continue
        if c.metric == "framework":
            out.append(_check_framework(c, doc))
            continue
        if c.metric == "language":
            out.append(_check_language(c, doc))
            continue
        assert perf is not None
        ms, note = _applicable(c, perf.measures, getattr(doc, "api_call", ""))
        if not ms:
            out.append(Check(c, "unknown", note=note or f"no {c.metric} in the metadata"))
            continue
        values = [m.value for m in ms]
        held = [holds(c, v) for v in values]
        status = "satisfied" if all(held) else "violated" if not any(held) else "unknown"
        if status == "unknown":
            note = "; ".join(filter(None, [note, "values disagree (several variants or datasets)"]))
        out.append(Check(c, status, min(values), max(values), [m.describe() for m in ms], note))
    return out


def overall(checks: list[Check]) -> str:
    """ "violated" if any check is violated, else "unknown" if any is unknown, else "satisfied"."""
    statuses = {ch.status for ch in checks}
    return "violated" if "violated" in statuses else "unknown" if "unknown" in statuses else "satisfied"


def shortfall(checks: list[Check]) -> float:
    """How far a doc misses its violated constraints, relative to each bound (0 when none is violated)."""
    total = 0.0
    for ch in checks:
        if ch.status == "violated" and ch.low is not None and ch.high is not None:
            c = ch.constraint
            nearest = ch.high if c.op in (">=", ">") else ch.low
            total += abs(nearest - c.value) / max(abs(c.value), 1e-9)
    return total
