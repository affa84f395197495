"""pipeline.ask: task -> hits -> choice -> verdict -> proposal, emitting events on the way.

One ask, in the order the code runs (ARCHITECTURE.md):
1. retrieve: the index (BM25, retrieve/) gives the hits, reranked by constraints stated in the task;
2. choose (pipeline_choose.py): select mode picks one hit's api_call, by query likelihood
   (model/likelihood.py) or under a GBNF grammar (model/grammar.py); generate mode lets the model write
   freely (check/extract.py pulls the call out). Each chooser returns one Choice;
3. check: the checker (check/validator.py) gives the verdict by AST sub-tree match against the API pool;
4. fill: in select mode, the chosen API's call gets the task's values (fill/: the model writes the
   arguments, each a value the task states, or a named placeholder the proposal lists as needed);
5. build the Proposal (call, arguments, code, explanation, verdict, constraints, timings);
6. judge the fit: does the chosen API do the task (pipeline_fit.py: fits / unsure / nothing fits)?
The Protocols it depends on, Choice and AskCancelled are in pipeline_types.py (re-exported here).
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Sequence
from contextlib import nullcontext
from typing import Any

from gorilla_tui.check.validator import Validator
from gorilla_tui.check.verdicts import incomplete
from gorilla_tui.config import Settings
from gorilla_tui.constraints.rank import ConstraintResult, search_with_constraints
from gorilla_tui.errors import ContextOverflowError, UsageError
from gorilla_tui.fill.example_input import feed
from gorilla_tui.fill.filler import Filled, fill
from gorilla_tui.fill.render import decoded_calls, python_code
from gorilla_tui.fill.set_aside import Aside, restore, set_aside, shortened
from gorilla_tui.fill.unused import left_out
from gorilla_tui.model import translate
from gorilla_tui.model.backend import Backend
from gorilla_tui.model.grammar import unique_options
from gorilla_tui.model.likelihood import can_score
from gorilla_tui.pipeline_choose import (  # noqa: F401
    Chooser,
    cannot_bind,
    choose_select_by,
    rebind_order,
    shared_prefix,  # noqa: F401 - re-exported
)
from gorilla_tui.pipeline_fit import judge, retrieval_score, without_named_characters
from gorilla_tui.pipeline_fit_rules import answer_fit
from gorilla_tui.pipeline_generate import extracted, generated
from gorilla_tui.pipeline_retry import NEXT_SOURCE_NOTE, RetryMixin  # noqa: F401 - re-exported
from gorilla_tui.pipeline_types import AskCancelled, Checker, Choice, SearchIndex, led_by, selected  # noqa: F401
from gorilla_tui.pool.apidoc import MODEL_HUBS
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.query.handover import request_text, without_input
from gorilla_tui.sandbox.undefined import with_imports
from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS, clean_task, model_words  # noqa: F401
from gorilla_tui.types import (
    TRANSLATION_NOTE,
    Argument,
    DoneEvent,
    ErrorEvent,
    Event,
    Hit,
    HitsEvent,
    Proposal,
    Verdict,
    VerdictEvent,
)

RETRIEVERS = ("none", "bm25", "oracle")


class Pipeline(RetryMixin):
    """The one path from a task to a checked proposal, shared by the TUI, `ask` and `eval`
    (built by services.build_pipeline).

    Args:
        settings: k, hub, mode, select_by and max_tokens are read from it.
        index: a SearchIndex (retrieve.index.ApiIndex).
        backend: a model.backend.Backend (LlamaBackend, RemoteBackend, ScriptedBackend).
        validator: a Checker; default a check.validator.Validator over index.pool(settings.hub), built on
            first use.
        retriever: "bm25" (default), "none" (0-shot, no docs) or "oracle" (eval only: ask() must be given
            oracle_doc).
        family: prompt family (model/prompts.py); default backend.family.

    Raises:
        UsageError: an unknown retriever.
    """

    def __init__(
        self, settings: Settings, index: SearchIndex, backend: Backend, validator: Checker | None = None, *,
        retriever: str = "bm25", family: str | None = None,
    ) -> None:  # fmt: skip
        if retriever not in RETRIEVERS:
            raise UsageError(f"retriever must be one of {', '.join(RETRIEVERS)}, not {retriever!r}")
        self.settings = settings
        self.index = index
        self.backend = backend
        self.retriever = retriever
        self.family = family or backend.family
        self._validator = validator
        self.chooser = Chooser(settings, backend, self.family)  # the choice stage (pipeline_choose.py)
        self.constraints: ConstraintResult | None = None  # the last task's parsed constraints, or None
        self.search_notes: list[str] = []  # the last search's notes (ConstraintResult.notes)
        self.aside: Aside | None = None  # the last task's long values and handed input (fill/set_aside.py)
        self._method_docs: dict[str, list[ApiDoc]] | None = None  # class -> its methods' docs (_methods)

    @property
    def last_stats(self) -> dict[str, Any]:
        """The backend's stats of the last model call of the choice (prompt and generated tokens)."""
        return self.chooser.last_stats

    @property
    def validator(self) -> Checker:
        """The checker, built on first use over the API pool of settings.hub (~0.1-1 s for a large pool)."""
        if self._validator is None:
            self._validator = Validator(self.index.pool(self.settings.hub or None))
        return self._validator

    def select_by(self, mode: str | None = None) -> str:
        """How `mode` (default settings.mode) chooses here: choose_select_by with settings.select_by and
        whether the backend can score text (model.likelihood.can_score)."""
        mode = mode or self.settings.mode
        return choose_select_by(mode, self.settings.select_by, can_score=can_score(self.backend))

    def retrieve(self, task: str, oracle_doc: ApiDoc | None = None, hub: Any = None) -> list[Hit]:
        """Hits for `task` by the configured retriever (settings.k; `hub`, a source or a tuple of sources of
        one routing group, else settings.hub). With bm25, constraints
        stated in the task (accuracy, size, FLOPs, device words; constraints/rank.py) rerank the hits:
        candidates that meet every constraint first. The parsed constraints stay in self.constraints, the
        search's notes (tokenize.NO_TERMS_NOTE for a task of emoji or symbols alone) in self.search_notes."""
        self.constraints = None
        self.search_notes = []
        if self.retriever == "none":
            return []
        if self.retriever == "oracle":
            if oracle_doc is None:
                raise UsageError("the oracle retriever needs the ground-truth doc (oracle_doc)")
            return [Hit(doc=oracle_doc, score=0.0, rank=1)]
        hub = hub or self.settings.hub or None
        result = search_with_constraints(self.index, task, k=self.settings.k, hub=hub)
        self.constraints = result if result.constraints else None
        self.search_notes = list(result.notes)
        return list(result.hits)

    def ask(
        self,
        task: str,
        on_event: Callable[[Event], None] | None = None,
        cancel: threading.Event | None = None,
        *,
        oracle_doc: ApiDoc | None = None,
        mode: str | None = None,
    ) -> Proposal:
        """Answer one task. Events, in order: HitsEvent, TokenEvent*, VerdictEvent, DoneEvent; or ErrorEvent
        (then the error is raised: GorillaError/UsageError, AskCancelled when `cancel` was set).
        mode: "select" | "generate" (default settings.mode). Timings (seconds) go to Proposal.timings.
        Proposal.warnings: task notes, backend.warnings (if any), the search's notes (HitsEvent.notes too)
        and prompt-fitting notes."""
        emit = on_event or (lambda _e: None)
        # a RemoteBackend's requests of this answer share one total deadline, and the first that passes a
        # deadline ends the answer (break-it round 14: each went on to wait its own, ~40 min by default)
        one_answer = getattr(self.backend, "one_answer", None)
        try:
            with one_answer() if callable(one_answer) else nullcontext():
                proposal = self._ask(task, emit, cancel, oracle_doc, mode or self.settings.mode)
        except BaseException as e:
            msg = (
                "cancelled"
                if isinstance(e, (AskCancelled, KeyboardInterrupt))
                else str(e) or type(e).__name__
            )
            emit(ErrorEvent(msg))
            raise
        emit(DoneEvent(proposal))
        return proposal

    def _ask(self, task: str, emit: Callable[[Event], None], cancel: threading.Event | None,
             oracle_doc: ApiDoc | None, mode: str) -> Proposal:  # fmt: skip
        """retrieve -> choose -> check -> build; see ask."""
        if mode not in ("select", "generate"):
            raise UsageError(f"mode must be select or generate, not {mode!r}")
        t0 = time.perf_counter()
        # a long value or input a colon hands over is kept whole for the call; the task holds a stand-in
        cleaned, warnings = clean_task(task, MAX_TASK_INPUT_CHARS)  # a control said once, here (R24-7)
        task, self.aside = set_aside(cleaned)
        task, cut_now = clean_task(task)
        warnings += cut_now
        said, cut = model_words(task)  # what the model and the fillers read: its cost is bounded (textsafe)
        warnings += cut + list(getattr(self.backend, "warnings", None) or [])  # no GPU offload (profiles.py)
        english, t_translate = self._english(said, cancel)
        # a task in another language is searched with its English translation after it (BM25 gets the
        # English words, the multilingual dense side reads both); the model still scores the hits against
        # the task as typed (model/translate.py: the better of the two on the dev split)
        hits = self.retrieve(f"{task} {english}" if english else task, oracle_doc)
        if english:
            self.search_notes.insert(0, f"{TRANSLATION_NOTE}{english} (translated by the model)")
        warnings += self.search_notes  # "the task has no searchable words" (emoji or symbols alone)
        timings = {"retrieve": time.perf_counter() - t0 - (t_translate or 0.0)}
        if t_translate is not None:  # the model's seconds, also when it gave nothing usable
            timings["translate"] = t_translate
        failure = getattr(self.index, "dense_failure", lambda: "")()  # "" for an index without a dense side
        if failure:  # searched by BM25 alone: say so and why (damaged vectors, a failed embedder, ...)
            warnings.append(failure)
        emit(HitsEvent(hits, tuple(self.search_notes)))
        proposal, t = self._answer(task, said, english, hits, mode, warnings, timings, t0, emit, cancel)
        if t is not None:  # a call was chosen and checked
            timings["validate"] = time.perf_counter() - t
        if proposal.fit == "nothing":  # the routed source has nothing for it: the next source may (issue 38)
            other = self._next_source(task, said, english, proposal, mode, warnings, timings, cancel)
            if other is not None:
                proposal = other
                emit(HitsEvent(other.hits, tuple(self.search_notes)))
        proposal.translation = english
        if self.aside is not None:  # said either way: taken whole, or not taken at all; the task as asked
            proposal.warnings += self.aside.notes(proposal.api_call)
            proposal.task = self.aside.task
        emit(VerdictEvent(proposal.verdict))
        timings["total"] = time.perf_counter() - t0
        proposal.timings = timings
        return proposal

    def _answer(self, task: str, said: str, english: str, hits: list[Hit], mode: str, warnings: list[str],
                timings: dict[str, float], t0: float, emit: Callable[[Event], None],
                cancel: threading.Event | None) -> tuple[Proposal, float | None]:  # fmt: skip
        """choose -> fill -> check -> build -> judge the fit on `hits` (see ask): the Proposal and the
        perf_counter when the choice ended (None: select mode had no option, so no call and fit "").
        `timings` gets the steps' seconds since `t0`."""
        select_by = self.select_by(mode)
        docs = [h.doc for h in hits]
        usable = [d for d in docs if not d.flagged or d.repaired] or docs  # repaired: pool/repair.py
        if self.constraints is not None and self.constraints.satisfied_any:
            # a hit whose metadata is unknown (or violates) is never proposed while a satisfying one exists,
            # even when every satisfying hit is flagged (its call is then checked and shown as it is)
            usable = self.constraints.satisfying(usable) or self.constraints.satisfying(docs)
        options = unique_options(d.call for d in usable)
        if mode == "select" and not options:
            verdict = Verdict(
                "no_call",
                diagnostics=["no API doc matched the task, so there is nothing to select"],
                reason="no_call:no_code",
            )
            return Proposal(task=task, api_call="", code="", verdict=verdict, hits=hits, mode=mode,
                            model=self.backend.name, timings=timings, warnings=warnings,
                            select_by=select_by, translation=english), None  # fmt: skip
        # the model scores the hits against the task as typed: scoring its intent (values masked, as the
        # search reads it) chose the right API for 51.4 % of bench/filling.py's dev tasks against 60.0 %;
        # but not against the input a colon hands over (a review to classify, a text to translate:
        # handover.without_input), whose words outweighed the request's (bench/payload.py)
        scored = without_input(said) if mode == "select" else said
        choice, select_by = self.chooser.choose(scored, hits, usable, select_by, emit, cancel)
        t = time.perf_counter()
        timings["prompt"] = choice.prompt_seconds
        timings["first_token"] = (choice.first_token or t) - t0
        timings["generate"] = t - t0 - timings.get("translate", 0.0) - timings["retrieve"] - timings["prompt"]
        if cancel is not None and cancel.is_set():
            raise AskCancelled("cancelled")
        filled = self._fill(said, choice, mode, cancel)
        if filled is not None:
            timings["fill"] = filled.seconds
            choice = led_by(choice, selected(choice)[4], filled.doc)
        proposal = self._proposal(task, hits, choice, mode, select_by, warnings + choice.notes, filled)
        if filled is not None and cannot_bind(proposal.verdict, selected(choice)[4]):
            choice, filled, proposal = self._rebind(said, task, hits, choice, mode, select_by, warnings,
                                                    (filled, proposal), cancel)  # fmt: skip
        t_fit = time.perf_counter()
        needs = proposal.needs if filled is not None else None
        # a task in another language is judged on its English translation (its words are what the docs hold)
        judged = english or said
        values = proposal.arguments if filled is not None and not english else []  # "with tabs": '\t'
        proposal.fit, proposal.fit_signals = self.judge_fit(
            judged, hits, choice, mode, needs, cancel, values, proposal.api_call
        )
        if mode == "select":  # a call that takes none of the task's values, or cannot bind them: not sure
            proposal.fit = answer_fit(proposal, selected(choice)[4])
        if proposal.fit == "nothing":  # the call is the nearest hit's, not a proposal: no call is made
            proposal.calls = []
        timings["fit"] = time.perf_counter() - t_fit
        return proposal, t

    def _fill(self, task: str, choice: Choice, mode: str, cancel: threading.Event | None) -> Filled | None:
        """The chosen doc's call with the task's values (fill/filler.py fill), or None: settings.fill off,
        generate mode (the model wrote its own values), no doc chosen, or a doc with nothing to fill (the
        hubs' complete calls). Raises AskCancelled when `cancel` is set while the model fills."""
        if not self.settings.fill or mode != "select":
            return None
        doc = selected(choice)[4]
        if doc is None:
            return None
        try:
            others = [d for d in choice.docs if d is not doc]  # a further call may call another hit
            filled = fill(self.backend, task, doc, others=others, cancel=cancel,
                          constructors=self._constructor, methods=self._methods)  # fmt: skip
        except ContextOverflowError:
            return None  # a task too long to fill in n_ctx keeps the template call
        if cancel is not None and cancel.is_set():
            raise AskCancelled("cancelled")
        return restore(filled, self.aside)  # the whole input where its stand-in is

    def _constructor(self, name: str) -> ApiDoc | None:
        """The pool's doc of class `name` (a method's receiver, fill/receivers.py), found by the checker
        (check/pool_index.py PoolIndex.named; built now if not yet, as the verdict needs it anyway), or None
        for a checker without that lookup."""
        named = getattr(self.validator, "named", None)
        return named(name) if callable(named) else None

    def _methods(self, cls: str) -> list[ApiDoc]:
        """The index's docs of class `cls`'s methods (api_name ``cls.method``, the call made on ``cls(...)``:
        ``sqlite3.Connection().execute(sql)``), where a call's result takes a second call (fill/chains.py);
        the table is built on first use."""
        if self._method_docs is None:
            table: dict[str, list[ApiDoc]] = {}
            for d in getattr(self.index, "docs", ()):
                owner = d.api_name.rpartition(".")[0]
                if owner and d.call.startswith(owner + "("):
                    table.setdefault(owner, []).append(d)
            self._method_docs = table
        return self._method_docs.get(cls, [])

    def _english(self, task: str, cancel: threading.Event | None) -> tuple[str, float | None]:
        """(translation, seconds): the English translation of `task` to search with (model/translate.py
        to_english) and the seconds the model took, or ("", None) when it is not asked: settings.translate
        off, a retriever other than bm25, an index without needs_translation, or a task it calls English or
        mostly made of words it knows (retrieve/fit.py needs_translation; deciding is part of the search's
        time). The translation is "" also when the model gave nothing usable. Raises what
        backend.complete raises."""
        foreign = getattr(self.index, "needs_translation", None)
        if not self.settings.translate or self.retriever != "bm25" or foreign is None or not foreign(task):
            return "", None
        t = time.perf_counter()
        english = translate.to_english(self.backend, task, cancel)
        return english, time.perf_counter() - t

    def judge_fit(self, task: str, hits: list[Hit], choice: Choice, mode: str, needs: list[str] | None,
                  cancel: threading.Event | None, values: Sequence[Argument] = (),
                  call: str = "") -> tuple[str, dict[str, Any]]:  # fmt: skip
        """(Proposal.fit, its signals): whether the doc select mode chose does `task` (pipeline_fit.py
        judge, with the retrieval rule's score where it applies: retrieval_score, and the parameters filling
        left as placeholders, `needs`, None when it did not fill), on `task`'s request (the input it hands
        over left out: handover.request_text; the words naming a separator the filled call `call` takes from
        the task, `values` its arguments, left out too: pipeline_fit.without_named_characters). ("", {}) in
        generate mode, with the oracle retriever, or when nothing was chosen. Never changes the verdict."""
        if mode != "select" or self.retriever == "oracle":
            return "", {}
        doc = selected(choice)[4]
        lm = next((h.lm_score for h in hits if doc is not None and h.doc is doc), None)
        # judged on what the task asks, not on the input it hands over ("is this review positive or negative:
        # I loved it": handover.request_text), as retrieval searches and the choice scores it
        scored = request_text(task)  # log p(task | doc) is per token of it, whatever the words judged
        task = without_named_characters(scored, values, call)
        retrieval = None  # the rule was measured over every source, with bm25 (bench/out_of_pool.py)
        if self.retriever == "bm25" and not self.settings.hub:
            retrieval = retrieval_score(self.index, self.backend, task, hits, scored)
        # the best cosine over the chosen doc's source, with a hub named too (an index without vectors: None)
        source_cosine = getattr(self.index, "source_cosine", None)
        cosine = (
            source_cosine(task, doc.source) if self.retriever == "bm25" and doc and source_cosine else None
        )
        return judge(self.backend, task, doc, lm, retrieval, needs, cancel, cosine, hits, scored)

    def _proposal(self, task: str, hits: list[Hit], choice: Choice, mode: str, select_by: str,
                  warnings: list[str], filled: Filled | None = None) -> Proposal:  # fmt: skip
        """The Proposal for `choice`: its call and code (the chosen doc's example code in select mode, the
        filled call when `filled` is given, the extracted code in generate mode), the checker's verdict on
        them (incomplete while a value is missing), and the task's constraints as satisfied / violated /
        unknown for the matched doc. timings are filled in by _ask."""
        chosen_doc = None
        if mode == "select":
            api_call, code, code_source, explanation, chosen_doc = selected(choice)
            if filled is not None and chosen_doc is not None:
                api_call, code, code_source = filled.call, python_code(chosen_doc, filled.call), "filled"
            if code_source == "example_code" and not self.validator.check(code).ok:
                # the doc's example is shown only when it passes the check too (issue 15: an unquoted
                # model id or Python 2 line in an example must not sit under a `valid` badge)
                warnings.append("the doc's example code does not pass the check: showing the call alone")
                code, code_source = api_call, "model"
        else:
            api_call, code, code_source, explanation = extracted(choice.text)
        # the chosen doc is the match among docs that share its call (their descriptions, example code and
        # performance differ: the matched-API card, the constraint outcomes and --json describe it)
        prefer = chosen_doc.id if chosen_doc is not None else None
        types = filled.types if filled is not None else None  # text.count('the'): the task's variable
        verdict = self.validator.check(api_call or code, prefer, types) if (api_call or code) else Verdict(
            "no_call", diagnostics=["the model gave no API call"], reason="no_call:no_code")  # fmt: skip
        if mode == "generate":  # the one judged call, never the rest of the model's text (R24-5)
            api_call, code, verdict = generated(self.validator, api_call, code, verdict, warnings)
        # a model hub's call loads a model; the task's input (a file, a URL, quoted text) goes into the code
        # that uses it, where its example feeds its own placeholder (fill/example_input.py; issue 37)
        hub = chosen_doc is None or chosen_doc.source in MODEL_HUBS
        fed = feed(chosen_doc, code, task) if mode == "select" and chosen_doc is not None and hub else None
        code, inputs = (fed.code, fed.arguments) if fed is not None else (code, [])
        # copied or run, it needs its imports; none for code no pool API matched (`email.split('@')`)
        if (matched := verdict.matched or chosen_doc) is not None:
            code = with_imports(code, matched)
        needs = [a.name for a in filled.arguments if a.origin == "missing"] if filled is not None else []
        if needs and verdict.ok:
            verdict = incomplete(verdict, needs)
        # the task's values the call does not hold (fill/unused.py); a model hub's: its inputs the code
        # has no slot for
        shown = shortened(api_call, self.aside)  # the call as the task with its stand-ins writes it
        unused = (
            fed.unused if fed else [] if mode != "select" or hub or not api_call else left_out(task, shown)
        )
        constraints: list[dict[str, Any]] = []
        if self.constraints is not None:
            constraints = self.constraints.for_doc(verdict.matched)
            if self.constraints.message:
                warnings.append(self.constraints.message)
        return Proposal(task=task, api_call=api_call, code=code, verdict=verdict, hits=hits,
                        explanation=explanation, code_source=code_source, mode=mode, model=self.backend.name,
                        raw_text=choice.text, warnings=warnings, constraints=constraints,
                        select_by=select_by, choice_rule=choice.rule,
                        arguments=(filled.arguments if filled is not None else []) + inputs,
                        unused=unused,
                        calls=filled.calls if filled is not None else decoded_calls(api_call))  # fmt: skip
