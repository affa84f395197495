"""RemoteBackend: an OpenAI-compatible /v1/completions endpoint (llama.cpp server, vLLM), streamed (SSE)."""

from __future__ import annotations

import http.client
import json
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Iterator, Sequence
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError

#: What can go wrong in urllib besides an HTTP error status: no route/refused/timeout (URLError, OSError),
#: a bad URL or port (ValueError, http.client.InvalidURL), a server that breaks the protocol (HTTPException).
_NET_ERRORS = (urllib.error.URLError, OSError, ValueError, http.client.HTTPException)


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
    count_tokens asks the server's tokenizer (/extras/tokenize of llama-cpp-python's server, /tokenize of
    llama-server) and falls back to a conservative estimate of one token per 2 UTF-8 bytes.
    Raises UsageError for an endpoint that is not an http(s) URL with a host (check_endpoint), and
    GorillaError (one line) when the server cannot be reached, answers with an error or breaks the protocol.
    """

    def __init__(
        self, endpoint: str, *, n_ctx: int = 4096, name: str = "remote", family: str = "fewshot",
        timeout: float = 120.0, model: str | None = None,
    ) -> None:  # fmt: skip
        self.url = completions_url(endpoint)
        self.base = self.url.rsplit("/v1/", 1)[0]
        self._n_ctx = n_ctx
        self.name = name
        self.family = family
        self.timeout = timeout
        self.model = model
        self.last_stats: dict[str, Any] = {}
        self._tokenize_path: str | None = None

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def _post(self, url: str, body: dict[str, Any], timeout: float) -> Any:
        req = urllib.request.Request(
            url, data=json.dumps(body).encode("utf-8"), headers={"Content-Type": "application/json"}
        )
        return urllib.request.urlopen(req, timeout=timeout)  # noqa: S310 - the user's own endpoint

    def count_tokens(self, text: str) -> int:
        """Prompt tokens of `text` (BOS included) by the server's tokenizer, or len(bytes) // 2 + 1."""
        paths = [self._tokenize_path] if self._tokenize_path else ["/extras/tokenize", "/tokenize"]
        for path in paths:
            try:
                key = "input" if path == "/extras/tokenize" else "content"
                with self._post(self.base + path, {key: text}, 10.0) as resp:
                    tokens = json.loads(resp.read())["tokens"]
                self._tokenize_path = path
                # llama-cpp-python's /extras/tokenize adds BOS itself; llama-server's /tokenize does not
                return len(tokens) + (0 if path == "/extras/tokenize" else 1)
            except (*_NET_ERRORS, KeyError, TypeError):
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
        try:
            resp = self._post(self.url, body, self.timeout)
        except urllib.error.HTTPError as e:
            try:
                detail = e.read()[:200].decode("utf-8", "replace").replace("\n", " ")
            except _NET_ERRORS:
                detail = str(e.reason)
            raise GorillaError(f"endpoint {self.url} answered HTTP {e.code}: {detail}") from None
        except _NET_ERRORS as e:
            reason = getattr(e, "reason", None) or str(e) or type(e).__name__
            raise GorillaError(
                f"cannot reach endpoint {self.url}: {reason}",
                hint="check --endpoint and that the server runs",
            ) from None
        pieces = 0
        try:
            with resp:
                for raw in resp:
                    if cancel is not None and cancel.is_set():
                        break
                    line = raw.decode("utf-8", "replace").strip()
                    if not line.startswith("data:"):
                        continue
                    data = line[5:].strip()
                    if data == "[DONE]":
                        break
                    try:
                        event = json.loads(data)
                        text = event["choices"][0].get("text") or ""
                    except (ValueError, KeyError, IndexError, TypeError):
                        raise GorillaError(
                            f"endpoint {self.url} sent a malformed event: {data[:80]}"
                        ) from None
                    if text:
                        pieces += 1
                        yield text
        except _NET_ERRORS as e:
            raise GorillaError(f"connection to {self.url} broke: {str(e) or type(e).__name__}") from None
        finally:
            self.last_stats = {"pieces": pieces, "cancelled": bool(cancel is not None and cancel.is_set())}
