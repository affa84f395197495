"""Shared value types of the pipeline: Hit, Verdict, Proposal and the events pipeline.ask emits."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

if TYPE_CHECKING:  # types sits below pool in the layers (pyproject [tool.importlinter]): annotations only
    from gorilla_tui.pool.doc import ApiDoc

#: The six verdicts (docs/validator.md): five of the AST check, and "incomplete", a valid call whose
#: arguments still hold placeholders the task gave no value for (check/verdicts.py incomplete; the pipeline
#: gives it when Proposal.needs is not empty).
VerdictKind = Literal["valid", "incomplete", "wrong_args", "hallucination", "unparseable", "no_call"]
VERDICTS: tuple[VerdictKind, ...] = (
    "valid",
    "incomplete",
    "wrong_args",
    "hallucination",
    "unparseable",
    "no_call",
)
#: How the first diagnostic of an incomplete verdict starts: "needs: src, dst" (the parameters to fill in).
NEEDS_NOTE = "needs: "


@dataclass
class Hit:
    """One retrieved ApiDoc: rank is 1-based and is the order (ApiIndex.search: sources routed, then each
    pool by the RRF fusion of its BM25 and dense ranks, or by BM25 times python-env's prior; constraints
    met first), so neither number below need fall with it. score is the doc's plain BM25 score in the pool
    it was ranked in (higher is better; unitless; 0 for a doc only the dense side found). dense: the
    cosine similarity of the task's and the doc's embeddings (-1..1) when a hybrid index scored the doc,
    else None. lm_score: log p(task | doc) in nats when select mode scored the hit by likelihood
    (model/likelihood.py), else None. fused: the score the hit was ranked by in its pool (the RRF fusion
    of its BM25 and dense ranks, or BM25 times the prior; unitless, higher is better; model/choice.py
    retrieval_ties reads it), None where the hit was not ranked by ApiIndex.search."""

    doc: ApiDoc
    score: float
    rank: int
    lm_score: float | None = None
    dense: float | None = None
    fused: float | None = None

    def to_dict(self) -> dict[str, Any]:
        lm = None if self.lm_score is None else round(self.lm_score, 4)
        dense = None if self.dense is None else round(self.dense, 4)
        return {
            "rank": self.rank,
            "score": round(self.score, 4),
            "dense": dense,
            "lm_score": lm,
            "doc": self.doc.to_dict(),
        }


def call_key(doc: ApiDoc) -> str:
    """What makes two docs' calls the same call for display: ApiDoc.call (the repaired call of a flagged
    doc, else api_call) without any whitespace ("hub.KerasLayer('u')" and "hub.KerasLayer( 'u' )" are one)."""
    return "".join(doc.call.split())


def group_by_call(hits: list[Hit]) -> list[tuple[Hit, int]]:
    """The hits as shown (the TUI hits panel, `search` and `ask` text output): each call once, as its
    best-ranked hit (the first in `hits`, which is in rank order), with how many of `hits` have that call
    (call_key), in the order of those first hits. APIBench's TensorFlow Hub pool has 696 docs but 80
    distinct api_calls, so a task's five hits often held one call up to five times. Display only: the
    choice (pipeline) still chooses among every hit, and JSON outputs keep every hit."""
    groups: dict[str, list] = {}
    for hit in hits:
        key = call_key(hit.doc)
        if key in groups:
            groups[key][1] += 1
        else:
            groups[key] = [hit, 1]
    return [(hit, n) for hit, n in groups.values()]


@dataclass
class CallVerdict:
    """The verdict of one call in checked code (docs/validator.md, section 3).

    call: the call's source text (for a call passed as a value, ``partial(f, a)``, the wrapper's text);
    callee: the callee as matched (import-qualified, aliases folded); line, col: 1-based position.
    role: "pool" (its callee is a callee of the API pool: APIBench hubs, APIZoo or user docs), "python-env"
    (a callee only the python-env pool knows), "family" (reaches a pool API family or module but is no pool
    callee, e.g. ``torch.load``), "other" (an unknown callee outside the pool's families) or "incidental"
    (builtins, methods of local objects, calls on a call's result: never decide).
    kind: the call's own verdict (VerdictKind); reason: its reason code ("" when valid or incidental);
    matched: id of the pool entry it matched (valid) or is closest to (wrong_args), else None.
    via: the wrapper that passed the callee as a value (``functools.partial``, ``submit``...), else "".
    """

    call: str
    callee: str
    line: int
    col: int
    role: str
    kind: VerdictKind
    reason: str = ""
    matched: str | None = None
    via: str = ""

    def to_dict(self) -> dict[str, Any]:
        return {
            "call": self.call,
            "callee": self.callee,
            "line": self.line,
            "col": self.col,
            "role": self.role,
            "verdict": self.kind,
            "reason": self.reason or None,
            "matched": self.matched,
            "via": self.via or None,
        }


#: Reason codes of non-valid verdicts ("<verdict>:<why>", docs/validator.md section 4).
REASONS: tuple[str, ...] = (
    "wrong_args:unknown_model",
    "wrong_args:unknown_repo",
    "wrong_args:unknown_value",
    "wrong_args:helper_as_model",
    "wrong_args:unquoted_id",
    "wrong_args:missing_argument",
    "wrong_args:too_many_arguments",
    "wrong_args:unknown_keyword",
    "wrong_args:duplicate_argument",
    "wrong_args:wrong_type",
    "wrong_args:not_in_enum",
    "wrong_args:wrong_method",
    "wrong_args:runs_code",
    "wrong_args:in_place_copy",
    "hallucination:unknown_callee",
    "hallucination:wrong_loader",
    "hallucination:unknown_path",
    "hallucination:no_rest_pool",
    "unparseable:python_syntax",
    "unparseable:nesting_limit",
    "no_call:no_code",
    "no_call:only_incidental",
    "incomplete:missing_value",
)


@dataclass
class Verdict:
    """Result of validating one piece of code against the API pool.

    kind: one of VERDICTS. api_call: the call that decided the verdict (source text), or None.
    matched: the pool ApiDoc it matched (valid, and wrong_args' closest callee entry), or None.
    suggestions: did-you-mean api_calls or callees from the pool, best first.
    diagnostics: human-readable notes (parse errors with line:col, which argument was unknown, ...).
    reason: machine-readable reason code of a non-valid verdict (one of REASONS, e.g.
    "wrong_args:unknown_model"); "" for valid. calls: every call of the code with its own verdict, in
    source order (empty for unparseable code and REST request lines).
    """

    kind: VerdictKind
    api_call: str | None = None
    matched: ApiDoc | None = None
    suggestions: list[str] = field(default_factory=list)
    diagnostics: list[str] = field(default_factory=list)
    reason: str = ""
    calls: list[CallVerdict] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.kind == "valid"

    def to_dict(self) -> dict[str, Any]:
        return {
            "verdict": self.kind,
            "reason": self.reason or None,
            "api_call": self.api_call,
            "matched": self.matched.to_dict() if self.matched else None,
            "suggestions": list(self.suggestions),
            "diagnostics": list(self.diagnostics),
            "calls": [c.to_dict() for c in self.calls],
        }


#: Where a filled argument's value comes from (Argument.origin): "task" (stated in the task), "default"
#: (the parameter's default, written out because the call needs it by keyword), "doc" (kept from the pool
#: entry's own call, e.g. a hub's model name), "missing" (nothing in the task: a named placeholder), "method"
#: (what the method called on the result needs: ``open(p, 'w')`` before ``.write(...)``, fill/chains.py),
#: "variable" (a variable the task names, passed by its name: "the list scores" -> ``mean(scores)``,
#: fill/kinds.py).
ARGUMENT_ORIGINS = ("task", "default", "doc", "missing", "method", "variable")


@dataclass
class Argument:
    """One argument of a proposed call (fill/: the task's values in the chosen API's call).

    name: the parameter's name (for a positional-only parameter too); value: the value as Python source
    text (a literal Python's parser accepts: ``10``, ``'report.csv'``, ``['a', 'b']``), the placeholder name
    when origin is "missing"; origin: one of ARGUMENT_ORIGINS; call: 0-based index of the call it belongs
    to in Proposal.calls (a parallel task gives several calls).
    """

    name: str
    value: str
    origin: str
    call: int = 0

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "value": self.value, "origin": self.origin, "call": self.call}


#: Proposal.fit values (pipeline_fit.py judge): "fits" (an API of the index does this task), "unsure" (the
#: chosen API may not do it), "nothing" (nothing fits: no API of the index does it; the call shown is the
#: nearest, not a proposal, and no call is proposed: Proposal.calls is []), "" (not judged: generate mode,
#: no hits, a backend that cannot score text).
FITS = ("fits", "unsure", "nothing", "")
#: The fit line of each judgment, shown beside the verdict as prominently (the TUI, `ask`); --json and MCP
#: give it as "fit_line".
FIT_LINES = {
    "fits": "fits: the index has an API for this task",
    "unsure": "unsure: this API may not do what the task asks",
    "nothing": "nothing fits: no API in the index does this task; nearest shown",
}
#: How the note on a task put into English starts (pipeline.py, model/translate.py): TRANSLATION_NOTE +
#: the translation + " (translated by the model)". `ask` and the TUI show it as a note, not a warning.
TRANSLATION_NOTE = "searched in English as: "


@dataclass
class Proposal:
    """What pipeline.ask returns.

    api_call: the proposed call (or "" when the model gave none); code: runnable code shown to the person;
    code_source: "model" (the model wrote it), "example_code" (taken from the matched doc) or "filled" (the
    chosen doc's call with the task's values, fill/);
    hits: the retrieved docs; timings: seconds per stage ("retrieve", "prompt", "first_token", "generate",
    "validate", "next_source" when the next source was asked (pipeline.py _next_source), "total");
    raw_text: the model's full output; mode: "select" or "generate".
    select_by: how select mode chose ("likelihood": the rule choice_rule over log p(task | doc), see
    Hit.lm_score; "grammar": the model wrote one api_call under a GBNF grammar; "" in generate mode).
    choice_rule: the rule the likelihood chooser applied (model/likelihood.py CHOICE_RULES, e.g. "rrf"), ""
    when it did not choose.
    fit: whether the index has an API for the task (pipeline_fit.py judge; one of FITS): "fits", "unsure",
    "nothing" (the call is the nearest hit's, shown as such; calls is []), or "" when not judged. The verdict
    still says whether the call exists; fit_signals: the signals it was judged on (pipeline_fit.signals).
    translation: the task in English as the model put it (model/translate.py) when the task was in another
    language; it was searched after the task (the hits are still scored against the task); "" otherwise.
    arguments: the arguments of the proposed call(s) with where each value came from (Argument; [] when
    nothing was filled); calls: every proposed call in BFCL's decoded form, ``[{"func_name": {"param":
    value}}]`` (values as Python reads the literals; [] when no call is proposed or a call's arguments are
    not all literals); unused: the values the task writes (numbers, quoted text, URLs, paths, dates, lists)
    that the proposed call does not hold, as the task writes them (fill/unused.py left_out; [] in generate
    mode and for a model hub's call, which loads a model for code that takes the values): "the sha256 of
    setup.py" answered ``hashlib.sha256()`` says setup.py is not in the call.
    """

    task: str
    api_call: str
    code: str
    verdict: Verdict
    hits: list[Hit] = field(default_factory=list)
    explanation: str = ""
    code_source: str = "model"
    mode: str = "select"
    model: str = ""
    raw_text: str = ""
    timings: dict[str, float] = field(default_factory=dict)
    constraints: list[dict[str, Any]] = field(default_factory=list)
    warnings: list[str] = field(default_factory=list)  # e.g. "task truncated", "docs trimmed to fit n_ctx"
    select_by: str = ""
    choice_rule: str = ""
    fit: str = ""
    fit_signals: dict[str, Any] = field(default_factory=dict)
    translation: str = ""
    arguments: list[Argument] = field(default_factory=list)
    calls: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    unused: list[str] = field(default_factory=list)

    @property
    def needs(self) -> list[str]:
        """Names of the parameters left as placeholders (Argument.origin "missing"), in call order."""
        return [a.name for a in self.arguments if a.origin == "missing"]

    def to_dict(self) -> dict[str, Any]:
        return {
            "task": self.task,
            "translation": self.translation,
            # nothing fits: the call is the nearest hit's, not a proposal (FIT_LINES)
            "api_call": "" if self.fit == "nothing" else self.api_call,
            "nearest_call": self.api_call if self.fit == "nothing" else "",
            "code": "" if self.fit == "nothing" else self.code,
            "code_source": self.code_source,
            "explanation": self.explanation,
            "mode": self.mode,
            "select_by": self.select_by,
            "choice_rule": self.choice_rule,
            "fit": self.fit,
            "fit_line": FIT_LINES.get(self.fit, ""),
            "fit_signals": {
                k: round(v, 4) if isinstance(v, float) else v for k, v in self.fit_signals.items()
            },
            "model": self.model,
            # "of": which call the verdict judges; when nothing fits it is the nearest hit's, not a proposal
            "verdict": {
                **self.verdict.to_dict(),
                "of": "nearest_call" if self.fit == "nothing" else "api_call",
            },
            "hits": [h.to_dict() for h in self.hits],
            "timings": {k: round(v, 4) for k, v in self.timings.items()},
            "constraints": self.constraints,
            "warnings": list(self.warnings),
            "raw_text": self.raw_text,
            "arguments": [a.to_dict() for a in self.arguments],
            "needs": self.needs,
            "unused": [] if self.fit == "nothing" else list(self.unused),
            "calls": self.calls,
        }


# Events emitted by pipeline.ask, in this order: HitsEvent, TokenEvent*, VerdictEvent, DoneEvent
# (or ErrorEvent at any point, after which nothing else is emitted).


@dataclass(frozen=True)
class HitsEvent:
    """The retrieved hits; notes: lines about the search the person should see (the task has no
    searchable words: retrieve/tokenize.py NO_TERMS_NOTE)."""

    hits: list[Hit]
    notes: tuple[str, ...] = ()


@dataclass(frozen=True)
class TokenEvent:
    text: str


@dataclass(frozen=True)
class VerdictEvent:
    verdict: Verdict


@dataclass(frozen=True)
class DoneEvent:
    proposal: Proposal


@dataclass(frozen=True)
class ErrorEvent:
    message: str


Event = HitsEvent | TokenEvent | VerdictEvent | DoneEvent | ErrorEvent


def code_origin(code_source: str, mode: str) -> str:
    """Where a proposal's shown code comes from, in words (the CLI panel's "code (...)" line and the TUI
    proposal panel's footer say the same): the matched doc's example code, the accepted did-you-mean, in
    select mode the chosen doc's api_call (the model chose it, it did not write it: the doc has no example
    code, or its example was not shown), else the model's own text (generate mode).

    Args:
        code_source: Proposal.code_source ("example_code", "filled", "did-you-mean" or "model").
        mode: Proposal.mode ("select" or "generate").
    """
    if code_source == "example_code":
        return "from the doc's example_code"
    if code_source == "did-you-mean":
        return "the did-you-mean suggestion"
    if code_source == "filled":
        return "the chosen API's call with the task's values"
    if mode == "select":
        return "the chosen doc's api_call: the model chose it, no example code shown"
    return "written by the model"
