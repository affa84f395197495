"""pipeline.ask: task -> hits -> prompt -> tokens -> extract -> verdict -> Proposal, emitting events."""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gorilla_tui.errors import ContextOverflowError, GorillaError, UsageError
from gorilla_tui.model.grammar import choice_grammar, unique_options
from gorilla_tui.model.likelihood import can_score
from gorilla_tui.model.prompts import fit_prompt
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.types import (
    DoneEvent,
    ErrorEvent,
    Event,
    Hit,
    HitsEvent,
    Proposal,
    TokenEvent,
    Verdict,
    VerdictEvent,
)

if TYPE_CHECKING:
    from gorilla_tui.config import Settings
    from gorilla_tui.model.backend import Backend

#: Longest task kept (characters); longer input is cut at a word boundary with a warning.
MAX_TASK_CHARS = 2000
RETRIEVERS = ("none", "bm25", "oracle")


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


class AskCancelled(GorillaError):
    """The cancel event was set during ask (exit code 130, like Ctrl+C)."""

    exit_code = 130


def clean_task(task: str, limit: int = MAX_TASK_CHARS) -> tuple[str, list[str]]:
    """Whitespace-normalised task and warnings. Raises UsageError for an empty task; cuts one longer than
    `limit` characters at the last word boundary (a warning says so)."""
    text = " ".join((task or "").split())
    if not text:
        raise UsageError("the task is empty: describe what you want to do, e.g. 'classify images of birds'")
    if len(text) <= limit:
        return text, []
    cut = text[:limit].rsplit(" ", 1)[0] or text[:limit]
    return cut, [f"task truncated from {len(text)} to {len(cut)} characters"]


class Pipeline:
    """The one path from a task to a checked proposal, shared by the TUI, `ask` and `eval`.

    settings: k, hub, mode, max_tokens are read from it; index: an ApiIndex (search, pool); backend: a
    Backend; validator: an object with .check(code) -> Verdict (default: check.validator.Validator over
    index.pool(settings.hub)); retriever: "bm25" (default), "none" (0-shot, no docs) or "oracle" (eval only:
    ask() must be given oracle_doc). family: prompt family (default: backend.family).
    """

    def __init__(
        self, settings: Settings, index: Any, backend: Backend, validator: Any = None, *,
        retriever: str = "bm25", family: str | None = None,
    ) -> None:  # fmt: skip
        if retriever not in RETRIEVERS:
            raise UsageError(f"retriever must be one of {', '.join(RETRIEVERS)}, not {retriever!r}")
        self.settings = settings
        self.index = index
        self.backend = backend
        self.retriever = retriever
        self.family = family or getattr(backend, "family", "fewshot")
        self._validator = validator
        self.last_stats: dict[str, Any] = {}
        self.constraints: Any = None  # the last task's ConstraintResult (retrieve/constraints.py), or None

    @property
    def validator(self) -> Any:
        """The validator, built on first use over the API pool of settings.hub (~0.1-1 s for a large pool)."""
        if self._validator is None:
            from gorilla_tui.check.validator import Validator

            self._validator = Validator(self.index.pool(self.settings.hub or None))
        return self._validator

    def select_by(self, mode: str | None = None) -> str:
        """How `mode` (default settings.mode) chooses here: "likelihood" when settings.select_by asks for it
        and the backend can score text (rerank.can_score), "grammar" otherwise; "" for generate mode."""
        if (mode or self.settings.mode) != "select":
            return ""
        wanted = getattr(self.settings, "select_by", "likelihood")
        return "likelihood" if wanted == "likelihood" and can_score(self.backend) else "grammar"

    def retrieve(self, task: str, oracle_doc: ApiDoc | None = None) -> list[Hit]:
        """Hits for `task` by the configured retriever (settings.k, settings.hub). With bm25, constraints
        stated in the task (accuracy, size, FLOPs, device words; retrieve/constraints.py) rerank the hits:
        candidates that meet every constraint first. The parsed constraints stay in self.constraints."""
        self.constraints = None
        if self.retriever == "none":
            return []
        if self.retriever == "oracle":
            if oracle_doc is None:
                raise UsageError("the oracle retriever needs the ground-truth doc (oracle_doc)")
            return [Hit(doc=oracle_doc, score=0.0, rank=1)]
        from gorilla_tui.retrieve.constraints import search_with_constraints

        result = search_with_constraints(self.index, task, k=self.settings.k, hub=self.settings.hub or None)
        self.constraints = result if result.constraints else None
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
        Proposal.warnings: task notes, backend.warnings (if any) and prompt-fitting notes."""
        emit = on_event or (lambda _e: None)
        try:
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
        if mode not in ("select", "generate"):
            raise UsageError(f"mode must be select or generate, not {mode!r}")
        t0 = time.perf_counter()
        timings: dict[str, float] = {}
        task, warnings = clean_task(task)
        warnings += list(getattr(self.backend, "warnings", None) or [])  # e.g. no GPU offload (kernels.py)
        hits = self.retrieve(task, oracle_doc)
        timings["retrieve"] = time.perf_counter() - t0
        emit(HitsEvent(hits))

        t = time.perf_counter()
        docs = [h.doc for h in hits]
        usable = [d for d in docs if not d.flagged or d.repaired] or docs  # repaired: pool/repair.py
        options = unique_options(d.call for d in usable)
        select_by = self.select_by(mode)
        if mode == "select" and not options:
            verdict = Verdict(
                "no_call",
                diagnostics=["no API doc matched the task, so there is nothing to select"],
                reason="no_call:no_code",
            )
            emit(VerdictEvent(verdict))
            timings["total"] = time.perf_counter() - t0
            return Proposal(task=task, api_call="", code="", verdict=verdict, hits=hits, mode=mode,
                            model=self.backend.name, timings=timings, warnings=warnings,
                            select_by=select_by)  # fmt: skip
        chosen: ApiDoc | None = None
        if select_by == "likelihood" and len(options) > 1:
            timings["prompt"] = time.perf_counter() - t
            try:
                chosen = self._choose_by_likelihood(task, usable, hits, cancel)
            except ContextOverflowError:  # a long task in a small n_ctx: the grammar prompt can be trimmed
                select_by = "grammar"
                warnings.append("task too long to score the hits in n_ctx: chose with the grammar instead")
        if chosen is not None:
            first = time.perf_counter()
            kept, text = usable, chosen.call.strip()
            emit(TokenEvent(text))
        else:
            max_tokens = self.settings.max_tokens
            if (
                mode == "select"
            ):  # the longest option bounds the answer (+2 for the lead space and end of grammar)
                max_tokens = min(max_tokens, max(self.backend.count_tokens(o) for o in options) + 2)
            budget = self.backend.n_ctx - max_tokens
            prompt, kept, notes = fit_prompt(self.family, task, docs if mode == "generate" else usable, mode,
                                             budget, self.backend.count_tokens)  # fmt: skip
            warnings += notes
            prompt_text, shared, grammar = prompt.text, "", None
            if mode == "select":
                options = unique_options(d.call for d in kept)
                shared = shared_prefix(options)
                grammar = choice_grammar([o[len(shared) :] for o in options], lead="" if shared else " ")
                prompt_text += " " + shared if shared else ""
            timings["prompt"] = time.perf_counter() - t

            if mode == "select" and len(options) == 1:  # nothing to choose: no model call
                text, first = options[0], None
                emit(TokenEvent(text))
            else:
                if shared:
                    emit(TokenEvent(" " + shared))
                suffixes = [o[len(shared) :] for o in options]
                if shared:  # the shared text moved into the prompt: keep prompt + max_tokens <= n_ctx exactly
                    max_tokens = min(max_tokens, self.backend.n_ctx - self.backend.count_tokens(prompt_text))
                text, first = self._generate(prompt_text, prompt.stop, max_tokens, grammar, suffixes, mode,
                                             emit, cancel)  # fmt: skip
                text = shared + text.lstrip() if shared else text
        t = time.perf_counter()
        timings["first_token"] = (first or t) - t0
        timings["generate"] = t - t0 - timings["retrieve"] - timings["prompt"]
        if chosen is None:  # _choose_by_likelihood keeps its own scoring stats
            self.last_stats = dict(getattr(self.backend, "last_stats", {}) or {})
        if cancel is not None and cancel.is_set():
            raise AskCancelled("cancelled")

        if mode == "select":
            api_call, code, code_source, explanation = self._selected(text, options, kept, chosen)
            if code_source == "example_code" and not self.validator.check(code).ok:
                # the doc's example is shown only when it passes the check too (issue 15: an unquoted
                # model id or Python 2 line in an example must not sit under a `valid` badge)
                warnings.append("the doc's example code does not pass the check: showing the call alone")
                code, code_source = api_call, "model"
        else:
            api_call, code, code_source, explanation = self._extracted(text)
        verdict = self.validator.check(api_call or code) if (api_call or code) else Verdict(
            "no_call", diagnostics=["the model gave no API call"], reason="no_call:no_code")  # fmt: skip
        if verdict.ok and mode == "generate" and code.strip() and code.strip() != api_call.strip():
            shown = self.validator.check_code(code)  # the code the person copies and runs must pass too
            if shown.kind not in ("valid", "no_call"):
                shown.diagnostics.insert(0, "the api_call is valid, but the code shown is not")
                verdict = shown
        timings["validate"] = time.perf_counter() - t
        emit(VerdictEvent(verdict))
        timings["total"] = time.perf_counter() - t0
        constraints: list[dict[str, Any]] = []
        if self.constraints is not None:
            constraints = self.constraints.for_doc(verdict.matched)
            if self.constraints.message:
                warnings.append(self.constraints.message)
        return Proposal(task=task, api_call=api_call, code=code, verdict=verdict, hits=hits,
                        explanation=explanation, code_source=code_source, mode=mode, model=self.backend.name,
                        raw_text=text, timings=timings, warnings=warnings, constraints=constraints,
                        select_by=select_by)  # fmt: skip

    def _generate(self, prompt: str, stop: Sequence[str], max_tokens: int, grammar: str | None,
                  options: list[str], mode: str, emit: Callable[[Event], None],
                  cancel: threading.Event | None) -> tuple[str, float | None]:  # fmt: skip
        """Stream the completion, emitting TokenEvents. In select mode stop as soon as only one option is
        still a prefix match (the grammar allows nothing else), and emit the rest of it ourselves."""
        parts: list[str] = []
        first: float | None = None
        stream = self.backend.complete(prompt, max_tokens=max_tokens, stop=stop if mode == "generate" else (),
                                       grammar=grammar, temperature=0.0, cancel=cancel)  # fmt: skip
        try:
            for piece in stream:
                if first is None:
                    first = time.perf_counter()
                parts.append(piece)
                emit(TokenEvent(piece))
                if mode == "select":
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
        return "".join(parts), first

    def _choose_by_likelihood(self, task: str, docs: list[ApiDoc], hits: list[Hit],
                              cancel: threading.Event | None) -> ApiDoc:  # fmt: skip
        """The doc of `docs` with the highest log p(task | doc) (model/likelihood.py); sets Hit.lm_score
        on the
        hits that were scored. Raises AskCancelled when `cancel` is set while scoring."""
        from gorilla_tui.model.likelihood import best, query_likelihoods

        scores = query_likelihoods(self.backend, task, docs, cancel)
        self.last_stats = dict(getattr(self.backend, "last_stats", {}) or {})
        if len(scores) < len(docs) or (cancel is not None and cancel.is_set()):
            raise AskCancelled("cancelled")
        by_id = {id(d): sc for d, sc in zip(docs, scores, strict=True)}
        for h in hits:
            h.lm_score = by_id.get(id(h.doc))
        return docs[best(scores)]

    @staticmethod
    def _selected(text: str, options: list[str], docs: list[ApiDoc],
                  chosen_doc: ApiDoc | None = None) -> tuple[str, str, str, str]:  # fmt: skip
        chosen = text.strip()
        if chosen not in options:  # cut short (max_tokens or cancel): take the option it started
            started = [o for o in options if chosen and o.startswith(chosen)]
            chosen = started[0] if len(started) == 1 else ""
        doc = chosen_doc or next((d for d in docs if d.call.strip() == chosen), None)
        if not chosen or doc is None:
            return "", "", "model", ""
        explanation = " ".join(x for x in (doc.functionality, doc.description) if x).strip()
        if doc.example_code.strip() and not doc.repaired:  # a repaired doc's example may load another call
            return chosen, doc.example_code, "example_code", explanation
        return chosen, chosen, "model", explanation

    @staticmethod
    def _extracted(text: str) -> tuple[str, str, str, str]:
        from gorilla_tui.check.extract import extract

        ex = extract(text)
        api_call = (ex.api_call or "").strip()
        return api_call, (ex.code or api_call), "model", ex.explanation or ""
