"""One HTTP request to an OpenAI-compatible endpoint with three deadlines, Ctrl+C at any point and no
redirects (model/remote.py says what the replies mean). Built on the standard library's urllib, which the
project already uses: its connection classes are given a connect deadline and a read deadline (the socket
timeout between two bytes), a watcher thread adds the total deadline and the cancel event (it shuts the
connection down, so a read blocked in recv(2) returns), and its redirect handler refuses every redirect.

Issue 42 (kind 1): a server that accepted and never sent its headers, or dripped a byte every 2 s, held the
start-up probe for log-probabilities forever and ignored Ctrl+C (the socket timeout counts from the last
byte); a 302 to another port was followed and its body became the answer.
"""

from __future__ import annotations

import contextlib
import functools
import http.client
import json
import math
import os
import socket
import ssl
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from dataclasses import dataclass, replace
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.endpoint_url import proxy_for

__all__ = [
    "DEADLINES_ENV",
    "ERROR_BODY_BYTES",
    "Deadlines",
    "EndpointCancelled",
    "EndpointError",
    "EndpointStatus",
    "RequestGuard",
    "deadlines_from_env",
    "open_request",
]

#: The environment variable that sets the deadlines: "connect=S,read=S,total=S", any of the three.
DEADLINES_ENV = "GORILLA_TUI_ENDPOINT_DEADLINES"
#: Bytes of an error reply's body read for its message (remote_request shows its first 200 characters);
#: the rest is never read. The body of a 4xx/5xx was read whole after the guard had let go: an endless
#: one grew to "internal error: MemoryError", a dripped one held `ask` past every deadline and Ctrl+C
#: (break-it round 17, R17-1).
ERROR_BODY_BYTES = 512


class EndpointError(GorillaError):
    """The endpoint answered, but not with an answer (a redirect, a reply of the wrong shape or size, a
    deadline passed): the answer failed (exit 1), and in `eval run` that task is a failed task."""

    exit_code = 1


class EndpointCancelled(EndpointError):
    """The request was given up because its cancel event was set (Ctrl+C)."""


class EndpointStatus(Exception):  # noqa: N818 - a reply, made an error by remote_request.post_retried
    """The endpoint answered an error status or a redirect (urllib's HTTPError, closed by now): `code`,
    `reason` (the status line's words), `headers`, and `head`: the first ERROR_BODY_BYTES bytes of the body
    (b"" for a redirect, whose body is not read, or when the read failed: `why` says why), read in
    open_request under the request's guard."""

    def __init__(self, code: int, reason: str, headers: Any, head: bytes = b"", why: str = "") -> None:
        super().__init__(f"HTTP {code} {reason}")
        self.code, self.reason, self.headers, self.head, self.why = code, reason, headers, head, why


class _ConnectTimeout(OSError):
    """No connection within the connect deadline (raised by the connection classes below)."""


@dataclass(frozen=True)
class Deadlines:
    """Seconds one request may take. connect: to open the TCP (and TLS) connection; read: the longest wait
    for the next byte (the socket timeout); total: the whole request, headers and body (a server that
    drips a byte within every read deadline is stopped here). The defaults leave room for a server
    without parallel slots (llama_cpp.server), which queues the requests of `eval run --concurrency N`
    behind up to N-1 others."""

    connect: float = 10.0
    read: float = 120.0
    total: float = 600.0

    def capped(self, seconds: float) -> Deadlines:
        """These deadlines, none over `seconds` (a side request such as a token count)."""
        return Deadlines(min(self.connect, seconds), min(self.read, seconds), min(self.total, seconds))


#: Longest deadline accepted (seconds, a day): socket timeouts beyond the platform's time_t overflowed
#: ("internal error: OverflowError" for read=1e10, break-it round 5).
MAX_DEADLINE = 86_400.0


def deadlines_from_env(environ: Any = None) -> Deadlines:
    """The Deadlines of $GORILLA_TUI_ENDPOINT_DEADLINES ("connect=5,read=60,total=300"; any of the three,
    the others keep their defaults), or the defaults when it is unset or empty.
    Raises UsageError (exit 2) for a value of another shape or a number of seconds that is not positive or
    is over MAX_DEADLINE."""
    text = (os.environ if environ is None else environ).get(DEADLINES_ENV, "").strip()
    values: dict[str, float] = {}
    for part in filter(None, (p.strip() for p in text.split(","))):
        key, sep, value = (s.strip() for s in part.partition("="))
        try:
            seconds = float(value) if sep and key in ("connect", "read", "total") else math.nan
        except ValueError:
            seconds = math.nan
        if not (math.isfinite(seconds) and 0 < seconds <= MAX_DEADLINE):
            raise UsageError(
                f"{DEADLINES_ENV}={text[:80]!r}: each part must be connect=S, read=S or total=S "
                f"with S a positive number of seconds up to {MAX_DEADLINE:.0f}, "
                "e.g. connect=10,read=120,total=600"
            )
        values[key] = seconds
    return replace(Deadlines(), **values)


class RequestGuard:
    """The watchdog of one request: once one of `cancels` is set or the total deadline has passed, it shuts
    down every connection attached to it (a duplicate descriptor of each, taken when attached, so the
    number cannot have been reused), which ends a read blocked in recv(2). `reason` is then "cancelled" or
    "total". `end`: when the total deadline passes (time.monotonic()), default now + deadlines.total; a
    retried request passes the end of its first try, so the total bounds the tries and the waits between
    them (remote_request.post_retried). `budget`: the remote_budget.AnswerBudget of the answer the request
    belongs to, or None: the request ends by its end too, and a passed deadline is noted in it (failure).
    One daemon thread polls every 0.1 s until close()."""

    def __init__(
        self, deadlines: Deadlines, cancels: Sequence[threading.Event] = (), end: float | None = None,
        budget: Any = None,
    ) -> None:  # fmt: skip
        self.deadlines = deadlines
        self.cancels = tuple(cancels)
        self.reason = ""
        self.budget = budget
        self._end = time.monotonic() + deadlines.total if end is None else end
        if budget is not None:
            self._end = min(self._end, budget.end)
        self._socks: list[socket.socket] = []
        self._lock = threading.Lock()
        self._done = threading.Event()
        threading.Thread(target=self._watch, name="endpoint-guard", daemon=True).start()

    def _watch(self) -> None:
        while not self._done.wait(max(0.0, min(0.1, self._end - time.monotonic()))):
            if any(event.is_set() for event in self.cancels):
                self.fire("cancelled")
            elif time.monotonic() >= self._end:
                self.fire("total")
            if self.reason:
                break
        with self._lock:
            socks, self._socks = self._socks, []
        for dup in socks:
            dup.close()

    def fire(self, reason: str) -> None:
        """Give the request up for `reason` (the first reason stays): shut its connections down."""
        with self._lock:
            self.reason = self.reason or reason
            socks = list(self._socks)
        for dup in socks:
            with contextlib.suppress(OSError):
                dup.shutdown(socket.SHUT_RDWR)

    def attach(self, sock: socket.socket) -> None:
        """Watch `sock`, a connection just opened (shut at once when the guard has already fired)."""
        try:
            dup = socket.socket(fileno=os.dup(sock.fileno()))
        except (OSError, ValueError):
            return
        with self._lock:
            fired = bool(self.reason) or self._done.is_set()
            if not fired:
                self._socks.append(dup)
        if fired:
            with dup, contextlib.suppress(OSError):
                dup.shutdown(socket.SHUT_RDWR)

    def close(self) -> None:
        """The request is over: stop watching (the watcher closes its duplicates)."""
        self._done.set()

    def read(self, resp: Any, limit: int, *, line: bool = False) -> bytes:
        """At most `limit` bytes of the body of `resp` (with `line`: one line of at most `limit` bytes);
        b"" once the guard gave up (failure() says why). The one way model/remote*.py reads a reply of the
        endpoint (tests/unit/test_endpoint_reads.py checks it), so every read, an error status's body
        included, has a byte cap and runs while this guard watches its total deadline and cancel events.
        Raises ValueError for a limit that is not a positive int (no read without a cap), RuntimeError
        after close() (a read no guard watches: R17-1), and what the read raises
        (remote_request.NET_ERRORS)."""
        if isinstance(limit, bool) or not isinstance(limit, int) or limit <= 0:
            raise ValueError(f"a read of the endpoint needs a positive byte cap, not {limit!r}")
        if self.reason:
            return b""
        if self._done.is_set():
            raise RuntimeError("a reply of the endpoint read after its guard was closed")
        return resp.readline(limit) if line else resp.read(limit)

    def failure(self, url: str, error: BaseException | None = None) -> EndpointError | None:
        """The one-line error for a request that the guard gave up, or whose `error` (or its reason, for a
        urllib URLError) is a passed deadline; None for any other error. A passed deadline is noted in the
        answer's budget (its answer ends)."""
        reason = getattr(error, "reason", None) if error is not None else None
        if self.reason == "cancelled":
            return EndpointCancelled(f"request to {url} cancelled")
        if self.reason == "total":
            answer = self.budget is not None and self._end >= self.budget.end  # the answer's own ran out
            total = self.budget.total if answer else self.deadlines.total
            failure = EndpointError(
                f"endpoint {url} did not finish within {total:g} s "
                f"(the total deadline{' of one answer' if answer else ''}; {DEADLINES_ENV} sets it)"
            )
        elif isinstance(error, _ConnectTimeout) or isinstance(reason, _ConnectTimeout):
            return None  # cannot reach: the caller's message
        elif isinstance(error, TimeoutError) or isinstance(reason, TimeoutError):
            failure = EndpointError(
                f"endpoint {url} sent nothing for {self.deadlines.read:g} s "
                f"(the read deadline; {DEADLINES_ENV} sets it)"
            )
        else:
            return None
        if self.budget is not None:
            self.budget.note(failure)
        return failure


class _GuardedHTTP(http.client.HTTPConnection):
    """An HTTP connection opened within the guard's connect deadline, then read with its read deadline
    as the socket timeout, and attached to the guard."""

    def __init__(self, host: str, *, guard: RequestGuard, **kwargs: Any) -> None:
        kwargs["timeout"] = guard.deadlines.connect  # urlopen's own timeout is not used
        super().__init__(host, **kwargs)
        self.guard = guard

    def connect(self) -> None:
        try:
            super().connect()
        except TimeoutError:
            raise _ConnectTimeout(f"no connection within {self.guard.deadlines.connect:g} s") from None
        self.sock.settimeout(self.guard.deadlines.read)
        self.guard.attach(self.sock)


class _GuardedHTTPS(_GuardedHTTP, http.client.HTTPSConnection):
    """_GuardedHTTP over TLS (the handshake is within the connect deadline)."""


class _Http(urllib.request.HTTPHandler):
    def __init__(self, guard: RequestGuard) -> None:
        super().__init__()
        self.guard = guard

    def http_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(_GuardedHTTP, guard=self.guard), req)


class _Https(urllib.request.HTTPSHandler):
    def __init__(self, guard: RequestGuard) -> None:
        super().__init__()
        self.guard = guard

    def https_open(self, req: urllib.request.Request) -> Any:
        return self.do_open(functools.partial(_GuardedHTTPS, guard=self.guard), req, context=_tls())


@functools.cache
def _tls() -> ssl.SSLContext:
    """The default TLS context (system CAs, host names checked), made once."""
    return ssl.create_default_context()


class _NoRedirect(urllib.request.HTTPRedirectHandler):
    """Refuses every redirect: urllib then raises HTTPError with the 3xx status and its Location (a 302 to
    another port was followed and its body became the answer; issue 42). The Location is never parsed:
    urllib's own http_error_30x joined and parsed it first, and one such as "http://[/x]" was ValueError,
    "cannot reach endpoint" (exit 1; break-it round 7)."""

    def redirect_request(self, *args: Any, **kwargs: Any) -> None:
        return None

    def _refuse(self, *args: Any, **kwargs: Any) -> None:
        return None  # no handler: urllib's default one raises HTTPError with the status and headers

    http_error_301 = http_error_302 = http_error_303 = http_error_307 = http_error_308 = _refuse


#: Trailer lines read after the last chunk of a chunked reply (RFC 9112 section 7.1.2); the rest is not
#: read. http.client reads them until a blank line, with no limit: a server that sent "X-T: y" lines for
#: ever after the answer held the request to its total deadline, and the answer was dropped (round 7).
MAX_TRAILER_LINES = 64


def _bounded_trailer(resp: http.client.HTTPResponse) -> None:
    """http.client's HTTPResponse._read_and_discard_trailer, stopping after MAX_TRAILER_LINES lines (the
    body is whole by then: its last chunk was read; the connection is closed after it, never reused)."""
    for _ in range(MAX_TRAILER_LINES):
        line = resp.fp.readline(65537)  # http.client._MAXLINE + 1
        if len(line) > 65536:
            raise http.client.LineTooLong("trailer line")
        if line in (b"\r\n", b"\n", b""):
            return
    resp.will_close = True


def _status(error: urllib.error.HTTPError, guard: RequestGuard) -> EndpointStatus:
    """`error` (an error status or a redirect) as an EndpointStatus, with the head of its body read under
    `guard` (a redirect's is not read); `error` is closed."""
    head, why = b"", ""
    try:
        if not 300 <= error.code < 400:
            head = guard.read(error, ERROR_BODY_BYTES)
    except (OSError, ValueError, OverflowError, http.client.HTTPException) as e:  # remote_request.NET_ERRORS
        why = str(e) or type(e).__name__
    finally:
        with contextlib.suppress(OSError):
            error.close()
    return EndpointStatus(error.code, str(error.reason), error.headers, head, why)


def open_request(
    url: str, body: dict[str, Any], deadlines: Deadlines, cancels: Sequence[threading.Event] = (),
    auth: str | None = None, end: float | None = None, budget: Any = None,
) -> tuple[Any, RequestGuard]:  # fmt: skip
    """POST `body` (JSON) to `url` (with `auth` as its Authorization header, if given); (the open
    response, its guard). The caller reads the response, then
    calls guard.close(), and asks guard.failure() what a read error (or a short read) means: the guard
    shuts the connection at the total deadline (at `end`, a time.monotonic() value, when given: the end of
    a retried request's first try) or once an event of `cancels` is set, which a reader sees as the end of
    the body. `budget`: the AnswerBudget of the request's answer (RequestGuard), or None.

    The request runs on a daemon thread while this one waits in steps of 0.1 s, so Ctrl+C works in any
    phase: under Python's default handler KeyboardInterrupt is raised here (the request is given up), and
    under cancel.ctrl_c_sets an event of `cancels` is set. A connection still being opened is left to its
    connect deadline; a reply that comes later is closed unread.

    Raises:
        EndpointCancelled: an event of `cancels` was set first.
        EndpointError: the total or read deadline passed.
        EndpointStatus: an error status or a redirect (not followed), with the first ERROR_BODY_BYTES of
            its body read here, under the guard.
        OSError, ValueError, http.client.HTTPException (urllib's URLError among them): the server cannot be
            reached (a connect timeout is a URLError whose reason says so) or broke the protocol.
    """
    guard = RequestGuard(deadlines, cancels, end, budget)
    proxy = proxy_for(url)
    proxies = urllib.request.ProxyHandler({urllib.parse.urlsplit(url).scheme.lower(): proxy} if proxy else {})
    opener = urllib.request.build_opener(proxies, _Http(guard), _Https(guard), _NoRedirect())
    headers = {"Content-Type": "application/json", **({"Authorization": auth} if auth else {})}
    req = urllib.request.Request(url, data=json.dumps(body).encode("utf-8"), headers=headers)
    box: dict[str, Any] = {}
    lock = threading.Lock()

    def post() -> None:
        try:
            resp = opener.open(req)  # noqa: S310 - the user's own endpoint
        except urllib.error.HTTPError as e:  # its body's head is read here, while the guard watches
            error: BaseException = _status(e, guard)
        except BaseException as e:  # noqa: BLE001 - handed to the waiting thread as it is
            error = e
        else:
            with lock:
                if box.get("abandoned"):
                    resp.close()
                else:
                    box["resp"] = resp
            return
        with lock:
            box["error"] = error

    thread = threading.Thread(target=post, name="endpoint-request", daemon=True)
    thread.start()
    try:
        while thread.is_alive() and not guard.reason:
            thread.join(0.1)
    except BaseException:  # KeyboardInterrupt while waiting: give the request up, then pass it on
        guard.fire("cancelled")
        guard.close()
        raise
    with lock:
        if "resp" in box:
            resp = box["resp"]
            if isinstance(resp, http.client.HTTPResponse):  # the one method that reads trailers, bounded
                resp._read_and_discard_trailer = functools.partial(_bounded_trailer, resp)  # type: ignore[method-assign]
            return resp, guard
        box["abandoned"] = True
    guard.close()
    failure = guard.failure(url, box.get("error"))
    if failure is not None:
        raise failure
    raise box["error"]
