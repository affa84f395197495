"""Performance strings read into numbers, conservatively: "82.2%", "86.7% (SNLI)", "top-1 error 23.8"
(parse_value_text); ranges, bounds, ratios and other units give nothing."""

from __future__ import annotations

import re

#: Values that state no number ("Not provided", "N/A", ...).
EMPTY = {"", "n/a", "na", "none", "null", "not provided", "not specified", "unknown", "-", "not mentioned"}
#: A decimal number (one capture group).
NUM = r"(\d+(?:\.\d+)?)"


_TEXT_METRICS: list[tuple[str, str]] = [
    (r"topone", "top1"),
    (r"topfive", "top5"),
    (r"\bmiou\b|mean\s+(?:iou|intersection)", "miou"),
    (r"\bmap\b|mean\s+average\s+precision", "map"),
    (r"pearson", "pearson"),
    (r"spearman", "spearman"),
]
# metric names that carry digits, rewritten before numbers are read ("Top-1" is not the number 1)
_DIGIT_NAMES = [
    (re.compile(r"top[\s_-]*1(?!\d)", re.I), "topone"),
    (re.compile(r"top[\s_-]*5(?!\d)", re.I), "topfive"),
    (re.compile(r"\bmap\s*@\s*0?\.5(?::0?\.95)?\s*(?:iou)?", re.I), "mAP "),
]
_UNSAFE_TEXT = re.compile(r"[/+±]|\d\s*-\s*\d|\b(dB|GB|hours?|fps|ms|x)\b|[<>]", re.IGNORECASE)


def _text_metric(words: str) -> tuple[str | None, bool]:
    w = words.lower()
    for pattern, metric in _TEXT_METRICS:
        if re.search(pattern, w):
            return metric, "err" in w
    if re.search(r"\bacc(uracy)?\b", w):
        return "accuracy", "err" in w
    return None, False


def parse_value_text(
    text: str, default_metric: str | None
) -> list[tuple[str, float, bool, bool, str | None]]:
    """Read numbers out of a performance string, conservatively.

    Returns (metric, value, had_percent_sign, is_error, dataset_text) tuples. A bare number ("82.2",
    "82.2%", "0.779") gets `default_metric`; a number next to a metric word gets that metric; text with
    ranges, ratios, "+/-", bounds (">=70%") or other units (dB, GB, hours, fps) yields nothing (unknown,
    never guessed). "86.7% (SNLI)" / "85% on SNLI" give the dataset text.
    """
    t = text.strip()
    if not t or t.lower() in EMPTY:
        return []
    bare = re.fullmatch(NUM + r"\s*(%)?", t)
    if bare:
        return (
            [(default_metric, float(bare.group(1)), bool(bare.group(2)), False, None)]
            if default_metric
            else []
        )
    for pattern, repl in _DIGIT_NAMES:
        t = pattern.sub(repl, t)
    if _UNSAFE_TEXT.search(t):
        return []
    out: list[tuple[str, float, bool, bool, str | None]] = []
    for part in re.split(r",\s*|\band\b|;", t):
        part = part.strip()
        if not part:
            continue
        m = re.fullmatch(r"(?P<pre>[^\d]*?)\s*(?P<num>" + NUM + r")\s*(?P<pct>%)?\s*(?P<post>[^\d]*)", part)
        if not m:
            return []  # more than one number in a piece: ambiguous
        words = f"{m.group('pre')} {m.group('post')}"
        metric, err = _text_metric(words)
        dataset = None
        ds = re.search(r"(?:\bon\s+|\()([A-Za-z][\w\s-]*?)\)?\s*$", m.group("post") or "")
        if ds and not _text_metric(ds.group(1))[0]:
            dataset = ds.group(1).strip()
        if metric is None:
            leftover = re.sub(r"\b(on|of|the|with|and|score|\(|\))\b", " ", words.lower())
            leftover = re.sub(r"[()]", " ", leftover)
            if dataset:
                leftover = leftover.replace(dataset.lower(), " ")
            if leftover.strip():
                return []  # a word we do not understand: unknown
            metric = default_metric
        if metric is None:
            continue
        out.append((metric, float(m.group("num")), bool(m.group("pct")), err, dataset))
    return out
