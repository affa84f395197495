"""One request of a RemoteBackend, retried: POST a body to the endpoint, HTTP 429 and 5xx tried again with
backoff (Retry-After honoured), a redirect refused, and the one error a failed request becomes
(EndpointDownError when the endpoint cannot be reached, else EndpointError). The request itself, its
deadlines and Ctrl+C are remote_http.open_request; what the replies mean is remote_replies. The total
deadline bounds the request with all its tries and the waits between them (break-it round 11, R11-6: with
total=5, a server that always answered 429 held `ask` for 4 waits of 30 s, 121 s).
"""

from __future__ import annotations

import http.client
import threading
import time
import urllib.error
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.remote_budget import AnswerBudget
from gorilla_tui.model.remote_http import (
    DEADLINES_ENV,
    RETRY_STATUSES,
    Deadlines,
    EndpointCancelled,
    EndpointError,
    RequestGuard,
    open_request,
    proxy_for,
    retry_delay,
    wait_any,
)
from gorilla_tui.model.remote_replies import shown
from gorilla_tui.textsafe import redact_url

#: What can go wrong in urllib besides an HTTP error status: no route/refused/timeout (URLError, OSError),
#: a bad URL or port (ValueError, http.client.InvalidURL), a server that breaks the protocol (HTTPException).
#: OverflowError: a chunk size past ssize_t in a chunked reply (http.client, break-it round 6).
NET_ERRORS = (urllib.error.URLError, OSError, ValueError, OverflowError, http.client.HTTPException)


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
        except urllib.error.HTTPError as e:
            location = e.headers.get("Location") if e.headers else None
            if 300 <= e.code < 400:
                raise EndpointError(
                    f"endpoint {url} answered HTTP {e.code}, a redirect to "
                    f"{shown(str(location or 'nowhere'))}: redirects are not "
                    "followed (pass that URL as --endpoint if it is the server you mean)"
                ) from None
            try:
                detail = shown(e.read()[:200].decode("utf-8", "replace"))
            except NET_ERRORS:
                detail = shown(str(e.reason))
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
