"""A refresh survives full disks, permissions, a held lock, stale build folders, a damaged live index and
refused sources, and says in one line what happened (issue 17). Real APIBench and APIZoo files throughout."""

from __future__ import annotations

import errno
import os
import re
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gorilla_tui.build.refresh import PAUSE_ENV, refresh
from gorilla_tui.errors import GorillaError
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import versions as index_store


def _builds() -> list[Path]:
    return list(index_store.index_root().glob(".build-*"))


def _mine(tmp_path: Path, n: int, name: str = "mine") -> Path:
    f = tmp_path / f"{name}.jsonl"
    rows = [
        f'{{"api_call": "acme.ship{i}(order_id)", "description": "ship order kind {i}"}}' for i in range(n)
    ]
    f.write_text("\n".join(rows) + "\n")
    return f


@pytest.fixture
def tmpfs(tmp_path: Path):
    """A 5 MB tmpfs (root only: mount(8)); skipped elsewhere, where the simulated ENOSPC test runs."""
    mnt = tmp_path / "tmpfs"
    mnt.mkdir()
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root; test_enospc_at_the_write_boundary covers this case")
    r = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=5m", "tmpfs", str(mnt)], capture_output=True)
    if r.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {r.stderr.decode().strip()}")
    try:
        yield mnt
    finally:
        subprocess.run(["umount", "-l", str(mnt)], check=False)


def test_full_tmpfs_says_free_and_needed_cleans_up_and_a_small_refresh_then_works(
    tmpfs: Path, apibench: Path, apizoo: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GORILLA_TUI_HOME", str(tmpfs))
    api = apibench / "api"
    hubs = ["torchhub", "tensorflowhub", "huggingface", "apizoo"]
    refresh(mirrors=[api, apizoo], only=hubs)  # ~4 MB: fits once in 5 MB
    live = index_store.current_version()
    assert live is not None
    live_bytes = sum(f.stat().st_size for f in live.rglob("*") if f.is_file())
    with pytest.raises(GorillaError) as e:  # a second copy does not (forced: nothing changed)
        refresh(mirrors=[api, apizoo], only=hubs, force=True)
    msg = str(e.value)
    assert msg.startswith(f"disk full: cannot write the index in {index_store.index_root()}")
    sizes = re.search(r"\((\d+\.\d) MB free, about (\d+\.\d) MB needed\)$", msg)
    assert sizes and "\n" not in msg, msg
    free, needed = float(sizes[1]) * 1e6, float(sizes[2]) * 1e6
    assert free < needed and 0.7 * live_bytes <= needed <= 1.5 * live_bytes, (free, needed, live_bytes)
    assert _builds() == [] and index_store.current_version() == live  # cleaned up; the old index answers
    assert ApiIndex.load().search("detect objects in an image")
    report = refresh(mirrors=[api], only=["torchhub"], keep_previous=False)  # a small one fits
    assert len(report.index.docs) == 94 and _builds() == []


def test_enospc_at_the_write_boundary(apibench: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    api = apibench / "api"
    refresh(mirrors=[api], only=["torchhub"])
    live = index_store.current_version()
    real_write_docs = index_store._write_docs

    def full(path: Path, docs) -> None:
        real_write_docs(path, docs[:10])  # some bytes land, then the disk is full
        raise OSError(errno.ENOSPC, "No space left on device", str(path))

    monkeypatch.setattr(index_store, "_write_docs", full)
    with pytest.raises(GorillaError, match=r"^disk full: .* \(\d+\.\d MB free, about \d+\.\d MB needed\)$"):
        refresh(mirrors=[api], only=["huggingface"])
    assert _builds() == [] and index_store.current_version() == live
    monkeypatch.setattr(index_store, "_write_docs", real_write_docs)
    assert set(refresh(mirrors=[api], only=["huggingface"]).index.sources) == {"torchhub", "huggingface"}


def test_permission_and_any_other_failure_remove_the_build_folder(
    apibench: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    api = apibench / "api"
    refresh(mirrors=[api], only=["torchhub"])
    root = index_store.index_root()

    def denied(folder: Path, *args, **kwargs):
        raise PermissionError(errno.EACCES, "Permission denied", str(folder / "docs.jsonl"))

    monkeypatch.setattr(index_store, "write_version", denied)
    with pytest.raises(GorillaError, match=f"^permission denied: cannot write the index in {root} "):
        refresh(mirrors=[api], only=["torchhub"], force=True)
    assert _builds() == []
    monkeypatch.undo()

    def boom(folder: Path, root: Path | None = None) -> Path:
        assert folder.is_dir() and (folder / "postings.npz").exists()
        raise RuntimeError("a bug while publishing")

    monkeypatch.setattr(index_store, "publish", boom)
    with pytest.raises(RuntimeError):
        refresh(mirrors=[api], only=["torchhub"], force=True)
    assert _builds() == []


def test_stale_build_folders_of_dead_processes_are_removed_on_the_next_start(apibench: Path) -> None:
    root = index_store.index_root()
    root.mkdir(parents=True)
    dead = subprocess.Popen([sys.executable, "-c", "pass"])
    dead.wait()
    alive = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        stale = root / f".build-{dead.pid}-abc123"
        legacy = root / ".build-x7y8z9"  # named by an older release, without a PID
        running = root / f".build-{alive.pid}-def456"
        for d in (stale, legacy, running):
            d.mkdir()
            (d / "docs.json").write_bytes(b"[" + b" " * 100_000)
        refresh(mirrors=[apibench / "api"], only=["torchhub"])
        assert not stale.exists() and not legacy.exists() and running.exists()
    finally:
        alive.kill()
        alive.wait()


@pytest.mark.slow  # a refresh of whole pools or a lock wait: seconds
def test_a_held_lock_names_the_pid_and_for_how_long(apibench: Path) -> None:
    root = index_store.index_root()
    env = dict(os.environ, **{PAUSE_ENV: "8"})
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--from", str(apibench / "api")]
    slow = subprocess.Popen([*cmd, "--only", "torchhub"], env=env, stderr=subprocess.PIPE, text=True)
    try:
        end = time.monotonic() + 60
        while not list(root.glob(".build-*/meta.json")) and time.monotonic() < end:
            time.sleep(0.05)
        waited: list[str] = []
        with pytest.raises(GorillaError, match=rf"holds .*refresh.lock: PID {slow.pid} for \d+ s; try again"):
            with index_store.refresh_lock(timeout=0.2, on_wait=waited.append):
                pass
        assert len(waited) == 1 and waited[0].startswith(f"waiting for PID {slow.pid} for ")
        # the CLI says the same while it waits, then succeeds
        fast = subprocess.run([*cmd, "--only", "huggingface"], capture_output=True, text=True, timeout=120)
        assert fast.returncode == 0 and f"gorilla-tui: waiting for PID {slow.pid} for" in fast.stderr
    finally:
        if slow.poll() is None:
            slow.send_signal(signal.SIGTERM)
        slow.wait(30)


def test_a_damaged_live_index_is_rebuilt_from_the_sources_without_clean(
    apibench: Path, tmp_path: Path
) -> None:
    api = apibench / "api"
    mine = _mine(tmp_path, 3)
    refresh(mirrors=[api], only=["torchhub"], user_paths=[mine])
    for damage in (b"", b"PK\x03\x04garbage", None):  # emptied, overwritten, truncated
        tf = index_store.current_version() / "postings.npz"
        tf.write_bytes(tf.read_bytes()[: tf.stat().st_size // 2] if damage is None else damage)
        with pytest.raises(GorillaError, match="is damaged"):  # one line, never BadZipFile/EOFError
            ApiIndex.load()
        report = refresh(mirrors=[api], only=["huggingface"])  # no --clean, and mine not named again
        rows = {r["name"]: r for r in report.sources}
        assert set(report.index.sources) == {"huggingface", "torchhub", "mine"}
        assert rows["mine"]["status"] == "ok" and rows["mine"]["origin"] == str(mine)  # read again from there
        assert rows["torchhub"]["loaded"] == 94 and rows["torchhub"]["origin"] == str(api)
        assert report.warnings == [report.warnings[0]] and "could not be read" in report.warnings[0]
        assert ApiIndex.load().search("ship the order", hub="mine")
    # meta.json unreadable too: refresh-state.json still names every source and its folder, so each is
    # read again from there (nothing is kept from the damaged version), with a warning
    (index_store.current_version() / "meta.json").write_text("{not json")
    report = refresh(mirrors=[api], only=["torchhub"])
    rows = {r["name"]: r for r in report.sources}
    assert set(report.index.sources) == {"huggingface", "torchhub", "mine"}
    assert rows["mine"]["origin"] == str(mine) and rows["huggingface"]["origin"] == str(api)
    assert "could not be read" in report.warnings[0]


def test_emptied_docs_json_keeps_apizoo_by_reading_it_again_or_says_what_was_dropped(
    apibench: Path, apizoo: Path, tmp_path: Path
) -> None:
    api = apibench / "api"
    zoo = tmp_path / "apizoo"
    shutil.copytree(apizoo, zoo)
    refresh(mirrors=[api, zoo], only=["torchhub", "apizoo"])
    (index_store.current_version() / "docs.jsonl").write_text("")
    report = refresh(mirrors=[api], only=["torchhub"])
    assert {r["name"]: r["loaded"] for r in report.sources}["apizoo"] == 396  # read again from its folder
    (index_store.current_version() / "docs.jsonl").write_text("")
    shutil.rmtree(zoo)  # its folder is gone: dropped, and the refresh says how many and from where
    report = refresh(mirrors=[api], only=["torchhub"])
    assert "apizoo" not in report.index.sources
    assert any(
        w.startswith("apizoo: 396 of its 396 docs in the previous index dropped") for w in report.warnings
    )


def test_a_refused_source_never_enters_and_keeps_its_live_docs_said_in_one_line(
    apibench: Path, tmp_path: Path
) -> None:
    api = apibench / "api"
    mine = _mine(tmp_path, 4)
    refresh(mirrors=[api], only=["torchhub"], config_paths=[mine])
    assert "mine" in ApiIndex.load().sources
    mine.write_text("\n".join(["not json"] * 50 + ['{"api_call": "acme.ok()"}']) + "\n")
    report = refresh(mirrors=[api], only=["torchhub"], config_paths=[mine])
    row = next(r for r in report.sources if r["name"] == "mine")
    assert row["status"] == "kept" and "50 of 51 lines or entries are not docs" in row["message"]
    assert [d.api_call for d in report.index.docs if d.source == "mine"] == [
        f"acme.ship{i}(order_id)" for i in range(4)
    ]
    assert report.refused_kept == ["mine"]
    assert report.warnings == [
        f"mine refused: mine: 50 of 51 lines or entries are not docs (first bad line: {mine}:1); its 4 docs "
        "of the previous index were kept (fix or remove the file, then refresh again)"
    ]


def test_a_refused_source_the_live_index_never_held_is_left_out(apibench: Path, tmp_path: Path) -> None:
    api = apibench / "api"
    refresh(mirrors=[api], only=["torchhub"])
    mine = tmp_path / "mine.jsonl"
    mine.write_text("\n".join(["not json"] * 50) + "\n")
    report = refresh(mirrors=[api], only=["torchhub"], config_paths=[mine])
    assert {r["name"]: r["status"] for r in report.sources}["mine"] == "refused"
    assert "mine" not in report.index.sources and report.refused_kept == []


def test_a_refresh_that_drops_docs_says_how_many_and_from_which_source(
    apibench: Path, tmp_path: Path
) -> None:
    api = apibench / "api"
    refresh(mirrors=[api], only=["torchhub", "tensorflowhub"], user_paths=[_mine(tmp_path, 5)])
    report = refresh(mirrors=[api], only=["torchhub"], user_paths=[_mine(tmp_path, 2)])
    assert report.warnings == ["mine: 3 of its 5 docs in the previous index dropped (the source now has 2)"]
    report = refresh(mirrors=[api], only=["torchhub"], keep_previous=False)
    assert report.warnings == [
        "mine: 2 of its 2 docs in the previous index dropped (--clean drops the sources not refreshed now)",
        "tensorflowhub: 696 of its 696 docs in the previous index dropped (--clean drops the sources not "
        "refreshed now)",
    ]
