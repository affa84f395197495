"""Issue 42 round 4, kind 3: the record of what an index's files should be is checked with them, every file
the index or the checker loads is in the one check, and every TOML the product reads gives one line.

Main said nothing of a refresh-state.json deleted or cut short (search used a docs.jsonl edited since,
status and doctor exit 0 with "integrity not checked"); a byte changed inside it was blamed on the file
whose record it altered ("lookup/3/228.json changed") while search exited 0; a deleted lookup/ was damage
for `index --status` and nothing for `search` and `check`; a deleted dense.json was "built with --no-dense";
a TOML value nested 3,000 deep was "internal error: RecursionError". Real refreshes of tests/data/pool
through cli.main, as tests/cli/test_damaged_index_kinds_cli.py."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from gorilla_tui import resources
from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths
from gorilla_tui.pool import manifest as manifest_module
from gorilla_tui.pool.manifest import shipped_values
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as store
from tests.conftest import unrecord

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
HUBS = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), *(a for h in HUBS for a in ("--only", h))]
FIX = "gorilla-tui index --refresh"
TASK = "classify images"
CODE = "torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)"
#: A TOML value nested deeper than tomllib's recursive parser goes (break 5 of round 4).
DEEP = "[" * 3000 + '"x"' + "]" * 3000


def _built(capsys: pytest.CaptureFixture[str]) -> Path:
    """The version folder of a real refresh of the small pool's hubs (with check's lookup/)."""
    assert main([*REFRESH, "--json"]) == 0
    return Path(json.loads(capsys.readouterr().out)["path"])


def _same_damage_everywhere(capsys: pytest.CaptureFixture[str], name: str) -> None:
    """search, check and `index --status` exit 2 with the one line naming `name` as what is damaged;
    doctor lists it as a problem (exit 1) with the rebuild fix."""
    lines = []
    for argv in (["search", TASK], ["check", CODE], ["index", "--status"]):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert "internal error" not in err and "Traceback" not in err, err
        first = err.splitlines()[0]
        assert first.startswith("gorilla-tui: error: ") and "is damaged" in first and name in first, err
        assert FIX in err
        lines.append(first)
    assert len(set(lines)) == 1, lines  # one check, one answer
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(name in p["problem"] and p["fix"].startswith(FIX) for p in problems), problems


def test_the_refresh_state_is_checked_as_part_of_the_index(capsys: pytest.CaptureFixture[str]) -> None:
    folder = _built(capsys)
    state_path = folder / integrity.STATE_FILE
    saved = state_path.read_bytes()
    state = json.loads(saved)
    # one hex digit of a recorded digest changed: still JSON, so it once blamed the file it records
    rel = sorted(state["files"])[0]
    digest = state["files"][rel]["sha256"]
    state["files"][rel]["sha256"] = ("0" if digest[0] != "0" else "1") + digest[1:]
    state_path.write_text(json.dumps(state, indent=0), encoding="utf-8")
    _same_damage_everywhere(capsys, f"{integrity.STATE_FILE} changed since it was built")
    state_path.write_bytes(saved[: len(saved) // 2])  # cut short
    _same_damage_everywhere(capsys, f"{integrity.STATE_FILE} changed since it was built")
    # deleted, and a doc edited since: the edit is not searched as if the index were sound
    state_path.unlink()
    docs = folder / store.DOCS_FILE
    docs.write_bytes(docs.read_bytes().replace(b"torch", b"torcX"))
    _same_damage_everywhere(capsys, f"{integrity.STATE_FILE} is missing")


def test_an_index_of_an_older_release_without_a_record_is_said_unchecked(
    capsys: pytest.CaptureFixture[str],
) -> None:
    """A version whose meta.json has no integrity.RECORD_KEY was published by a release that may have
    written no refresh-state.json: not damage, one note with the refresh that adds it."""
    folder = _built(capsys)
    (folder / integrity.STATE_FILE).unlink()
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    del meta[integrity.RECORD_KEY]
    (folder / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    assert main(["search", TASK]) == 0
    assert main(["index", "--status"]) == 0
    said = "".join(capsys.readouterr())  # the note is on status's report
    assert said.count("integrity not checked: built by an older version") == 1 and FIX in said, said


def test_every_file_the_index_or_the_checker_loads_is_in_the_one_check(
    capsys: pytest.CaptureFixture[str],
) -> None:
    folder = _built(capsys)
    shutil.rmtree(folder / "lookup")
    _same_damage_everywhere(capsys, "lookup/")


@pytest.mark.parametrize("how", ["deleted", "link to /dev/zero", "fifo"])
def test_a_deleted_dense_json_is_damaged_vectors_everywhere(
    dense: Path, capsys: pytest.CaptureFixture[str], how: str
) -> None:
    """Break-it round 5 added the link and the FIFO: search used BM25 alone without a word, status said
    "built with --no-dense" and doctor found no problem."""
    folder = _built(capsys)
    (folder / store.DENSE_META).unlink()
    why = f"vectors are damaged ({store.DENSE_META} is missing)"
    if how != "deleted":
        if how == "fifo":
            os.mkfifo(folder / store.DENSE_META)
        else:
            (folder / store.DENSE_META).symlink_to("/dev/zero")
        why = f"vectors are damaged ({store.DENSE_META} cannot be read (not a regular file))"
    assert main(["search", "--json", TASK]) == 0
    out, err = capsys.readouterr()
    assert all(h["dense"] is None for h in json.loads(out)["hits"])  # BM25 alone, and said
    assert why in err and FIX in err
    assert main(["index", "--status", "--json"]) == 0
    note = json.loads(capsys.readouterr().out)["dense"]["note"]
    assert why in note and "--no-dense" not in note, note
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(why in p["problem"] for p in problems), problems


def _one_toml_line(capsys: pytest.CaptureFixture[str], argv: list[str], where: str, code: int = 2) -> None:
    """`argv` exits `code`; exit 2: its error is one line naming the TOML file `where`; doctor (1): the file
    is a problem it lists."""
    assert main(argv) == code, argv
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    if code == 2:
        assert err.startswith(f"gorilla-tui: error: {where}: invalid TOML: "), err
        assert len(err.strip().splitlines()) == 1, err
    else:
        problems = json.loads(out)["problems"]
        assert any(p["problem"].startswith(f"{where}: invalid TOML") for p in problems), problems


def test_a_deeply_nested_config_is_one_line_naming_it(capsys: pytest.CaptureFixture[str]) -> None:
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"sources = {DEEP}\n", encoding="utf-8")
    for argv in (["search", TASK], ["mcp"], ["index", "--refresh", "--only", "torchhub"]):
        _one_toml_line(capsys, argv, str(config))
    _one_toml_line(capsys, ["doctor", "--no-inference", "--no-hash", "--json"], str(config), code=1)


def test_a_deeply_nested_source_manifest_is_one_line_naming_it(
    dense: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A search reads the shipped manifests for its hybrid sources' settings (retrieve/fusion.py): a hybrid
    index, so it does (a BM25-only search reads no manifest)."""
    _built(capsys)
    folder = tmp_path / "index"
    folder.mkdir()
    for f in resources.data_files("index"):
        (folder / f.name).write_text(f.read_text(encoding="utf-8"), encoding="utf-8")
    hub = folder / "apibench-torchhub.toml"
    hub.write_text(f"deep = {DEEP}\n" + hub.read_text(encoding="utf-8"), encoding="utf-8")
    monkeypatch.setattr(
        manifest_module, "data_files", lambda name, suffix=".toml": sorted(folder.glob("*.toml"))
    )
    shipped_values.cache_clear()
    try:
        where = "index/apibench-torchhub.toml"
        for argv in (["search", TASK], ["index", "--status"], REFRESH):
            _one_toml_line(capsys, argv, where)
        _one_toml_line(capsys, ["doctor", "--no-inference", "--no-hash", "--json"], where, code=1)
    finally:
        shipped_values.cache_clear()


@pytest.mark.parametrize("recorded", [True, False])
@pytest.mark.parametrize("name", [store.POSTINGS_FILE, store.DOCS_FILE, "prior.npy", "vocab.json"])
def test_a_fifo_in_place_of_an_index_file_is_damage_not_a_hang(
    name: str, recorded: bool, capsys: pytest.CaptureFixture[str]
) -> None:
    """Break-it round 5: a FIFO in place of postings.npz (the record's check not yet cached) hung search,
    `index --status` and doctor until killed, and the TUI would not exit. The integrity check runs before
    any file is read (store.read_stored), so every file is one path, in an index with no record to check
    against too (an older release: tests.conftest.unrecord; a FIFO prior.npy there hung a search)."""
    folder = _built(capsys)
    if not recorded:
        unrecord(folder)
    (folder / integrity.VERIFIED).unlink(missing_ok=True)
    (folder / name).unlink()
    os.mkfifo(folder / name)
    _same_damage_everywhere(capsys, name)
