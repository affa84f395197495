"""Nothing a hub mirror (HF_ENDPOINT) sends becomes a path outside the Hugging Face cache (break-it round 11,
R11-1). huggingface_hub 2.4 joins an answer's etag and commit to cache paths unchecked: `ETag: "/abs"` or
`"../../x"` wrote the body (and a lock) anywhere the user can write, `X-Repo-Commit: ../..` on a 404 made a
folder outside the cache, and an existing file named so was read as the download, then named in a hint to
`rm` it. Now every answer's commit (40 hex) and etag (hex / SHA-256 shape) are checked before
huggingface_hub reads them, a cached file that resolves outside the cache is refused, and no hint names a
path outside it. The server is a raw socket on 127.0.0.1 (tests/http_request.py)."""

from __future__ import annotations

import socket
from collections.abc import Iterator
from pathlib import Path

import huggingface_hub.constants as hf_constants
import pytest

from gorilla_tui.cli import main
from gorilla_tui.model import registry
from gorilla_tui.pool import hub, hub_http
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceUnavailable
from tests.http_request import accept_in_background, read_request

GOOD_COMMIT = b"a" * 40
GGUF = b"GGUF\x03\x00\x00\x00" + bytes(64)


def _headers(mode: str, outside: Path) -> tuple[bytes, bytes, bytes]:
    """(status line, etag headers, commit header) of the answer to a file's HEAD or GET in `mode`, the
    names pointing at `outside` (a folder beside the cache)."""
    status, etag, commit = b"200 OK", b'ETag: "e1"\r\n', b"X-Repo-Commit: " + GOOD_COMMIT + b"\r\n"
    up = b"../" * 12 + str(outside).lstrip("/").encode()
    if mode == "etag-absolute":
        etag = b'ETag: "' + str(outside / "ABS").encode() + b'"\r\n'
    elif mode == "etag-relative":
        etag = b'ETag: "' + up + b'/REL"\r\n'
    elif mode == "etag-weak":  # huggingface_hub strips W/ and the quotes: still a path
        etag = b'ETag: W/"' + up + b'/WEAK"\r\n'
    elif mode == "linked-etag":
        etag += b'X-Linked-Etag: "' + str(outside / "LINKED").encode() + b'"\r\n'
    elif mode == "commit-relative":
        commit = b"X-Repo-Commit: " + up + b"/COMMIT\r\n"
    elif mode == "commit-on-404":  # huggingface_hub caches a missing file as .no_exist/COMMIT/FILE
        status = b"404 Not Found\r\nX-Error-Code: EntryNotFound"
        commit = b"X-Repo-Commit: " + up + b"/MISSING\r\n"
    elif mode == "victim":
        etag = b'ETag: "' + str(outside / "victim.txt").encode() + b'"\r\n'
    return status, etag, commit


def _serve(conn: socket.socket, mode: str, outside: Path) -> None:
    with conn:
        request = read_request(conn)
        if request is None:
            return
        method, path = request.split(b" ")[:2]
        if b"/resolve/" not in path:  # the reachability probe
            conn.sendall(b"HTTP/1.1 200 OK\r\nConnection: close\r\nContent-Length: 0\r\n\r\n")
            return
        status, etag, commit = _headers(mode, outside)
        body = GGUF if status.startswith(b"200") else b""
        head = b"HTTP/1.1 " + status + b"\r\nConnection: close\r\n" + etag + commit
        head += f"Content-Length: {len(body)}\r\n\r\n".encode()
        conn.sendall(head + (body if method == b"GET" else b""))


@pytest.fixture
def mirror(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> Iterator[Path]:
    """A hub mirror (mode = request.param) as huggingface_hub's endpoint, online, its cache tmp_path/hf;
    yields the folder beside the cache its names point at (tmp_path/outside)."""
    outside = tmp_path / "outside"
    outside.mkdir()
    server = socket.create_server(("127.0.0.1", 0))
    endpoint = f"http://127.0.0.1:{server.getsockname()[1]}"
    accept_in_background(server, lambda conn: _serve(conn, request.param, outside))
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    monkeypatch.setattr(hf_constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(hf_constants, "ENDPOINT", endpoint)
    monkeypatch.setattr(
        hf_constants, "HUGGINGFACE_CO_URL_TEMPLATE", endpoint + "/{repo_id}/resolve/{revision}/{filename}"
    )
    monkeypatch.setattr(hf_constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    yield outside
    server.close()


def _written_outside(tmp_path: Path) -> list[Path]:
    """Every path under tmp_path that is not the cache or the server's own folder (which starts empty)."""
    return sorted(
        p for p in tmp_path.rglob("*") if not p.is_relative_to(tmp_path / "hf") and p != tmp_path / "outside"
    )


@pytest.mark.parametrize(
    "mirror, header",
    [
        ("etag-absolute", "ETag"),
        ("etag-relative", "ETag"),
        ("etag-weak", "ETag"),
        ("linked-etag", "X-Linked-Etag"),
        ("commit-relative", "X-Repo-Commit"),
        ("commit-on-404", "X-Repo-Commit"),
    ],
    indirect=["mirror"],
)
def test_a_mirror_cannot_name_a_path_outside_the_cache(mirror: Path, header: str, tmp_path: Path) -> None:
    """An index source's file (`index --refresh`): on main the body (or a lock, or a .no_exist folder) was
    written outside the cache; now the answer is refused in one line before huggingface_hub uses it."""
    source = Manifest(
        name="mine", title="Mine", files=("api.jsonl",),
        remote={"type": "hf", "repo_id": "owner/data", "repo_type": "dataset"},
    )  # fmt: skip
    with pytest.raises(SourceUnavailable) as refused:
        hub.hf_files(source, FetchContext(max_bytes=1_000_000))
    message = str(refused.value)
    assert "\n" not in message and f"({header}): refused; use --from DIR" in message, message
    assert _written_outside(tmp_path) == []


@pytest.mark.parametrize("mirror", ["victim"], indirect=True)
def test_model_pull_never_reads_or_names_a_file_of_the_users(
    mirror: Path, gorilla_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capfd
) -> None:
    """`ETag: "/.../victim.txt"`: on main the cache's link pointed at the user's file, which was read as the
    download and named in the hint `rm <cache>/c.gguf /.../victim.txt`; now one line, exit 2, the file
    neither read nor named."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)  # gorilla_home sets it
    victim = mirror / "victim.txt"
    victim.write_text("my precious notes\n")
    assert main(["model", "pull", "hf:owner/repo/c.gguf"]) == 2
    err = capfd.readouterr().err
    lines = [line for line in err.splitlines() if line.strip()]
    assert lines == [
        "gorilla-tui: error: cannot fetch hf:owner/repo/c.gguf: the hub's answer names the file by an etag "
        "that is not a hex or SHA-256 value (ETag): refused"
    ]
    assert str(victim) not in err and victim.read_text() == "my precious notes\n"
    assert _written_outside(tmp_path) == [victim]


@pytest.mark.parametrize("mirror", ["good"], indirect=True)
def test_a_cached_link_that_points_outside_the_cache_is_refused(
    mirror: Path, gorilla_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capfd
) -> None:
    """A cache an earlier run left with its link pointing at the user's file (what R11-1 did on main): a
    good mirror now, but the file is not read as the download, not listed as cached, and the hint for a
    damaged download (registry.model_file_fix) does not tell the user to delete it."""
    monkeypatch.delenv("HF_HUB_OFFLINE", raising=False)
    victim = mirror / "victim.gguf"
    victim.write_bytes(b"my own file")
    snapshot = tmp_path / "hf" / "models--owner--repo" / "snapshots" / GOOD_COMMIT.decode()
    snapshot.mkdir(parents=True)
    (snapshot.parent.parent / "refs").mkdir()
    (snapshot.parent.parent / "refs" / "main").write_text(GOOD_COMMIT.decode())
    link = snapshot / "c.gguf"
    link.symlink_to(victim)
    spec = "hf:owner/repo/c.gguf"
    assert registry.cached_file("owner/repo", "c.gguf") is None
    assert str(victim) not in registry.model_file_fix(spec)
    assert main(["model", "pull", spec]) == 2
    err = capfd.readouterr().err
    assert (
        f"cannot fetch {spec}: the cached file {link} is a link that points outside the Hugging Face cache"
        in err
    )
    assert str(victim) not in err and victim.read_bytes() == b"my own file"


def test_a_repo_folder_moved_to_another_disk_behind_a_link_is_still_the_cache(tmp_path: Path) -> None:
    """The containment check follows the user's own links to a repo folder (a big model moved to another
    disk), but not a snapshot's link out of its repo (what a mirror's etag made)."""
    moved = tmp_path / "big-disk" / "models--owner--repo"
    snapshot = moved / "snapshots" / GOOD_COMMIT.decode()
    snapshot.mkdir(parents=True)
    (moved / "blobs").mkdir()
    (moved / "blobs" / "e1").write_bytes(GGUF)
    (snapshot / "c.gguf").symlink_to(Path("../../blobs/e1"))
    (tmp_path / "victim.gguf").write_bytes(GGUF)
    (snapshot / "d.gguf").symlink_to(Path("../../../../victim.gguf"))
    cache = tmp_path / "hf"
    cache.mkdir()
    (cache / "models--owner--repo").symlink_to(moved)
    inside = cache / "models--owner--repo" / "snapshots" / GOOD_COMMIT.decode()
    assert hub_http.inside_cache(inside / "c.gguf", cache)
    assert not hub_http.inside_cache(inside / "d.gguf", cache)
