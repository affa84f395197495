"""The choice stage of pipeline.ask: select mode picks one hit's api_call, by query likelihood
(model/likelihood.py) or under a GBNF grammar (model/grammar.py); generate mode lets the model write freely
(check/extract.py later pulls the call out). Each way returns one Choice (pipeline_types.py)."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import Any

from gorilla_tui.check.receivers import IN_PLACE_REASON
from gorilla_tui.config import Settings
from gorilla_tui.errors import ContextOverflowError
from gorilla_tui.fill.asked import past_async, past_countless
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.placing import by_values, marked_values, placed
from gorilla_tui.fill.receivers import of_stated_type
from gorilla_tui.model import choice, likelihood
from gorilla_tui.model.across import across_sources, vote_within
from gorilla_tui.model.backend import Backend
from gorilla_tui.model.folders import FOLDER_NOTE, by_folder
from gorilla_tui.model.grammar import choice_grammar, unique_options
from gorilla_tui.model.named import by_kind, by_name, module_of
from gorilla_tui.model.prompts import fit_prompt
from gorilla_tui.pipeline_types import AskCancelled, Choice
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.routing import GROUPS
from gorilla_tui.types import Event, Hit, TokenEvent, Verdict

__all__ = [
    "Chooser",
    "cannot_bind",
    "choose_select_by",
    "decide",
    "first_rule",
    "rebind_order",
    "routing_unit",
    "shared_prefix",
]


def routing_unit(source: str) -> str:
    """The routing unit of `source` (retrieve/routing.py GROUPS: the model hubs are one unit, named by their
    sorted sources joined with "+"; any other source is a unit of its own, its name)."""
    group = next((g for g in GROUPS if source in g), None)
    return "+".join(sorted(group)) if group else source


def choose_select_by(mode: str, wanted: str, *, can_score: bool) -> str:
    """How `mode` chooses: "" in generate mode; in select mode "likelihood" when `wanted` (settings.select_by)
    is "likelihood" and the backend can score text (model.likelihood.can_score), else "grammar"."""
    if mode != "select":
        return ""
    return "likelihood" if wanted == "likelihood" and can_score else "grammar"


def shared_prefix(options: Sequence[str]) -> str:
    """The text every option starts with, cut back to just after its last delimiter ( ( , = ' " space ),
    so the prompt does not end inside a word. "" when fewer than 2 options or an option would be left empty.

    Select mode puts it in the prompt: the grammar forces it anyway, and prompt evaluation (~1 ms/token
    batched) is far cheaper than grammar-constrained generation (~40 ms/token on 2 cores, Gemma 3 270M)."""
    if len(options) < 2:
        return ""
    common = os.path.commonprefix(list(options))
    cut = max(common.rfind(c) for c in "(,='\" ") + 1
    common = common[:cut]
    return common if all(len(o) > len(common) for o in options) else ""


def first_rule(docs: Sequence[ApiDoc], retrieval: Sequence[float]) -> str:
    """The choice rule for hits `docs` (retrieval order): choice.rule_for (hit 1's source and expansion),
    "first" when that rule follows the retrieval rank and hit 1 is clearly better (choice.guarded_rule on
    each hit's BM25 score `retrieval`). Decided before any content-free score is computed."""
    return choice.guarded_rule(choice.rule_for(docs), retrieval, [d.source for d in docs])


#: Nats by which the first hit that can take a value of the task may be less likely than a chosen hit that
#: can take none of them and still take its place (past_unplaced). Chosen on the dev halves' recorded
#: scores (bench/choice_replay.py: bench/filling.py's 98 dev tasks and bench/everyday.py's 112): one
#: choice moved at every margin from 2 to 12 nats, a right one (s12-int "turn the string '42' into an
#: actual integer": int over bin, which takes a number, 1.8 nats less likely), none at 1; 5, the middle of
#: that plateau. Taking the likeliest such hit instead of the first moved it to str.join (0.03 nats above
#: int): the model does not tell these apart, so the retrieval order decides, as the "margin" rule does.
UNPLACED_MARGIN = 5.0
#: The source past_unplaced works in: the standard library's calls take the task's values as arguments.
UNPLACED_SOURCE = "python-env"


def past_unplaced(docs: Sequence[ApiDoc], scores: Sequence[float], chosen: int, task: str) -> int:
    """The index of the doc to propose: `chosen`, or, when the task marks values (fill/placing.py
    marked_values) and the chosen doc can take none of them (placed: no parameter admits their kind), the
    first hit of its source in retrieval order that can take one, among those the model reads the task at
    most UNPLACED_MARGIN nats less likely after (`scores`, log p(task | doc)). Why: a call with no parameter
    for the task's values cannot be the call it asks for ("turn the string '42' into an actual integer" is
    no ``bin(number)``); by_values only moves to a hit read at least as likely. Only for UNPLACED_SOURCE: a
    model hub's call is complete without the task's values, and the function-calling sources (BFCL, a
    user's tools) were not measured with it."""
    if not 0 <= chosen < len(docs) or len(scores) != len(docs) or docs[chosen].source != UNPLACED_SOURCE:
        return chosen
    values = TaskValues.of(task)
    if not marked_values(values) or placed(docs[chosen], values) > 0:
        return chosen
    taking = (i for i, d in enumerate(docs) if d.source == docs[chosen].source and i != chosen
              and scores[i] >= scores[chosen] - UNPLACED_MARGIN and placed(d, values) > 0)  # fmt: skip
    return next(taking, chosen)


#: The verdict reasons of a call that raises as soon as it runs because of the values filling gave it
#: (pool/stub_bind.py: a literal of a type the parameter cannot take, more arguments than any overload has).
#: A missing argument is not one: the call of a doc whose example leaves required arguments to the person
#: (``http.server.SimpleHTTPRequestHandler()``: request, client_address, server) is the right API all the
#: same, and rebinding it gave up two right everyday answers (s6-serve for shutil.make_archive). An in-place
#: method on a copy the call makes (check/receivers.py: ``list(['pear', 'apple']).sort()`` returns None)
#: does nothing with the task's values either.
UNBOUND_REASONS = frozenset({"wrong_args:wrong_type", "wrong_args:too_many_arguments", IN_PLACE_REASON})
#: Most other hits whose filled calls rebinding tries (each one filling and one check, ~1 s on CPU).
REBIND_TRIES = 2


def cannot_bind(verdict: Verdict, doc: ApiDoc | None) -> bool:
    """Whether the filled call of `doc` (its `verdict`) raises at once: a standard-library doc
    (UNPLACED_SOURCE: its type stubs decide it) whose call the check finds unbindable (UNBOUND_REASONS).
    The Gorilla paper separates calls the AST check matches from hallucinated ones; here a call that
    cannot take the task's values is given up for another hit's (rebind_order), as "url encode the string
    'a b&c=d'" proposed ``urllib.parse.urlencode('a b&c=d')`` (TypeError) over ``urllib.parse.quote``."""
    return doc is not None and doc.source == UNPLACED_SOURCE and verdict.reason in UNBOUND_REASONS


def rebind_order(hits: Sequence[Hit], docs: Sequence[ApiDoc], chosen: ApiDoc) -> list[ApiDoc]:
    """The hits to try in place of `chosen` when its filled call cannot bind (cannot_bind): the other
    `docs` (the ones the choice chose among) of its source with another call, those of its module first
    (model/named.py module_of), then likeliest first (Hit.lm_score; unscored ones after, in retrieval
    order), at most REBIND_TRIES. Why the module first: the choice read the task as being about the chosen
    call's module, and only the values' type failed. "url encode the string 'a b&c=d'" gave up
    ``urllib.parse.urlencode`` (its stub wants a mapping) for ``'a b&c=d'.encode()``, read likelier than
    ``urllib.parse.quote_plus`` (break-it round 32, item 8; s14 blind b29)."""
    score = {id(h.doc): h.lm_score for h in hits}
    module = module_of(chosen)
    others = [d for d in docs if d is not chosen and d.source == chosen.source
              and d.call.strip() != chosen.call.strip()]  # fmt: skip

    def key(d: ApiDoc) -> tuple[bool, float]:
        lm = score.get(id(d))
        return (not module or module_of(d) != module, -(lm if lm is not None else -1e9))

    return sorted(others, key=key)[:REBIND_TRIES]


def decide(
    task: str,
    docs: Sequence[ApiDoc],
    scores: Sequence[float],
    free: Sequence[float | None] | None,
    rule: str,
    fused: Sequence[float | None],
) -> tuple[int, str, list[str]]:
    """The choice among scored hits, without the model: the rule's pick, then the moves after it (another
    source's clearly likelier hit, model/across.py; a hit that takes more of the task's values,
    fill/placing.py; past a hit that takes none of them, past_unplaced, or not the count the task states,
    fill/asked.py past_countless; one whose name holds more of the task's words, or that makes something
    from the kind of value the task gives, model/named.py; the method on the class the task gives its
    variable, fill/receivers.py of_stated_type; the folder API of the chosen one's family,
    model/folders.py; past a coroutine function the task does not ask for, fill/asked.py past_async). The
    pipeline and the offline replay (bench/choice_replay.py) both call it, so a rule compared on recorded
    scores is the rule that runs.

    Args:
        task: the text the hits were scored against (pipeline: handover.without_input of the task).
        docs: the hits' docs, retrieval order.
        scores: log p(task | doc) per doc, nats.
        free: log p(content-free task | doc) per doc, for the rules of choice.NEEDS_FREE; else None.
        rule: first_rule's rule.
        fused: each doc's fused retrieval score (Hit.fused; None for a doc not ranked by the search).

    Returns:
        (index of the chosen doc, the rule the choice note names, notes for the answer).

    Raises:
        ValueError: what choice.choose raises (no docs, scores or free scores missing for the rule).
    """
    groups, temperature = choice.domain_groups(docs), choice.vote_temperature_for(docs)
    ties = choice.retrieval_ties(list(fused), [d.source for d in docs])
    sources = [d.source for d in docs]
    if rule in choice.VOTE_RULES:  # the vote among hit 1's routing unit; another unit's hit by the margin
        sources = [routing_unit(s) for s in sources]
        picked = vote_within(scores, free, rule, groups, temperature, sources)
    else:
        picked = choice.choose(scores, free, rule, groups, temperature, ties)
    # another source's (a vote: another unit's) hit the model reads the task clearly likelier after
    across = across_sources(scores, sources, picked, rule)
    if across != picked:  # the choice note then says "model likelihood"
        picked, rule = across, "likelihood"
    # a hit read at least as likely that takes more of the task's values (fill/placing.py)
    valued = by_values(list(docs), list(scores), picked, task)
    if valued != picked:
        picked, rule = valued, "likelihood"
    # a hit that can take none of the task's values gives way to one that can
    taking = past_unplaced(docs, scores, picked, task)
    if taking != picked:
        picked, rule = taking, "likelihood"
    # a hit that can take the count the task states ("pick 5 random names": fill/asked.py)
    counted = past_countless(docs, scores, picked, task)
    if counted != picked:
        picked, rule = counted, "likelihood"
    # a hit whose function name holds more of the task's words (model/named.py)
    named = by_name(docs, scores, picked, task)
    if named != picked:
        picked, rule = named, "likelihood"
    # a hit named for making something from the kind of value the task gives (model/named.py)
    kind = by_kind(docs, scores, picked, task)
    if kind != picked:
        picked, rule = kind, "likelihood"
    # the method on the class the task gives its variable ("the string `text`": str.count, fill/receivers.py)
    typed = of_stated_type(docs, picked, task)
    if typed != picked:
        picked, rule = typed, "likelihood"
    # a task about a folder: the folder API of the chosen one's family (model/folders.py)
    folder = by_folder(list(docs), picked, task)
    notes = [FOLDER_NOTE] if folder != picked else []
    # a coroutine function for a task that does not say async: its plain twin, or a note (fill/asked.py)
    plain, said = past_async(docs, folder, task)
    return plain, rule, notes + said


class Chooser:
    """The choice stage of one Pipeline: the chooser settings.select_by asks for, run by `backend` with the
    prompt family `family` (model/prompts.py). last_stats: the backend's stats of the last model call.

    Args:
        settings: max_tokens is read from it.
        backend: a model.backend.Backend.
        family: the prompt family of select mode's grammar prompt and of generate mode.
    """

    def __init__(self, settings: Settings, backend: Backend, family: str) -> None:
        self.settings = settings
        self.backend = backend
        self.family = family
        self.last_stats: dict[str, Any] = {}

    def choose(
        self,
        task: str,
        hits: list[Hit],
        usable: list[ApiDoc],
        select_by: str,
        emit: Callable[[Event], None],
        cancel: threading.Event | None,
    ) -> tuple[Choice, str]:
        """Run the chooser `select_by` asks for ("likelihood", "grammar"; "" = generate mode) and return its
        Choice and how it chose. Likelihood needs two distinct calls to choose between; a task too long to
        score in n_ctx falls back to the grammar (its prompt can be trimmed), with a note in Choice.notes."""
        if select_by == "likelihood" and len(unique_options(d.call for d in usable)) > 1:
            try:
                picked = self._choose_by_likelihood(task, usable, hits, cancel)
            except ContextOverflowError:
                picked = self._choose_by_grammar(task, usable, emit, cancel)
                picked.notes.insert(
                    0, "task too long to score the hits in n_ctx: chose with the grammar instead"
                )
                return _read(picked), "grammar"
            emit(TokenEvent(picked.text))
            return _read(picked), select_by
        if select_by:
            return _read(self._choose_by_grammar(task, usable, emit, cancel)), select_by
        return self._generate_freely(task, [h.doc for h in hits], emit, cancel), select_by

    def _choose_by_likelihood(self, task: str, docs: list[ApiDoc], hits: list[Hit],
                              cancel: threading.Event | None) -> Choice:  # fmt: skip
        """The doc of `docs` (in retrieval order) chosen by choice.rule_for(docs) from log p(task | doc)
        (model/likelihood.py); sets Hit.lm_score on the hits that were scored. Raises AskCancelled when
        `cancel` is set while scoring, ContextOverflowError when a doc + task exceeds n_ctx."""
        scores = likelihood.query_likelihoods(self.backend, task, docs, cancel)
        self.last_stats = dict(self.backend.last_stats or {})
        if len(scores) < len(docs) or (cancel is not None and cancel.is_set()):
            raise AskCancelled("cancelled")
        bm25 = {id(h.doc): h.score for h in hits}
        # "first" when hit 1 is clearly better: the choice note then says "chosen by retrieval rank alone"
        rule = first_rule(docs, [bm25.get(id(d), 0.0) for d in docs])
        free = None
        if rule in choice.NEEDS_FREE:
            free = likelihood.content_free_scores(self.backend, docs, cancel)
            if len(free) < len(docs) or (cancel is not None and cancel.is_set()):
                raise AskCancelled("cancelled")
        by_id = {id(d): sc for d, sc in zip(docs, scores, strict=True)}
        for h in hits:
            h.lm_score = by_id.get(id(h.doc))
        fused = {id(h.doc): h.fused for h in hits}
        picked, rule, notes = decide(task, docs, scores, free, rule, [fused.get(id(d)) for d in docs])
        chosen = docs[picked]
        options = unique_options(d.call for d in docs)
        return Choice(chosen.call.strip(), docs, options, doc=chosen, first_token=time.perf_counter(),
                      rule=rule, notes=notes)  # fmt: skip

    def _choose_by_grammar(self, task: str, docs: list[ApiDoc], emit: Callable[[Event], None],
                           cancel: threading.Event | None) -> Choice:  # fmt: skip
        """One api_call of `docs`, written by the model under a GBNF grammar that allows only those calls.
        The text all options share goes into the prompt (prompt evaluation is far cheaper than constrained
        generation); with a single option there is nothing to choose and no model call."""
        t = time.perf_counter()
        options = unique_options(d.call for d in docs)
        # the longest option bounds the answer (+2 for the lead space and the end of the grammar)
        max_tokens = min(self.settings.max_tokens, max(self.backend.count_tokens(o) for o in options) + 2)
        prompt, kept, notes = fit_prompt(self.family, task, docs, "select", self.backend.n_ctx - max_tokens,
                                         self.backend.count_tokens)  # fmt: skip
        options = unique_options(d.call for d in kept)
        shared = shared_prefix(options)
        suffixes = [o[len(shared) :] for o in options]
        grammar = choice_grammar(suffixes, lead="" if shared else " ")
        prompt_text = prompt.text + (" " + shared if shared else "")
        prompt_seconds = time.perf_counter() - t
        if len(options) == 1:  # nothing to choose: no model call
            emit(TokenEvent(options[0]))
            self.last_stats = dict(self.backend.last_stats or {})
            return Choice(options[0], kept, options, prompt_seconds=prompt_seconds, notes=notes)
        if shared:  # the shared text moved into the prompt: keep prompt + max_tokens <= n_ctx exactly
            emit(TokenEvent(" " + shared))
            max_tokens = min(max_tokens, self.backend.n_ctx - self.backend.count_tokens(prompt_text))
        text, first = self._stream(prompt_text, (), max_tokens, grammar, suffixes, emit, cancel)
        text = shared + text.lstrip() if shared else text
        return Choice(text, kept, options, prompt_seconds=prompt_seconds, first_token=first, notes=notes)

    def _generate_freely(self, task: str, docs: list[ApiDoc], emit: Callable[[Event], None],
                         cancel: threading.Event | None) -> Choice:  # fmt: skip
        """The model's own answer (generate mode: a Gorilla model writes its fields), up to
        settings.max_tokens, stopping at the prompt family's stop strings."""
        t = time.perf_counter()
        max_tokens = self.settings.max_tokens
        prompt, kept, notes = fit_prompt(self.family, task, docs, "generate", self.backend.n_ctx - max_tokens,
                                         self.backend.count_tokens)  # fmt: skip
        prompt_seconds = time.perf_counter() - t
        text, first = self._stream(prompt.text, prompt.stop, max_tokens, None, None, emit, cancel)
        return Choice(text, kept, prompt_seconds=prompt_seconds, first_token=first, notes=notes)

    def _stream(self, prompt: str, stop: Sequence[str], max_tokens: int, grammar: str | None,
                options: list[str] | None, emit: Callable[[Event], None],
                cancel: threading.Event | None) -> tuple[str, float | None]:  # fmt: skip
        """Stream the completion, emitting TokenEvents; returns (text, perf_counter at the first token or
        None). With `options` (select mode) stop as soon as only one option is still a prefix match (the
        grammar allows nothing else), and emit the rest of it ourselves. Keeps backend.last_stats."""
        parts: list[str] = []
        first: float | None = None
        stream = self.backend.complete(prompt, max_tokens=max_tokens, stop=stop, grammar=grammar,
                                       temperature=0.0, cancel=cancel)  # fmt: skip
        try:
            for piece in stream:
                if first is None:
                    first = time.perf_counter()
                parts.append(piece)
                emit(TokenEvent(piece))
                if options is not None:
                    sofar = "".join(parts).lstrip()
                    alive = [o for o in options if o.startswith(sofar)]
                    if len(alive) == 1:
                        rest = alive[0][len(sofar) :]
                        if rest:
                            parts.append(rest)
                            emit(TokenEvent(rest))
                        break
        finally:
            close = getattr(stream, "close", None)
            if close:
                close()
        self.last_stats = dict(self.backend.last_stats or {})
        return "".join(parts), first


def _read(picked: Choice) -> Choice:
    """`picked` with the doc that stands for its call (choice.call_reading: the domain most of the hits with
    that call give), for a select-mode choice that chose a call among the docs; others as they are."""
    text = picked.text.strip()
    docs = picked.docs
    at = next((i for i, d in enumerate(docs) if d is picked.doc), None) if picked.doc is not None else None
    if at is None:
        at = next((i for i, d in enumerate(docs) if d.call.strip() == text), None)
    if at is None:
        return picked
    picked.doc = docs[choice.call_reading(docs, at)]
    return picked
