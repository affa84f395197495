"""The first step of the constraints of an ask: read them from plain English (accuracy / size / compute
bounds, device budgets, providers, frameworks) and the search text without their words, in one pass over the
task (read_task). The next steps are constraints/check.py (each hit against each constraint) and
constraints/rank.py (the order of the hits); this module imports neither.

The vocabularies (DEVICES, PROVIDERS, FRAMEWORKS) and their matching rules are constraints/vocab.py
(re-exported here)."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from gorilla_tui.constraints.languages import translation_asked
from gorilla_tui.constraints.vocab import (  # noqa: F401 - re-exported: callers import them from here
    ANY_OF,
    DEVICES,
    FRAMEWORKS,
    PROVIDERS,
    framework_keys,
    owner_key,
    without_frameworks,
)
from gorilla_tui.constraints.vocab import DATASET_RES as _DATASET_RE
from gorilla_tui.constraints.vocab import DEVICE_RES as _DEVICE_RES
from gorilla_tui.constraints.vocab import FRAMEWORK_RES as _FRAMEWORK_RES
from gorilla_tui.constraints.vocab import PROVIDER_RE as _PROVIDER_RE
from gorilla_tui.constraints.vocab import PROVIDER_WORDS as _PROVIDER_WORDS
from gorilla_tui.constraints.vocab import REPO_RE as _REPO_RE
from gorilla_tui.constraints.vocab import datasets_in as _datasets_in
from gorilla_tui.retrieve.query.handover import values_blanked

OPS = (">=", ">", "<=", "<")


@dataclass(frozen=True)
class Constraint:
    """One stated requirement. metric: "top1" | "top5" | "accuracy" | "miou" | "map" (percent), "params"
    (millions), "flops" (GFLOPs per inference), "size_mb" (MB, 1 GB = 1024 MB), "provider" (who
    publishes the model: op "=", value a lower-case organisation key of PROVIDERS such as "nvidia", or an
    "owner/repo" id such as "pytorch/vision"; unit "") or "framework" (the library the API is for: op "=",
    value a key of FRAMEWORKS such as "pytorch", or several joined by ANY_OF, "pytorch|tensorflow", when
    the task names more than one; unit "") or "language" (a translation's direction: op "=", value
    "source>target" as ISO 639-1 codes, either side "" when the task does not say it, "en>fr", ">de";
    constraints/languages.py). op: one of OPS, or "=" for provider, framework and language.
    dataset: canonical dataset key (performance.DATASETS) or None for any. source_text: the words it came
    from (a device budget names the device, e.g. "Raspberry Pi")."""

    metric: str
    op: str
    value: float | str
    unit: str
    dataset: str | None
    source_text: str

    def describe(self) -> str:
        """Short text: "top1 > 78% on imagenet", "params <= 6M", "provider = nvidia", "framework =
        pytorch"."""
        if self.metric == "framework":
            return f"{self.metric} = {' or '.join(framework_keys(str(self.value)))}"
        if self.metric == "provider":
            return f"{self.metric} = {self.value}"
        if self.metric == "language":
            src, _, tgt = str(self.value).partition(">")
            return f"translation {src or 'any'} -> {tgt or 'any'}"
        value = f"{self.value:g}{self.unit}" if isinstance(self.value, float) else f"{self.value}{self.unit}"
        return f"{self.metric} {self.op} {value}" + (f" on {self.dataset}" if self.dataset else "")

    def to_dict(self) -> dict[str, Any]:
        return {
            "metric": self.metric,
            "op": self.op,
            "value": self.value,
            "unit": self.unit,
            "dataset": self.dataset,
            "source_text": self.source_text,
        }


def _repo_of(m: re.Match[str]) -> str | None:
    """The lower-case "owner/repo" of a _REPO_RE match, None when it is no repo ("24/7", "1/2", a path)."""
    repo = m.group("repo").lower().split(":", 1)[0]
    return None if re.fullmatch(r"[\d./]+", repo) or repo.count("/") > 3 else repo


def _providers_in(text: str) -> list[Constraint]:
    """Provider constraints named in `text`: "from pytorch/vision", "an NVIDIA model", "by facebook"."""
    out = []
    for m in _REPO_RE.finditer(text):
        repo = _repo_of(m)
        if repo is not None:
            out.append(Constraint("provider", "=", repo, "", None, m.group(0).strip()))
    for m in _PROVIDER_RE.finditer(text):
        word = re.sub(r"\s+", " ", (m.group("a") or m.group("b") or m.group("c")).lower())
        out.append(Constraint("provider", "=", _PROVIDER_WORDS[word], "", None, m.group(0).strip()))
    return out


def _frameworks_in(text: str) -> list[Constraint]:
    """The framework constraint named in `text` ("using pytorch", "a tf hub model"), as a list of none or
    one. A task naming several frameworks ("convert a pytorch model to tensorflow") allows an API of any of
    them: one constraint whose value joins their keys with ANY_OF in FRAMEWORKS order ("pytorch|tensorflow";
    two constraints, one per framework, could never both hold: every doc is of one framework)."""
    found = [(key, m) for key, rx in _FRAMEWORK_RES if (m := rx.search(text))]
    if not found:
        return []
    words = " ... ".join(m.group(0) for _key, m in sorted(found, key=lambda km: km[1].start()))
    return [Constraint("framework", "=", ANY_OF.join(key for key, _m in found), "", None, words)]


# ---------------------------------------------------------------------------------------------------------
# parsing

_GE = r"at\s+least|no\s+less\s+than|not\s+less\s+than|minimum(?:\s+of)?|min\.?|>=|≥|=>"
_GT = r"above|over|more\s+than|greater\s+than|better\s+than|higher\s+than|exceeding|exceeds?|>"
_LE = (
    r"at\s+most|no\s+more\s+than|not\s+more\s+than|no\s+(?:bigger|larger)\s+than|maximum(?:\s+of)?|max\.?|"
    r"up\s+to|within|<=|≤|=<|not\s+exceed(?:ing)?|does\s+not\s+exceed"
)
_LT = r"under|below|less\s+than|fewer\s+than|lower\s+than|smaller\s+than|<"
_POST_GE = r"or\s+(?:more|better|higher|above|greater)"
_POST_LE = r"or\s+(?:less|fewer|lower|below|smaller)"
#: Up to three words between a number and its trailing comparator, its unit or metric words ("5M params or
#: less", "80 % top-1 accuracy or better", "a 50 MB model or smaller"); never "or" itself, never a number.
#: Each word is whole: it ends where no word character or hyphen follows (``(?![\w-])``), so the next word
#: needs whitespace first and a word is matched one way only. Without that, "\s*" (possibly empty) let one
#: long word be split into up to three "words" in O(n^2) ways, each tried to O(n): "decode 1 <2,000
#: letters>" took 160 s (break-it round 16, R16-3), and "a 100 MB detector less ..." read as "detect" +
#: "or less" (100 MB or less).
_POST_GAP = r"(?:\s*(?!or\b)[a-z][\w-]*(?![\w-])){0,3}?"

_CMP_BEFORE = re.compile(rf"(?P<ge>{_GE})|(?P<le>{_LE})|(?P<gt>{_GT})|(?P<lt>{_LT})", re.IGNORECASE)
_NUMBER = re.compile(
    r"(?<![\w.-])(?P<num>\d+(?:\.\d+)?)\s*(?P<unit>%|percent\b|million\b|billion\b|thousand\b|"
    r"[kmgt]?flops\b|[kmgt]b\b|[mbkg](?![a-z])|)",
    re.IGNORECASE,
)
_ACC = [
    ("top5", r"top[\s_-]*5|top[\s_-]*five"),
    ("top1", r"top[\s_-]*1(?!\d)|top[\s_-]*one"),
    ("miou", r"\bm(?:ean\s*)?-?iou\b|mean\s+intersection[\s-]+over[\s-]+union"),
    ("map", r"\bmap(?:@?[\d.:]+)?\b|mean\s+average\s+precision|box\s+ap"),
    ("accuracy", r"accura(?:te|cy)|\bacc\b|\bscore"),
]
_PARAMS = re.compile(r"param(?:eter)?s?\b|\bweights\b", re.IGNORECASE)
_FLOPS = re.compile(r"flops|mult(?:iply)?[\s-]*adds|\bmacs\b", re.IGNORECASE)
_SIZE = re.compile(r"\b(?:size|memory|ram|disk|file|footprint|storage|mb|gb|kb)\b", re.IGNORECASE)
_CLAUSE_SPLIT = re.compile(r";|,(?!\d{3})|\bbut\b|\band\b|\bwhile\b|(?<!\d)\.(?!\d)|\n", re.IGNORECASE)


def _op_for(before: str, after: str) -> str | None:
    """A trailing "or more" / "or less" (right after the number, or after up to three of its words:
    "5M params or less"), else the comparator nearest before the number; None when absent."""
    return _op_and_span(before, after)[0]


def _op_and_span(before: str, after: str) -> tuple[str | None, tuple[int, int] | None]:
    """(_op_for, where its words are): a span in `before`, or in `after` shifted by len(before) (the
    number's own span lies between; callers add it); None when absent."""
    if after.startswith("+"):  # "5M+ params"
        return ">=", (len(before), len(before) + 1)
    for rx, op in ((_POST_GE, ">="), (_POST_LE, "<=")):
        post = re.match(rf"{_POST_GAP}\s*(?P<cmp>{rx})\b", after, re.IGNORECASE)
        if post:
            return op, (len(before) + post.start("cmp"), len(before) + post.end("cmp"))
    last = None
    for m in _CMP_BEFORE.finditer(before):
        last = m
    if last is None:
        return None, None
    return {"ge": ">=", "gt": ">", "le": "<=", "lt": "<"}[last.lastgroup or "ge"], last.span()


def _accuracy_metric(clause: str, pos: int) -> str | None:
    """The accuracy metric named in the clause nearest to position pos (top-1 / top-5 / mIoU / mAP before a
    bare "accuracy"), or None."""
    best: tuple[int, int, str] | None = None
    for metric, pattern in _ACC:
        for m in re.finditer(pattern, clause, re.IGNORECASE):
            rank = (metric == "accuracy", abs(m.start() - pos))
            if best is None or rank < best[:2]:
                best = (*rank, metric)
    return best[2] if best else None


def _metric_words(clause: str, c: Constraint) -> list[tuple[int, int]]:
    """Spans of the words in `clause` that name constraint c's metric: every accuracy phrase and "error"
    for a percentage, the parameter / FLOPs / size words for the others (datasets are left: "ImageNet"
    says what the API is for)."""
    if c.unit == "%":
        rxs = [re.compile(p, re.IGNORECASE) for _, p in _ACC] + [re.compile(r"\berror\b", re.IGNORECASE)]
    else:
        rxs = {"params": [_PARAMS], "flops": [_FLOPS], "size_mb": [_SIZE]}.get(c.metric, [])
    return [m.span() for rx in rxs for m in rx.finditer(clause)]


def _masked_spans(clause: str) -> list[tuple[int, int]]:
    """Spans whose digits are names, not numbers: "top-1", "mAP@0.5", dataset names ("CIFAR-10")."""
    spans = [m.span() for m in re.finditer(r"top[\s_-]*[15](?!\d)|\bmap@?[\d.:]+", clause, re.IGNORECASE)]
    for _, rx in _DATASET_RE:
        spans.extend(m.span() for m in rx.finditer(clause))
    return spans


def _read_number(clause: str, m: re.Match[str], all_datasets: list[str]) -> Constraint | None:
    num, unit = float(m.group("num")), (m.group("unit") or "").lower()
    before, after = clause[: m.start()], clause[m.end() :]
    context = clause.lower()
    op = _op_for(before, after)
    ds = _datasets_in(clause)
    dataset = ds[0] if ds else (all_datasets[0] if len(set(all_datasets)) == 1 else None)
    src = clause.strip()
    if unit in ("%", "percent") or (not unit and _accuracy_metric(clause, m.start()) and num <= 100):
        metric = _accuracy_metric(clause, m.start())
        if metric is None or (unit == "" and op is None):
            return None
        if "error" in context[max(0, m.start() - 40) : m.end() + 40]:  # "top-1 error below 20 %"
            num, op = 100 - num, {">=": "<=", ">": "<", "<=": ">=", "<": ">", None: None}[op]
        if unit == "" and num <= 1.0:  # "mAP above 0.7": a fraction, as the pool writes many scores
            num = round(num * 100, 6)
        op = op or ">="  # "with 80 % top-1 accuracy" asks for at least that much
        return Constraint(metric, op, num, "%", dataset, src)
    if unit.endswith("flops") or (
        _FLOPS.search(clause) and unit in ("m", "g", "b", "k", "t", "million", "billion")
    ):
        scale = {"k": 1e-6, "m": 1e-3, "million": 1e-3, "g": 1.0, "b": 1.0, "billion": 1.0, "t": 1e3}
        prefix = unit[0] if unit.endswith("flops") and len(unit) > 5 else unit
        if unit == "flops":
            prefix = "g" if num < 1e4 else ""
            if not prefix:
                num, prefix = num / 1e9, "g"
        return Constraint("flops", op or "<=", round(num * scale.get(prefix, 1.0), 6), "GFLOPs", None, src)
    if unit in ("kb", "mb", "gb", "tb") and (_SIZE.search(clause)):
        scale = {"kb": 1 / 1024, "mb": 1.0, "gb": 1024.0, "tb": 1024.0**2}[unit]
        return Constraint("size_mb", op or "<=", round(num * scale, 6), "MB", None, src)
    if _PARAMS.search(clause):
        scale = {"m": 1.0, "million": 1.0, "b": 1e3, "billion": 1e3, "k": 1e-3, "thousand": 1e-3, "g": 1e3}
        if unit in scale:
            value = num * scale[unit]
        elif not unit and num >= 1e4:
            value = num / 1e6
        else:
            return None
        if op is None and not re.search(r"param", after[:30], re.IGNORECASE):
            return None
        return Constraint("params", op or "<=", round(value, 6), "M", None, src)
    return None


def _clauses(text: str) -> list[tuple[int, str]]:
    """(offset in text, clause) for each piece of _CLAUSE_SPLIT.split(text)."""
    out, start = [], 0
    for m in _CLAUSE_SPLIT.finditer(text):
        out.append((start, text[start : m.start()]))
        start = m.end()
    out.append((start, text[start:]))
    return out


def _normalised(task: str) -> str:
    """The task as the parser reads it: thousands separators inside numbers removed ("5,000,000")."""
    return re.sub(r"(?<=\d),(?=\d{3}\b)", "", task or "")


@dataclass(frozen=True)
class ParsedTask:
    """What read_task reads of one task, once per ask. constraints: parse_constraints(task); search_text:
    without_constraints(task) (the retriever's text; "" when nothing but constraint words is left)."""

    task: str
    constraints: list[Constraint]
    search_text: str


def read_task(task: str) -> ParsedTask:
    """The constraints of `task` and its search text, from one scan of its clauses (_scan): the parse step
    of an ask (constraints/rank.py search_with_constraints calls it once)."""
    text = _normalised(task)
    request = values_blanked(text)
    found, spans = _scan(request)
    return ParsedTask(task, _completed(request, found), _cut(text, spans))


def without_constraints(task: str) -> str:
    """`task` with the words parse_constraints read as a constraint taken out, spaces collapsed: each
    bound's number, unit, comparator and metric words ("under 5 million parameters", "top-1 accuracy of at
    least 80 %") and provider phrases ("by facebook", "from pytorch/vision"). "" when nothing else is left.

    Dataset names, framework words (a framework names its hub: without_frameworks) and device words stay:
    the docs speak of the device too ("mobile" finds the MobileNets). Taking "mobile app" out of the
    APIBench eval tasks stating a constraint lost the eval's own API from the top 5 of its hub for 3 of
    them (31 -> 28; bench/constraints.py), while keeping it loses none.

    The retriever is given this text (constraints/rank.py search_with_constraints): the constraint
    filters and ranks the hits, and its words would only match docs that happen to say "million
    parameters" ("an image classifier under 5 million parameters" brought in distilgpt2)."""
    text = _normalised(task)
    return _cut(text, _scan(values_blanked(text))[1])


def _cut(text: str, spans: list[tuple[int, int]]) -> str:
    """`text` without `spans`, spaces collapsed."""
    if not spans:
        return " ".join(text.split())
    keep, last = [], 0
    for a, b in sorted(spans):
        if a > last:
            keep.append(text[last:a])
        last = max(last, b)
    keep.append(text[last:])
    return " ".join(" ".join(keep).split())


def _scan(text: str) -> tuple[list[Constraint], list[tuple[int, int]]]:
    """The numeric constraints of `text` (already _normalised), clause by clause, and the spans of every
    word read as a constraint (numbers, comparators, metric words, repo ids, provider phrases)."""
    found: list[Constraint] = []
    spans: list[tuple[int, int]] = []
    all_datasets = _datasets_in(text)
    for offset, clause in _clauses(text):
        masked = _masked_spans(clause)
        for m in _NUMBER.finditer(clause):
            if any(a <= m.start() < b for a, b in masked):
                continue
            c = _read_number(clause, m, all_datasets)
            if c is None:
                continue
            found.append(c)
            _op, cmp_span = _op_and_span(clause[: m.start()], clause[m.end() :])
            words = [m.span(), *_metric_words(clause, c)]
            if cmp_span is not None:
                a, b = cmp_span
                words.append((a, b) if b <= m.start() else (a + m.end() - m.start(), b + m.end() - m.start()))
            spans += [(offset + a, offset + b) for a, b in words]
    spans += [m.span() for m in _REPO_RE.finditer(text) if _repo_of(m) is not None]
    spans += [m.span() for m in _PROVIDER_RE.finditer(text)]
    return found, spans


def parse_constraints(task: str) -> list[Constraint]:
    """Read every constraint stated in a task (plain English) -> list of Constraint, in text order.

    Understood: accuracy bounds ("top-1 accuracy of at least 84 % on ImageNet", "mIoU above 67", "top-5
    error below 5 %" -> top5 >= 95), parameter bounds ("fewer than 5 million parameters", "<= 25M params"),
    compute ("under 600 MFLOPs", "at most 4 GFLOPs"), size / memory ("model file under 50 MB") and device
    words (DEVICES: Raspberry Pi, phone, microcontroller, Jetson / edge, laptop CPU) which add that device's
    budgets (whole words only: "microphone" is no phone), providers ("from pytorch/vision", "an NVIDIA
    model", "by facebook": metric "provider", see PROVIDERS) and frameworks ("with pytorch", "a tf hub
    model": metric "framework", see FRAMEWORKS) and a translation's direction ("translate this english
    sentence to french": metric "language", languages.translation_asked). A number without a metric word or a
    unit is ignored (APIBench tasks name image sizes, class counts, years). Duplicates are dropped. Never
    raises.
    """
    text = _normalised(task)
    request = values_blanked(text)
    return _completed(request, _scan(request)[0])


def _completed(text: str, numeric: list[Constraint]) -> list[Constraint]:
    """The numeric constraints of `text` followed by its providers, frameworks and device budgets (an
    explicit bound wins over a device budget), duplicates dropped."""
    out = list(numeric)
    out += _providers_in(text)
    out += _frameworks_in(text)
    if direction := translation_asked(text):
        src, tgt = direction
        out.append(Constraint("language", "=", f"{src}>{tgt}", "", None, f"{src or 'any'} to {tgt or 'any'}"))
    for name, rx, budgets in _DEVICE_RES:
        hit = rx.search(text)
        if hit:
            for metric, op, value in budgets:
                if not any(c.metric == metric for c in out):  # an explicit bound wins over a device budget
                    unit = {"params": "M", "flops": "GFLOPs", "size_mb": "MB"}[metric]
                    out.append(Constraint(metric, op, value, unit, None, f"{name} ({hit.group(0)})"))
    seen: set[tuple[str, str, float | str, str | None]] = set()
    unique = []
    for c in out:
        key = (c.metric, c.op, c.value, c.dataset)
        if key not in seen:
            seen.add(key)
            unique.append(c)
    return unique
