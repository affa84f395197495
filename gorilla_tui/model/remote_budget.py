"""One answer's time at an endpoint: the total deadline bounds every request of one answer together, and
the first request that passes a deadline ends the answer (break-it round 14, R14-3).

A server that accepted and dripped a byte a second before any status line held `ask` with total=6 for
~28 s, and ~40 min with the default 600 s: the start-up probe for log-probabilities gave up at its
deadline, then /extras/tokenize, /tokenize and the completion were sent, each held to a deadline of its
own. RemoteBackend.one_answer() opens an AnswerBudget for the requests of one answer (pipeline.ask enters
it); remote_request.post_retried ends each request by the budget's end and sends none once one timed out.
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
    passed. Safe to note from the thread of a request's watcher.
    """

    def __init__(self, total: float) -> None:
        self.total = total
        self.end = time.monotonic() + total
        self.failure: EndpointError | None = None
        self._lock = threading.Lock()

    def note(self, error: EndpointError) -> None:
        """A request of this answer passed a deadline with `error`: the answer ends (the first one stays)."""
        with self._lock:
            self.failure = self.failure or error

    def refuse(self, url: str) -> None:
        """Before a request to `url`. Raises AnswerOver, with the first deadline error's words, once a request
        of the answer timed out, or when its total deadline is spent."""
        if self.failure is not None:
            raise AnswerOver(str(self.failure))
        if time.monotonic() >= self.end:
            raise AnswerOver(
                f"endpoint {url} was not asked: the answer did not finish within {self.total:g} s "
                f"(the total deadline of one answer; {DEADLINES_ENV} sets it)"
            )
