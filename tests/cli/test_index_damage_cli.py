"""What `index --status` and `doctor` say of a damaged live index: the same as a search, which refuses it.

meta.json of the wrong shape (`[]`, `null`) or with fields of the wrong type ended both in an internal
error; a truncated docs.jsonl, a garbage line in it, a deleted postings.npz, garbage in vocab.json and a
meta.json of `{}` were shown as a healthy index (full table, exit 0) while `search` refused them. Both now
open the index as a search does (store.read_stored): status prints the search's line and how to rebuild
(exit 2; with --json a document saying "damaged", exit 2), doctor lists it as a problem with that fix. Real
refreshes of tests/data/pool through cli.main, then the files damaged."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as store
from tests.conftest import unrecord

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
HUBS = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), *(a for h in HUBS for a in ("--only", h))]
FIX = "gorilla-tui index --refresh"


def _merged(**fields: object) -> Callable[[Path], None]:
    def damage(folder: Path) -> None:
        meta = json.loads((folder / "meta.json").read_text())
        (folder / "meta.json").write_text(json.dumps(dict(meta, **fields)))

    return damage


def _garbage_line(folder: Path) -> None:
    lines = (folder / store.DOCS_FILE).read_bytes().split(b"\n")
    lines[3] = b"garbage"
    (folder / store.DOCS_FILE).write_bytes(b"\n".join(lines))


def _truncate(folder: Path) -> None:
    with open(folder / store.DOCS_FILE, "r+b") as f:
        f.truncate(1000)


DAMAGES: dict[str, tuple[Callable[[Path], None], str]] = {
    "meta-list": (lambda f: (f / "meta.json").write_text("[]"), "meta.json is not an object"),
    "meta-null": (lambda f: (f / "meta.json").write_text("null"), "meta.json is not an object"),
    "meta-empty": (lambda f: (f / "meta.json").write_text("{}"), "built by another version"),
    "meta-types": (_merged(built_at=5, sources="x", n_docs="many"), "meta.json's n_docs is not a count"),
    "built_at": (_merged(built_at=5), "meta.json's built_at is not an ISO date"),
    "built_at-naive": (_merged(built_at="2024-01-01T00:00:00"), "meta.json's built_at is not an ISO date"),
    "sources": (_merged(sources="x"), "meta.json's sources is not a list of source rows"),
    "source-row": (_merged(sources=[1]), "meta.json's sources is not a list of source rows"),
    "flagged": (_merged(flagged={"a": 1}), "meta.json's flagged is not a list"),
    "n_docs-lies": (_merged(n_docs=3), "meta.json's counts do not fit the postings"),
    "params": (_merged(params=[]), "meta.json's params is not an object"),
    "docs-truncated": (_truncate, "docs.jsonl does not fit its offsets"),
    "docs-garbage-line": (_garbage_line, "docs.jsonl does not fit its offsets"),
    "postings-deleted": (lambda f: (f / store.POSTINGS_FILE).unlink(), "postings.npz"),
    "vocab-garbage": (lambda f: (f / "vocab.json").write_text("garbage!"), "vocab.json"),
}


#: What an index with its record says of each of DAMAGES: the integrity check runs first
#: (store.read_stored), so every changed file is said one way and never read.
RECORDED = {
    name: "meta.json changed since it was built"
    for name in ("meta-list", "meta-null", "meta-types", "built_at", "built_at-naive", "sources",
                 "source-row", "flagged", "n_docs-lies", "params")
} | {
    "meta-empty": "built by another version",  # read first: another version's index is no damaged one
    "docs-truncated": "docs.jsonl changed since it was built",
    "docs-garbage-line": "docs.jsonl changed since it was built",
    "postings-deleted": "postings.npz is missing",
    "vocab-garbage": "vocab.json changed since it was built",
}  # fmt: skip


@pytest.mark.parametrize("recorded", [True, False])
@pytest.mark.parametrize("name", list(DAMAGES))
def test_status_and_doctor_say_what_search_says_of_a_damaged_index(
    name: str, recorded: bool, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """With the record of its files (every index this release builds), the words of the integrity check
    (RECORDED); without (an older release, tests.conftest.unrecord), the words of the read that refuses
    the file (DAMAGES)."""
    monkeypatch.setenv("COLUMNS", "400")
    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    if not recorded:
        unrecord(folder)
    damage, why = DAMAGES[name]
    why = RECORDED[name] if recorded else why
    damage(folder)

    assert main(["search", "classify images"]) == 2
    search_err = capsys.readouterr().err
    assert why in search_err and "internal error" not in search_err

    assert main(["index", "--status"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err == search_err  # the search's line and its hint, word for word
    assert err.startswith("gorilla-tui: error: ") and err.count("\n") == 2 and FIX in err

    assert main(["index", "--status", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["index"] is True and doc["damaged"] is True
    assert why in doc["message"] and FIX in doc["hint"]

    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    damaged = [p for p in rep["problems"] if why in p["problem"]]
    assert len(damaged) == 1 and damaged[0]["fix"].startswith(FIX) and "index" not in rep
    assert main(["doctor", "--no-inference", "--no-hash"]) == 1
    out = capsys.readouterr().out
    assert "internal error" not in out and "problem: " in out and f"fix: {FIX}" in out


@pytest.mark.slow  # a plain refresh: the whole standard library
def test_a_plain_refresh_mends_what_status_calls_damaged(capsys: pytest.CaptureFixture[str]) -> None:
    """The fix status and doctor name works: a plain `index --refresh` rebuilds the damaged index, and
    status then shows it again (exit 0, "damaged": false)."""
    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    (folder / "meta.json").write_text("[]")
    assert main(["index", "--status", "--json"]) == 2
    capsys.readouterr()
    assert main(["index", "--refresh", "--json"]) == 0
    capsys.readouterr()
    doc = json.loads(main(["index", "--status", "--json"]) == 0 and capsys.readouterr().out or "{}")
    assert doc["damaged"] is False and doc["n_docs"] > 0


def _overwrite_in_place(folder: Path) -> None:
    """A doc's bytes overwritten with as many other bytes: docs.jsonl keeps its size and its offsets fit."""
    data = bytearray((folder / store.DOCS_FILE).read_bytes())
    start = data.index(b"\n") + 1
    stop = data.index(b"\n", start)
    data[start:stop] = b"x" * (stop - start)
    (folder / store.DOCS_FILE).write_bytes(bytes(data))


@pytest.mark.slow  # a plain refresh: the whole standard library
def test_status_and_doctor_catch_bytes_overwritten_in_place(capsys: pytest.CaptureFixture[str]) -> None:
    """A search opens the index without hashing it and fails only when it shows the overwritten doc; status
    and doctor check every file against the SHA-256 recorded at refresh (previous.read_verified): damaged,
    the file named, exit 2 / a problem, and a plain refresh mends it."""
    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    size = (folder / store.DOCS_FILE).stat().st_size
    _overwrite_in_place(folder)
    assert (folder / store.DOCS_FILE).stat().st_size == size
    why = "docs.jsonl changed since it was built"

    assert main(["index", "--status"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and why in err and FIX in err and err.count("\n") == 2
    assert main(["index", "--status", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["damaged"] is True and why in doc["message"]
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert [p["fix"].startswith(FIX) for p in rep["problems"] if why in p["problem"]] == [True]

    assert main(["index", "--refresh", "--json"]) == 0
    capsys.readouterr()
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["damaged"] is False


@pytest.mark.slow  # a plain refresh: the whole standard library
def test_a_refresh_mends_overwritten_docs_of_an_index_without_refresh_state(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """An index built by an older release has no refresh-state.json to compare with: the refresh parses its
    docs instead, finds the overwritten one, and rebuilds from the sources (it failed with "rebuild it")."""
    from gorilla_tui.build.previous import STATE_FILE

    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    _overwrite_in_place(folder)
    (folder / STATE_FILE).unlink()
    assert main(["index", "--refresh", "--json"]) == 0
    capsys.readouterr()
    assert main(["search", "--json", "classify images"]) == 0
    assert json.loads(capsys.readouterr().out)


def test_a_refresh_state_naming_files_outside_the_index_is_never_read(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """refresh-state.json lists the files to hash; one naming a path outside the version folder (or a
    device) made status read it, for ever for /dev/zero. Such an entry counts as a change, unread."""
    from gorilla_tui.build.previous import STATE_FILE

    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    state = json.loads((folder / STATE_FILE).read_text())
    depth = len(folder.resolve().parts) - 1
    state["files"] = {"/".join([".."] * depth) + "/dev/zero": "0" * 64, **state["files"]}
    state[integrity.SELF_KEY] = integrity.state_digest(state)  # sealed again: its entries are read
    (folder / STATE_FILE).write_text(json.dumps(state))
    assert main(["index", "--status", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["damaged"] is True and "dev/zero changed since it was built" in doc["message"]


@pytest.mark.slow  # a plain refresh: the whole standard library
@pytest.mark.parametrize("state", ["nul", "long", "deep", "fifo"])
def test_a_hostile_refresh_state_never_crashes_or_hangs_status_or_refresh(
    state: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """refresh-state.json with a NUL byte or a 100,000-character file name, JSON nested 200,000 deep, or a
    FIFO in its place: status, doctor and the refresh that mends the index ended in an internal error
    (ValueError, OSError, RecursionError) or blocked for ever. A bad name counts as a change, and so does
    an unreadable record (store/integrity.py record_damage)."""
    import os

    from gorilla_tui.build.previous import STATE_FILE

    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    path = folder / STATE_FILE
    record = json.loads(path.read_text())
    if state in ("nul", "long"):
        name = "docs\u0000.jsonl" if state == "nul" else "a" * 100_000
        record = dict(record, files={name: "0" * 64, **record["files"]})
        path.write_text(json.dumps(dict(record, **{integrity.SELF_KEY: integrity.state_digest(record)})))
    elif state == "deep":
        path.write_text('{"files": ' + "[" * 200_000 + "]" * 200_000 + "}")
    else:
        path.unlink()
        os.mkfifo(path)
    code = main(["index", "--status", "--json"])
    doc = json.loads(capsys.readouterr().out)
    assert code == 2 and doc["damaged"] is True  # an unreadable record is damage too (issue 42, round 4)
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) in (0, 1)
    assert "internal error" not in capsys.readouterr().err
    assert main(["index", "--refresh", "--json"]) == 0
    capsys.readouterr()
    assert main(["index", "--status", "--json"]) == 0
