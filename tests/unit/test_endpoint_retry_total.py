"""The total deadline bounds a request with all its tries and the waits between them (break-it round 11,
R11-6): with GORILLA_TUI_ENDPOINT_DEADLINES total=5, a server that always answered 429 with a long
Retry-After held `ask` for 4 waits of 30 s (121 s), and each try had a whole total of its own. Against a
small server on 127.0.0.1 that counts the tries it gets."""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.remote import Deadlines, RemoteBackend
from tests.endpoint_helpers import in_time

#: Longest a call may run here before the test calls it hung (on main the 429 case waits 120 s).
HANG_GUARD_S = 20.0


def _in_time(fn: Callable[[], Any]) -> Any:
    """What fn() returned or raised, with this file's hang guard (tests/endpoint_helpers.py in_time)."""
    return in_time(fn, HANG_GUARD_S)[0]


class Busy:
    """A server that answers every POST with an error status: /r429 is 429 with `Retry-After: 100000`,
    /r503 is 503 with `Retry-After: 1.5`; `hits` counts the tries of each path."""

    def __init__(self) -> None:
        self.hits: dict[str, int] = {}
        busy = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                kind = self.path.split("/")[1]
                busy.hits[kind] = busy.hits.get(kind, 0) + 1
                status, after = (429, "100000") if kind == "r429" else (503, "1.5")
                body = b"slow down"
                self.send_response(status)
                self.send_header("Retry-After", after)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def busy() -> Iterator[Busy]:
    server = Busy()
    yield server
    server.server.shutdown()


def _answer(url: str, total: float) -> str:
    backend = RemoteBackend(url, n_ctx=2048, deadlines=Deadlines(connect=2, read=2, total=total))
    return "".join(backend.complete("task: x\ncall:", max_tokens=8))


def test_a_retry_wait_past_the_total_deadline_is_not_begun(busy: Busy) -> None:
    """429 with Retry-After 100000 (30 s, the cap) and total=3: one try, then one line saying why, at once
    (main waited 4 x 30 s)."""
    outcome = _in_time(lambda: _answer(busy.url + "/r429", 3))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert str(outcome) == (
        f"endpoint {busy.url}/r429/v1/completions answered HTTP 429: slow down; a wait of 30 s for another "
        "try would pass the total deadline of 3 s (GORILLA_TUI_ENDPOINT_DEADLINES sets it)"
    )
    assert busy.hits == {"r429": 1}


def test_the_tries_and_their_waits_share_one_total_deadline(busy: Busy) -> None:
    """503 with Retry-After 1.5 and total=2: the first wait fits, the second does not, so two tries at
    most (main made all 5, over 6 s); the line says so."""
    outcome = _in_time(lambda: _answer(busy.url + "/r503", 2))
    assert isinstance(outcome, GorillaError) and "\n" not in str(outcome)
    assert "answered HTTP 503" in str(outcome) and "would pass the total deadline of 2 s" in str(outcome)
    assert 1 <= busy.hits["r503"] <= 2


def test_the_start_up_probe_is_bounded_with_its_retries(busy: Busy) -> None:
    """supports_loglikelihoods (its deadlines capped at 60 s) against the 429 server with total=3."""
    backend = RemoteBackend(busy.url + "/r429", n_ctx=2048, deadlines=Deadlines(total=3))
    assert _in_time(backend.supports_loglikelihoods) is False
    assert "would pass the total deadline of 3 s" in backend.scoring_note
    assert busy.hits == {"r429": 1}
