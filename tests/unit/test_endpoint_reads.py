"""Break-it round 17 (issue 42, kind 1), one test per class fixed:

- R17-1: every read of a reply of the endpoint has a byte cap and runs while the request's guard watches
  the total deadline and Ctrl+C. The body of an error status (4xx/5xx) was read whole after the guard had
  let go: a 500 whose body dripped a byte at a time held `ask`, the start-up probe for log-probabilities
  and `eval run --concurrency 3` past every deadline and ignored Ctrl+C; an endless 400 body grew to
  "internal error: MemoryError". Now every read goes through RequestGuard.read (checked on the source
  below), and an error body is read in open_request, at most ERROR_BODY_BYTES of it.
- P1: a server that answers something that is not HTTP/1.x (over 100 header lines, a status line
  "HTTP/1.1 2OO OK", no status line at all) was "cannot reach endpoint ... check that the server runs";
  it is "answered with something that is not valid HTTP", exit 1 as before.

The hostile server is a raw socket server on 127.0.0.1 (an ephemeral port, a thread per connection): the
replies here are ones http.server will not write. Deadlines are small (connect=2,read=1,total=3 through
$GORILLA_TUI_ENDPOINT_DEADLINES); HANG_GUARD_S only calls a test hung, no time is asserted.
"""

from __future__ import annotations

import ast
import json
import socket
import threading
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import GorillaError
from gorilla_tui.model.remote import EndpointCancelled, RemoteBackend
from tests.conftest import SMALL_POOL, clone_home
from tests.endpoint_helpers import apibench_line, in_time

ROOT = Path(__file__).resolve().parents[2]
DEADLINES = "connect=2,read=1,total=3"
#: Longest a call may run before the test calls it hung (on main the drip cases never ended).
HANG_GUARD_S = 30.0


def _outcome(fn: Callable[[], Any]) -> Any:
    """What fn() returned or raised, with this file's hang guard (tests/endpoint_helpers.py in_time)."""
    return in_time(fn, HANG_GUARD_S)[0]


#: Bytes the endless error bodies send at most (a client that stops reading ends them sooner).
ENDLESS_LIMIT = 256 * 2**20
CHUNK = b"%x\r\n%s\r\n" % (65536, b"A" * 65536)


class RawServer:
    """Answers each request by its path's first part: err500-drip / err400-drip (the status and headers,
    then one body byte every 0.2 s, inside the read deadline, until closed), err400-endless /
    err500-endless (a chunked body of "A" without end, up to ENDLESS_LIMIT), many-headers (150 header
    lines), bad-status ("HTTP/1.1 2OO OK"), no-status (an event, no status line). `sent`: body bytes sent
    per path kind; `asked`: set once a request came in."""

    def __init__(self) -> None:
        self.sent: dict[str, int] = {}
        self.asked = threading.Event()
        self.stop = threading.Event()
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self) -> None:
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _serve(self, conn: socket.socket) -> None:
        with conn:
            try:
                data = b""
                while b"\r\n\r\n" not in data:
                    more = conn.recv(65536)
                    if not more:
                        return
                    data += more
                self.asked.set()
                kind = data.split(b" ", 2)[1].decode().split("/")[1]
                self._answer(conn, kind)
            except OSError:  # the client hung up: what a good client does here
                pass

    def _answer(self, conn: socket.socket, kind: str) -> None:
        status = b"500 Internal Server Error" if kind.startswith("err500") else b"400 Bad Request"
        if kind.endswith("-drip"):
            conn.sendall(b"HTTP/1.1 " + status + b"\r\nContent-Type: text/plain\r\n\r\n")
            while not self.stop.wait(0.2):
                conn.sendall(b"x")
        elif kind.endswith("-endless"):
            conn.sendall(b"HTTP/1.1 " + status + b"\r\nTransfer-Encoding: chunked\r\n\r\n")
            while self.sent.get(kind, 0) < ENDLESS_LIMIT and not self.stop.is_set():
                conn.sendall(CHUNK)
                self.sent[kind] = self.sent.get(kind, 0) + len(CHUNK)
        elif kind == "many-headers":
            headers = b"".join(b"X-H%d: v\r\n" % i for i in range(150))
            conn.sendall(b"HTTP/1.1 200 OK\r\n" + headers + b"\r\n" + _event("x"))
        elif kind == "bad-status":
            conn.sendall(b"HTTP/1.1 2OO OK\r\n\r\n" + _event("x"))
        elif kind == "no-status":
            conn.sendall(_event("torch.hub.load('a', 'b')") + b"data: [DONE]\n\n")

    def close(self) -> None:
        self.stop.set()
        self.sock.close()


def _event(text: str) -> bytes:
    return b"data: " + json.dumps({"choices": [{"text": text}]}).encode() + b"\n\n"


@pytest.fixture
def raw(monkeypatch: pytest.MonkeyPatch) -> Iterator[RawServer]:
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", DEADLINES)
    server = RawServer()
    yield server
    server.close()


def _answer(url: str, cancel: threading.Event | None = None) -> str:
    backend = RemoteBackend(url, n_ctx=2048, cancel=cancel)
    return "".join(backend.complete("task: x\ncall:", max_tokens=64))


# ---------------------------------------------------------------------------------------------------------
# R17-1: the body of an error status


@pytest.mark.parametrize("kind", ["err500-drip", "err400-drip"])
def test_an_error_status_whose_body_drips_ends_at_the_total_deadline(raw: RawServer, kind: str) -> None:
    """A completion and the start-up probe for log-probabilities, both against a 500 (retried) and a 400
    whose body comes a byte every 0.2 s: one line at the total deadline, exit 1."""
    outcome = _outcome(lambda: _answer(f"{raw.url}/{kind}"))
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert "did not finish within 3 s (the total deadline" in str(outcome) and "\n" not in str(outcome)
    backend = RemoteBackend(f"{raw.url}/{kind}", n_ctx=2048)
    assert _outcome(backend.supports_loglikelihoods) is False
    assert "did not finish within 3 s" in backend.scoring_note, backend.scoring_note


def test_ctrl_c_ends_a_request_whose_error_body_drips(
    raw: RawServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """With deadlines of an hour, the cancel event (what Ctrl+C sets in `ask` and `eval run`) ends the
    start-up probe while the error body drips; it ignored two SIGINTs."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", "connect=3600,read=3600,total=3600")
    cancel = threading.Event()
    backend = RemoteBackend(f"{raw.url}/err400-drip", n_ctx=2048, cancel=cancel)
    threading.Thread(target=lambda: raw.asked.wait(HANG_GUARD_S) and cancel.set(), daemon=True).start()
    outcome = _outcome(backend.supports_loglikelihoods)
    assert isinstance(outcome, EndpointCancelled), outcome


@pytest.mark.parametrize("kind, status", [("err400-endless", 400), ("err500-endless", 500)])
def test_an_endless_error_body_is_read_only_for_its_message(raw: RawServer, kind: str, status: int) -> None:
    """A chunked error body without end: the answer fails with the status and the body's first 200
    characters, one line, and next to nothing of it is read or kept (it grew to 1.8 GB, then "internal
    error: MemoryError"). Python's own allocations are measured (tracemalloc's peak)."""
    tracemalloc.start()
    try:
        outcome = _outcome(lambda: _answer(f"{raw.url}/{kind}"))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert isinstance(outcome, GorillaError) and outcome.exit_code == 1, outcome
    assert f"answered HTTP {status}" in str(outcome) and "A" * 200 in str(outcome), str(outcome)[:300]
    assert "A" * 201 not in str(outcome) and "\n" not in str(outcome)
    assert peak < 16 * 2**20, peak
    # the client stopped reading: socket buffers at most (none counted when the client hung up during the
    # first chunk, which then never finished sending: the server counts a chunk once it is sent whole)
    assert raw.sent.get(kind, 0) < ENDLESS_LIMIT


def test_eval_run_against_a_dripping_error_body_writes_each_failed_task(
    raw: RawServer, tmp_path: Path
) -> None:
    """`eval run --concurrency 3` against a 500 whose body drips: every task fails with its line at the
    deadline, the answers are written, and the run ends, exit 1 (it hung with no answer file)."""
    docs = [apibench_line("resnet_zz", "ResNet image classifier"),
            apibench_line("densenet_zz", "DenseNet image classifier")]  # fmt: skip
    pool, eval_file, out = tmp_path / "pool.jsonl", tmp_path / "eval.jsonl", tmp_path / "out.jsonl"
    pool.write_text("".join(json.dumps(d) + "\n" for d in docs))
    eval_file.write_text("".join(
        json.dumps({"code": f"###Instruction: classify images {i}\n###Output: x", "api_data": docs[i % 2]})
        + "\n" for i in range(3)))  # fmt: skip
    argv = ["eval", "run", "--hub", "torchhub", "--eval", str(eval_file), "--pool", str(pool),
            "--retriever", "bm25", "--endpoint", f"{raw.url}/err500-drip", "--concurrency", "3",
            "--out", str(out)]  # fmt: skip
    assert _outcome(lambda: main(argv)) == 1
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert len(lines) == 3 and all("within 3 s" in (line.get("error") or "") for line in lines), lines


def test_every_read_of_a_reply_goes_through_the_guard() -> None:
    """The class, on the source: in model/remote*.py a reply is read only inside RequestGuard.read (which
    takes a byte cap and runs under the guard) and http.client's trailer reader bounded in remote_http;
    `e.read()` of an error body in remote_request was the one that escaped. A call to read, read1,
    readinto, readline(s) or iter(resp) anywhere else fails this test."""
    allowed = {("remote_http.py", "read"), ("remote_http.py", "_bounded_trailer")}
    found = []
    for path in sorted((ROOT / "gorilla_tui" / "model").glob("remote*.py")):
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for func in ast.walk(tree):
            if not isinstance(func, (ast.FunctionDef, ast.AsyncFunctionDef)):
                continue
            for node in ast.walk(func):
                reads = isinstance(node, ast.Call) and (
                    isinstance(node.func, ast.Attribute)
                    and node.func.attr in {"read", "read1", "readinto", "readline", "readlines"}
                    and not (isinstance(node.func.value, ast.Name) and node.func.value.id == "guard")
                    or isinstance(node.func, ast.Name)
                    and node.func.id == "iter"
                    and len(node.args) == 1
                    and not isinstance(node.args[0], ast.Call)  # iter(d.values()) reads no reply
                )
                if reads and (path.name, func.name) not in allowed:
                    found.append(f"{path.name}:{node.lineno} in {func.name}")
    assert not found, found


# ---------------------------------------------------------------------------------------------------------
# P1: a reply that is not HTTP


@pytest.fixture
def torchhub_home(home_template, gorilla_home: Path) -> Path:
    """gorilla_home with a BM25 index of the small pool's Torch Hub docs."""
    template = home_template(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)])
    return clone_home(template, gorilla_home)


@pytest.mark.parametrize(
    "kind, why",
    [
        ("many-headers", "got more than 100 headers"),
        ("bad-status", "HTTP/1.1 2OO OK"),
        ("no-status", 'data: {"choices"'),
    ],
)
def test_a_reply_that_is_not_http_is_said_to_be_so(
    raw: RawServer, torchhub_home: Path, capsys: pytest.CaptureFixture[str], kind: str, why: str
) -> None:
    """`ask --endpoint`: one line saying the server answered something that is not valid HTTP, its hint,
    exit 1 (was "cannot reach endpoint", hint "check that the server runs")."""
    status = _outcome(
        lambda: main(["ask", "load resnet50 from torch hub", "--endpoint", f"{raw.url}/{kind}"])
    )
    err = capsys.readouterr().err
    assert status == 1, err
    first, hint = err.splitlines()
    assert first.startswith(
        f"gorilla-tui: error: endpoint {raw.url}/{kind}/v1/completions answered with something that is not "
        f"valid HTTP: {why}"
    ), err
    assert "cannot reach" not in err and "does not speak HTTP/1.x" in hint
