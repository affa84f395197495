"""Shared by the tests of a misbehaving `--endpoint` server (tests/unit/test_endpoint_hostile.py,
test_endpoint_reads.py, test_endpoint_retry_total.py, tests/cli/test_hostile_r14.py, test_hostile_r24.py,
test_hostile_r25.py): a hang guard, a Torch Hub pool line, a server on 127.0.0.1 and its quiet request
handler, a completions server of fixed answers (tests/cli/conftest.py `completions_server` serves a test
module's ANSWERS with it) and `ask --mode generate --json` against one."""

from __future__ import annotations

import json
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from gorilla_tui.cli import main


class LocalServer:
    """A threading HTTP server of `handler` on 127.0.0.1 (an ephemeral port), serving in a daemon thread:
    `url` is its base ("http://127.0.0.1:PORT"), close() stops it."""

    def __init__(self, handler: type[BaseHTTPRequestHandler]) -> None:
        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        self.httpd.daemon_threads = True
        threading.Thread(target=self.httpd.serve_forever, daemon=True).start()
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}"

    def close(self) -> None:
        """Stop serving and close the socket."""
        self.httpd.shutdown()
        self.httpd.server_close()


class QuietHandler(BaseHTTPRequestHandler):
    """A request handler that logs nothing (http.server writes a line per request to stderr); read_body()
    takes the request's body."""

    def log_message(self, *args: object) -> None:
        """Log nothing."""

    def read_body(self) -> bytes:
        """The request's body (Content-Length bytes, none without that header)."""
        return self.rfile.read(int(self.headers.get("Content-Length") or 0))


class CompletionsServer(LocalServer):
    """An OpenAI-compatible completions server on 127.0.0.1: a POST to /KIND/v1/... is answered with
    `answers[KIND]` as one JSON completion (tests/cli/test_hostile_r24.py, test_hostile_r25.py)."""

    def __init__(self, answers: dict[str, str]) -> None:
        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.read_body()
                text = answers[self.path.split("/")[1]]
                send_json(self, json.dumps({"choices": [{"text": text}]}).encode())

        super().__init__(Handler)


def ask_generate(url: str, task: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    """`gorilla-tui ask TASK --mode generate --endpoint URL --json` through cli.main: (exit status, the JSON
    it printed)."""
    status = main(["ask", task, "--mode", "generate", "--endpoint", url, "--json"])
    return status, json.loads(capsys.readouterr().out)


def send_json(handler: BaseHTTPRequestHandler, body: bytes) -> None:
    """Answer `handler`'s request 200 with `body` as application/json; a client that hung up is ignored."""
    try:
        handler.send_response(200)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)
    except OSError:  # the client hung up
        pass


def in_time(fn: Callable[[], Any], guard_s: float) -> tuple[Any, float]:
    """(what fn() returned or raised, seconds it took): fn runs in a daemon thread, and one still running
    after `guard_s` seconds fails the test (a safety net for hangs, not a timing assertion)."""
    box: list[Any] = []

    def run() -> None:
        try:
            box.append(fn())
        except BaseException as e:  # noqa: BLE001 - the test looks at it
            box.append(e)

    start = time.monotonic()
    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    thread.join(guard_s)
    assert not thread.is_alive(), f"still running after {guard_s:g} s"
    return box[0], time.monotonic() - start


def apibench_line(name: str, functionality: str) -> dict:
    """One Torch Hub APIBench pool line for a made-up model `name` of repo zoo/vision."""
    call = f"torch.hub.load(repo_or_dir='zoo/vision', model='{name}', pretrained=True)"
    return {"domain": "Image Classification", "framework": "PyTorch", "functionality": functionality,
            "api_name": name, "api_call": call, "api_arguments": {"pretrained": "True"},
            "python_environment_requirements": ["torch"], "example_code": [],
            "description": f"{functionality} pretrained on images."}  # fmt: skip
