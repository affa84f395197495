"""APIBench tier of tests/cli/test_saved_state.py: Issue 17 through the CLI: bad sources, a damaged index, a
damaged or unwritable history and a bad config each give one line (never a traceback), and no answer or saved
state is lost."""

from __future__ import annotations

import base64
import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths
from gorilla_tui.store import versions as index_store
from tests.cli.test_saved_state import _one_line_error

HELLO = "print('hello from the sandbox')\n"


def _cli(*args: str, stdin: bytes | None = None, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """The CLI in a child, fed raw bytes (a hang fails the test at `timeout` instead of blocking the run)."""
    r = subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *args],
        input=stdin,
        capture_output=True,
        timeout=timeout,
        env=dict(os.environ, COLUMNS="200"),
    )
    return subprocess.CompletedProcess(r.args, r.returncode, r.stdout.decode(), r.stderr.decode())


@pytest.fixture()
def index(apibench: Path, gorilla_home: Path) -> Path:
    """A real BM25 index of the APIBench Torch Hub pool in this test's GORILLA_TUI_HOME."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(apibench / "api")]) == 0
    return gorilla_home


SPORTS = "I want to classify sports activities in videos"


def test_fifo_and_dev_zero_sources_fail_at_once_and_release_the_lock(index: Path, apibench: Path, tmp_path):
    fifo = tmp_path / "docs.jsonl"
    os.mkfifo(fifo)
    before = index_store.current_version()
    for source, kind in ((str(fifo), "a FIFO"), ("/dev/zero", "a character device")):
        r = _cli(
            "index", "--refresh", "--from", str(apibench / "api"), "--only", "torchhub", "--source", source
        )
        assert r.returncode == 2
        why = f"not a regular file ({kind}); only files are read"
        assert _one_line_error(r.stderr) == f"gorilla-tui: error: --source refused: {source}: {why}"
    assert index_store.current_version() == before  # nothing published, and the lock is free again:
    with index_store.refresh_lock(timeout=0):
        pass


def test_garbage_source_is_refused_and_the_index_stays_small(index: Path, apibench: Path, tmp_path, capsys):
    garbage = tmp_path / "garbage.jsonl"
    good = (apibench / "api" / "torchhub_api.jsonl").read_bytes().splitlines(keepends=True)[:3]
    garbage.write_bytes(base64.encodebytes(os.urandom(1_500_000)) + b"".join(good))
    api = str(apibench / "api")
    assert main(["index", "--refresh", "--from", api, "--only", "torchhub", "--source", str(garbage)]) == 2
    line = _one_line_error(capsys.readouterr().err)
    assert "--source refused: garbage: " in line and "lines or entries are not docs" in line
    assert f"(first bad line: {garbage}:1)" in line
    limit = ["index", "--refresh", "--from", api, "--only", "torchhub", "--source", str(garbage)]
    assert main([*limit, "--max-source-mb", "0.5"]) == 2
    assert "more than 0.5 MB, the size limit of one source (raise it with --max-source-mb)" in (
        _one_line_error(capsys.readouterr().err)
    )
    assert main(["index", "--status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert [r["name"] for r in status["sources"]] == ["torchhub"] and status["size_bytes"] < 1_000_000
    assert main(["index", "--status", "--max-source-mb", "5"]) == 2  # goes with --refresh only
    assert "--max-source-mb go with --refresh" in _one_line_error(capsys.readouterr().err)


def test_corrupt_postings_npz_search_says_so_and_refresh_mends_it_without_clean(
    index: Path, apibench: Path, capsys
):
    (index_store.current_version() / "postings.npz").write_bytes(b"PK\x03\x04 not a zip any more")
    assert main(["search", "detect objects in an image"]) == 2
    assert "is damaged" in _one_line_error(capsys.readouterr().err)
    assert main(["index", "--refresh", "--from", str(apibench / "api"), "--only", "huggingface"]) == 0
    out = capsys.readouterr().out
    assert "warning: the previous index could not be read" in out and "rebuilt from the sources" in out
    assert main(["search", "detect objects in an image", "--hub", "torchhub", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"]


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
def test_a_damaged_index_is_rebuilt_from_its_folder_with_one_row_per_source(index: Path, capsys):
    """`index --refresh` with no --from, offline: the remote fetch fails, the folder the damaged index was
    built from is read again; the report has one row for the source (ok), and no "could not fetch"."""
    (index_store.current_version() / "postings.npz").write_bytes(b"PK\x03\x04 not a zip any more")
    assert main(["index", "--refresh", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    torchhub = [r for r in report["sources"] if r["name"] == "torchhub"]
    assert [r["status"] for r in torchhub] == ["ok"] and torchhub[0]["loaded"] == 94
    assert not any("could not fetch" in w for w in report.get("warnings", []))


def test_run_prints_its_result_before_history_and_a_corrupt_history_is_moved_aside(index: Path):
    db = get_paths().history_db
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))  # truncated and corrupt
    r = _cli("run", "-", "--yes", stdin=HELLO.encode())
    assert r.returncode == 0 and "hello from the sandbox" in r.stdout
    warnings = [ln for ln in r.stderr.splitlines() if "history" in ln]
    assert len(warnings) == 1 and warnings[0].startswith("gorilla-tui: warning: history could not be read")
    assert "a new one was started" in warnings[0] and "Traceback" not in r.stderr
    aside = list(db.parent.glob("history.sqlite3.broken-*"))
    assert len(aside) == 1 and aside[0].read_bytes().startswith(b"SQLite format 3\x00")  # kept, not deleted
    with sqlite3.connect(db) as con:  # the new history has the run
        assert con.execute("SELECT code, exit_code FROM runs").fetchall() == [(HELLO, 0)]


def test_run_on_a_full_disk_still_prints_its_result(index: Path, monkeypatch, capsys) -> None:
    """SQLite's own "database or disk is full" (SQLITE_FULL) at the write boundary: warn, keep the file."""
    import gorilla_tui.history as history

    real_connect = sqlite3.connect

    def full(*args, **kwargs):
        con = real_connect(*args, **kwargs)
        con.close()
        error = sqlite3.OperationalError("database or disk is full")
        error.sqlite_errorcode = 13
        raise error

    db = get_paths().history_db
    capsys.readouterr()
    monkeypatch.setattr(history.sqlite3, "connect", full)
    monkeypatch.setattr(sys, "stdin", io.StringIO(HELLO))
    assert main(["run", "-", "--yes", "--json"]) == 0
    captured = capsys.readouterr()
    assert json.loads(captured.out)["run"]["exit_status"] == 0
    assert f"gorilla-tui: warning: history not saved (database or disk is full): {db}" in captured.err
    assert not list(db.parent.glob("history.sqlite3.broken-*"))


def test_run_reads_invalid_utf8_from_stdin_as_one_line(index: Path) -> None:
    r = _cli("run", "-", "--yes", stdin=b"print('caf\xe9')\n")
    assert r.returncode == 2
    assert (
        _one_line_error(r.stderr)
        == "gorilla-tui: error: cannot read stdin: not UTF-8 text (bad byte at offset 10)"
    )


def test_a_config_source_refused_later_keeps_its_docs_says_so_and_exits_2(
    index: Path, apibench: Path, tmp_path, capsys
):
    mine = tmp_path / "mine.jsonl"
    mine.write_text('{"api_call": "acme.ship(order_id)", "description": "ship a customer order"}\n')
    cfg = get_paths().config_file
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f"sources = [{json.dumps(str(mine))}]\n")
    api = str(apibench / "api")
    assert main(["index", "--refresh", "--from", api, "--only", "torchhub", "--json"]) == 0
    assert "mine" in [r["name"] for r in json.loads(capsys.readouterr().out)["sources"]]
    mine.write_bytes(base64.encodebytes(os.urandom(30_000)))
    assert main(["index", "--refresh", "--from", api, "--only", "torchhub", "--json"]) == 2
    out = json.loads(capsys.readouterr().out)
    assert {r["name"]: r["status"] for r in out["sources"]}["mine"] == "kept"
    assert len(out["warnings"]) == 1 and out["warnings"][0].startswith("mine refused: mine: ")
    assert out["warnings"][0].endswith(
        "its 1 docs of the previous index were kept (fix or remove the file, then refresh again)"
    )
    assert main(["search", "ship the order", "--hub", "mine"]) == 0  # its previous doc still answers
    capsys.readouterr()


def test_run_prints_before_it_writes_the_history(index: Path, monkeypatch, capsys) -> None:
    import gorilla_tui.history as history

    printed_before: list[str] = []
    real_add_run = history.History.add_run

    def add_run(self, *args, **kwargs):
        printed_before.append(capsys.readouterr().out)  # what was on stdout when the history was written
        return real_add_run(self, *args, **kwargs)

    monkeypatch.setattr(history.History, "add_run", add_run)
    monkeypatch.setattr(sys, "stdin", io.StringIO(HELLO))
    assert main(["run", "-", "--yes", "--json"]) == 0
    assert len(printed_before) == 1 and json.loads(printed_before[0])["run"]["exit_status"] == 0


@pytest.mark.model
def test_ask_prints_its_answer_first_and_survives_a_corrupt_history(home_with_index, monkeypatch, capsys):
    import gorilla_tui.history as history

    db = get_paths().history_db
    db.write_bytes(b"SQLite format 3\x00" + os.urandom(3000))
    printed_before: list[str] = []
    real_add = history.History.add

    def add(self, *args, **kwargs):
        printed_before.append(capsys.readouterr().out)
        return real_add(self, *args, **kwargs)

    monkeypatch.setattr(history.History, "add", add)
    rc = main(["ask", SPORTS, "--json", "-k", "5", "--hub", "torchhub", "--mode", "select"])
    err = capsys.readouterr().err
    assert rc == 0 and json.loads(printed_before[0])["verdict"]["verdict"] == "valid"  # printed, then saved
    assert "gorilla-tui: warning: history could not be read or written (" in err and "Traceback" not in err
    assert len(list(db.parent.glob("history.sqlite3.broken-*"))) == 1
    assert [e.task for e in history.History().search()] == [SPORTS]


def test_run_on_a_really_full_tmpfs_prints_its_result_and_warns(
    apibench: Path, tmp_path, monkeypatch
) -> None:
    """The issue's own setup: a 5 MB tmpfs as the home, filled up (root only: mount(8))."""
    home = tmp_path / "tmpfs"
    home.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; test_run_on_a_full_disk_still_prints_its_result covers it")
    mounted = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", "size=5m", "tmpfs", str(home)], capture_output=True
    )
    if mounted.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {mounted.stderr.decode().strip()}")
    try:
        monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
        assert main(["index", "--refresh", "--from", str(apibench / "api"), "--only", "torchhub"]) == 0
        with open(home / "fill", "wb", buffering=0) as fh:  # fill the disk to the last block
            try:
                while True:
                    fh.write(b"\0" * 65536)
            except OSError:
                pass
        r = _cli("run", "-", "--yes", stdin=HELLO.encode())
        assert r.returncode == 0 and "hello from the sandbox" in r.stdout
        db = get_paths().history_db
        assert f"gorilla-tui: warning: history not saved (database or disk is full): {db}" in r.stderr
        assert "Traceback" not in r.stderr and not list(db.parent.glob("history.sqlite3.broken-*"))
    finally:
        subprocess.run(["umount", "-l", str(home)], check=False)
