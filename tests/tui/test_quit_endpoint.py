"""Quitting the TUI while an endpoint drips its reply ends at once (issue 42 kind 1, break-it round 8 N10).

Main: Escape said "cancelled", Ctrl+Q blanked the screen, but the ask worker (a non-daemon thread of the
event loop's default executor, joined at exit) kept reading the dripping reply until the request's total
deadline (600 s); Ctrl+C then printed a threading KeyboardInterrupt traceback. Now Ctrl+Q cancels every
request of the backend (Session.close) and no worker thread is one the interpreter joins at exit. A real
RemoteBackend loaded from the settings (services.load_backend), against a server on 127.0.0.1 that sends
its headers, then a byte every 0.2 s until the client goes away."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.tui.app import create_app
from gorilla_tui.tui.widgets.task_input import TaskInput
from tests.tui.conftest import VIDEO_TASK, wait_for

#: The most a dripping request may outlive Ctrl+Q, in seconds: a bound, not a pause (the wait ends as soon
#: as the server sees the connection closed); main held it for the total deadline, 600 s.
GIVE_UP_SECONDS = 15.0


class _Drip(BaseHTTPRequestHandler):
    """Every POST: a 200 with event-stream headers, then a blank line (no event) every 0.2 s while the
    client listens; `opened` is set by the first request, `closed` when a write fails (the client left)."""

    opened = threading.Event()
    closed = threading.Event()

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers.get("Content-Length") or 0))
        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.end_headers()
        _Drip.opened.set()
        deadline = time.monotonic() + 120  # the server itself never outlives the test by much
        try:
            while time.monotonic() < deadline:
                self.wfile.write(b"\n")
                self.wfile.flush()
                time.sleep(0.2)
        except OSError:
            _Drip.closed.set()


@pytest.fixture
def drip():
    _Drip.opened, _Drip.closed = threading.Event(), threading.Event()
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Drip)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def _joined_at_exit() -> list[threading.Thread]:
    """Threads the interpreter would wait for at exit: alive, not daemons, not the main thread."""
    return [
        t for t in threading.enumerate() if t.is_alive() and not t.daemon and t is not threading.main_thread()
    ]


async def test_ctrl_q_while_an_endpoint_drips_gives_the_request_up_and_leaves_no_thread_to_join(
    drip: str, torchhub_index: ApiIndex
) -> None:
    before = set(_joined_at_exit())
    app = create_app(Settings(endpoint=drip, mode="generate"), index=torchhub_index, show_timings=False)
    async with app.run_test(size=(120, 36)) as pilot:
        main = app.main
        main.query_one(TaskInput).focus()
        main.query_one(TaskInput).value = VIDEO_TASK
        await pilot.press("enter")
        await wait_for(pilot, _Drip.opened.is_set)
        await pilot.press("escape")
        assert main.query_one("#proposal").border_subtitle == "cancelled"
        await pilot.press("ctrl+q")
    assert _Drip.closed.wait(GIVE_UP_SECONDS), "the dripping request outlived Ctrl+Q"
    assert [t.name for t in set(_joined_at_exit()) - before] == []
