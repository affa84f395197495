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

import math
import threading
import urllib.error
import urllib.parse
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.endpoint_url import basic_auth, check_endpoint, completions_url, origin
from gorilla_tui.model.remote_budget import AnswerBudget, AnswerOver
from gorilla_tui.model.remote_http import (
    DEADLINES_ENV,
    Deadlines,
    EndpointCancelled,
    EndpointError,
    RequestGuard,
    deadlines_from_env,
)
from gorilla_tui.model.remote_replies import (
    MAX_IDLE_LINES,
    MAX_PLAIN_BYTES,
    MAX_SCORING_BYTES,
    cut_short,
    event_text,
    plain_answer,
    prompt_logprob,  # re-exported: its old import path
    scoring_json,
    stream_cap,
    stream_too_long,
    text_cap,
    too_many_lines,
)
from gorilla_tui.model.remote_request import (
    MAX_BACKOFF_S,
    NET_ERRORS,
    RETRY_STATUSES,
    EndpointDownError,
    broke,
    post_retried,
    retry_delay,
)
from gorilla_tui.model.remote_tokens import SLOW_TOKENIZER_S, TOKEN_SLACK, ImplausibleTokenCount, TokenCounter
from gorilla_tui.textsafe import redact_url

__all__ = [
    "DEADLINES_ENV",
    "Deadlines",
    "EndpointCancelled",
    "EndpointDownError",
    "EndpointError",
    "ImplausibleTokenCount",
    "MAX_BACKOFF_S",
    "RETRY_STATUSES",
    "RemoteBackend",
    "SLOW_TOKENIZER_S",
    "TOKEN_SLACK",
    "check_endpoint",
    "completions_url",
    "prompt_logprob",
    "retry_delay",
]

#: Longest the start-up probe for log-probabilities may take (s): one short text scored (max_tokens 1).
PROBE_DEADLINE_S = 60.0


class RemoteBackend:
    """Completion over HTTP: POST {"prompt", "max_tokens", "temperature", "stop", "stream": true,
    "grammar"} to an OpenAI-compatible /v1/completions endpoint and read the server-sent events
    (`data: {json}` lines, `data: [DONE]` at the end). `grammar` is the llama.cpp servers' GBNF field
    (llama-cpp-python's server and llama.cpp's llama-server accept it; vLLM ignores or rejects it).

    n_ctx: the server's context size (tokens), as configured (the OpenAI API does not report it).
    deadlines: the connect, read and total deadlines of every request (remote_http.Deadlines; default:
    $GORILLA_TUI_ENDPOINT_DEADLINES, else 10 s, 120 s and 600 s). cancel: an event that gives up every
    request of this backend once set (Ctrl+C in `ask`, the start-up probe for log-probabilities included),
    besides the `cancel` each call takes. Redirects are refused (one line naming the Location); a stream
    is read up to max_tokens pieces of text, remote_replies.text_cap(max_tokens) characters of text (64 a
    token), at most remote_replies.stream_cap(max_tokens) bytes and MAX_IDLE_LINES lines without an
    event (besides two per event).
    count_tokens asks the server's tokenizer (/extras/tokenize of llama-cpp-python's server, /tokenize of
    llama-server) and falls back to a conservative estimate of one token per 2 UTF-8 bytes.
    one_answer() makes the requests of one answer (pipeline.ask) share the total deadline, and ends the
    answer at the first request that passes a deadline (remote_budget.AnswerBudget).
    A request that gets HTTP 429 or 5xx is tried again up to `retries` times, waiting retry_delay(attempt,
    `backoff`) seconds (Retry-After honoured); a refused connection is not retried (EndpointDownError).
    loglikelihoods scores text by the server's prompt log-probabilities where it returns them
    (supports_loglikelihoods probes once; see the module docstring for the servers tried).
    Safe to share between threads (eval run --concurrency): a call keeps its state in local variables.
    Raises UsageError for an endpoint that is not an http(s) URL with a host (check_endpoint) or a bad
    $GORILLA_TUI_ENDPOINT_DEADLINES, EndpointDownError when the server cannot be reached, EndpointError
    (one line, exit 1: a failed answer) when it answers with an error, a redirect, a reply of the wrong
    shape or size, or passes a deadline, and EndpointCancelled once cancelled.
    """

    def __init__(
        self, endpoint: str, *, n_ctx: int = 4096, name: str = "remote", family: str = "fewshot",
        deadlines: Deadlines | None = None, model: str | None = None, retries: int = 4, backoff: float = 0.5,
        cancel: threading.Event | None = None,
    ) -> None:  # fmt: skip
        wire, self._auth = basic_auth(completions_url(endpoint))
        self.url = redact_url(completions_url(endpoint))  # in every message: no password
        self._wire = (origin(self.url), origin(wire))  # the shown scheme and host, those used
        # the shown query (secrets as ***, textsafe.redact_url) and the one sent
        self._query = (urllib.parse.urlsplit(self.url).query, urllib.parse.urlsplit(wire).query)
        self._n_ctx = n_ctx
        self.name = name
        self.family = family
        self.deadlines = deadlines or deadlines_from_env()
        self.model = model
        self.retries = retries
        self.backoff = backoff
        self.cancel = cancel
        self.last_stats: dict[str, Any] = {}
        self._tokens = TokenCounter()  # which tokenizer path answers, once known
        self._scores: bool | None = None  # supports_loglikelihoods' probe result, once known
        self.scoring_note = ""  # why the probe failed ("" before it ran or when it passed)
        self._answer = threading.local()  # .budget: the AnswerBudget of this thread's answer, if any

    @contextmanager
    def one_answer(self) -> Iterator[None]:
        """The requests this thread makes inside are one answer's (remote_budget.AnswerBudget): they share
        the total deadline (self.deadlines.total for all of them, not for each), and once one passed a
        deadline (read, total; not a token count's own shorter ones) the next raises AnswerOver unsent.
        Nested, the outer answer's budget holds. Each thread has its own (eval run --concurrency shares
        one backend)."""
        if getattr(self._answer, "budget", None) is not None:
            yield
            return
        self._answer.budget = AnswerBudget(self.deadlines.total)
        try:
            yield
        finally:
            self._answer.budget = None

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def _cancels(self, cancel: threading.Event | None) -> tuple[threading.Event, ...]:
        """The events a request of this call gives up on: `cancel` and self.cancel, those not None."""
        return tuple(event for event in (cancel, self.cancel) if event is not None)

    def _to_wire(self, url: str) -> str:
        """`url` as shown (the password and the query's secrets hidden) -> the URL sent: the real scheme
        and host (user information goes as Basic auth) and the query as the endpoint gave it."""
        if url.startswith(self._wire[0]):
            url = self._wire[1] + url[len(self._wire[0]) :]
        shown, sent = self._query
        if shown != sent and url.endswith("?" + shown):
            url = url[: len(url) - len(shown)] + sent
        return url

    def _request(
        self, body: dict[str, Any], cancels: tuple[threading.Event, ...] = (), url: str | None = None,
        deadlines: Deadlines | None = None, side: bool = False,
    ) -> tuple[Any, RequestGuard]:  # fmt: skip
        """POST `body` to `url` (default: the completions URL), retrying 429/5xx with backoff; the open
        response and its guard (remote_request.post_retried). Raises EndpointDownError (cannot connect),
        EndpointCancelled, EndpointError (an error status after the retries, a redirect, a deadline, a
        protocol error; AnswerOver unsent inside one_answer() once the answer is over). side: a side request
        (a token count) whose own shorter deadlines do not end the answer (AnswerBudget.side)."""
        url = url or self.url
        budget = getattr(self._answer, "budget", None)
        return post_retried(
            url, self._to_wire(url), body, deadlines or self.deadlines, cancels,
            auth=self._auth, retries=self.retries, backoff=self.backoff,
            budget=budget.side() if budget is not None and side else budget,
        )  # fmt: skip

    def count_tokens(self, text: str) -> int:
        """Prompt tokens of `text` (BOS included) by the server's tokenizer, or len(bytes) // 2 + 1
        (remote_tokens.TokenCounter: each try's deadlines capped at 10 s; a tokenizer that does not answer,
        or answers slower than SLOW_TOKENIZER_S, is not asked again). Raises ImplausibleTokenCount (exit 1)
        for a count over the text's UTF-8 bytes + TOKEN_SLACK, EndpointCancelled once self.cancel is set,
        EndpointDownError when the server cannot be reached, and AnswerOver inside one_answer() once a
        request of the answer timed out."""

        def post(body: dict[str, Any], url: str, deadlines: Deadlines) -> tuple[Any, RequestGuard]:
            return self._request(body, self._cancels(None), url, deadlines, side=True)

        return self._tokens.count(text, self.url, self.deadlines, post)

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
        """Stream the completion (see backend.Backend): at most max_tokens pieces of text and
        text_cap(max_tokens) characters of text in all (64 a token: a server that sends more, in more
        events or in one huge event, is not read further and the text past the cap is dropped), and
        stream_cap(max_tokens) bytes of events (EndpointError past it); each
        event's shape is checked (remote_replies.event_text). Once `cancel` (or self.cancel) is set the
        stream ends quietly (last_stats["cancelled"]); the request itself gives up with EndpointCancelled."""
        body: dict[str, Any] = {"prompt": prompt, "max_tokens": max_tokens, "temperature": temperature,
                                "stream": True}  # fmt: skip
        if stop:
            body["stop"] = list(stop)
        if grammar:
            body["grammar"] = grammar
        if self.model:
            body["model"] = self.model
        resp, guard = self._request(body, self._cancels(cancel))
        pieces = events = received = 0
        # a body that is no event stream, kept up to MAX_PLAIN_BYTES in one buffer (a list of its lines cost
        # ~110 times the bytes for 4 MiB of "\n": 464 MB; break-it round 7)
        other = bytearray()
        taken = idle = 0  # characters of text yielded; lines that held no event
        cap, chars = stream_cap(max_tokens), text_cap(max_tokens)
        try:
            with resp:
                # lines of at most MAX_PLAIN_BYTES + 1: `for raw in resp` read a reply with no newline
                # whole, however long (a 50 MB line took 100 MB; break-it pass 11)
                for raw in iter(lambda: guard.read(resp, MAX_PLAIN_BYTES + 1, line=True), b""):
                    received += len(raw)
                    if guard.reason:
                        break
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        idle += 1
                        if idle > MAX_IDLE_LINES + 2 * events:
                            raise EndpointError(too_many_lines(self.url))
                        if not events:
                            other += raw
                            if len(other) > MAX_PLAIN_BYTES:
                                break  # _plain_answer says it is too long; the rest is not read
                        elif received > cap:
                            raise EndpointError(stream_too_long(self.url, cap, max_tokens))
                        continue
                    events += 1
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    if received > cap:
                        raise EndpointError(stream_too_long(self.url, cap, max_tokens))
                    text = event_text(self.url, data)[: chars - taken]
                    if text:
                        pieces += 1
                        taken += len(text)
                        yield text
                        if pieces >= max_tokens or taken >= chars:
                            break  # a server that sends more than it was asked for: 200 MB were kept
                else:  # the body ended: whole, or cut short (then not the model's answer)
                    if not guard.reason and (why := cut_short(resp, received)):
                        raise EndpointError(f"the connection to {self.url} broke ({why})")
                if guard.reason and guard.reason != "cancelled":
                    raise guard.failure(self.url) or EndpointError(f"endpoint {self.url} gave up")
                if not events and other and not guard.reason:
                    text = plain_answer(self.url, bytes(other), len(other), max_tokens)
                    if text:
                        pieces += 1
                        yield text
        except NET_ERRORS as e:
            if guard.reason == "cancelled":
                return
            raise broke(guard, self.url, e) from None
        finally:
            guard.close()
            self.last_stats = {"pieces": pieces, "cancelled": guard.reason == "cancelled"}

    # -----------------------------------------------------------------------------------------------------
    # prompt log-probabilities

    def supports_loglikelihoods(self) -> bool:
        """True when the server returns prompt log-probabilities (probed once with a short text, then
        cached; scoring_note says why not), within deadlines of at most PROBE_DEADLINE_S. Raises
        EndpointDownError when the server cannot be reached,
        EndpointCancelled when self.cancel was set (Ctrl+C during the probe; nothing is cached), and
        AnswerOver inside one_answer() when the answer was over before the probe was sent."""
        if self._scores is None:
            try:
                values = self._loglikelihoods(
                    ["Here is an API.\nA user asks for this API:"], " sort a list", None,
                    self.deadlines.capped(PROBE_DEADLINE_S),
                )  # fmt: skip
                if self.cancel is not None and self.cancel.is_set():
                    raise EndpointCancelled(f"request to {self.url} cancelled")
                self._scores = len(values) == 1 and math.isfinite(values[0]) and values[0] < 0
                self.scoring_note = "" if self._scores else f"the server scored a text {values[:1]}"
            except (EndpointDownError, EndpointCancelled, AnswerOver):
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
        early when `cancel` (or self.cancel) is set (the list is then shorter). Raises EndpointError when
        the server gives no prompt log-probabilities, EndpointDownError when it cannot be reached."""
        return self._loglikelihoods(contexts, continuation, cancel, self.deadlines)

    def _loglikelihoods(
        self, contexts: Sequence[str], continuation: str, cancel: threading.Event | None, deadlines: Deadlines
    ) -> list[float]:
        """loglikelihoods with each request under `deadlines`."""
        cancels = self._cancels(cancel)
        scores: list[float] = []
        for context in contexts:
            if any(event.is_set() for event in cancels):
                break
            prompt = context + continuation
            body: dict[str, Any] = {"prompt": prompt, "max_tokens": 1, "temperature": 0.0, "echo": True,
                                    "logprobs": 1}  # fmt: skip
            if self.model:
                body["model"] = self.model
            try:
                resp, guard = self._request(body, cancels, deadlines=deadlines)
            except EndpointCancelled:
                break
            try:
                with resp:
                    raw = guard.read(resp, MAX_SCORING_BYTES + 1)  # bounded: a 50 MB reply was read whole
                    why = "" if guard.reason or len(raw) > MAX_SCORING_BYTES else cut_short(resp, len(raw))
                    if why:
                        raise EndpointError(f"the connection to {self.url} broke ({why})")
            except NET_ERRORS as e:
                if guard.reason == "cancelled":
                    break
                raise broke(guard, self.url, e, " while scoring") from None
            finally:
                guard.close()
            if guard.reason == "cancelled":
                break
            if guard.reason:
                raise guard.failure(self.url) or EndpointError(f"endpoint {self.url} gave up")
            data = scoring_json(self.url, raw)
            scores.append(prompt_logprob(data, start=len(context.rstrip()), end=len(prompt), url=self.url))
        self.last_stats = {"scored_contexts": len(scores)}
        return scores
