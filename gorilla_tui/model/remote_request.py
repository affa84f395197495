"""One request of a RemoteBackend, retried: POST a body to the endpoint, HTTP 429 and 5xx tried again with
backoff (Retry-After honoured), a redirect refused, and the one error a failed request becomes
(EndpointDownError when the endpoint cannot be reached, else EndpointError). The request itself, its
deadlines and Ctrl+C are remote_http.open_request; what the replies mean is remote_replies. The total
deadline bounds the request with all its tries and the waits between them (break-it round 11, R11-6: with
total=5, a server that always answered 429 held `ask` for 4 waits of 30 s, 121 s).
"""

from __future__ import annotations

import email.utils
import http.client
import threading
import time
import urllib.error
from collections.abc import Sequence
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.endpoint_url import proxy_for
from gorilla_tui.model.remote_budget import AnswerBudget
from gorilla_tui.model.remote_http import (
    DEADLINES_ENV,
    Deadlines,
    EndpointCancelled,
    EndpointError,
    EndpointStatus,
    RequestGuard,
    open_request,
)
from gorilla_tui.model.remote_replies import shown
from gorilla_tui.textsafe import redact_url

#: What can go wrong in urllib besides an HTTP error status: no route/refused/timeout (URLError, OSError),
#: a bad URL or port (ValueError, http.client.InvalidURL), a server that breaks the protocol (HTTPException).
#: OverflowError: a chunk size past ssize_t in a chunked reply (http.client, break-it round 6).
NET_ERRORS = (urllib.error.URLError, OSError, ValueError, OverflowError, http.client.HTTPException)
#: What http.client raises for a reply that is not HTTP/1.x (a status line "HTTP/1.1 2OO", none at all, a
#: line or header block too long; "got more than 100 headers" is a bare HTTPException): the server runs,
#: and answered something else (was "cannot reach endpoint ... check that the server runs"; round 17, P1).
#: RemoteDisconnected (a BadStatusLine too: no reply at all) is not among them.
NOT_HTTP = (http.client.BadStatusLine, http.client.LineTooLong, http.client.UnknownProtocol)
#: HTTP statuses worth another try: rate limited (429) and server-side trouble (500, 502, 503, 504).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Longest wait (s) between two tries, whatever Retry-After says.
MAX_BACKOFF_S = 30.0


def wait_any(events: Sequence[threading.Event], seconds: float) -> bool:
    """Sleep `seconds`, or less when one of `events` is set; whether one was set."""
    end = time.monotonic() + seconds
    while not any(event.is_set() for event in events):
        left = end - time.monotonic()
        if left <= 0:
            return False
        time.sleep(min(0.1, left))
    return True


def retry_delay(attempt: int, base: float, retry_after: str | None = None) -> float:
    """Seconds to wait before try `attempt` + 1 (attempt 0 = the first retry): the server's Retry-After
    (seconds or an HTTP date, RFC 9110 section 10.2.3) when given, else exponential backoff base * 2**attempt;
    capped at MAX_BACKOFF_S."""
    if retry_after:
        try:
            wait = float(retry_after)
        except ValueError:
            try:
                when = email.utils.parsedate_to_datetime(retry_after).timestamp()
                wait = when - time.time()
            except (TypeError, ValueError):
                wait = base * 2**attempt
        return min(MAX_BACKOFF_S, max(0.0, wait))
    return min(MAX_BACKOFF_S, base * 2**attempt)


def not_http(error: BaseException) -> bool:
    """Whether `error` (raised while a reply's status line and headers were read) says the server answered
    with something that is not HTTP (NOT_HTTP), rather than that it cannot be reached."""
    if isinstance(error, http.client.RemoteDisconnected):
        return False
    return isinstance(error, NOT_HTTP) or type(error) is http.client.HTTPException


class EndpointDownError(GorillaError):
    """The endpoint cannot be reached at all (connection refused, no route, DNS): every task would fail the
    same way, so callers that loop over tasks (evaluate/run.py) stop at once instead of counting failures."""


def broke(guard: Any, url: str, error: BaseException, during: str = "") -> EndpointError:
    """The one error of a request whose reading failed with `error`: the guard's (a passed deadline,
    remote_http) or "connection to URL broke[ during]: why"."""
    return guard.failure(url, error) or EndpointError(
        f"connection to {url} broke{during}: {shown(str(error) or type(error).__name__)}"
    )


def post_retried(
    url: str,
    wire: str,
    body: dict[str, Any],
    deadlines: Deadlines,
    cancels: tuple[threading.Event, ...] = (),
    *,
    auth: str | None = None,
    retries: int = 4,
    backoff: float = 0.5,
    budget: AnswerBudget | None = None,
) -> tuple[Any, RequestGuard]:
    """POST `body` to the endpoint, retrying HTTP 429/5xx with backoff (retry_delay; Retry-After honoured).

    Args:
        url: the URL as shown in every message (the password and the query's secrets hidden).
        wire: the URL sent (the real scheme, host and query; RemoteBackend._to_wire).
        body: the JSON body.
        deadlines: the connect and read deadlines of each try, and the total deadline of the request with
            its tries and the waits between them (remote_http.Deadlines): a try runs to the end of the
            first try's total, and a wait that would reach it is not begun.
        cancels: events that give the request up once one is set.
        auth: the Authorization header (endpoint_url.basic_auth), None for none.
        retries: how many times a 429 or 5xx is tried again.
        backoff: the base of the wait between two tries, in seconds.
        budget: the AnswerBudget of the answer the request belongs to (None: the request alone): the
            request ends by its end too, and is not sent once a request of the answer timed out.

    Returns:
        The open response and its guard (remote_http.open_request).

    Raises:
        AnswerOver: the request was not sent: its answer is over (remote_budget.AnswerBudget.refuse).
        EndpointDownError: the endpoint cannot be reached (refused, no route, DNS; or a proxy that cannot
            be used).
        EndpointCancelled: a cancel event was set while waiting to try again (or during the request).
        EndpointError: an error status after the retries, or whose next try would pass the total
            deadline; a redirect, a deadline, a protocol error.
    """
    end = time.monotonic() + deadlines.total
    if budget is not None:
        budget.refuse(url)
        end = min(end, budget.end)
    for attempt in range(retries + 1):
        try:
            return open_request(wire, body, deadlines, cancels, auth=auth, end=end, budget=budget)
        except EndpointStatus as e:  # its body's first bytes were read under the guard (open_request)
            location = e.headers.get("Location") if e.headers else None
            if 300 <= e.code < 400:
                raise EndpointError(
                    f"endpoint {url} answered HTTP {e.code}, a redirect to "
                    f"{shown(str(location or 'nowhere'))}: redirects are not "
                    "followed (pass that URL as --endpoint if it is the server you mean)"
                ) from None
            detail = shown(e.head.decode("utf-8", "replace") if e.head or not e.why else e.reason)
            tries = f" (after {attempt + 1} tries)" if attempt else ""
            if e.code in RETRY_STATUSES and attempt < retries:
                wait = retry_delay(attempt, backoff, e.headers.get("Retry-After") if e.headers else None)
                if time.monotonic() + wait >= end:
                    raise EndpointError(
                        f"endpoint {url} answered HTTP {e.code}{tries}: {detail}; a wait of {wait:g} s for "
                        f"another try would pass the total deadline of {deadlines.total:g} s "
                        f"({DEADLINES_ENV} sets it)"
                    ) from None
                if wait_any(cancels, wait):
                    raise EndpointCancelled(f"request to {url} cancelled") from None
                continue
            raise EndpointError(f"endpoint {url} answered HTTP {e.code}{tries}: {detail}") from None
        except NET_ERRORS as e:
            if not_http(e):
                raise EndpointError(
                    f"endpoint {url} answered with something that is not valid HTTP: "
                    f"{shown(str(e).strip() or type(e).__name__)}",
                    hint="a server runs there, but it does not speak HTTP/1.x: check that --endpoint names "
                    "an OpenAI-compatible server (its port; http:// or https://)",
                ) from None
            # refused, no route, DNS, no connection within the connect deadline: urllib's URLError
            # (an error while the headers are read comes as it is: the server is there)
            reason = getattr(e, "reason", None) if isinstance(e, urllib.error.URLError) else None
            refused = isinstance(reason, OSError) and not isinstance(reason, TimeoutError)
            proxy = proxy_for(url)
            # through a proxy: the proxy is named, and one that cannot be used is a setup error (exit 2)
            error = EndpointDownError if refused or proxy else EndpointError
            why = reason or e
            via = f" through the proxy {shown(redact_url(proxy))} (from the environment)" if proxy else ""
            raise error(
                f"cannot reach endpoint {url}{via}: {shown(str(why) or type(why).__name__)}",
                hint="check --endpoint and that the server runs"
                + ("; check $http_proxy / $https_proxy, or add the host to $no_proxy" if proxy else ""),
            ) from None
    raise AssertionError("unreachable: the last try returns or raises")
