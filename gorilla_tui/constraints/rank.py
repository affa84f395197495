"""The constraints of an ask, one way: parse the task once (parse.py read_task), search for candidates, check
each candidate once (check.py check_doc), rank them (rerank): search_with_constraints. The checks are kept
(ConstraintResult.checks), so the proposed doc's constraints are read from them, not checked again."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field, replace
from itertools import zip_longest
from typing import Any

from gorilla_tui.constraints.check import STATUSES, Check, check_doc, overall, shortfall
from gorilla_tui.constraints.parse import (
    FRAMEWORKS,
    Constraint,
    ParsedTask,
    framework_keys,
    read_task,
    without_frameworks,
)
from gorilla_tui.pool.metrics import Performance
from gorilla_tui.retrieve.tokenize import no_terms_note
from gorilla_tui.types import Hit

#: doc -> its normalised Performance (ApiIndex.performance: the table stored at refresh).
PerformanceOf = Callable[[Any], Performance]

__all__ = [
    "ConstraintReport",
    "ConstraintResult",
    "apply_constraints",
    "proposal_constraints",
    "rerank",
    "search_with_constraints",
]


@dataclass
class ConstraintReport:
    """Checks for one hit: bm25_rank is its rank before reranking, status its overall status."""

    hit: Hit
    bm25_rank: int
    status: str
    checks: list[Check]

    def to_dict(self) -> dict[str, Any]:
        return {
            "rank": self.hit.rank,
            "bm25_rank": self.bm25_rank,
            "api_call": self.hit.doc.api_call,
            "doc_id": self.hit.doc.id,
            "status": self.status,
            "checks": [ch.to_dict() for ch in self.checks],
        }


def rerank(
    hits: list[Hit], constraints: list[Constraint], drop_violating: bool = False,
    perf_of: PerformanceOf | None = None,
) -> tuple[list[Hit], list[ConstraintReport]]:  # fmt: skip
    """Order hits: every constraint satisfied first, then unknown (none violated), then violated (or drop
    them with drop_violating=True); BM25 order is kept inside each group. Returns new Hit objects ranked
    1..n (scores unchanged) and one ConstraintReport per returned hit, in the new order. No constraints:
    the hits come back unchanged with empty reports. perf_of: each doc's normalised performance (default:
    normalised here)."""
    if not constraints:
        return list(hits), []
    rows = []
    for h in hits:
        checks = check_doc(constraints, h.doc, perf_of(h.doc) if perf_of is not None else None)
        rows.append((STATUSES.index(overall(checks)), h, checks))
    rows.sort(key=lambda r: r[0])  # stable: BM25 order within a group
    if drop_violating:
        rows = [r for r in rows if STATUSES[r[0]] != "violated"]
    new_hits, reports = [], []
    for i, (group, h, checks) in enumerate(rows, start=1):
        nh = replace(h, rank=i)
        new_hits.append(nh)
        reports.append(ConstraintReport(nh, h.rank, STATUSES[group], checks))
    return new_hits, reports


@dataclass
class ConstraintResult:
    """What apply_constraints returns. hits: reranked; constraints: parsed from the task; report: one
    JSON-ready dict per hit (ConstraintReport.to_dict); satisfied_any: some hit meets every constraint;
    message: one line for the person ("" when the task states no constraint); notes: lines about the search
    itself, set by search_with_constraints (tokenize.NO_TERMS_NOTE for a task BM25 finds no term in)."""

    hits: list[Hit]
    constraints: list[Constraint]
    report: list[dict[str, Any]]
    satisfied_any: bool
    message: str
    notes: list[str] = field(default_factory=list)
    #: doc id -> the checks rerank made of it (every candidate, also those cut from `hits`)
    checks: dict[str, list[Check]] = field(default_factory=dict, repr=False)

    def for_doc(self, doc: Any) -> list[dict[str, Any]]:
        """The Proposal.constraints list for the proposed doc (each constraint + status + numbers used):
        the checks rerank made of it when it was a candidate, else checked now (check.check_doc)."""
        checks = self.checks.get(doc.id) if doc is not None else None
        if checks is None:
            return proposal_constraints(self.constraints, doc)
        return [ch.to_dict() for ch in checks]

    def satisfying(self, docs: list[Any]) -> list[Any]:
        """Those of `docs` whose hit meets every constraint (by the report), in the given order; the
        pipeline lets the model choose among these only, so an unknown or violating doc is never proposed
        while a satisfying one is among the hits."""
        ok = {r["doc_id"] for r in self.report if r["status"] == "satisfied"}
        return [d for d in docs if d.id in ok]


def proposal_constraints(constraints: list[Constraint], doc: Any) -> list[dict[str, Any]]:
    """JSON-ready list for Proposal.constraints: one dict per constraint with metric, op, value, unit,
    dataset, source_text, status, actual (number, [low, high] or None), used, note. doc None: all unknown."""
    if doc is None:
        return [Check(c, "unknown", note="no API proposed").to_dict() for c in constraints]
    return [ch.to_dict() for ch in check_doc(constraints, doc)]


def _fmt(ch: Check) -> str:
    c = ch.constraint
    if c.metric in ("provider", "framework", "language"):
        return f"{c.metric} {ch.used[0] if ch.used else '?'} vs {c.value}"
    actual = "?" if ch.low is None else f"{ch.low:g}" if ch.low == ch.high else f"{ch.low:g}-{ch.high:g}"
    return f"{c.metric} {actual} vs {c.op} {c.value:g}{' ' + c.unit if c.unit != '%' else '%'}"


def apply_constraints(
    task: str | ParsedTask, hits: list[Hit], drop_violating: bool = False, *,
    perf_of: PerformanceOf | None = None,
) -> ConstraintResult:  # fmt: skip
    """Rerank the hits by the task's constraints (see rerank): `task` as parse.read_task read it (what
    search_with_constraints passes: the task is parsed once per ask), or its text, read here. When no hit
    satisfies every constraint, message says so and names the closest hit (fewest violated constraints,
    then smallest relative shortfall). perf_of: see rerank."""
    constraints = (task if isinstance(task, ParsedTask) else read_task(task)).constraints
    if not constraints:
        return ConstraintResult(list(hits), [], [], False, "")
    new_hits, reports = rerank(hits, constraints, drop_violating, perf_of)
    n_ok = sum(r.status == "satisfied" for r in reports)
    stated = ", ".join(c.describe() for c in constraints)
    if n_ok:
        message = f"{n_ok} of {len(reports)} candidates meet every constraint ({stated})."
    elif not reports:
        message = f"No candidates to check against the constraints ({stated})."
    else:
        unknown = [r for r in reports if r.status == "unknown"]
        if unknown:
            best = unknown[0]
            message = (
                f"No candidate is known to meet every constraint ({stated}); "
                f"{best.hit.doc.api_call} has no violation but lacks metadata."
            )
        else:
            best = min(
                reports,
                key=lambda r: (
                    sum(ch.status == "violated" for ch in r.checks),
                    shortfall(r.checks),
                    r.hit.rank,
                ),
            )
            missed = "; ".join(_fmt(ch) for ch in best.checks if ch.status == "violated")
            message = (
                f"No candidate meets every constraint ({stated}); "
                f"closest: {best.hit.doc.api_call} ({missed})."
            )
    checks = {r.hit.doc.id: r.checks for r in reports}
    report = [r.to_dict() for r in reports]
    return ConstraintResult(new_hits, constraints, report, n_ok > 0, message, checks=checks)


def search_with_constraints(
    index: Any, task: str, k: int = 5, hub: str | None = None, widen: int = 100, *, query: str | None = None
) -> ConstraintResult:
    """Retrieve and rerank in one call. The task is parsed once; with no constraint this is plain
    index.search(task, k, hub). Otherwise the candidate set is the top max(widen, k * 4) hits of one
    index.search, reranked by the constraints (rerank): every candidate whose metadata satisfies every
    constraint ranks above every unknown one, and those above the violating ones, retrieval order kept
    inside each group. The result keeps the first k hits (report cut to match). Each doc's performance
    comes from index.performance (normalised once at refresh) when the index has it.

    A framework named in the task ("with pytorch", FRAMEWORKS) with no hub given: that framework's hub
    (each named framework's, when the task names several) is searched as if it were named (its own BM25
    statistics and dense ranking, as `--hub` does), and its hits come before those of the search over
    every source (see _candidates).

    The retriever (BM25 and the dense side) is given the task without the words read as a constraint
    (parse.without_constraints: "an image classifier under 5 million parameters" searches for
    "an image classifier"), and its hits come first; index.search then replaces the literal values left in
    it by the word of their kind (query/literals.py: a URL -> "url"), while the constraints are parsed
    from the task as typed. When they are fewer than the candidates wanted, the
    top hits of the whole task fill the rest, those not in already (so no more docs are read than
    wanted): a doc that only "top-1 accuracy" finds may be the one that meets the bound ("a classifier
    with top-1 accuracy of 75 % or more" searched as "a classifier" alone had no satisfying doc among its
    Torch Hub candidates). The constraints then rerank, retrieval order kept inside each group. When
    nothing but constraint words is left, the whole task is searched. query: the search text to use
    instead (bench/constraints.py passes the whole task to show the difference; then only its hits are
    candidates). ConstraintResult.notes holds tokenize.NO_TERMS_NOTE when the task has no BM25 term
    (emoji or symbols alone): its hits, if any, are the dense side's."""
    notes = [note] if (note := no_terms_note(task)) else []
    parsed = read_task(task)  # the parse step: once per ask
    constraints = parsed.constraints
    if not constraints:
        return ConstraintResult(index.search(task, k=k, hub=hub), [], [], False, "", notes)
    query = query if query is not None else (parsed.search_text or task)
    n = max(widen, k * 4)
    hits = _candidates(index, query, n, hub, constraints)
    if query != task and len(hits) < n:  # then the whole task's own hits, for docs only its words find
        seen = {h.doc.id for h in hits}
        more = _candidates(index, task, n - len(hits), hub, constraints)  # at most n docs read in all
        hits += [h for h in more if h.doc.id not in seen]
        hits = [replace(h, rank=rank) for rank, h in enumerate(hits, start=1)]
    perf_of = getattr(index, "performance", None)
    result = apply_constraints(parsed, hits, perf_of=perf_of)
    first_ok = next((r["bm25_rank"] for r in result.report if r["status"] == "satisfied"), 0)
    if first_ok > k * 4:
        result.message += f" (search widened to the top {len(hits)} hits)"
    result.hits, result.report = result.hits[:k], result.report[:k]
    result.notes = notes
    return result


def _candidates(index: Any, task: str, n: int, hub: str | None, constraints: list[Constraint]) -> list[Hit]:
    """The top `n` candidates for reranking: index.search(task, n, hub) (task: the search text, the
    constraint words already taken out by the caller), preceded, when no hub is given,
    by the hits of each hub a framework constraint names (searched alone: with every source in one index,
    source routing ranks the three model hubs as one group, where "... with pytorch" can get only
    TensorFlow Hub and Hugging Face docs among its top n). Duplicates keep their first place; ranks are
    renumbered 1.. in the merged order; the hits of several named hubs ("convert a pytorch model to
    tensorflow") take turns, rank by rank, so each hub is among the first hits. A search inside one hub
    (the named ones, or `hub`) is given the task without its framework words (without_frameworks): they
    name the hub, not the API."""
    named = [
        s for c in constraints if c.metric == "framework" for key in framework_keys(str(c.value))
        if key in FRAMEWORKS for s in FRAMEWORKS[key][1]
    ]  # fmt: skip
    in_hub = (without_frameworks(task) or task) if named else task
    hits = index.search(in_hub if hub else task, k=n, hub=hub)
    named = [s for s in dict.fromkeys(named) if s in getattr(index, "sources", ())]
    if hub or not named:
        return hits
    per_hub = [index.search(in_hub, k=n, hub=s) for s in named]
    interleaved = [h for row in zip_longest(*per_hub) for h in row if h is not None]  # each hub's 1st, 2nd..
    merged: dict[str, Hit] = {}
    for h in interleaved + hits:
        merged.setdefault(h.doc.id, h)
    return [replace(h, rank=rank) for rank, h in enumerate(merged.values(), start=1)]
