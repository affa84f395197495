"""APIBench eval sets and response scoring with two metrics: `strict` (exact API identity) and `gorilla`.

Finding and reading the APIBench files is evaluate/apibench_files.py (re-exported here)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.check.validator import Validator
from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate import gorilla_metric
from gorilla_tui.evaluate.apibench_files import (  # noqa: F401 - re-exported: callers import them from here
    DATASET,
    HUB_FILES,
    MAX_BAD_SHARE,
    EvalItem,
    Responses,
    hub_name,
    json_object,
    load_eval,
    read_jsonl,
    read_responses,
    resolve_file,
)
from gorilla_tui.pool.doc import ApiDoc, load_jsonl

METRICS = ("strict", "gorilla")


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
    # a pool callee was called (incomplete: a valid call with placeholders, never given by the Validator
    # alone; counted here should a response file's verdicts ever carry one)
    known = verdicts["valid"] + verdicts["incomplete"] + verdicts["wrong_args"]
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
