"""APIBench eval sets and response scoring with two metrics: `strict` (exact API identity) and `gorilla`."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.check.validator import Validator
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate import gorilla_metric
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.pool.sources import FetchContext, Manifest, SourceUnavailable, hf_files

#: The Hugging Face dataset holding the APIBench files (Patil et al. 2023, arXiv 2305.15334).
DATASET = "gorilla-llm/APIBench"
#: hub -> (API pool file, eval file), file names as in the dataset.
HUB_FILES = {
    "torchhub": ("torchhub_api.jsonl", "torchhub_eval.json"),
    "tensorflowhub": ("tensorflowhub_api.jsonl", "tensorflow_eval.json"),
    "huggingface": ("huggingface_api.jsonl", "huggingface_eval.json"),
}
_ALIASES = {"th": "torchhub", "torch": "torchhub", "tf": "tensorflowhub", "tensorflow": "tensorflowhub",
            "hf": "huggingface"}  # fmt: skip
METRICS = ("strict", "gorilla")


def hub_name(name: str) -> str:
    """Canonical hub name (torchhub, tensorflowhub, huggingface; th/tf/hf accepted). UsageError otherwise."""
    hub = _ALIASES.get(name.lower(), name.lower())
    if hub not in HUB_FILES:
        raise UsageError(f"unknown hub {name!r} (expected one of {', '.join(HUB_FILES)})")
    return hub


def resolve_file(filename: str, from_dir: str | Path | None = None) -> Path:
    """Find an APIBench file: with from_dir, DIR/name, DIR/api/name or DIR/eval/name (a local mirror, e.g.
    ../shared/apibench); without, huggingface_hub.hf_hub_download from the dataset (cached; works offline
    once cached) through sources.hf_files, which probes the hub once and, when it is unreachable, reads only
    the local cache (no ~25 s of huggingface_hub retries). Raises GorillaError (with a hint) when the file
    cannot be found or downloaded."""
    if from_dir is not None:
        base = Path(from_dir)
        for candidate in (base / filename, base / "api" / filename, base / "eval" / filename):
            if candidate.is_file():
                return candidate
        raise GorillaError(f"{filename} not found in {base} (nor in its api/ or eval/ folder)")

    dataset = Manifest(name="apibench", title="APIBench", files=(filename,),
                       remote={"type": "hf", "repo_id": DATASET, "repo_type": "dataset"})  # fmt: skip
    try:
        return hf_files(dataset, FetchContext())[0]
    except SourceUnavailable as e:  # offline, unreachable, missing file: one line
        raise GorillaError(
            str(e), hint="pass --from DIR (a local copy of the APIBench files) or --eval FILE / --pool FILE"
        ) from None


def _read_text(path: str | Path, what: str) -> str:
    """A text file's content as str. Raises UsageError when it is missing or unreadable, binary (holds NUL
    bytes) or not UTF-8 (a leading BOM is accepted)."""
    p = Path(path)
    try:
        data = p.read_bytes()
    except OSError as e:
        raise UsageError(f"cannot read {what} file {p}: {e.strerror or e}") from None
    if b"\x00" in data:
        raise UsageError(f"{what} file {p} is binary (it holds NUL bytes), not JSON Lines")
    try:
        return data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"{what} file {p} is not UTF-8 text (bad byte at offset {e.start})") from None


def json_object(line: str) -> dict[str, Any] | None:
    """One JSON Lines line as a dict, or None when it is not valid JSON (nesting deeper than Python's
    recursion limit included) or not an object."""
    try:
        value = json.loads(line)
    except (ValueError, RecursionError):
        return None
    return value if isinstance(value, dict) else None


def read_jsonl(path: str | Path, what: str) -> list[dict[str, Any] | None]:
    """JSON Lines file -> one entry per non-blank line (None for a line that is not a JSON object).

    Raises UsageError when the file is missing, unreadable, binary, not UTF-8, or has no line at all.
    """
    rows: list[dict[str, Any] | None] = []
    for line in _read_text(path, what).splitlines():
        if line.strip():
            rows.append(json_object(line))
    if not rows:
        raise UsageError(f"{what} file {Path(path)} is empty")
    return rows


#: A response file is rejected when more than this share of its non-blank lines are not JSON objects with a
#: question_id (a few bad lines are tolerated and counted as errors; a file of another kind is not).
MAX_BAD_SHARE = 0.05


@dataclass
class Responses:
    """A response file read line by line: rows = (1-based line number, object holding "question_id"),
    bad = line numbers of the non-blank lines that are not such objects, total = non-blank lines."""

    rows: list[tuple[int, dict[str, Any]]]
    bad: list[int]
    total: int


def read_responses(path: str | Path) -> Responses:
    """Read a Gorilla response file (JSON Lines of {question_id, text}).

    Raises UsageError (exit 2, one line) when the file is unreadable, binary, not UTF-8 or empty, when no
    line is a JSON object with a question_id, or when more than MAX_BAD_SHARE of its lines are not (the
    message names the first bad line).
    """
    p = Path(path)
    rows: list[tuple[int, dict[str, Any]]] = []
    bad: list[int] = []
    for number, line in enumerate(_read_text(p, "responses").splitlines(), start=1):
        if not line.strip():
            continue
        value = json_object(line)
        if value is not None and "question_id" in value:
            rows.append((number, value))
        else:
            bad.append(number)
    total = len(rows) + len(bad)
    if not total:
        raise UsageError(f"responses file {p} is empty")
    if not rows:
        raise UsageError(
            f"responses file {p} is not JSON Lines of {{question_id, text}} objects "
            f"(no line is; first line that is not: {bad[0]})"
        )
    if len(bad) > MAX_BAD_SHARE * total:
        raise UsageError(
            f"{len(bad)} of {total} lines of responses file {p} are not JSON objects with a question_id "
            f"(first: line {bad[0]}); more than {MAX_BAD_SHARE:.0%} bad lines"
        )
    return Responses(rows, bad, total)


@dataclass
class EvalItem:
    """One eval question: its domain and ground-truth api_call (from api_data, as the released scripts)."""

    domain: str
    api_call: str


def load_eval(path: str | Path) -> list[EvalItem]:
    """An APIBench eval file (JSON Lines despite the .json name) -> EvalItems in line order (question_id 1
    is the first). Lines that are not objects become EvalItem("", "")."""
    items = []
    for row in read_jsonl(path, "eval"):
        data = row.get("api_data") if row else None
        data = data if isinstance(data, dict) else {}
        domain = data.get("domain", "")
        api_call = data.get("api_call") or (row or {}).get("api_call") or ""
        items.append(EvalItem(str(domain), str(api_call)))
    return items


@dataclass
class Score:
    """Scores of one response file: counts and fractions (accuracy + hallucination + error == 1), n =
    number of response lines scored (out-of-range question_ids are skipped; strict also skips repeated
    question_ids), per_domain: domain -> {n, accuracy, hallucination, error}, verdicts: counts of validator
    verdicts (strict only), reasons: counts of the reason codes of non-valid verdicts (strict only;
    types.REASONS, e.g. "wrong_args:unknown_model"), warnings: one line per problem with the file as a whole
    (bad lines, duplicate or unknown question_ids, responses that look like another hub's), notes: per-line
    details (at most 20)."""

    hub: str
    metric: str
    n: int
    correct: int
    hallucination_count: int
    per_domain: dict[str, dict[str, float]] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)
    reasons: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)

    @property
    def accuracy(self) -> float:
        return self.correct / self.n if self.n else 0.0

    @property
    def hallucination(self) -> float:
        return self.hallucination_count / self.n if self.n else 0.0

    @property
    def error(self) -> float:
        return 1.0 - self.accuracy - self.hallucination if self.n else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "hub": self.hub,
            "metric": self.metric,
            "n": self.n,
            "accuracy": round(self.accuracy, 6),
            "hallucination": round(self.hallucination, 6),
            "error": round(self.error, 6),
            "per_domain": self.per_domain,
            "verdicts": self.verdicts,
            "reasons": self.reasons,
            "warnings": self.warnings,
            "notes": self.notes,
        }


def _tally(hub: str, metric: str, outcomes: list[tuple[str, str]]) -> Score:
    """outcomes: (domain, status) with status correct / hallucination / error."""
    by_domain: dict[str, Counter[str]] = {}
    for domain, status in outcomes:
        by_domain.setdefault(domain or "(unknown)", Counter())[status] += 1
    per_domain = {
        d: {
            "n": sum(c.values()),
            "accuracy": round(c["correct"] / sum(c.values()), 6),
            "hallucination": round(c["hallucination"] / sum(c.values()), 6),
            "error": round(c["error"] / sum(c.values()), 6),
        }
        for d, c in sorted(by_domain.items())
    }
    total = Counter(s for _, s in outcomes)
    return Score(hub, metric, len(outcomes), total["correct"], total["hallucination"], per_domain)


@dataclass(frozen=True)
class Answer:
    """One response line to score: its line number, the response object (None: an unreadable line, scored
    as an error) and the eval item its question_id names (None with response None)."""

    line: int
    response: dict[str, Any] | None
    item: EvalItem | None


def select(
    responses: Responses, items: list[EvalItem], metric: str
) -> tuple[list[Answer], list[str], list[str]]:
    """The answers to score, in line order, plus (warnings, notes). Unreadable lines (at most MAX_BAD_SHARE,
    see read_responses) are scored as errors; a question_id that is not an int in 1..len(items) is skipped;
    a repeated question_id is counted every time under `gorilla` (the released scripts iterate over response
    lines) and once, first answer kept, under `strict`. Each problem kind gives one warning.
    Raises UsageError when no line answers a question of the eval set."""
    warnings: list[str] = []
    notes = [
        f"response line {n}: not a JSON object with a question_id (counted as an error)"
        for n in responses.bad
    ]
    if responses.bad:
        warnings.append(
            f"{len(responses.bad)} line(s) are not JSON objects with a question_id, counted as errors "
            f"(first: line {responses.bad[0]})"
        )
    answers = [Answer(n, None, None) for n in responses.bad]
    seen: dict[int, int] = {}
    unknown: list[int] = []
    repeated: list[tuple[int, int]] = []
    for line, row in responses.rows:
        qid = row.get("question_id")
        if isinstance(qid, bool) or not isinstance(qid, int) or not 1 <= qid <= len(items):
            unknown.append(line)
            notes.append(
                f"response line {line}: question_id {qid!r} is not a line of the eval file (skipped)"
            )
            continue
        if qid in seen:
            repeated.append((line, qid))
            if metric == "strict":
                notes.append(f"response line {line}: question_id {qid} repeats line {seen[qid]} (skipped)")
                continue
        seen.setdefault(qid, line)
        answers.append(Answer(line, row, items[qid - 1]))
    if unknown:
        warnings.append(
            f"{len(unknown)} response(s) skipped: question_id not in the eval set (1..{len(items)}) "
            f"(first: line {unknown[0]})"
        )
    if repeated:
        how = "every line counted, as the released scripts do"
        if metric == "strict":
            how = "each question counted once (first answer kept)"
        line, qid = repeated[0]
        warnings.append(f"{len(repeated)} repeated question_id(s) (first: {qid} again on line {line}); {how}")
    if not any(a.item for a in answers):
        raise UsageError(f"no response line answers a question of the eval set (1..{len(items)})")
    answers.sort(key=lambda a: a.line)
    return answers, warnings, notes[:20]


#: Hub-mismatch warning: fewer than this share of the responses call a callee of the hub's pool ...
MISMATCH_KNOWN = 0.05
#: ... while more than this share hold a parseable call (and at least MISMATCH_MIN responses were read).
MISMATCH_PARSED = 0.5
MISMATCH_MIN = 10


def hub_mismatch(hub: str, known: int, parsed: int, total: int) -> str | None:
    """A warning when responses look written for another hub: of `total` responses, `known` call a callee of
    the hub's pool and `parsed` hold a parseable call (thresholds MISMATCH_*); else None."""
    if total < MISMATCH_MIN or known >= MISMATCH_KNOWN * total or parsed <= MISMATCH_PARSED * total:
        return None
    return (
        f"these responses look like they are for another hub: only {known} of {total} call an API of the "
        f"{hub} pool, though {parsed} hold a parseable call (check --hub)"
    )


def score_gorilla(hub: str, answers: list[Answer], items: list[EvalItem], pool_path: str | Path) -> Score:
    """The paper's AST metric (gorilla_metric; GORILLA_METRIC.md) over raw pool records in file order."""
    records = [r or {} for r in read_jsonl(pool_path, "API pool")]
    trees = gorilla_metric.prepare_pool([str(r.get("api_call", "")) for r in records], hub)
    domains = [str(r.get("domain", "")) for r in records]
    outcomes = []
    known = parsed = 0
    for answer in answers:
        if answer.item is None or answer.response is None:
            outcomes.append(("", "error"))
            continue
        result = gorilla_metric.score_response(answer.response, hub, trees, domains, answer.item.domain)
        known += result.callee is True
        parsed += result.callee is not None
        outcomes.append((answer.item.domain, result.status))
    score = _tally(hub, "gorilla", outcomes)
    warning = hub_mismatch(hub, known, parsed, len(answers))
    score.warnings = [warning] if warning else []
    return score


def score_strict(hub: str, answers: list[Answer], items: list[EvalItem], pool: list[ApiDoc]) -> Score:
    """Strict metric: correct when the validator finds the response's call valid and the matched pool entry
    has the ground truth's identity (callee + identifying arguments); hallucination when the verdict is
    hallucination or wrong_args (the proposed API is not in the pool); error otherwise (a different real
    API, unparseable, no call, bad line)."""
    validator = Validator(pool)
    keys: dict[str, Any] = {}

    def key(api_call: str) -> Any:
        if api_call not in keys:
            keys[api_call] = validator.key_of(api_call)
        return keys[api_call]

    outcomes = []
    verdicts: Counter[str] = Counter()
    reasons: Counter[str] = Counter()
    for answer in answers:
        item = answer.item
        text = answer.response.get("text") if answer.response else None
        if item is None or not isinstance(text, str):
            outcomes.append((item.domain if item else "", "error"))
            continue
        verdict = validator.check(text)
        verdicts[verdict.kind] += 1
        if verdict.reason:
            reasons[verdict.reason] += 1
        if verdict.kind == "valid" and verdict.matched is not None:
            truth = key(item.api_call)
            status = "correct" if truth is not None and key(verdict.matched.api_call) == truth else "error"
        elif verdict.kind in ("hallucination", "wrong_args"):
            status = "hallucination"
        else:
            status = "error"
        outcomes.append((item.domain, status))
    score = _tally(hub, "strict", outcomes)
    score.verdicts = dict(verdicts)
    score.reasons = dict(sorted(reasons.items(), key=lambda kv: (-kv[1], kv[0])))
    known = verdicts["valid"] + verdicts["wrong_args"]  # a pool callee was called
    warning = hub_mismatch(hub, known, known + verdicts["hallucination"], len(answers))
    score.warnings = [warning] if warning else []
    return score


def score_file(
    hub: str,
    responses_path: str | Path,
    *,
    metric: str = "strict",
    eval_path: str | Path | None = None,
    pool_path: str | Path | None = None,
    from_dir: str | Path | None = None,
) -> Score:
    """Score a Gorilla response file ({question_id, text} per line) against the hub's eval set.

    eval_path / pool_path default to the hub's APIBench files, resolved by resolve_file(from_dir).
    Raises UsageError for an unknown hub or metric, an unreadable file, a responses file that is not JSON
    Lines of {question_id, ...} objects (see read_responses) or answers no question; GorillaError when a
    file cannot be resolved. Problems that do not stop scoring are in Score.warnings.
    """
    hub = hub_name(hub)
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r} (expected one of {', '.join(METRICS)})")
    api_file, eval_file = HUB_FILES[hub]
    responses = read_responses(responses_path)
    items = load_eval(eval_path or resolve_file(eval_file, from_dir))
    answers, warnings, notes = select(responses, items, metric)
    pool_file = Path(pool_path) if pool_path else resolve_file(api_file, from_dir)
    if metric == "gorilla":
        score = score_gorilla(hub, answers, items, pool_file)
    else:
        loaded = load_jsonl(pool_file, hub)
        if not loaded.docs:
            raise UsageError(f"no API docs could be read from {pool_file}")
        score = score_strict(hub, answers, items, loaded.docs)
    score.warnings = warnings + score.warnings
    score.notes = notes
    return score
