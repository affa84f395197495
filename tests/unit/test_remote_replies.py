"""Break-it pass 10: an OpenAI-compatible endpoint whose reply is no event stream (not JSON, a JSON error,
a completion object from a server that ignores "stream": true, an oversized body) was read as an empty
answer: "the model gave no API call". RemoteBackend.complete now uses a whole completion object and says
in one line what any other reply was. A real HTTP server on localhost sends each reply."""

from __future__ import annotations

import json
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gorilla_tui.errors import GorillaError
from gorilla_tui.model.remote import RemoteBackend

CALL = "torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)"
REPLIES = {
    "/plain-completion": json.dumps({"choices": [{"text": CALL, "index": 0}]}).encode(),
    "/error": json.dumps({"error": {"message": "model \x1b[31mnot loaded", "code": 503}}).encode(),
    "/not-json": b"\x1b]0;pwned\x07 <html>busy</html>",
    "/wrong-shape": json.dumps({"choices": "nope"}).encode(),
    "/huge": json.dumps({"choices": [{"text": "A" * (5 * 2**20)}]}).encode(),
    "/deep": b"[" * 100_000 + b"]" * 100_000,
    "/deep-error": b'{"error": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
    "/fifty-mb-line": b"x" * (50 * 2**20),
    "/deep-event": b"data: " + b"[" * 100_000 + b"]" * 100_000 + b"\n\n",
    "/number-event": b'data: {"choices": [{"text": 5}]}\n\n',
    "/stream": (f"data: {json.dumps({'choices': [{'text': CALL}]})}\n\ndata: [DONE]\n\n").encode(),
}


class _Handler(BaseHTTPRequestHandler):
    def log_message(self, *args) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length", 0)))
        if self.path.startswith(("/silent", "/drip")):
            return self._hold()
        body = next(reply for prefix, reply in REPLIES.items() if self.path.startswith(prefix + "/"))
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _hold(self) -> None:
        """/silent: no answer at all for 60 s; /drip: headers, then one byte every 0.2 s with no newline
        (each within the client's socket timeout) for 60 s or until the client hangs up."""
        if self.path.startswith("/drip"):
            self.send_response(200)
            self.send_header("Content-Type", "text/event-stream")
            self.end_headers()
        for _ in range(300):
            time.sleep(0.2)
            if self.path.startswith("/drip"):
                try:
                    self.wfile.write(b"x")
                    self.wfile.flush()
                except OSError:
                    return


@pytest.fixture(scope="module")
def server():
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Handler)
    httpd.handle_error = lambda *args: None  # a client that hangs up on a 50 MB body: BrokenPipeError
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{httpd.server_address[1]}"
    httpd.shutdown()


def _answer(server: str, path: str) -> str:
    backend = RemoteBackend(f"{server}{path}", n_ctx=2048)
    return "".join(backend.complete("task: classify images\ncall:", max_tokens=64))


def test_a_stream_and_a_plain_completion_object_give_the_same_answer(server) -> None:
    assert _answer(server, "/stream") == CALL
    assert _answer(server, "/plain-completion") == CALL


@pytest.mark.parametrize(
    "path, message",
    [
        ("/error", "answered with an error: model \\x1b[31mnot loaded"),
        ("/not-json", "sent no completion (neither an event stream nor one): \\x1b]0;pwned\\x07 <html>busy"),
        ("/wrong-shape", 'sent no completion (neither an event stream nor one): {"choices": "nope"}'),
        ("/huge", "sent no event stream but a reply over 4 MiB"),
        # break-it pass 11: json.loads raised RecursionError (a traceback) on JSON nested 100000 deep
        ("/deep", "sent no completion (neither an event stream nor one): [[[["),
        ("/deep-error", 'sent no completion (neither an event stream nor one): {"error": [[['),
        ("/fifty-mb-line", "sent no event stream but a reply over 4 MiB"),
        ("/deep-event", "sent a malformed event: [[[["),
        ("/number-event", 'sent a malformed event: {"choices": [{"text": 5}]}'),
    ],
)
def test_any_other_reply_is_one_line_saying_what_came(server, path, message) -> None:
    with pytest.raises(GorillaError) as caught:
        _answer(server, path)
    assert message in str(caught.value) and "\x1b" not in str(caught.value)
    assert str(caught.value).startswith(f"endpoint {server}{path}/v1/completions ")


def test_a_body_of_one_50_mb_line_is_not_held_in_memory_whole(server) -> None:
    """Break-it pass 11: `for raw in resp` read a reply with no newline as one line, however long (50 MB
    here, gigabytes from a hostile server); the reply is now read in lines of at most 4 MiB + 1 and given
    up once it is over 4 MiB."""
    import tracemalloc

    tracemalloc.start()
    try:
        with pytest.raises(GorillaError, match="over 4 MiB"):
            _answer(server, "/fifty-mb-line")
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 20 * 2**20, f"peak {peak / 2**20:.0f} MiB"


@pytest.mark.parametrize("path", ["/silent", "/drip"])
def test_ctrl_c_stops_an_ask_whose_server_never_finishes(server, path) -> None:
    """Break-it pass 11: Ctrl+C in `ask` only sets the cancel event, which was looked at between lines: a
    server that never sent its headers (urlopen waits up to the 600 s timeout) or dripped a byte every
    0.2 s with no newline (the timeout counts from the last byte: forever) could not be stopped. The
    request now gives up once the event is set, and the connection being read is shut down."""
    backend = RemoteBackend(f"{server}{path}", n_ctx=2048)
    cancel = threading.Event()
    outcome: list[object] = []

    def ask() -> None:
        try:
            outcome.append("".join(backend.complete("task: x\ncall:", max_tokens=8, cancel=cancel)))
        except GorillaError as e:
            outcome.append(str(e))

    asker = threading.Thread(target=ask, daemon=True)
    asker.start()
    asker.join(1.0)
    assert asker.is_alive()  # the server holds it
    cancel.set()
    asker.join(30)  # a hang guard: it stops within a fraction of a second; it hung for 60 s before
    assert not asker.is_alive()
    assert outcome == ([f"request to {server}{path}/v1/completions cancelled"] if path == "/silent" else [""])
    assert backend.last_stats["cancelled"] if path == "/drip" else True


@pytest.mark.parametrize(
    "path, message",
    [
        ("/deep", "sent no JSON while scoring: b'[[[["),
        ("/fifty-mb-line", "sent a reply over 32 MiB while scoring"),
    ],
)
def test_scoring_replies_nested_too_deeply_or_too_big_are_one_line(server, path, message) -> None:
    """Break-it pass 11: select mode's default scoring (loglikelihoods: echo + logprobs) read the reply
    whole (50 MB here) and json.loads raised RecursionError on JSON nested 100000 deep: a traceback. The
    token count (/extras/tokenize, /tokenize) fell over the same way; it now falls back to its estimate."""
    backend = RemoteBackend(f"{server}{path}", n_ctx=2048)
    with pytest.raises(GorillaError) as caught:
        backend.loglikelihoods(["task: classify images\ncall:"], " x")
    assert message in str(caught.value) and str(caught.value).startswith(f"endpoint {server}{path}/v1/")
    text = "task: classify images"
    assert backend.count_tokens(text) == len(text.encode()) // 2 + 1
