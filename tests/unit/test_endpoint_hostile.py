"""Issue 42, kind 1: a remote endpoint that misbehaves. A hostile OpenAI-compatible server on 127.0.0.1
(threads, an ephemeral port) that never sends its headers, drips a byte at a time (headers or body),
streams without end, sends an event of the wrong shape, or redirects to another port. Every request has a
connect, a read and a total deadline (short ones here, through $GORILLA_TUI_ENDPOINT_DEADLINES), a byte
cap, shape checks and no redirects; Ctrl+C ends `ask` at once, the start-up probe included.

Before the fix the start-up probe and `ask` hung (600 s socket timeout, reset by every dripped byte) and
ignored Ctrl+C, a 64 MiB stream was read whole, `{"choices": ["x"]}` was "internal error: AttributeError"
(a whole `eval run --concurrency 4` ended with no answer written) and a 302 was followed."""

from __future__ import annotations

import base64
import json
import os
import signal
import subprocess
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from functools import partial
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.remote import Deadlines, RemoteBackend
from tests.conftest import clone_home
from tests.endpoint_helpers import apibench_line
from tests.endpoint_helpers import in_time as _guarded

CALL = "torch.hub.load(repo_or_dir='zoo/vision', model='resnet_zz', pretrained=True)"
#: Bytes a streaming path sends at most (a client that stops reading ends it sooner).
STREAM_LIMIT = 64 * 2**20
#: Characters of text in the one event (or the one completion) of /huge-event and /huge-plain: 2.4 MB, under
#: the 4 MiB byte cap of a stream (break-it round 6: kept whole, 36 s and 1.4 GB).
HUGE_TEXT = 2_400_000
#: The deadlines of these tests (connect, read, total seconds), and the longest a call may take here.
DEADLINES = "connect=2,read=1,total=3"
HANG_GUARD_S = 20.0
in_time = partial(_guarded, guard_s=HANG_GUARD_S)  # (outcome, seconds) with this file's hang guard


def _logprobs(**fields: object) -> bytes:
    """A scoring reply in OpenAI's echo format with `fields` of choices[0].logprobs replaced."""
    lp = {"tokens": ["a", "b"], "token_logprobs": [None, -1.5], "text_offset": [0, 40]} | fields
    return json.dumps({"choices": [{"text": "x", "logprobs": lp}]}).encode()


#: Scoring replies of the wrong shape (break-it pass 4: TypeError, ValueError, OverflowError or NaN).
SCORING_REPLIES = {
    "tokens-int": _logprobs(tokens=5, text_offset=None),
    "offsets-text": _logprobs(text_offset=["zz", None]),
    "offsets-float": _logprobs(text_offset=[0, 1e300]),
    "logprobs-text": _logprobs(token_logprobs="abc"),
    "logprob-huge": _logprobs().replace(b"-1.5", b"-1" + b"0" * 400),
    "logprob-nan": _logprobs().replace(b"-1.5", b"NaN"),
    "logprob-bool": _logprobs(token_logprobs=[None, True]),
    "lengths-differ": _logprobs(text_offset=[0, 40, 41]),
    "choice-null": b'{"choices": [null]}',
    "vllm-text": json.dumps({"choices": [{"prompt_logprobs": [None, {"1": {"logprob": "x"}}]}]}).encode(),
    "vllm-token": json.dumps(
        {"choices": [{"prompt_logprobs": [None, {"1": {"logprob": -1, "decoded_token": {"a": 1}}}]}]}
    ).encode(),
}


def _event(text: object) -> bytes:
    return b"data: " + json.dumps({"choices": [{"text": text}]}).encode() + b"\n\n"


class Hostile:
    """Two servers: `url` misbehaves by path prefix; `target` answers every POST with a good stream of
    "FROM THE OTHER PORT" (the redirect's Location). `sent` counts the body bytes of each stream,
    `target_hits` the requests the target got, `asked` is set when any request came in."""

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}
        self.target_hits = 0
        self.authorization = ""
        self.paths: list[str] = []  # every request's path, query included
        self.asked = threading.Event()
        self.stop = threading.Event()
        hostile = self

        class Target(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:  # urllib turned a POST redirected by 302 into a GET
                self.rfile.read(int(self.headers.get("Content-Length", 0)))
                hostile.target_hits += 1
                body = _event("FROM THE OTHER PORT") + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            do_GET = do_POST

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: object) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))) or b"{}")
                hostile.asked.set()
                hostile.paths.append(self.path)
                kind = self.path.split("/")[1].split("?")[0]
                try:
                    getattr(self, "_" + kind.replace("-", "_"))(body)
                except OSError:  # the client hung up: what a good client does here
                    pass

            def _silent(self, _body: dict) -> None:  # accepts, reads, never answers
                hostile.stop.wait(60)

            def _drip_headers(self, _body: dict) -> None:  # a status line, then a header a byte at a time
                self.wfile.write(b"HTTP/1.1 200 OK\r\nX-Drip: ")
                self._drip(b"x")

            def _drip_body(self, _body: dict) -> None:  # headers, then the body a byte at a time
                self._stream_headers()
                self._drip(b"d")

            def _drip(self, byte: bytes) -> None:
                while not hostile.stop.wait(0.2):  # each byte well inside the read deadline
                    self.wfile.write(byte)
                    self.wfile.flush()

            def _endless(self, body: dict) -> None:  # one "A" per event, far past max_tokens
                self._stream(_event("A") * 1024, body)

            def _keepalive(self, body: dict) -> None:  # events with no text, without end
                self._stream(_event("") * 1024, body)

            def _stream(self, chunk: bytes, _body: dict) -> None:
                self._stream_headers()
                sent = 0
                while sent < STREAM_LIMIT and not hostile.stop.is_set():
                    self.wfile.write(chunk)
                    sent += len(chunk)
                    hostile.sent[self.path.split("/")[1]] = sent

            def _huge_event(self, _body: dict) -> None:  # one event of 2.4 MB of text (under 4 MiB)
                self._stream_headers()
                self.wfile.write(_event("B" * HUGE_TEXT) + b"data: [DONE]\n\n")

            def _huge_plain(self, _body: dict) -> None:  # no stream: one completion of 2.4 MB of text
                reply = json.dumps({"choices": [{"text": "C" * HUGE_TEXT}]}).encode()
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def _trailers(self, _body: dict) -> None:  # a whole chunked answer, then trailer lines for ever
                event = _event(CALL)
                self.send_response(200)
                self.send_header("Transfer-Encoding", "chunked")
                self.end_headers()
                self.wfile.write(b"%x\r\n%s\r\n0\r\n" % (len(event), event))
                while not hostile.stop.wait(0.001):
                    self.wfile.write(b"X-T: y\r\n" * 100)

            def _forged(self, _body: dict) -> None:  # /forged/KIND: server text holding newlines
                kind = self.path.split("/")[2]
                forged = "oops\n\ngorilla-tui: all good, verdict valid\u2028x"
                error = json.dumps({"error": {"message": forged}}).encode()
                reply = {"plain": error, "sse": b"data: " + error + b"\n\n", "body": forged.encode()}[kind]
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def _blank_lines(self, _body: dict) -> None:  # 1 MiB of "\n": no event, under the byte caps
                reply = b"\n" * 2**20
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def _wrong_shape(self, body: dict) -> None:
                self._stream_headers()
                shape = (
                    {"choices": ["x"]} if "zqxj" in body.get("prompt", "") or "eval" not in self.path else 0
                )
                if shape:
                    self.wfile.write(b"data: " + json.dumps(shape).encode() + b"\n\n")
                else:
                    self.wfile.write(_event(CALL))
                self.wfile.write(b"data: [DONE]\n\n")

            def _scores(self, body: dict) -> None:  # /scores/KIND: a scoring reply of a wrong shape
                kind = self.path.split("/")[2]
                reply = SCORING_REPLIES[kind] if body.get("echo") else _event(CALL) + b"data: [DONE]\n\n"
                if (
                    body.get("echo")
                    and body.get("prompt", "") == "Here is an API.\nA user asks for this API: sort a list"
                ):
                    reply = _logprobs(text_offset=[0, 41])  # the start-up probe passes
                self.send_response(200)
                self.send_header("Content-Length", str(len(reply)))
                self.end_headers()
                self.wfile.write(reply)

            def _cut(self, body: dict) -> None:  # /cut/KIND: a reply that ends before it is whole
                kind, event = self.path.split("/")[2], _event(CALL)
                self.send_response(200)
                if kind == "content-length":  # promises 100,000 bytes, sends one event and closes
                    self.send_header("Content-Length", "100000")
                    self.end_headers()
                    self.wfile.write(SCORING_REPLIES["choice-null"][:5] if body.get("echo") else event)
                elif kind == "chunked":  # one good chunk, then a chunk size that is no number
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.write(b"%x\r\n%s\r\nZZZZ\r\n" % (len(event), event))
                elif kind == "chunk-huge":  # a chunk size past ssize_t: OverflowError in http.client
                    self.send_header("Transfer-Encoding", "chunked")
                    self.end_headers()
                    self.wfile.write(b"8000000000000000\r\nabcde\r\n0\r\n\r\n")
                else:  # "empty": headers and no byte of body
                    self.send_header("Connection", "close")
                    self.end_headers()
                self.close_connection = True

            def _auth(self, _body: dict) -> None:  # answers a good stream, keeps the Authorization header
                hostile.authorization = self.headers.get("Authorization", "")
                if "bad" in self.path:
                    return self._wrong_shape(_body)
                body = _event(CALL) + b"data: [DONE]\n\n"
                self.send_response(200)
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def _redirect(self, _body: dict) -> None:
                self.send_response(302)
                hostile_location = "http://[/x]" if "hostile" in self.path else ""
                self.send_header("Location", hostile_location or f"{hostile.target}/v1/completions")
                self.send_header("Content-Length", "0")
                self.end_headers()

            def _stream_headers(self) -> None:
                self.send_response(200)
                self.send_header("Content-Type", "text/event-stream")
                self.send_header("Connection", "close")
                self.end_headers()

            def do_GET(self) -> None:
                self.send_error(404)

        self.servers = [ThreadingHTTPServer(("127.0.0.1", 0), cls) for cls in (Handler, Target)]
        for httpd in self.servers:
            httpd.daemon_threads = True
            httpd.handle_error = lambda *args: None
            threading.Thread(target=httpd.serve_forever, daemon=True).start()
        self.url, self.target = (f"http://127.0.0.1:{s.server_address[1]}" for s in self.servers)

    def close(self) -> None:
        self.stop.set()
        for httpd in self.servers:
            httpd.shutdown()
            httpd.server_close()


@pytest.fixture
def hostile(monkeypatch: pytest.MonkeyPatch) -> Iterator[Hostile]:
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", DEADLINES)
    server = Hostile()
    yield server
    server.close()


def _answer(url: str, max_tokens: int = 64) -> str:
    return "".join(RemoteBackend(url, n_ctx=2048).complete("task: x\ncall:", max_tokens=max_tokens))


@pytest.mark.parametrize(
    "path, message",
    [
        ("/silent", "sent nothing for 1 s (the read deadline; GORILLA_TUI_ENDPOINT_DEADLINES sets it)"),
        ("/drip-headers", "did not finish within 3 s (the total deadline"),
        ("/drip-body", "did not finish within 3 s (the total deadline"),
    ],
)
def test_no_headers_or_a_drip_ends_at_a_deadline(hostile: Hostile, path: str, message: str) -> None:
    outcome, seconds = in_time(lambda: _answer(hostile.url + path))
    assert isinstance(outcome, GorillaError) and message in str(outcome), outcome
    assert outcome.exit_code == 1 and "\n" not in str(outcome)  # a failed answer, one line
    assert seconds < 10


@pytest.mark.parametrize("path", ["/silent", "/drip-headers", "/drip-body"])
def test_the_start_up_probe_ends_at_a_deadline(hostile: Hostile, path: str) -> None:
    """supports_loglikelihoods (select mode's start-up probe) hung for as long as the server held it."""
    backend = RemoteBackend(hostile.url + path, n_ctx=2048)
    outcome, _ = in_time(backend.supports_loglikelihoods)
    assert outcome is False and "deadline" in backend.scoring_note


def test_a_stream_past_max_tokens_is_not_read_further(hostile: Hostile) -> None:
    outcome, _ = in_time(lambda: _answer(hostile.url + "/endless", max_tokens=64))
    assert outcome == "A" * 64
    time.sleep(0.5)  # the server notices the hang-up
    assert hostile.sent["endless"] < 16 * 2**20  # socket buffers at most; it was the whole 64 MiB


@pytest.mark.parametrize("kind, letter", [("huge-event", "B"), ("huge-plain", "C")])
def test_one_huge_event_or_completion_is_cut_to_64_characters_a_token(
    hostile: Hostile, kind: str, letter: str
) -> None:
    """One event (or a completion sent without a stream) of 2.4 MB of text, under the 4 MiB byte cap: the
    answer is its first max_tokens x 64 characters (remote_replies.text_cap), the rest dropped as the pieces
    past max_tokens are (it was kept whole)."""
    outcome, _ = in_time(lambda: _answer(f"{hostile.url}/{kind}", max_tokens=64))
    assert outcome == letter * (64 * 64), (type(outcome), str(outcome)[:200])


@pytest.mark.parametrize("kind", ["plain", "sse", "body"])
def test_server_text_with_newlines_stays_on_its_one_line(hostile: Hostile, kind: str) -> None:
    """Break-it round 7: an error object's message (a whole reply or an event) or a body that is no
    completion, holding newlines, printed lines of its own after "gorilla-tui: error:" (a forged
    "all good" line); every server text in a message has its newlines escaped (remote_replies.shown)."""
    outcome, _ = in_time(lambda: _answer(f"{hostile.url}/forged/{kind}"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert "\n" not in str(outcome) and "\u2028" not in str(outcome), str(outcome)
    assert "oops\\x0a\\x0agorilla-tui: all good" in str(outcome), str(outcome)


def test_a_reply_of_blank_lines_stops_at_a_line_cap_in_little_memory(hostile: Hostile) -> None:
    """Break-it round 7: a reply of short lines under the 4 MiB cap was kept as a list of its lines, about
    110 times its bytes (4 MiB of "\n": 464 MB, 8-10 s); it is kept in one buffer and read up to
    MAX_IDLE_LINES lines without an event. Python's own allocations are measured (tracemalloc, the peak
    while the reply is read: 1 MiB of "\n" was over 40 MiB)."""
    tracemalloc.start()
    try:
        outcome, _ = in_time(lambda: _answer(f"{hostile.url}/blank-lines"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(outcome, GorillaError) and "sent over 4096 lines that hold no event" in str(outcome)
    assert peak < 16 * 2**20, peak


def test_endless_trailers_after_the_last_chunk_keep_the_answer(hostile: Hostile) -> None:
    """Break-it round 7 (partly held): after the last chunk of a whole answer, trailer lines without end
    held the request to its total deadline (http.client reads trailers with no limit) and the answer was
    dropped. At most MAX_TRAILER_LINES are read: the answer is kept."""
    outcome, _ = in_time(lambda: _answer(f"{hostile.url}/trailers"))
    assert outcome == CALL, outcome


def test_a_stream_of_empty_events_stops_at_the_byte_cap(hostile: Hostile, monkeypatch) -> None:
    """The byte cap, not a deadline, ends a stream of events with no text: the total deadline is made
    longer than this file's 3 s, which reading 4 MiB of events can take on a loaded machine."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", "connect=2,read=1,total=18")
    outcome, _ = in_time(lambda: _answer(hostile.url + "/keepalive", max_tokens=64))
    assert isinstance(outcome, GorillaError), outcome
    assert "sent over 4 MiB of events for an answer of at most 64 tokens" in str(outcome)
    assert hostile.sent["keepalive"] < 16 * 2**20


def test_an_event_of_the_wrong_shape_is_one_line(hostile: Hostile) -> None:
    outcome, _ = in_time(lambda: _answer(hostile.url + "/wrong-shape"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert str(outcome) == (
        f'endpoint {hostile.url}/wrong-shape/v1/completions sent a malformed event: {{"choices": ["x"]}}'
    )


@pytest.mark.parametrize("kind", SCORING_REPLIES)
def test_a_scoring_reply_of_the_wrong_shape_is_one_line(hostile: Hostile, kind: str) -> None:
    """Every field of a scoring reply is shape-checked where it is read: one EndpointError line (exit 1),
    never TypeError / ValueError / OverflowError, never a NaN score."""
    backend = RemoteBackend(f"{hostile.url}/scores/{kind}", n_ctx=2048)
    outcome, _ = in_time(lambda: backend.loglikelihoods(["Here is an API.\nA user asks:"], " sort a list"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert str(outcome).startswith(
        f"endpoint {hostile.url}/scores/{kind}/v1/completions sent a malformed reply: "
    )
    assert "\n" not in str(outcome)


@pytest.mark.parametrize(
    "kind, why",
    [
        ("content-length", "the body ended 998"),
        ("chunked", "the chunked body broke off before its last chunk"),
        ("empty", "the reply ended before any event or completion"),
    ],
)
def test_a_reply_cut_short_is_a_broken_connection(hostile: Hostile, kind: str, why: str) -> None:
    """A body shorter than its Content-Length, broken chunked framing or no body at all: "the connection
    to URL broke (...)", exit 1 (it was judged as the model's answer: "unparseable", "no API call")."""
    outcome, _ = in_time(lambda: _answer(f"{hostile.url}/cut/{kind}"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert str(outcome).startswith(f"the connection to {hostile.url}/cut/{kind}/v1/completions broke ({why}")


def test_a_scoring_reply_cut_short_is_a_broken_connection(hostile: Hostile) -> None:
    backend = RemoteBackend(f"{hostile.url}/cut/content-length", n_ctx=2048)
    outcome, _ = in_time(lambda: backend.loglikelihoods(["Here is an API."], " sort a list"))
    assert isinstance(outcome, GorillaError) and "broke (the body ended 9999" in str(outcome), outcome


def test_credentials_in_the_url_are_sent_as_basic_auth_and_never_shown(hostile: Hostile) -> None:
    """`http://user:s3cret@host`: the user and password go as HTTP Basic auth (urllib took them for the
    host: "Name or service not known") and every message shows `user:***@` (the password was printed)."""
    with_pw = hostile.url.replace("http://", "http://us%20er:s3cret@")
    outcome, _ = in_time(lambda: _answer(with_pw + "/auth"))
    assert outcome == CALL
    assert hostile.authorization == "Basic " + base64.b64encode(b"us er:s3cret").decode()
    outcome, _ = in_time(lambda: _answer(with_pw + "/auth/bad"))
    assert isinstance(outcome, GorillaError), outcome
    assert "s3cret" not in str(outcome) and "http://us%20er:***@127.0.0.1" in str(outcome), outcome
    for bad in ("http://user:s3cret@127.0.0.1:99999", "user:s3cret@127.0.0.1:8080"):
        with pytest.raises(UsageError) as caught:
            RemoteBackend(bad)
        assert "s3cret" not in str(caught.value) and "user:***@" in str(caught.value)


@pytest.mark.parametrize(
    "url", ["http://127.0.0.1:9/\x01v1", "http://127.0.0.1:9/v1\ncompletions", "http://a b"]
)
def test_an_endpoint_with_a_control_character_is_bad_input(url: str) -> None:
    """A control character or a space inside the URL: exit 2 with the URL's other checks (was exit 1,
    "cannot reach")."""
    with pytest.raises(UsageError, match="holds a control character or a space") as caught:
        RemoteBackend(url)
    assert caught.value.exit_code == 2 and "\n" not in str(caught.value)


@pytest.mark.parametrize(
    "url, why",
    [
        ("http://a..b/", "its host 'a..b' is not a valid host name: label empty or too long"),
        ("http://./v1", "its host '.' is not a valid host name"),
        ("http://xn--/", "its host 'xn--' is not a valid host name"),
        ("http://xn--zz.example:8080", "its host 'xn--zz.example' is not a valid host name"),
        ("http://xn--\u00e9/", "Label starts with ACE prefix"),
        ("http://" + "a" * 64 + ".example/", "label empty or too long"),
        (
            "http://127.0.0.1:9/\u00e9/v1",
            "not ASCII in its path or query; percent-encode them: http://127.0.0.1:9/%C3%A9/v1",
        ),
        ("http://127.0.0.1:9/v1?model=\u00e9", "percent-encode them: http://127.0.0.1:9/v1?model=%C3%A9"),
        ("http://:80/", "is not an http(s) URL with a host"),
        ("http://127.0.0.1:99999", "Port out of range"),
        ("http://127.0.0.1:0/", "port 0 is no server's port"),
        ("http://127.0.0.1:9/ok#frag", "has a fragment (#...), which is never sent to a server"),
        ("http://[::1/", "Invalid IPv6 URL"),
    ],
)
def test_a_malformed_endpoint_is_one_line_of_bad_input(url: str, why: str) -> None:
    """Break-it round 6: an IDNA error ("a..b") or a non-ASCII path failed at the request, as "cannot
    reach" (exit 1) or a traceback; every URL the request would refuse is refused first: one line, exit 2."""
    with pytest.raises(UsageError) as caught:
        RemoteBackend(url)
    assert why in str(caught.value) and "\n" not in str(caught.value), str(caught.value)
    assert caught.value.exit_code == 2


def test_a_query_in_the_endpoint_is_kept_after_the_path(hostile: Hostile) -> None:
    """`--endpoint http://h/auth?key=1`: the path is joined before the query, which every request keeps (the
    completions and the tokenizer's); it was "/auth?key=1/v1/completions"."""
    backend = RemoteBackend(hostile.url + "/auth?key=1", n_ctx=2048)
    assert backend.url == hostile.url + "/auth/v1/completions?key=***"  # the URL messages show: no secret
    outcome, _ = in_time(lambda: "".join(backend.complete("task: x\ncall:", max_tokens=64)))
    assert outcome == CALL
    backend.count_tokens("sort a list")
    assert hostile.paths[:2] == ["/auth/v1/completions?key=1", "/auth/extras/tokenize?key=1"], hostile.paths
    for given, sent in [("http://h/v1?a=1&b=/v1/", "http://h/v1/completions?a=1&b=/v1/"),
                        ("http://h/v1/completions/?k", "http://h/v1/completions?k"),
                        ("http://h?k=1", "http://h/v1/completions?k=1")]:  # fmt: skip
        assert RemoteBackend(given).url == sent


def test_a_loopback_endpoint_bypasses_proxies_and_a_proxy_is_named(
    hostile: Hostile, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Break-it round 7: $http_proxy was honoured for a 127.0.0.1 endpoint (the prompt and its Basic auth
    went to the proxy), and a proxy that failed was blamed on the endpoint ("cannot reach endpoint ...:
    Name or service not known"; a socks5:// proxy: "unknown url type", exit 1). A loopback endpoint never
    goes through a proxy; another names the proxy it went through, exit 2 (a setup to fix)."""
    for var in ("http_proxy", "HTTP_PROXY", "https_proxy", "HTTPS_PROXY"):
        monkeypatch.setenv(var, "http://no-such-proxy.invalid:3128")
    monkeypatch.delenv("no_proxy", raising=False)
    monkeypatch.delenv("NO_PROXY", raising=False)
    outcome, _ = in_time(lambda: _answer(hostile.url + "/auth"))
    assert outcome == CALL  # straight to 127.0.0.1
    for proxy in ("http://127.0.0.1:9", "socks5://127.0.0.1:9"):
        monkeypatch.setenv("http_proxy", proxy)
        monkeypatch.setenv("HTTP_PROXY", proxy)
        outcome, _ = in_time(lambda: _answer("http://api.example.invalid:8080"))
        assert isinstance(outcome, GorillaError) and outcome.exit_code == 2, outcome
        assert f"through the proxy {proxy} (from the environment)" in str(outcome), outcome


def test_a_redirect_is_refused_naming_its_location(hostile: Hostile) -> None:
    outcome, _ = in_time(lambda: _answer(hostile.url + "/redirect"))
    assert isinstance(outcome, GorillaError), outcome
    assert f"answered HTTP 302, a redirect to {hostile.target}/v1/completions" in str(outcome)
    assert hostile.target_hits == 0
    # break-it round 7: a Location urllib cannot parse was "cannot reach endpoint ... does not appear to be
    # an IPv4 or IPv6 address"; it is never parsed, only shown
    outcome, _ = in_time(lambda: _answer(hostile.url + "/redirect/hostile"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert "answered HTTP 302, a redirect to http://[/x]: redirects are not followed" in str(outcome)


def test_eval_run_counts_a_wrong_shaped_event_as_one_failed_task(
    hostile: Hostile, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """`eval run --endpoint --concurrency 4`: one task's reply of the wrong shape is that task's failure
    (its reason in its line); the run goes on and the other answers are written. The deadlines are the
    defaults' order here: this is about shapes, and four answers at once on a loaded 2-core machine took
    longer than the file's 3 s total (2 of 12 runs at load 6 failed the good answers)."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", "connect=10,read=10,total=60")
    docs = [apibench_line("resnet_zz", "ResNet image classifier"),
            apibench_line("densenet_zz", "DenseNet image classifier")]  # fmt: skip
    pool, eval_file, out = tmp_path / "pool.jsonl", tmp_path / "eval.jsonl", tmp_path / "out.jsonl"
    pool.write_text("".join(json.dumps(d) + "\n" for d in docs))
    questions = ["classify images with a ResNet", "classify zqxj images with a DenseNet",
                 "an image classifier like ResNet", "find objects in pictures with a DenseNet"]  # fmt: skip
    eval_file.write_text("".join(
        json.dumps({"code": f"###Instruction: {q}\n###Output: x", "api_data": docs[i % 2]}) + "\n"
        for i, q in enumerate(questions)))  # fmt: skip
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(eval_file), "--pool", str(pool),
            "--retriever", "bm25", "--mode", "generate", "--endpoint", f"{hostile.url}/wrong-shape/eval",
            "--concurrency", "4", "--out", str(out)]  # fmt: skip
    outcome, _ = in_time(lambda: main(argv))
    assert outcome == 0, outcome
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [line["question_id"] for line in lines] == [1, 2, 3, 4]
    errors = [line.get("error") or "" for line in lines]
    assert "sent a malformed event" in errors[1] and not errors[0] and not errors[2] and not errors[3]


def test_eval_run_that_cannot_write_its_answers_is_one_line(hostile: Hostile, tmp_path: Path) -> None:
    """Break-it round 7: `eval run --out` on a full disk was "internal error: OSError [Errno 28]", exit 1.
    A write that fails is one line naming the file, exit 2, the lines before it kept. The file size limit
    (RLIMIT_FSIZE, SIGXFSZ ignored: write(2) fails with EFBIG) stands in for a full disk: the same OSError
    from the same write, without mounting a file system."""
    docs = [apibench_line("resnet_zz", "ResNet image classifier")]
    pool, eval_file, out = tmp_path / "pool.jsonl", tmp_path / "eval.jsonl", tmp_path / "out.jsonl"
    pool.write_text(json.dumps(docs[0]) + "\n")
    eval_file.write_text(
        json.dumps({"code": "###Instruction: classify images\n###Output: x", "api_data": docs[0]}) + "\n"
    )
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(eval_file), "--pool", str(pool),
            "--retriever", "bm25", "--mode", "generate", "--endpoint", f"{hostile.url}/wrong-shape/eval",
            "--out", str(out)]  # fmt: skip
    code = (
        "import resource, signal, sys\n"
        "from gorilla_tui.cli import main\n"
        "from gorilla_tui.retrieve.fit import english_probability\n"
        "english_probability('classify images')\n"  # py3langid writes its model out once it is loaded
        "signal.signal(signal.SIGXFSZ, signal.SIG_IGN)\n"
        "resource.setrlimit(resource.RLIMIT_FSIZE, (64, 64))\n"
        f"sys.exit(main({argv!r}))\n"
    )
    root = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    done = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2, done.stderr
    assert f"gorilla-tui: error: cannot write {out}: File too large" in done.stderr.splitlines(), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


def test_eval_run_counts_a_wrong_shaped_scoring_reply_as_failed_tasks(
    hostile: Hostile, tmp_path: Path
) -> None:
    """`eval run --mode select --concurrency 4`: the start-up probe passes, then every scoring reply is of
    the wrong shape: each task fails with its one line, every answer is written and the run, in which
    every task failed, exits 1 and says so (before: "internal error: TypeError", no file written)."""
    docs = [apibench_line("resnet_zz", "ResNet image classifier"),
            apibench_line("densenet_zz", "DenseNet image classifier")]  # fmt: skip
    pool, eval_file, out = tmp_path / "pool.jsonl", tmp_path / "eval.jsonl", tmp_path / "out.jsonl"
    pool.write_text("".join(json.dumps(d) + "\n" for d in docs))
    eval_file.write_text("".join(
        json.dumps({"code": f"###Instruction: classify images {i}\n###Output: x", "api_data": docs[i % 2]})
        + "\n" for i in range(4)))  # fmt: skip
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(eval_file), "--pool", str(pool),
            "--retriever", "bm25", "--mode", "select", "--endpoint", f"{hostile.url}/scores/tokens-int",
            "--concurrency", "4", "--out", str(out)]  # fmt: skip
    outcome, _ = in_time(lambda: main(argv))
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 4 and all("sent a malformed reply" in (line.get("error") or "") for line in lines)
    assert outcome == 1, outcome


@pytest.mark.slow
def test_ctrl_c_ends_ask_against_a_server_that_never_answers(
    hostile: Hostile, home_template, gorilla_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """SIGINT to `python -m gorilla_tui ask --endpoint` while the server holds its request (the start-up
    probe for log-probabilities, with the default 600 s deadlines): it exits at once, one line, no
    traceback (before: it ignored two SIGINTs for 12 minutes)."""
    clone_home(home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home)
    monkeypatch.delenv("GORILLA_TUI_ENDPOINT_DEADLINES")
    root = str(Path(__file__).resolve().parents[2])  # this checkout, ahead of any installed copy
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")])))
    proc = subprocess.Popen(
        [sys.executable, "-m", "gorilla_tui", "ask", "compute the md5 of a file", "--endpoint",
         f"{hostile.url}/silent"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert hostile.asked.wait(60), "the ask never reached the server"
        time.sleep(0.3)
        sent = time.monotonic()
        proc.send_signal(signal.SIGINT)
        _, err = proc.communicate(timeout=HANG_GUARD_S)
        seconds = time.monotonic() - sent
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate()
    assert proc.returncode == 130 and err == "gorilla-tui: interrupted\n", (proc.returncode, err)
    assert seconds < 5


@pytest.mark.parametrize(
    "text", ["total=-1", "total=nan", "read", "wait=5", "connect=5,read=x", "read=1e10", "connect=1e300"]
)
def test_a_bad_deadlines_setting_is_a_usage_error(text: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """$GORILLA_TUI_ENDPOINT_DEADLINES of another shape, or over a day (read=1e10 overflowed the socket
    timeout: "internal error: OverflowError", break-it round 5): one line, exit 2, before any request."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", text)
    with pytest.raises(UsageError, match="GORILLA_TUI_ENDPOINT_DEADLINES=") as caught:
        RemoteBackend("http://127.0.0.1:9", n_ctx=2048)
    assert caught.value.exit_code == 2
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", " read=2.5 , total=30")
    assert RemoteBackend("http://127.0.0.1:9").deadlines == Deadlines(connect=10.0, read=2.5, total=30.0)


def test_a_chunk_size_past_ssize_t_is_a_broken_connection(hostile: Hostile) -> None:
    """Break-it round 6: chunk size 8000000000000000 raised OverflowError in http.client ("internal error",
    and `eval run` wrote no answer); it is one line about the connection, exit 1."""
    outcome, _ = in_time(lambda: _answer(f"{hostile.url}/cut/chunk-huge"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert f"{hostile.url}/cut/chunk-huge/v1/completions broke" in str(outcome), outcome


def test_a_secret_in_the_query_is_never_shown(hostile: Hostile) -> None:
    """`?api_key=SECRET`: the query goes to the server as written, and every message shows `api_key=***`
    (break-it round 8: the password was hidden and the query's key printed in the error note)."""
    query = "?api_key=SECRET1&model=x&X-Amz-Signature=S2"
    outcome, _ = in_time(lambda: _answer(hostile.url + "/auth/bad" + query))
    assert isinstance(outcome, GorillaError), outcome
    assert "SECRET1" not in str(outcome) and "S2" not in str(outcome), outcome
    assert "api_key=***&model=x&X-Amz-Signature=***" in str(outcome), outcome
