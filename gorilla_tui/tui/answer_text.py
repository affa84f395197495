"""What the TUI says about an answer, beside the call: the call to show, copy and correct, why its code
does not parse, the "needs:" line of an incomplete verdict, what a copy or run confirmation asks about, and
how select mode chose the call (pure functions of a Proposal or Verdict; no Textual)."""

from __future__ import annotations

from gorilla_tui.model import choice
from gorilla_tui.parsing import parse, syntax_problem
from gorilla_tui.types import NEEDS_NOTE, Proposal, Verdict


def effective_call(proposal: Proposal) -> str:
    """The call to show, copy and correct: Proposal.api_call, else the call that decided the verdict,
    else ""."""
    return proposal.api_call or proposal.verdict.api_call or ""


def code_problem(code: str) -> str | None:
    """Why `code` is not valid Python, as "line:col: what" (parsing.syntax_problem on its tree-sitter
    parse), or None when it parses (and for empty code). APIBench example code is sometimes not Python,
    e.g. Hugging Face ``from_pretrained(MCG-NJU/videomae-base)`` with the model id unquoted."""
    if not code.strip():
        return None
    return syntax_problem(parse(code).root_node)


def code_note(proposal: Proposal) -> str:
    """The note shown under the code of `proposal` when that code does not parse, else ""."""
    text = proposal.code or effective_call(proposal)
    problem = code_problem(text)
    if problem is None:
        return ""
    what = "this example code from the doc" if proposal.code_source == "example_code" else "this code"
    return f"{what} is not valid Python: {problem}"


def needs_line(verdict: Verdict) -> str:
    """The "needs: src, dst" diagnostic of an incomplete verdict (check/verdicts.py incomplete), else ""."""
    if verdict.kind != "incomplete":
        return ""
    return next((d for d in verdict.diagnostics if d.startswith(NEEDS_NOTE)), NEEDS_NOTE.rstrip(": "))


#: What a copy or run confirmation asks about when nothing fits the task (Proposal.fit "nothing"): the call
#: shown is the nearest hit's, not a proposal (`ask --run` refuses it outright).
NOTHING_FITS_CONCERN = "Nothing fits this task: this is the nearest call, not a proposal."


def verdict_concern(verdict: Verdict, what: str) -> str:
    """The sentence a copy or run confirmation asks about for a verdict that is not valid: an incomplete
    call still has placeholders to fill in ("needs: src, dst"); any other names the API as not found valid.
    what: "call" (copy) or "code" (run)."""
    if verdict.kind == "incomplete":
        needs = needs_line(verdict)
        return f"The verdict is incomplete: this {what} still has placeholders to fill in ({needs})."
    if what == "call":
        return f"The verdict is {verdict.kind}: this call was not found valid in the API pool."
    return f"The verdict is {verdict.kind}: this code calls an API that was not found valid."


def chosen_hit(proposal: Proposal) -> int | None:
    """Index into proposal.hits of the hit select mode chose: the hit of the verdict's matched doc (the
    chosen doc, which the checker prefers: check.pool_index.PoolIndex.match) when it has the proposal's
    call, else the first hit whose doc.call.strip() equals the proposal's api_call (several docs can share
    a call: APIBench's TensorFlow Hub pool has 696 docs and 80 calls, and the first of them is not always
    the one chosen, nor has its lm). A filled call (code_source "filled": the chosen doc's call with the
    task's values, fill/) is no hit's call as written: its hit is the matched doc's. None in generate mode
    (select_by ""), without a call, or when no hit has that call (e.g. after a did-you-mean replaced it)."""
    call = proposal.api_call.strip()
    if not proposal.select_by or not call:
        return None
    matched = proposal.verdict.matched if proposal.verdict is not None else None
    filled = proposal.code_source == "filled"
    ids = {matched.id} if filled and matched is not None else set()
    same = [i for i, h in enumerate(proposal.hits) if h.doc.call.strip() == call or h.doc.id in ids]
    if matched is not None:
        exact = [i for i in same if proposal.hits[i].doc.id == matched.id]
        if exact:
            return exact[0]
    return same[0] if same else None


def _hits(n: int) -> str:
    return f"{n} hit" if n == 1 else f"{n} hits"


def choice_note(proposal: Proposal) -> str:
    """One short line saying how select mode chose the call, "" in generate mode or without a call.

    "likelihood": "chosen by RULE among N hits: hit R, lm S" (RULE: Proposal.choice_rule, the rule the
    pipeline applied, in words (choice.rule_words), e.g. "retrieval rank + model likelihood (RRF)", or
    "likelihood" for a proposal that does not say; N: hits scored, R: the chosen hit's retrieval rank, S:
    its log p(task | doc) in nats, model/likelihood.py; under a fused rule a hit with a higher lm can lose);
    "grammar": "chosen by grammar among N hits" (N: hits not flagged; the model wrote one of their api_calls
    under a GBNF grammar). When the hits offer a single distinct call there was nothing to choose; after a
    did-you-mean the line says the call was replaced."""
    if not proposal.select_by or not proposal.api_call.strip():
        return ""
    hits = proposal.hits
    usable = [h for h in hits if not h.doc.flagged or h.doc.repaired] or hits
    scored = [h for h in hits if h.lm_score is not None]
    index = chosen_hit(proposal)
    if len({h.doc.call.strip() for h in usable}) == 1:
        line = f"the only candidate call among {_hits(len(hits))}: nothing to choose"
    elif proposal.select_by == "likelihood" and scored:
        how = choice.rule_words(proposal.choice_rule) if proposal.choice_rule else "likelihood"
        line = f"chosen by {how} among {_hits(len(scored))}"
        lm = hits[index].lm_score if index is not None else None
        if index is not None and lm is not None:
            line += f": hit {hits[index].rank}, lm {lm:.1f}"
    else:  # the grammar offers the calls of the usable hits only (not flagged, or repaired)
        line = f"chosen by {proposal.select_by} among {_hits(len(usable))}"
    if index is None and proposal.code_source == "did-you-mean":
        line += ", then replaced by a did-you-mean"
    return line
