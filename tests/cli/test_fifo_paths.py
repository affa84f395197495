"""Break-it pass 10: a FIFO in place of a file the app reads for itself (config.toml, the index's CURRENT
pointer, the probe cache) is one line or ignored, never a hang. Before the fix each of these commands
blocked forever in open(), waiting for a writer; they run as child processes with a timeout here so a
regression fails instead of hanging the suite."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import threading

import pytest

from gorilla_tui.model import probe
from gorilla_tui.paths import get_paths
from tests.conftest import SMALL_POOL

#: Seconds a command may take before it counts as hung (a search of the 21-doc pool takes about 1 s).
HANG_S = 60


def _gorilla(*argv: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "COLUMNS": "120"}
    return subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *argv],
        capture_output=True,
        text=True,
        timeout=HANG_S,
        env=env,
        stdin=subprocess.DEVNULL,
    )


def test_config_toml_that_is_a_fifo_is_one_line_not_a_hang() -> None:
    cfg = get_paths().config_file
    cfg.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(cfg)
    done = _gorilla("search", "classify images", "-k", "1")
    assert done.returncode == 2, done
    assert done.stderr.strip() == (
        f"gorilla-tui: error: {cfg}: not a regular file (a FIFO), not a config file "
        "(remove it or move it aside)"
    )


def test_index_pointer_that_is_a_fifo_is_one_line_and_the_next_refresh_replaces_it() -> None:
    index_dir = get_paths().index_dir
    index_dir.mkdir(parents=True)
    os.mkfifo(index_dir / "CURRENT")
    done = _gorilla("search", "classify images", "-k", "1")
    assert done.returncode == 2, done
    first = done.stderr.strip().splitlines()[0]
    assert first == f"gorilla-tui: error: cannot read {index_dir / 'CURRENT'}: not a regular file (a FIFO)"
    assert "Traceback" not in done.stderr
    refreshed = _gorilla("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert refreshed.returncode == 0, refreshed.stderr
    assert (index_dir / "CURRENT").is_file()
    found = _gorilla("search", "classify images", "-k", "1", "--json")
    assert found.returncode == 0, found.stderr
    assert '"source": "torchhub"' in found.stdout


def test_probe_cache_that_is_a_fifo_reads_as_empty() -> None:
    path = probe.cache_file()
    path.parent.mkdir(parents=True, exist_ok=True)
    os.mkfifo(path)
    result: list[dict] = []
    reader = threading.Thread(target=lambda: result.append(probe._read_cache()), daemon=True)
    reader.start()
    reader.join(HANG_S)
    assert not reader.is_alive(), "reading a FIFO probe.json blocked"
    assert result == [{}]


def test_a_mirror_file_that_is_a_fifo_is_named_as_one(tmp_path) -> None:
    """`index --refresh --from DIR` with a FIFO under the manifest's file name said only "not found"."""
    os.mkfifo(tmp_path / "torchhub_api.jsonl")
    done = _gorilla("index", "--refresh", "--from", str(tmp_path), "--only", "torchhub")
    assert done.returncode == 2, done
    errors = [line for line in done.stderr.splitlines() if line.startswith("gorilla-tui: error: ")]
    assert errors[0] == (
        f"gorilla-tui: error: no source reachable (torchhub: torchhub_api.jsonl not found in {tmp_path} "
        f"({tmp_path / 'torchhub_api.jsonl'} is a FIFO, not a file))"
    )


def test_gorilla_tui_home_that_is_no_folder_is_one_line(tmp_path, monkeypatch) -> None:
    """GORILLA_TUI_HOME=/etc/passwd (or a FIFO) made every command say "no index ... build it with index
    --refresh", and the refresh then failed with "Not a directory"."""
    fifo = tmp_path / "home-fifo"
    os.mkfifo(fifo)
    afile = tmp_path / "home-file"
    afile.write_text("x")
    for home, kind in ((fifo, "a FIFO"), (afile, "a file")):
        monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
        for argv in (("search", "classify images"), ("index", "--refresh", "--from", str(SMALL_POOL))):
            done = _gorilla(*argv)
            assert done.returncode == 2, done
            assert done.stderr.strip() == (
                f"gorilla-tui: error: GORILLA_TUI_HOME={home} is {kind}, not a folder: point it at a folder"
            )


def test_saving_settings_leaves_a_fifo_or_folder_that_config_toml_points_at_alone(tmp_path) -> None:
    """Break-it pass 11: save_settings followed a config.toml symbolic link and os.replace'd whatever it
    pointed at: a FIFO became a regular file, and a config.toml linked to /dev/null (a common way to switch
    a config file off) would, run as root, have replaced the machine's /dev/null. Now one UsageError and
    the target is left as it was (a FIFO stands in for the device here)."""
    import stat

    import pytest

    from gorilla_tui.config import Settings, save_settings
    from gorilla_tui.errors import UsageError

    fifo = tmp_path / "null"
    os.mkfifo(fifo)
    folder = tmp_path / "folder"
    folder.mkdir()
    cfg = get_paths().config_file
    cfg.parent.mkdir(parents=True, exist_ok=True)
    for target, kind in ((fifo, "a FIFO"), (folder, "a folder")):
        cfg.unlink(missing_ok=True)
        cfg.symlink_to(target)
        with pytest.raises(UsageError) as caught:
            save_settings(Settings(n_ctx=2048))
        assert str(caught.value) == (
            f"{target}: cannot write the config file (it is {kind}, not a regular file); remove it or point "
            "config.toml at a regular file"
        )
        assert cfg.is_symlink()
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and folder.is_dir() and not any(folder.iterdir())
    assert sorted(p.name for p in tmp_path.iterdir()) == ["folder", "null"]  # no temp file left either


@pytest.mark.parametrize("where", ["index", "data"])
def test_a_file_in_place_of_the_index_folder_is_damage_and_a_refresh_moves_it_aside(where: str) -> None:
    """Break-it round 6: a regular file in place of data/index (or of data/) was "no index", and the
    refresh that message offered failed ("File exists"). It is damaged state: one line naming the path and
    the fix, exit 2 (doctor: a problem with that fix); the refresh moves it aside, never deletes it, and
    builds the index there; nothing else saved is touched."""
    paths = get_paths()
    history = paths.history_db
    history.parent.mkdir(parents=True, exist_ok=True)
    history.write_text("saved history")
    path = paths.index_dir if where == "index" else paths.data
    if where == "data":
        history.unlink()
        history.parent.rmdir()
    path.write_text("a file of the person's")
    for argv in (("search", "classify images", "-k", "1"), ("index", "--status")):
        done = _gorilla(*argv)
        assert done.returncode == 2, done
        assert done.stderr.splitlines() == [
            f"gorilla-tui: error: {path} is a file, not a folder: the index cannot be read there "
            "(damaged state)",
            f"  hint: gorilla-tui index --refresh moves it aside (to {path.name}.damaged-TIME) and builds "
            "a new index there",
        ]
    doctor = _gorilla("doctor", "--no-inference")
    assert doctor.returncode == 1 and f"problem: {path} is a file, not a folder" in doctor.stdout, doctor
    assert f"fix: gorilla-tui index --refresh moves it aside (to {path.name}.damaged-TIME)" in doctor.stdout
    refreshed = _gorilla("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert refreshed.returncode == 0, refreshed.stderr
    aside = list(path.parent.glob(path.name + ".damaged-*"))
    assert len(aside) == 1 and aside[0].read_text() == "a file of the person's"
    assert f"{path} was a file, not a folder: moved aside to {aside[0].name}" in refreshed.stdout
    assert where == "data" or history.read_text() == "saved history"
    found = _gorilla("search", "classify images", "-k", "1", "--json")
    assert found.returncode == 0 and '"source": "torchhub"' in found.stdout, found.stderr


def test_a_file_in_place_of_the_live_version_folder_is_replaced_by_the_refresh() -> None:
    """CURRENT naming a file (not a folder) was "the live index folder ... is missing"; it says what is
    there, and the refresh replaces it (the file is removed with the version it stood for)."""
    assert _gorilla("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub").returncode == 0
    index_dir = get_paths().index_dir
    live = index_dir / (index_dir / "CURRENT").read_text().strip()
    shutil.rmtree(live)
    live.write_text("x")
    done = _gorilla("search", "classify images", "-k", "1")
    assert done.returncode == 2, done
    assert f"the live index folder {live} is a file, not a folder; rebuild the index" in done.stderr
    refreshed = _gorilla("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert refreshed.returncode == 0, refreshed.stderr
    assert not live.exists() and _gorilla("search", "classify images", "-k", "1").returncode == 0


@pytest.mark.parametrize("name", ["CURRENT", "CURRENT.tmp", "refresh.lock"])
def test_a_folder_in_place_of_a_file_of_the_index_is_moved_aside_by_the_refresh(name: str) -> None:
    """A folder in place of CURRENT was "cannot read" with no fix, and the refresh failed after building the
    whole index ("Is a directory"), as it did at once for a folder in place of its lock or of CURRENT.tmp.
    The refresh moves it aside (never deletes it) and publishes; CURRENT's error names that fix."""
    refresh = ("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert _gorilla(*refresh).returncode == 0
    path = get_paths().index_dir / name
    path.unlink(missing_ok=True)
    (path / "inside").mkdir(parents=True)
    if name == "CURRENT":
        done = _gorilla("search", "classify images", "-k", "1")
        assert done.returncode == 2 and done.stderr.splitlines() == [
            f"gorilla-tui: error: cannot read {path}: not a regular file (a folder)",
            "  hint: gorilla-tui index --refresh moves it aside (to CURRENT.damaged-TIME) and builds a new "
            "index there",
        ], done.stderr
    refreshed = _gorilla(*refresh)
    assert refreshed.returncode == 0, refreshed.stderr
    aside = list(path.parent.glob(name + ".damaged-*"))
    assert len(aside) == 1 and (aside[0] / "inside").is_dir()
    assert path.is_file() or name == "CURRENT.tmp"
    found = _gorilla("search", "classify images", "-k", "1", "--json")
    assert found.returncode == 0 and '"source": "torchhub"' in found.stdout, found.stderr


def test_a_symbolic_link_loop_for_the_home_or_the_data_folder_is_named(tmp_path, monkeypatch) -> None:
    """Break-it round 7 (partly held): a home that is a link to itself was "cannot read
    .../data/index/CURRENT: Too many levels of symbolic links", naming CURRENT; the loop itself is named. A
    data folder that loops is damaged state that the refresh moves aside (the link, not what it names)."""
    home = tmp_path / "home"
    home.symlink_to(home)
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    done = _gorilla("search", "classify images")
    assert done.returncode == 2 and done.stderr.strip() == (
        f"gorilla-tui: error: GORILLA_TUI_HOME={home} is a symbolic link loop, not a folder: "
        "point it at a folder"
    ), done.stderr
    home.unlink()
    home.mkdir()
    (home / "data").symlink_to(home / "data")
    done = _gorilla("search", "classify images")
    assert done.returncode == 2, done
    assert done.stderr.startswith(
        f"gorilla-tui: error: {home / 'data'} is a symbolic link loop, not a folder"
    )
    refreshed = _gorilla("index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub")
    assert refreshed.returncode == 0, refreshed.stderr
    assert (home / "data").is_dir() and len(list(home.glob("data.damaged-*"))) == 1
