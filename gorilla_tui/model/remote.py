"""RemoteBackend: an OpenAI-compatible /v1/completions endpoint (llama.cpp server, vLLM), streamed (SSE).

Prompt log-probabilities (for select by likelihood, model/likelihood.py) come from the completions API's
``echo=True, logprobs=1`` (OpenAI's legacy completions format: choices[0].logprobs.{tokens, token_logprobs,
text_offset}, the prompt's tokens first). Servers tried: llama-cpp-python's ``llama_cpp.server`` returns them
(its ``logits_all`` defaults to true; tested in tests/unit/test_remote_scoring.py); vLLM documents the same
echo format and also a ``prompt_logprobs`` list, both parsed here but not run in our tests; llama.cpp's own
``llama-server`` gives log-probabilities of generated tokens only, so the probe fails and select mode uses
the GBNF grammar there.
"""

from __future__ import annotations

import contextlib
import email.utils
import http.client
import json
import math
import os
import socket
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.remote_replies import (
    MAX_PLAIN_BYTES,
    MAX_SCORING_BYTES,
    plain_answer,
    prompt_logprob,  # re-exported: its old import path
    scoring_json,
)
from gorilla_tui.textsafe import safe_text

__all__ = [
    "EndpointDownError",
    "RemoteBackend",
    "check_endpoint",
    "completions_url",
    "prompt_logprob",
    "retry_delay",
]

#: What can go wrong in urllib besides an HTTP error status: no route/refused/timeout (URLError, OSError),
#: a bad URL or port (ValueError, http.client.InvalidURL), a server that breaks the protocol (HTTPException).
_NET_ERRORS = (urllib.error.URLError, OSError, ValueError, http.client.HTTPException)
#: HTTP statuses worth another try: rate limited (429) and server-side trouble (500, 502, 503, 504).
RETRY_STATUSES = frozenset({429, 500, 502, 503, 504})
#: Longest wait (s) between two tries, whatever Retry-After says.
MAX_BACKOFF_S = 30.0


class EndpointDownError(GorillaError):
    """The endpoint cannot be reached at all (connection refused, no route, DNS): every task would fail the
    same way, so callers that loop over tasks (evaluate/run.py) stop at once instead of counting failures."""


class _Cancelled(Exception):
    """The request was given up because its cancel event was set (RemoteBackend._open)."""


def _shut_on_cancel(resp: Any, cancel: threading.Event) -> threading.Event:
    """Watch `cancel` while `resp` (an open HTTP response) is read: once it is set, shut down the
    connection, so that a read blocked in recv(2) returns (a server that drips a byte at a time with no
    newline, or sends nothing after its headers, held Ctrl+C off for as long as it liked: the socket
    timeout counts from the last byte; break-it pass 11). Returns the event to set when the reading is
    over. shutdown(2) is made on a duplicate of resp's descriptor taken now (it acts on the connection,
    and the number cannot have been reused by then); the watcher polls every 0.1 s and closes it."""
    done = threading.Event()
    try:
        dup = socket.socket(fileno=os.dup(resp.fileno()))
    except (OSError, ValueError, AttributeError):  # no socket under it: nothing to shut
        return done

    def watch() -> None:
        with dup:
            while not done.is_set():
                if cancel.wait(0.1):
                    with contextlib.suppress(OSError):
                        dup.shutdown(socket.SHUT_RDWR)
                    return

    threading.Thread(target=watch, name="endpoint-cancel", daemon=True).start()
    return done


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


def check_endpoint(endpoint: str) -> str:
    """`endpoint` stripped, if it is an http:// or https:// URL with a host (and a valid port, if any).
    Raises UsageError (exit 2) otherwise, e.g. for "notaurl" or "localhost:8080" (no scheme)."""
    url = (endpoint or "").strip()
    try:
        parts = urllib.parse.urlsplit(url)
        _port = parts.port  # ValueError for a port that is not a number in 0..65535
    except ValueError as e:
        raise UsageError(f"endpoint {endpoint!r} is not a valid URL ({e})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"endpoint {endpoint!r} is not an http(s) URL with a host, "
            "e.g. http://127.0.0.1:8080 (an OpenAI-compatible completion server)"
        )
    return url


def completions_url(endpoint: str) -> str:
    """Normalise --endpoint: "http://h:p" or ".../v1" or ".../v1/completions" -> the completions URL.
    Raises UsageError for anything but an http(s) URL with a host (check_endpoint)."""
    url = check_endpoint(endpoint).rstrip("/")
    if url.endswith("/completions"):
        return url
    if url.endswith("/v1"):
        return url + "/completions"
    return url + "/v1/completions"


class RemoteBackend:
    """Completion over HTTP: POST {"prompt", "max_tokens", "temperature", "stop", "stream": true,
    "grammar"} to an OpenAI-compatible /v1/completions endpoint and read the server-sent events
    (`data: {json}` lines, `data: [DONE]` at the end). `grammar` is the llama.cpp servers' GBNF field
    (llama-cpp-python's server and llama.cpp's llama-server accept it; vLLM ignores or rejects it).

    n_ctx: the server's context size (tokens), as configured (the OpenAI API does not report it).
    timeout: seconds to wait for the server's answer to one request (socket timeout). 600 s by default: a
    server without parallel slots (llama_cpp.server) queues concurrent requests, so under eval run
    --concurrency N one waits for up to N-1 others (a server that is down is still seen at once).
    count_tokens asks the server's tokenizer (/extras/tokenize of llama-cpp-python's server, /tokenize of
    llama-server) and falls back to a conservative estimate of one token per 2 UTF-8 bytes.
    A request that gets HTTP 429 or 5xx is tried again up to `retries` times, waiting retry_delay(attempt,
    `backoff`) seconds (Retry-After honoured); a refused connection is not retried (EndpointDownError).
    loglikelihoods scores text by the server's prompt log-probabilities where it returns them
    (supports_loglikelihoods probes once; see the module docstring for the servers tried).
    Safe to share between threads (eval run --concurrency): a call keeps its state in local variables.
    Raises UsageError for an endpoint that is not an http(s) URL with a host (check_endpoint), and
    GorillaError (one line) when the server cannot be reached, answers with an error or breaks the protocol.
    """

    def __init__(
        self, endpoint: str, *, n_ctx: int = 4096, name: str = "remote", family: str = "fewshot",
        timeout: float = 600.0, model: str | None = None, retries: int = 4, backoff: float = 0.5,
    ) -> None:  # fmt: skip
        self.url = completions_url(endpoint)
        self.base = self.url.rsplit("/v1/", 1)[0]
        self._n_ctx = n_ctx
        self.name = name
        self.family = family
        self.timeout = timeout
        self.model = model
        self.retries = retries
        self.backoff = backoff
        self.last_stats: dict[str, Any] = {}
        self._tokenize_path: str | None = None
        self._scores: bool | None = None  # supports_loglikelihoods' probe result, once known
        self.scoring_note = ""  # why the probe failed ("" before it ran or when it passed)

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def _post(self, url: str, body: dict[str, Any], timeout: float) -> Any:
        req = urllib.request.Request(
            url, data=json.dumps(body).encode("utf-8"), headers={"Content-Type": "application/json"}
        )
        return urllib.request.urlopen(req, timeout=timeout)  # noqa: S310 - the user's own endpoint

    def _open(self, body: dict[str, Any], cancel: threading.Event | None) -> Any:
        """_post(self.url, body) that gives up as soon as `cancel` is set: urlopen waits for the server's
        headers up to self.timeout (600 s) and Ctrl+C in `ask` only sets `cancel` (break-it pass 11: a
        server that accepted and never answered held Ctrl+C off for 10 minutes). The request then runs on
        a daemon thread left to its socket timeout; a reply that comes later is closed unread.
        Raises what _post raises, _Cancelled when `cancel` was set first."""
        if cancel is None:
            return self._post(self.url, body, self.timeout)
        box: dict[str, Any] = {}
        lock = threading.Lock()

        def post() -> None:
            try:
                resp = self._post(self.url, body, self.timeout)
            except BaseException as e:  # noqa: BLE001 - handed to the waiting thread as it is
                with lock:
                    box["error"] = e
                return
            with lock:
                if box.get("abandoned"):
                    resp.close()
                else:
                    box["resp"] = resp

        thread = threading.Thread(target=post, name="endpoint-request", daemon=True)
        thread.start()
        while thread.is_alive() and not cancel.is_set():
            thread.join(0.1)
        with lock:
            if "error" in box:
                raise box["error"]
            if "resp" not in box:
                box["abandoned"] = True
                raise _Cancelled
            return box["resp"]

    def _request(self, body: dict[str, Any], cancel: threading.Event | None = None) -> Any:
        """POST `body` to the completions URL, retrying 429/5xx with backoff; the open response.
        Raises EndpointDownError (cannot connect), GorillaError (an error status after the retries, a
        timeout or a protocol error)."""
        for attempt in range(self.retries + 1):
            try:
                return self._open(body, cancel)
            except _Cancelled:
                break
            except urllib.error.HTTPError as e:
                try:
                    detail = safe_text(e.read()[:200].decode("utf-8", "replace"), newlines=False)
                except _NET_ERRORS:
                    detail = safe_text(str(e.reason), newlines=False)
                if e.code in RETRY_STATUSES and attempt < self.retries:
                    wait = retry_delay(
                        attempt, self.backoff, e.headers.get("Retry-After") if e.headers else None
                    )
                    if cancel is not None and cancel.wait(wait):
                        break
                    if cancel is None:
                        time.sleep(wait)
                    continue
                tries = f" (after {attempt + 1} tries)" if attempt else ""
                raise GorillaError(f"endpoint {self.url} answered HTTP {e.code}{tries}: {detail}") from None
            except _NET_ERRORS as e:
                reason = getattr(e, "reason", None) or str(e) or type(e).__name__
                refused = isinstance(reason, (ConnectionError, OSError)) and not isinstance(
                    reason, TimeoutError
                )
                error = EndpointDownError if refused else GorillaError
                raise error(
                    f"cannot reach endpoint {self.url}: {reason}",
                    hint="check --endpoint and that the server runs",
                ) from None
        raise GorillaError(f"request to {self.url} cancelled")

    def count_tokens(self, text: str) -> int:
        """Prompt tokens of `text` (BOS included) by the server's tokenizer, or len(bytes) // 2 + 1."""
        paths = [self._tokenize_path] if self._tokenize_path else ["/extras/tokenize", "/tokenize"]
        for path in paths:
            try:
                key = "input" if path == "/extras/tokenize" else "content"
                with self._post(self.base + path, {key: text}, 10.0) as resp:
                    raw = resp.read(MAX_PLAIN_BYTES + 1)
                if len(raw) > MAX_PLAIN_BYTES:
                    continue  # a token list of a prompt is KiB: not a tokenizer's answer
                tokens = json.loads(raw)["tokens"]
                if not isinstance(tokens, list):
                    continue
                self._tokenize_path = path
                # llama-cpp-python's /extras/tokenize adds BOS itself; llama-server's /tokenize does not
                return len(tokens) + (0 if path == "/extras/tokenize" else 1)
            except (*_NET_ERRORS, KeyError, TypeError, RecursionError):
                continue
        return len(text.encode("utf-8")) // 2 + 1

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        grammar: str | None = None,
        temperature: float = 0.0,
        cancel: threading.Event | None = None,
    ) -> Iterator[str]:
        """Stream the completion (see backend.Backend); cancel is checked between events."""
        body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "temperature": temperature,
                                "stream": True}  # fmt: skip
        if stop:
            body["stop"] = list(stop)
        if grammar:
            body["grammar"] = grammar
        if self.model:
            body["model"] = self.model
        resp = self._request(body, cancel)
        pieces = 0
        events = 0
        other: list[bytes] = []  # a body that is no event stream (kept up to MAX_PLAIN_BYTES)
        kept = 0
        done = _shut_on_cancel(resp, cancel) if cancel is not None else threading.Event()
        try:
            with resp:
                # lines of at most MAX_PLAIN_BYTES + 1: `for raw in resp` read a reply with no newline
                # whole, however long (a 50 MB line took 100 MB; break-it pass 11)
                for raw in iter(lambda: resp.readline(MAX_PLAIN_BYTES + 1), b""):
                    if cancel is not None and cancel.is_set():
                        break
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        if not events:
                            other.append(raw)
                            kept += len(raw)
                            if kept > MAX_PLAIN_BYTES:
                                break  # _plain_answer says it is too long; the rest is not read
                        continue
                    events += 1
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    try:
                        event = json.loads(data)
                        text = event["choices"][0].get("text") or ""
                        if not isinstance(text, str):  # a number or list here reached "".join: a traceback
                            raise TypeError
                    except (ValueError, KeyError, IndexError, TypeError, RecursionError):
                        raise GorillaError(
                            f"endpoint {self.url} sent a malformed event: {safe_text(data[:80])}"
                        ) from None
                    if text:
                        pieces += 1
                        yield text
                if not events and other and not (cancel is not None and cancel.is_set()):
                    text = plain_answer(self.url, b"".join(other), kept)
                    if text:
                        pieces += 1
                        yield text
        except _NET_ERRORS as e:
            raise GorillaError(f"connection to {self.url} broke: {str(e) or type(e).__name__}") from None
        finally:
            done.set()
            self.last_stats = {"pieces": pieces, "cancelled": bool(cancel is not None and cancel.is_set())}

    # -----------------------------------------------------------------------------------------------------
    # prompt log-probabilities

    def supports_loglikelihoods(self) -> bool:
        """True when the server returns prompt log-probabilities (probed once with a short text, then
        cached; scoring_note says why not). Raises EndpointDownError when the server cannot be reached."""
        if self._scores is None:
            try:
                values = self.loglikelihoods(["Here is an API.\nA user asks for this API:"], " sort a list")
                self._scores = len(values) == 1 and math.isfinite(values[0]) and values[0] < 0
                self.scoring_note = "" if self._scores else f"the server scored a text {values[0]}"
            except EndpointDownError:
                raise
            except GorillaError as e:
                self._scores = False
                self.scoring_note = str(e)
        return self._scores

    def loglikelihoods(
        self, contexts: Sequence[str], continuation: str, cancel: threading.Event | None = None
    ) -> list[float]:
        """log p(continuation | context) in nats for each context (see backend.LlamaBackend.loglikelihoods),
        from the server's prompt log-probabilities of context + continuation: the sum over the tokens that
        start at or after the end of context.rstrip() (the text is tokenized whole, so a space that ends
        the context is scored with the continuation's first word; the same rule for every context, so the
        values compare). One request per context (max_tokens 1, echo, logprobs 1, temperature 0); stops
        early when `cancel` is set (the list is then shorter). Raises GorillaError when the server gives no
        prompt log-probabilities or cannot be reached (EndpointDownError)."""
        scores: list[float] = []
        for context in contexts:
            if cancel is not None and cancel.is_set():
                break
            prompt = context + continuation
            body: dict[str, Any] = {"prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                                    "logprobs": 1}  # fmt: skip
            if self.model:
                body["model"] = self.model
            try:
                with self._request(body, cancel) as resp:
                    done = _shut_on_cancel(resp, cancel) if cancel is not None else threading.Event()
                    try:
                        raw = resp.read(MAX_SCORING_BYTES + 1)  # bounded: a 50 MB reply was read whole
                    finally:
                        done.set()
            except _NET_ERRORS as e:
                raise GorillaError(f"connection to {self.url} broke while scoring: {e}") from None
            if cancel is not None and cancel.is_set():
                break
            data = scoring_json(self.url, raw)
            scores.append(prompt_logprob(data, start=len(context.rstrip()), end=len(prompt), url=self.url))
        self.last_stats = {"scored_contexts": len(scores)}
        return scores
