"""One answer's time at an endpoint: the total deadline bounds every request of one answer together, and
the first request that passes a deadline ends the answer (break-it round 14, R14-3).

A server that accepted and dripped a byte a second before any status line held `ask` with total=6 for
~28 s, and ~40 min with the default 600 s: the start-up probe for log-probabilities gave up at its
deadline, then /extras/tokenize, /tokenize and the completion were sent, each held to a deadline of its
own. RemoteBackend.one_answer() opens an AnswerBudget for the requests of one answer (pipeline.ask enters
it); remote_request.post_retried ends each request by the budget's end and sends none once one timed out
(a token count's own 10 s deadline excepted: AnswerBudget.side).
"""

from __future__ import annotations

import threading
import time

from gorilla_tui.model.remote_http import DEADLINES_ENV, EndpointError


class AnswerOver(EndpointError):
    """A request of an answer that is over is not sent: an earlier request of it passed a deadline, or its
    total deadline is spent. A failed answer (exit 1; in `eval run` a failed task), like the error that
    ended it."""


class AnswerBudget:
    """The deadline of one answer at the endpoint, shared by every request of it.

    total: seconds for all the requests of the answer together (the backend's total deadline, 600 s by
    default, $GORILLA_TUI_ENDPOINT_DEADLINES). end: when they are spent (time.monotonic()). failure: the
    first deadline error of a request of the answer (read, total or this budget's), None while none
    passed. `parent`: for side(), the answer's own budget (end, total and failure are its). Safe to note
    from any thread.
    """

    def __init__(self, total: float, parent: AnswerBudget | None = None) -> None:
        self.total = total
        self.end = parent.end if parent is not None else time.monotonic() + total
        self.failure: EndpointError | None = None
        self._parent = parent
        self._lock = threading.Lock()

    def side(self) -> AnswerBudget:
        """This budget for a side request (a token count) under deadlines of its own, shorter than the
        answer's: it ends by this budget's end and is not sent once the answer is over, but passing its
        own shorter deadline does not end the answer (the count falls back to an estimate). A server that
        queues requests (`eval run --concurrency 4` at llama_cpp.server, one slot) held token counts past
        their 10 s while every answer came."""
        return AnswerBudget(self.total, parent=self)

    def note(self, error: EndpointError) -> None:
        """A request of this answer passed a deadline with `error`: the answer ends (the first one stays).
        Of a side() budget: kept to itself, the answer goes on."""
        with self._lock:
            self.failure = self.failure or error

    def refuse(self, url: str) -> None:
        """Before a request to `url`. Raises AnswerOver, with the first deadline error's words, once a request
        of the answer timed out, or when its total deadline is spent."""
        failure = self._parent.failure if self._parent is not None else self.failure
        if failure is not None:
            raise AnswerOver(str(failure))
        if time.monotonic() >= self.end:
            raise AnswerOver(
                f"endpoint {url} was not asked: the answer did not finish within {self.total:g} s "
                f"(the total deadline of one answer; {DEADLINES_ENV} sets it)"
            )
