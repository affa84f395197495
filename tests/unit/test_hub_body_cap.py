"""Hub downloads are capped while they run (break-it round 9, R1), against a hub mirror (HF_ENDPOINT) on
127.0.0.1: an endless file body with no Content-Length was held or written whole (RSS 4 GB in 8 s), and a
file whose Content-Length is over a source's size limit was downloaded whole before it was refused, left in
the Hugging Face cache. Now the hub's size is checked before the download, the bytes received while it
runs, a body read into memory is capped (pool.hub_http.HUB_HELD_BYTES), a refused partial file is removed,
and the CLI says it in one line, exit 2. The server counts what it sent: a client that reads everything
makes the count reach SEND_CAP."""

from __future__ import annotations

import gzip
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import huggingface_hub.constants as hf_constants
import pytest
from huggingface_hub.utils import get_session

from gorilla_tui.cli import main
from gorilla_tui.pool import hub, hub_http
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceUnavailable
from tests.http_request import accept_in_background, read_request

#: Bytes the server sends on one connection at most, then closes (so a client without a cap ends too:
#: the test fails, it does not hang).
SEND_CAP = 160 * 2**20
#: The source size limit of these tests (bytes).
LIMIT = 1_000_000
#: What a capped client may still receive: its limit, huggingface_hub's 10 MiB chunks, the held-body cap
#: and the socket buffers; far under SEND_CAP.
RECEIVED_AT_MOST = 64 * 2**20


class Mirror:
    """The hostile server's endpoint, and the bytes of file bodies it sent (per GET)."""

    def __init__(self, endpoint: str) -> None:
        self.endpoint, self.sent, self.gets = endpoint, [0], 0
        self.asked: list[bytes] = []


def _serve(conn: socket.socket, mode: str, mirror: Mirror) -> None:
    with conn:
        request = read_request(conn)
        if request is None:
            return
        method, path = request.split(b" ")[:2]
        mirror.asked.append(request)
        if mode == "gzip":  # 64 KiB of gzip that decodes to 64 MiB, whatever was asked
            body = gzip.compress(bytes(64 * 2**20), compresslevel=9)
            conn.sendall(
                b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Encoding: gzip\r\n"
                + f"Content-Length: {len(body)}\r\n\r\n".encode()
                + body
            )
            return
        if b"/resolve/" not in path and not path.startswith(b"/api/endless"):
            ok = b"HTTP/1.1 200 OK\r\n" if method == b"HEAD" else b"HTTP/1.1 404 Not Found\r\n"
            conn.sendall(ok + b"Connection: close\r\nContent-Length: 0\r\n\r\n")  # the probe; the rest: 404
            return
        length = {"nolen": b"", "big": b"Content-Length: 300000000\r\n", "liar": b"Content-Length: 1000\r\n"}
        head = (
            b"HTTP/1.1 200 OK\r\nConnection: close\r\n" + length.get(mode, b"") + b'ETag: "e1"\r\n'
            b"X-Repo-Commit: " + b"a" * 40 + b"\r\nContent-Type: application/octet-stream\r\n\r\n"
        )
        if method == b"HEAD":
            conn.sendall(head)
            return
        mirror.gets += 1
        if mode == "liar":  # the GET has no length: the HEAD said 1000 bytes, the body never ends
            head = head.replace(b"Content-Length: 1000\r\n", b"")
        chunk = b'{"x": 1}\n' * 7000
        try:
            conn.sendall(head)
            while mirror.sent[0] < SEND_CAP:
                conn.sendall(chunk)
                mirror.sent[0] += len(chunk)
        except OSError:
            return  # the client stopped reading


@pytest.fixture
def mirror(
    request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> Iterator[Mirror]:
    """A hostile hub mirror (mode = request.param) as huggingface_hub's endpoint, online, its cache in
    tmp_path/hf."""
    server = socket.create_server(("127.0.0.1", 0))
    found = Mirror(f"http://127.0.0.1:{server.getsockname()[1]}")

    accept_in_background(server, lambda conn: _serve(conn, request.param, found))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "ENDPOINT", found.endpoint)
    template = found.endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    monkeypatch.setattr(hf_constants, "HUGGINGFACE_CO_URL_TEMPLATE", template)
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    yield found
    server.close()


def _partial_files(tmp_path: Path) -> list[Path]:
    """Downloaded (or partial) files in the cache: its blobs (not its refs, locks and tag: a few bytes)."""
    return [p for p in (tmp_path / "hf").glob("*/blobs/*") if p.is_file()]


def _source() -> Manifest:
    return Manifest(
        name="mine", title="Mine", files=("api.jsonl",),
        remote={"type": "hf", "repo_id": "owner/data", "repo_type": "dataset"},
    )  # fmt: skip


@pytest.mark.parametrize("mirror", ["nolen"], indirect=True)
def test_an_endless_source_file_stops_at_the_size_limit(mirror, tmp_path):
    """No Content-Length: on main the whole SEND_CAP was received and the file kept; now the bytes received
    stop past the limit, the source is refused, no partial file kept."""
    with pytest.raises(SourceRejected) as refused:
        hub.hf_files(_source(), FetchContext(max_bytes=LIMIT))
    message = str(refused.value)
    assert "\n" not in message
    limit = "the size limit of one source (raise it with --max-source-mb)"
    assert message == f"owner/data/api.jsonl: more than 1 MB received, {limit}"
    assert mirror.sent[0] < RECEIVED_AT_MOST
    assert _partial_files(tmp_path) == []


#: The one line of a body longer than the 1,000 bytes the "liar" mirror's HEAD states.
BROKEN = "a broken download: more bytes arrived than the 1,000 the hub stated for the file"


@pytest.mark.parametrize("mirror", ["liar"], indirect=True)
def test_a_source_file_longer_than_the_hub_said_is_a_broken_download(mirror, tmp_path):
    """The HEAD says 1000 bytes, the GET sends an endless body with no length (break-it round 10, R10-10):
    the download stops past the stated size, well under the source's limit, no partial file kept."""
    with pytest.raises(SourceUnavailable) as refused:
        hub.hf_files(_source(), FetchContext(max_bytes=10 * LIMIT))
    message = str(refused.value)
    assert "\n" not in message and f"owner/data/api.jsonl from the Hugging Face hub: {BROKEN};" in message
    assert mirror.sent[0] < RECEIVED_AT_MOST
    assert _partial_files(tmp_path) == []


@pytest.mark.parametrize("mirror", ["liar"], indirect=True)
def test_model_pull_stops_past_the_size_the_hub_stated(mirror, gorilla_home, monkeypatch, tmp_path, capfd):
    """`model pull` against the mirror whose HEAD says 1000 bytes: on main the endless body was written
    until only hub.DISK_RESERVE (1 GB) of the disk was left (here about 2 MB is allowed, so main fails with
    "more than ... MB received"); now one line naming the broken download, exit 2, nothing kept."""
    import shutil

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # gorilla_home sets it
    monkeypatch.setattr(hub, "DISK_RESERVE", shutil.disk_usage(tmp_path).free - 2_000_000)
    assert main(["model", "pull", "hf:owner/repo/model.gguf"]) == 2
    lines = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert lines == [f"gorilla-tui: error: cannot fetch hf:owner/repo/model.gguf: {BROKEN}"]
    assert mirror.sent[0] < RECEIVED_AT_MOST
    assert _partial_files(tmp_path) == []


@pytest.mark.parametrize("mirror", ["big"], indirect=True)
def test_a_source_file_the_hub_says_is_too_big_is_never_downloaded(mirror, tmp_path):
    with pytest.raises(SourceRejected, match=r"the hub says 300\.0 MB, more than 1 MB, the size limit"):
        hub.hf_files(_source(), FetchContext(max_bytes=LIMIT))
    assert mirror.gets == 0 and _partial_files(tmp_path) == []


@pytest.mark.parametrize("mirror", ["nolen"], indirect=True)
def test_a_body_read_into_memory_is_capped(mirror):
    """A response huggingface_hub reads whole (its agent registry, an error's body): at most
    HUB_HELD_BYTES are held, whatever the file limit."""
    with pytest.raises(hub_http.HubTooLarge, match="held in memory"):
        hub_http.bounded(lambda: get_session().get(mirror.endpoint + "/api/endless"), max_bytes=10**12)
    assert mirror.sent[0] < RECEIVED_AT_MOST


@pytest.mark.parametrize("mirror", ["nolen"], indirect=True)
def test_model_pull_of_an_endless_gguf_stops_at_the_free_disk(
    mirror, gorilla_home, monkeypatch, tmp_path, capfd
):
    """A GGUF's limit is the free disk of the cache less hub.DISK_RESERVE: with a reserve that leaves
    about 2 MB, `model pull` of an endless body ends with one line, exit 2, nothing kept."""
    import shutil

    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # gorilla_home sets it
    monkeypatch.setattr(hub, "DISK_RESERVE", shutil.disk_usage(tmp_path).free - 2_000_000)
    assert main(["model", "pull", "hf:owner/repo/model.gguf"]) == 2
    lines = [line for line in capfd.readouterr().err.splitlines() if line.strip()]
    assert len(lines) == 1, lines
    assert lines[0].startswith("gorilla-tui: error: cannot fetch hf:owner/repo/model.gguf: more than ")
    assert "MB received, the free disk space in " in lines[0]
    assert mirror.sent[0] < RECEIVED_AT_MOST
    assert _partial_files(tmp_path) == []


@pytest.mark.parametrize("mirror", ["nolen"], indirect=True)
def test_index_refresh_of_an_endless_hub_source_is_one_line(
    mirror, gorilla_home, monkeypatch, tmp_path, capfd
):
    """`index --refresh --only torchhub` (APIBench from the hub) against the endless body: on main it held
    the body in memory until killed; now the source is refused at its size limit, exit 2, one error line."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    assert main(["index", "--refresh", "--only", "torchhub", "--max-source-mb", "1"]) == 2
    errors = [line for line in capfd.readouterr().err.splitlines() if line.startswith("gorilla-tui:")]
    assert len(errors) == 1 and "torchhub_api.jsonl: more than 1 MB received, the size limit" in errors[0]
    assert mirror.sent[0] < RECEIVED_AT_MOST
    assert _partial_files(tmp_path) == []


def test_a_library_warning_is_one_escaped_line(capfd):
    """huggingface_hub's low-disk UserWarning (from a download's worker thread) printed its text and source
    line raw: every Python warning under the CLI is one escaped line on stderr."""
    import warnings

    from gorilla_tui.cli.output import one_line_warnings

    def warn() -> None:
        warnings.warn(
            "Not enough free disk space.\nThe target \x1b]0;owned\x07 has 1 MB", UserWarning, stacklevel=1
        )

    with one_line_warnings(), warnings.catch_warnings():
        warnings.simplefilter("always")
        worker = threading.Thread(target=warn)
        worker.start()
        worker.join()
    err = capfd.readouterr().err
    assert err.count("\n") == 1 and "\x1b" not in err
    assert err.startswith("gorilla-tui: warning: Not enough free disk space. The target ")


@pytest.mark.parametrize("mirror", ["gzip"], indirect=True)
def test_a_compressed_answer_is_refused(mirror):
    """Bytes received do not bound bytes decoded (64 KiB of gzip here are 64 MiB): every hub request asks
    for an uncompressed answer, and a compressed one sent anyway is refused before it is decoded."""
    with pytest.raises(hub_http.HubTooLarge, match="a compressed answer \\('gzip'\\) though none was asked"):
        hub_http.bounded(lambda: get_session().get(mirror.endpoint + "/api/anything"))
    assert b"accept-encoding: identity" in mirror.asked[-1].lower()
