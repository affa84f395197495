"""The pipeline's types: the Protocols it depends on (SearchIndex, Checker), what one chooser returns
(Choice), and AskCancelled."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Protocol

from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.types import Hit, Verdict


class SearchIndex(Protocol):
    """What the pipeline needs of an index (retrieve.index.ApiIndex is one): BM25 search and the API pool."""

    def search(self, query: str, k: int = 5, hub: str | None = None) -> list[Hit]:
        """The top `k` hits for `query`, best first (only source `hub` when given)."""
        ...

    def pool(self, hub: str | None = None) -> list[ApiDoc]:
        """The docs of source `hub` (all when None); raises UsageError for an unknown hub."""
        ...


class Checker(Protocol):
    """What the pipeline needs of a checker (check.validator.Validator is one)."""

    def check(self, code: str, prefer: str | None = None, types: Mapping[str, str] | None = None) -> Verdict:
        """The verdict for any model text or code (the call is extracted first), by AST sub-tree match
        against the API pool; among pool entries of one identity the doc with id `prefer` is the match
        (select mode's chosen doc), when it is one of them; `types`: the class of each name the code uses
        unbound (a variable the task names), whose methods are judged as that class's."""
        ...

    def check_code(self, code: str, prefer: str | None = None) -> Verdict:
        """The verdict for Python code as it is (every call in it); prefer: as check."""
        ...


@dataclass
class Choice:
    """What one chooser returns (Pipeline._choose_by_likelihood / _choose_by_grammar / _generate_freely).

    text: the answer: the chosen api_call (select mode) or the model's whole text (generate mode), "" when
    cut short; docs: the docs it chose among (after prompt fitting); options: their distinct api_calls
    (select mode; [] in generate mode); doc: the chosen doc when the chooser knows it (likelihood);
    prompt_seconds: time to build the prompt; first_token: time.perf_counter() at the first token, None when
    the model wrote none; notes: prompt-fitting warnings for the proposal; rule: the choice rule used
    (choice.CHOICE_RULES) when the likelihood chooser chose, else "".
    """

    text: str
    docs: list[ApiDoc]
    options: list[str] = field(default_factory=list)
    doc: ApiDoc | None = None
    prompt_seconds: float = 0.0
    first_token: float | None = None
    notes: list[str] = field(default_factory=list)
    rule: str = ""


class AskCancelled(GorillaError):
    """The cancel event was set during ask (exit code 130, like Ctrl+C)."""

    exit_code = 130


def led_by(choice: Choice, chosen: ApiDoc | None, lead: ApiDoc | None) -> Choice:
    """The choice whose doc writes the filled calls' first call: `choice` itself, or, when filling put
    another hit's call first (`lead`: fill.filler.Filled.doc; a task of several requests that names that
    hit's words first, fill/naming.py first_named), that hit as the choice, with a note. The call, its
    code, explanation, verdict and fit then all describe one doc: a long task got `shutil.make_archive(...)`
    as its call under os.listdir's explanation and `import os` (seen measuring break-it round 15, P1).

    Args:
        choice: what the chooser returned.
        chosen: the doc `choice` chose (selected), or None.
        lead: the doc of the first filled call, or None.

    Returns:
        `choice`, or a copy naming `lead` (text, doc) with one more note.
    """
    if lead is None or chosen is None or lead is chosen or lead.call.strip() == chosen.call.strip():
        return choice
    callee = lead.api_name or lead.call.strip()
    note = f"the task makes several requests and names {callee}'s first: its call comes first"
    return dataclasses.replace(choice, text=lead.call.strip(), doc=lead, notes=[*choice.notes, note])


def selected(choice: Choice) -> tuple[str, str, str, str, ApiDoc | None]:
    """(api_call, code, code_source, explanation, the chosen doc or None) for a select-mode choice: the
    code is the chosen doc's example code when it has one (code_source "example_code"), the call itself
    otherwise ("model"); ("", "", "model", "", None) when the choice names no option."""
    chosen = choice.text.strip()
    if chosen not in choice.options:  # cut short (max_tokens or cancel): take the option it started
        started = [o for o in choice.options if chosen and o.startswith(chosen)]
        chosen = started[0] if len(started) == 1 else ""
    doc = choice.doc or next((d for d in choice.docs if d.call.strip() == chosen), None)
    if not chosen or doc is None:
        return "", "", "model", "", None
    explanation = " ".join(x for x in (doc.functionality, doc.description) if x).strip()
    if doc.example_code.strip() and not doc.repaired:  # a repaired doc's example may load another call
        return chosen, doc.example_code, "example_code", explanation, doc
    return chosen, chosen, "model", explanation, doc
