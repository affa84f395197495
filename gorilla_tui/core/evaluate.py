"""APIBench eval sets and response scoring with two metrics: `strict` (exact API identity) and `gorilla`."""

from __future__ import annotations

import json
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.core import gorilla_metric
from gorilla_tui.core.pool import ApiDoc, load_jsonl
from gorilla_tui.errors import GorillaError, UsageError

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
    once cached). Raises GorillaError (with a hint) when it cannot be found or downloaded."""
    if from_dir is not None:
        base = Path(from_dir)
        for candidate in (base / filename, base / "api" / filename, base / "eval" / filename):
            if candidate.is_file():
                return candidate
        raise GorillaError(f"{filename} not found in {base} (nor in its api/ or eval/ folder)")
    try:
        from huggingface_hub import hf_hub_download  # ~150 ms import, only when downloading

        return Path(hf_hub_download(DATASET, filename, repo_type="dataset"))
    except Exception as e:  # network, offline mode, missing file: all one user-facing error
        raise GorillaError(
            f"cannot get {filename} from the Hugging Face dataset {DATASET}: {type(e).__name__}",
            hint="pass --from DIR (a local copy of the APIBench files) or --eval FILE / --pool FILE",
        ) from None


def read_jsonl(path: str | Path, what: str) -> list[dict[str, Any] | None]:
    """JSON Lines file -> one entry per non-blank line (None for a line that is not a JSON object).

    Raises UsageError when the file is missing, unreadable, or has no line at all.
    """
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8-sig", errors="replace")
    except OSError as e:
        raise UsageError(f"cannot read {what} file {p}: {e.strerror or e}") from None
    rows: list[dict[str, Any] | None] = []
    for line in text.splitlines():
        if not line.strip():
            continue
        try:
            value = json.loads(line)
        except ValueError:
            value = None
        rows.append(value if isinstance(value, dict) else None)
    if not rows:
        raise UsageError(f"{what} file {p} is empty")
    return rows


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
    number of response lines, per_domain: domain -> {n, accuracy, hallucination, error}, verdicts: counts of
    validator verdicts (strict only), notes: problems found in the input (bad lines, unknown ids)."""

    hub: str
    metric: str
    n: int
    correct: int
    hallucination_count: int
    per_domain: dict[str, dict[str, float]] = field(default_factory=dict)
    verdicts: dict[str, int] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

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
            "notes": self.notes,
        }


def _tally(hub: str, metric: str, outcomes: list[tuple[str, str]], notes: list[str]) -> Score:
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
    return Score(hub, metric, len(outcomes), total["correct"], total["hallucination"], per_domain, {}, notes)


def _item(
    response: dict[str, Any] | None, items: list[EvalItem], notes: list[str], line: int
) -> EvalItem | None:
    if response is None:
        notes.append(f"response line {line}: not a JSON object (counted as an error)")
        return None
    qid = response.get("question_id")
    if not isinstance(qid, int) or not 1 <= qid <= len(items):
        notes.append(f"response line {line}: question_id {qid!r} is not a line of the eval file (error)")
        return None
    return items[qid - 1]


def score_gorilla(
    hub: str, responses: list[dict[str, Any] | None], items: list[EvalItem], pool_path: str | Path
) -> Score:
    """The paper's AST metric (gorilla_metric; GORILLA_METRIC.md) over raw pool records in file order."""
    records = [r or {} for r in read_jsonl(pool_path, "API pool")]
    trees = gorilla_metric.prepare_pool([str(r.get("api_call", "")) for r in records], hub)
    domains = [str(r.get("domain", "")) for r in records]
    notes: list[str] = []
    outcomes = []
    for line, response in enumerate(responses, start=1):
        item = _item(response, items, notes, line)
        if item is None or response is None:
            outcomes.append(("", "error"))
            continue
        result = gorilla_metric.score_response(response, hub, trees, domains, item.domain)
        outcomes.append((item.domain, result.status))
    return _tally(hub, "gorilla", outcomes, notes[:20])


def score_strict(
    hub: str, responses: list[dict[str, Any] | None], items: list[EvalItem], pool: list[ApiDoc]
) -> Score:
    """Strict metric: correct when the validator finds the response's call valid and the matched pool entry
    has the ground truth's identity (callee + identifying arguments); hallucination when the verdict is
    hallucination or wrong_args (the proposed API is not in the pool); error otherwise (a different real
    API, unparseable, no call, bad line)."""
    from gorilla_tui.core.validate import Validator

    validator = Validator(pool)
    keys: dict[str, Any] = {}

    def key(api_call: str) -> Any:
        if api_call not in keys:
            keys[api_call] = validator.key_of(api_call)
        return keys[api_call]

    notes: list[str] = []
    outcomes = []
    verdicts: Counter[str] = Counter()
    for line, response in enumerate(responses, start=1):
        item = _item(response, items, notes, line)
        text = response.get("text") if response else None
        if item is None or not isinstance(text, str):
            outcomes.append((item.domain if item else "", "error"))
            continue
        verdict = validator.check(text)
        verdicts[verdict.kind] += 1
        if verdict.kind == "valid" and verdict.matched is not None:
            truth = key(item.api_call)
            status = "correct" if truth is not None and key(verdict.matched.api_call) == truth else "error"
        elif verdict.kind in ("hallucination", "wrong_args"):
            status = "hallucination"
        else:
            status = "error"
        outcomes.append((item.domain, status))
    score = _tally(hub, "strict", outcomes, notes[:20])
    score.verdicts = dict(verdicts)
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
    Raises UsageError for an unknown hub or metric or an unreadable file, GorillaError when a file cannot
    be resolved.
    """
    hub = hub_name(hub)
    if metric not in METRICS:
        raise UsageError(f"unknown metric {metric!r} (expected one of {', '.join(METRICS)})")
    api_file, eval_file = HUB_FILES[hub]
    responses = read_jsonl(responses_path, "responses")
    items = load_eval(eval_path or resolve_file(eval_file, from_dir))
    pool_file = Path(pool_path) if pool_path else resolve_file(api_file, from_dir)
    if metric == "gorilla":
        return score_gorilla(hub, responses, items, pool_file)
    loaded = load_jsonl(pool_file, hub)
    if not loaded.docs:
        raise UsageError(f"no API docs could be read from {pool_file}")
    return score_strict(hub, responses, items, loaded.docs)
