"""Token counts of an OpenAI-compatible endpoint (model/remote.py RemoteBackend.count_tokens): the server's
tokenizer where one answers (``/extras/tokenize`` of llama-cpp-python's server, ``/tokenize`` of
llama-server), else a conservative estimate of one token per 2 UTF-8 bytes (TokenCounter)."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.endpoint_url import server_url
from gorilla_tui.model.remote_budget import AnswerOver
from gorilla_tui.model.remote_http import Deadlines, EndpointCancelled, EndpointError, RequestGuard
from gorilla_tui.model.remote_replies import MAX_PLAIN_BYTES, token_count
from gorilla_tui.model.remote_request import NET_ERRORS, EndpointDownError, broke

#: Seconds a tokenizer may take to answer and still be asked again: a slower one is asked once per backend,
#: and the estimate is used from then on (an `ask` counts about six prompts; a local tokenizer answers in ms).
SLOW_TOKENIZER_S = 2.0
#: Tokens a tokenizer may add to a text besides one per UTF-8 byte at most (byte-level BPE's worst case):
#: BOS, EOS and a few special tokens a server's template adds.
TOKEN_SLACK = 8
#: Longest deadline (s) of one tokenizer request (each of connect, read and total, Deadlines.capped).
TOKENIZE_DEADLINE_S = 10.0
#: The tokenizer paths tried, in order, and the JSON key each takes the text under.
TOKENIZE_PATHS = {"/extras/tokenize": "input", "/tokenize": "content"}

#: How a counter sends one request: (JSON body, URL, deadlines) -> (the open response, its guard), as
#: RemoteBackend._request does for a side request (retries, cancel events, the answer's budget).
Post = Callable[[dict[str, Any], str, Deadlines], tuple[Any, RequestGuard]]


class ImplausibleTokenCount(EndpointError):
    """The endpoint's tokenizer counted more tokens than a text has bytes (exit 1): the server is wrong."""


def estimate(text: str) -> int:
    """The conservative estimate of `text`'s tokens: one per 2 UTF-8 bytes, plus one (BOS)."""
    return len(text.encode("utf-8")) // 2 + 1


class TokenCounter:
    """Counts tokens by one endpoint's tokenizer, remembering which path answers (one counter per backend).

    path: None while not known, "" when no path answers (or one answered slower than SLOW_TOKENIZER_S: the
    estimate is used from then on), else the path that answers.
    """

    def __init__(self) -> None:
        self.path: str | None = None

    def count(self, text: str, url: str, deadlines: Deadlines, post: Post) -> int:
        """Prompt tokens of `text` (BOS included) by the tokenizer of the server of completions URL `url`,
        or estimate(text).

        Args:
            text: the text counted.
            url: the completions URL as shown (its password hidden); the tokenizer's URL is made from it.
            deadlines: the backend's deadlines; each try has them capped at TOKENIZE_DEADLINE_S.
            post: sends one request (see Post).

        Returns:
            The count; a count over the text's UTF-8 bytes + TOKEN_SLACK is no tokenizer's.

        Raises:
            ImplausibleTokenCount: that count (exit 1), not "n_ctx is too small" (exit 2, the user's config
                blamed: break-it round 18, P1).
            EndpointCancelled, EndpointDownError, AnswerOver: from `post` (cancelled, the server cannot be
                reached, the answer's request timed out). Other failures of a path try the next one.
        """
        if self.path == "":
            return estimate(text)
        paths = [self.path] if self.path else list(TOKENIZE_PATHS)
        for path in paths:
            start = time.monotonic()
            try:
                capped = deadlines.capped(TOKENIZE_DEADLINE_S)
                count = self._asked(text, path, server_url(url, path), capped, post)
                if count is None:
                    continue
                # a tokenizer slower than SLOW_TOKENIZER_S is asked once: its count is used, the estimate from
                # then on (one that answered after 9 s cost an `ask` ~54 s: break-it round 18, P2)
                self.path = path if time.monotonic() - start <= SLOW_TOKENIZER_S else ""
                # llama-cpp-python's /extras/tokenize adds BOS itself; llama-server's /tokenize does not
                return count + (0 if path == "/extras/tokenize" else 1)
            except (EndpointCancelled, EndpointDownError, AnswerOver, ImplausibleTokenCount):
                raise
            except (*NET_ERRORS, GorillaError):
                continue
        if self.path is None:
            self.path = ""  # neither path is a tokenizer here
        return estimate(text)

    @staticmethod
    def _asked(text: str, path: str, url: str, deadlines: Deadlines, post: Post) -> int | None:
        """The count tokenizer `path` (at `url`) gives for `text`, None when its reply is no token list."""
        resp, guard = post({TOKENIZE_PATHS.get(path, "content"): text}, url, deadlines)
        try:
            with resp:
                raw = guard.read(resp, MAX_PLAIN_BYTES + 1)
        except NET_ERRORS as e:
            raise broke(guard, url, e) from None
        finally:
            guard.close()
        if guard.reason:  # cancelled (raised here), or the total deadline
            raise guard.failure(url) or EndpointError(f"endpoint {url} gave up")
        if len(raw) > MAX_PLAIN_BYTES:
            return None  # a token list of a prompt is KiB: not a tokenizer's answer
        count = token_count(raw)
        if count is None:
            return None
        most = len(text.encode("utf-8")) + TOKEN_SLACK
        if count > most:  # the server's tokenizer is wrong, not the user's n_ctx (round 18, P1)
            raise ImplausibleTokenCount(
                f"endpoint {url} counted {count:,} tokens in a text of {most - TOKEN_SLACK:,} bytes: "
                "its token counts are implausible (a tokenizer makes at most one token per byte)",
                hint="check the server's tokenizer (its /extras/tokenize or /tokenize path)",
            )
        return count
