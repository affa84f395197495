"""The Hugging Face hub's HTTP against a mirror (HF_ENDPOINT) on 127.0.0.1 that drips a byte at a time
(break-it round 8, N1): the reachability probe has a total deadline, a download that stalls is given up
with one line, and a cached garbage .gguf names the file to delete."""

from __future__ import annotations

import signal
import socket
import time
from collections.abc import Iterator
from pathlib import Path

import huggingface_hub.constants as hf_constants
import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool import hub, hub_http
from gorilla_tui.pool.manifest import FetchContext
from tests.http_request import accept_in_background, read_request

#: How long the hostile server drips before it closes the connection: long enough that a deadline of 1 s
#: is seen to end the wait, short enough that a client without one ends too (the test fails, not hangs).
DRIP_FOR_S = 4.0


def _drip(conn: socket.socket, head: bytes) -> None:
    end = time.monotonic() + DRIP_FOR_S
    try:
        conn.sendall(head)
        while time.monotonic() < end:
            conn.sendall(b"X")
            time.sleep(0.2)
    except OSError:
        return  # the client gave up


def _serve(conn: socket.socket, mode: str) -> None:
    with conn:
        request = read_request(conn)
        if request is None:
            return
        method, path = request.split(b" ")[:2]
        if mode == "headers":  # the status line, then header bytes that never end
            _drip(conn, b"HTTP/1.1 200 OK\r\n")
            return
        if path.endswith(b".gguf"):  # the file: its metadata at once, its body a byte at a time
            head = (
                b'HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 1000000\r\nETag: "abc"\r\n'
                b"X-Repo-Commit: " + b"a" * 40 + b"\r\nContent-Type: application/octet-stream\r\n\r\n"
            )
            if method == b"HEAD":
                conn.sendall(head)
            else:
                _drip(conn, head)
            return
        ok = b"HTTP/1.1 200 OK\r\n" if method == b"HEAD" else b"HTTP/1.1 404 Not Found\r\n"
        conn.sendall(
            ok + b"Connection: close\r\nContent-Length: 0\r\n\r\n"
        )  # the probe (HEAD /), anything else: 404


@pytest.fixture
def mirror(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[str]:
    """A hostile hub mirror (mode = request.param) as huggingface_hub's endpoint, online, its cache in
    tmp_path."""
    server = socket.create_server(("127.0.0.1", 0))
    endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"

    accept_in_background(server, lambda conn: _serve(conn, request.param))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "ENDPOINT", endpoint)
    template = endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(hf_constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    yield endpoint
    server.close()


@pytest.mark.parametrize("mirror", ["headers"], indirect=True)
def test_the_hub_probe_is_a_total_deadline(mirror, monkeypatch):
    """The probe's "5 s" was httpx2's timeout between two bytes: a mirror dripping its headers was waited
    for as long as it dripped (forever in the break-it pass). Now the probe gives up at its deadline."""
    monkeypatch.setattr(hub, "HUB_PROBE_TIMEOUT", 1.0)
    assert hub.hub_unreachable(FetchContext()) == "network unreachable (no answer within 1 s)"


@pytest.mark.parametrize("mirror", ["body"], indirect=True)
def test_model_pull_of_a_dripping_download_is_one_line(mirror, gorilla_home, monkeypatch, capfd):
    """The probe answers, the file's body drips: `model pull` waited silently as long as it dripped. Now a
    download that receives under 64 KiB in the stall window ends with one line and exit 2."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # gorilla_home sets it
    monkeypatch.setattr(hub_http, "HUB_STALL_S", 1.0)
    monkeypatch.setattr(hf_constants, "HF_HUB_DOWNLOAD_TIMEOUT", 1)
    assert main(["model", "pull", "hf:owner/repo/model.gguf"]) == 2
    lines = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert lines == [
        "gorilla-tui: error: cannot fetch hf:owner/repo/model.gguf: stalled: "
        "less than 64 KiB received in 1 s (HF_HUB_DOWNLOAD_TIMEOUT sets a longer window)"
    ]


@pytest.mark.parametrize("mirror", ["headers"], indirect=True)
def test_ctrl_c_ends_the_wait_for_the_hub(mirror, monkeypatch):
    """The wait for a hub request (a worker thread) lets Ctrl+C in: the CLI says "interrupted", exit 130."""
    monkeypatch.setattr(hub, "HUB_PROBE_TIMEOUT", 30.0)

    def interrupt(signum, frame):
        raise KeyboardInterrupt

    previous = signal.signal(signal.SIGALRM, interrupt)
    signal.setitimer(signal.ITIMER_REAL, 0.5)
    try:
        with pytest.raises(KeyboardInterrupt):
            hub.hub_unreachable(FetchContext())
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
