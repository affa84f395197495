"""The second tries of pipeline.ask, mixed into Pipeline: the next source in routing order when nothing in the
routed one fits (RetryMixin._next_source), and another hit when the chosen standard-library call cannot take
the task's values (RetryMixin._rebind; pipeline_choose.cannot_bind, rebind_order)."""

from __future__ import annotations

import dataclasses
import threading
import time
from typing import TYPE_CHECKING, Any

from gorilla_tui.pipeline_choose import rebind_order
from gorilla_tui.pipeline_types import Choice, selected
from gorilla_tui.types import Hit, Proposal

if TYPE_CHECKING:
    from gorilla_tui.fill.filler import Filled

#: The start of the warning of an answer given by the next source in routing order (Pipeline._next_source),
#: followed by the routed source's name, ": answered from " and the source(s) that answered.
NEXT_SOURCE_NOTE = "nothing in the routed source fits the task: "


class RetryMixin:
    """Pipeline's second tries (it uses Pipeline's settings, index, retriever, constraints, search_notes,
    retrieve, _answer, _fill and _proposal)."""

    settings: Any
    index: Any
    retriever: str
    constraints: Any
    search_notes: list[str]
    retrieve: Any
    _answer: Any
    _fill: Any
    _proposal: Any

    def _next_source(self, task: str, said: str, english: str, first: Proposal, mode: str,
                     warnings: list[str], timings: dict[str, float],
                     cancel: threading.Event | None) -> Proposal | None:  # fmt: skip
        """The answer of the next source in routing order (retrieve/routing.py next_unit) when the fit
        judgment says nothing fits `first`, the answer from the routed source, and it is judged to fit there;
        else None. Only in select mode, over every source (no hub named), with the index's own retriever and
        no translation; its events are not emitted (the caller sends its hits). The search's state is left
        as the first search set it when the next source's answer is not taken. When a next source is
        looked for, `timings` gets "next_source": the seconds of finding it and of its whole answer (search,
        choice, filling, check, fit), taken or not; the first answer's stages keep their own (break-it
        round 27, R27-12: it was booked as "validate")."""
        index_next = getattr(self.index, "next_unit", None)
        if mode != "select" or self.settings.hub or self.retriever != "bm25" or english or not first.hits:
            return None
        started = time.perf_counter()  # finding the next source is part of its answer's time
        unit = index_next(task, first.hits[0].doc.source) if callable(index_next) else None
        if unit is None:
            timings["next_source"] = time.perf_counter() - started
            return None
        kept = self.constraints, self.search_notes
        hits = self.retrieve(task, hub=unit)
        own = {"retrieve": time.perf_counter() - started}
        other, _ = self._answer(task, said, english, hits, mode, list(warnings), own, started,
                                lambda _e: None, cancel)  # fmt: skip
        timings["next_source"] = time.perf_counter() - started
        if other.fit != "fits":
            self.constraints, self.search_notes = kept
            return None
        names = ", ".join(unit) if isinstance(unit, tuple) else unit
        other.warnings.append(f"{NEXT_SOURCE_NOTE}{first.hits[0].doc.source}: answered from {names}")
        return other

    def _rebind(self, said: str, task: str, hits: list[Hit], choice: Choice, mode: str, select_by: str,
                warnings: list[str], unbound: tuple[Filled, Proposal],
                cancel: threading.Event | None) -> tuple[Choice, Filled | None, Proposal]:  # fmt: skip
        """(choice, filled, proposal) of the first hit of rebind_order whose filled call binds, with a note
        naming the call given up; `unbound` (the chosen doc's filled call and proposal) when none does."""
        doc = selected(choice)[4]
        if doc is None:
            return choice, unbound[0], unbound[1]
        for other in rebind_order(hits, choice.docs, doc):
            tried = dataclasses.replace(choice, text=other.call.strip(), doc=other)
            filled = self._fill(said, tried, mode, cancel)
            if filled is None:
                continue
            proposal = self._proposal(task, hits, tried, mode, select_by, warnings + tried.notes, filled)
            if proposal.verdict.kind in ("valid", "incomplete"):
                name = doc.api_name or doc.call.strip()
                reason = unbound[1].verdict.reason
                proposal.warnings.append(f"{name} cannot take the task's values ({reason}): "
                                         f"{other.api_name or other.call.strip()} can")  # fmt: skip
                return tried, filled, proposal
        return choice, unbound[0], unbound[1]
