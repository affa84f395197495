"""Break-it round 18, P1: an endpoint whose tokenizer claims more tokens than a text has bytes is the
server's fault (exit 1, naming the endpoint), not "n_ctx is too small for any prompt" (exit 2, the user's
config blamed). P2: a tokenizer that answers slowly is asked once, then the estimate is used. Against a
small server on 127.0.0.1 whose /extras/tokenize answers `tokens` tokens after `delay` seconds."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gorilla_tui.model import remote_tokens
from gorilla_tui.model.remote import TOKEN_SLACK, Deadlines, ImplausibleTokenCount, RemoteBackend


class Tokenizer:
    """/extras/tokenize answers {"tokens": [0] * self.tokens} (3 MB for a million: under MAX_PLAIN_BYTES, a
    bigger reply is no tokenizer's answer and the count is estimated); other paths 404."""

    def __init__(self) -> None:
        self.tokens = 0
        self.delay = 0.0
        self.asked = 0
        tokenizer = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                tokenizer.asked += 1
                time.sleep(tokenizer.delay)
                body = json.dumps({"tokens": [0] * tokenizer.tokens}).encode()
                self.send_response(200 if self.path == "/extras/tokenize" else 404)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def tokenizer() -> Iterator[Tokenizer]:
    t = Tokenizer()
    yield t
    t.server.shutdown()


def _backend(url: str) -> RemoteBackend:
    return RemoteBackend(url, n_ctx=4096, deadlines=Deadlines(connect=2, read=5, total=10))


@pytest.mark.parametrize("tokens", [12 + TOKEN_SLACK + 1, 1_000_000])
def test_more_tokens_than_bytes_is_the_endpoint_said_so(tokenizer: Tokenizer, tokens: int) -> None:
    tokenizer.tokens = tokens
    with pytest.raises(ImplausibleTokenCount) as caught:
        _backend(tokenizer.url).count_tokens("copy a file!")  # 12 bytes
    error = caught.value
    assert error.exit_code == 1 and "n_ctx" not in str(error)
    assert str(error) == (
        f"endpoint {tokenizer.url}/extras/tokenize counted {tokens:,} tokens in a text of 12 bytes: "
        "its token counts are implausible (a tokenizer makes at most one token per byte)"
    )


@pytest.mark.parametrize("tokens", [0, 4, 12 + TOKEN_SLACK])
def test_a_plausible_count_is_used(tokenizer: Tokenizer, tokens: int) -> None:
    tokenizer.tokens = tokens
    assert _backend(tokenizer.url).count_tokens("copy a file!") == tokens  # /extras/tokenize adds BOS itself


def test_a_slow_tokenizer_is_asked_once(tokenizer: Tokenizer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break-it round 18, P2: a tokenizer that answered after 9 s was asked for every count (~6 an `ask`:
    54 s). One slower than SLOW_TOKENIZER_S gives its count once; the estimate (one token per 2 bytes) is
    used from then on, without asking it again. A fast one is asked each time."""
    monkeypatch.setattr(remote_tokens, "SLOW_TOKENIZER_S", 0.2)
    tokenizer.tokens = 5
    backend = _backend(tokenizer.url)
    assert [backend.count_tokens("copy a file!") for _ in range(3)] == [5, 5, 5]
    assert tokenizer.asked == 3
    tokenizer.delay = 0.5
    assert [backend.count_tokens("copy a file!") for _ in range(3)] == [5, 12 // 2 + 1, 12 // 2 + 1]
    assert tokenizer.asked == 4
