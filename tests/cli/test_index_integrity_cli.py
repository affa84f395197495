"""What `index --status`, `doctor` and a refresh make of the record of how the live index was built
(previous.STATE_FILE): each file's size is compared (os.stat) before it is hashed, so a huge file in the
version folder is "changed" without being read. Real refreshes of tests/data/pool through cli.main."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.build import previous
from gorilla_tui.build.previous import STATE_FILE, changed_since_built
from gorilla_tui.cli import main
from gorilla_tui.pool.fingerprint import file_digest
from gorilla_tui.store import integrity

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
HUBS = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), *(a for h in HUBS for a in ("--only", h))]
#: Size a listed file is stretched to (a sparse file: nothing is written, hashing it would read 8 GiB).
HUGE = 8 * 2**30


def _built(capsys: pytest.CaptureFixture[str]) -> Path:
    """The version folder of a real refresh of the small pool's hubs (with check's lookup files)."""
    assert main([*REFRESH, "--json"]) == 0
    return Path(json.loads(capsys.readouterr().out)["path"])


def _hashed(monkeypatch: pytest.MonkeyPatch) -> list[Path]:
    """The files previous hashes from now on (file_digest wrapped: each path recorded, then hashed)."""
    seen: list[Path] = []
    real = previous.file_digest

    def digest(path: Path, limit: int) -> str:
        seen.append(Path(path))
        return real(path, limit)

    monkeypatch.setattr(previous, "file_digest", digest)
    return seen


def test_state_records_each_files_size_and_sha256(capsys: pytest.CaptureFixture[str]) -> None:
    folder = _built(capsys)
    files: dict[str, Any] = json.loads((folder / STATE_FILE).read_text())["files"]
    assert "docs.jsonl" in files and any(rel.startswith("lookup/") for rel in files)
    for rel, entry in files.items():
        assert entry["size"] == (folder / rel).stat().st_size
        assert entry["sha256"] == previous.file_digest(folder / rel, entry["size"])


def test_a_huge_sparse_file_in_a_copy_of_the_index_is_changed_without_being_hashed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A listed file stretched to 8 GiB (os.truncate: sparse) is "changed" by its size alone; the other files
    are still hashed (their sizes match)."""
    copy = tmp_path / "copy"
    shutil.copytree(_built(capsys), copy)
    big = copy / "lookup" / "0" / "summary.json"
    os.truncate(big, HUGE)
    assert big.stat().st_size == HUGE
    hashed = _hashed(monkeypatch)
    assert changed_since_built(copy) == "lookup/0/summary.json changed since it was built"
    assert big not in hashed


def test_an_older_state_of_digests_alone_is_still_read(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A STATE_FILE written before the sizes were recorded ({path: SHA-256}): an untouched index is
    unchanged, one with bytes overwritten in place (same size) is changed."""
    copy = tmp_path / "copy"
    shutil.copytree(_built(capsys), copy)
    state = json.loads((copy / STATE_FILE).read_text())
    # as an older release wrote it: no digest of its own, and meta.json without integrity.RECORD_KEY
    del state[integrity.SELF_KEY]
    meta = json.loads((copy / "meta.json").read_text())
    del meta[integrity.RECORD_KEY]
    (copy / "meta.json").write_text(json.dumps(meta))
    state["files"]["meta.json"]["sha256"] = file_digest(copy / "meta.json", 2**30)
    state["files"] = {rel: entry["sha256"] for rel, entry in state["files"].items()}
    (copy / STATE_FILE).write_text(json.dumps(state))
    assert changed_since_built(copy) == ""
    data = bytearray((copy / "docs.jsonl").read_bytes())
    data[10:18] = b"tampered"
    (copy / "docs.jsonl").write_bytes(bytes(data))
    assert changed_since_built(copy) == "docs.jsonl changed since it was built"


@pytest.mark.slow  # a plain refresh: the whole standard library
@pytest.mark.parametrize("name", ["lookup/0/summary.json", "vocab.json", "meta.json", "performance.json"])
def test_status_doctor_and_refresh_never_read_a_huge_file_in_the_live_index(
    name: str, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file of the live index replaced by an 8 GiB sparse file: search and status say damaged (exit 2),
    doctor lists it as a problem, and a plain refresh rebuilds the index; none of them hashes the file, nor
    reads it whole (vocab.json and meta.json of 8 GiB took `index --status` over a minute and 8-23 GB of
    memory). The integrity check runs before any file is read (store.read_stored): its size differs from
    the record, so it is damaged unread, in the one wording."""
    monkeypatch.setenv("COLUMNS", "400")
    folder = _built(capsys)
    big = folder / name
    os.truncate(big, HUGE)
    hashed = _hashed(monkeypatch)
    why = f"{name} changed since it was built"
    assert main(["search", "classify images"]) == 2
    assert why in " ".join(capsys.readouterr().err.split())

    assert main(["index", "--status", "--json"]) == 2
    doc = json.loads(capsys.readouterr().out)
    assert doc["damaged"] is True and why in doc["message"], doc["message"]
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    assert any(why in p["problem"] for p in json.loads(capsys.readouterr().out)["problems"])
    assert main(["index", "--refresh", "--json"]) == 0
    report = json.loads(capsys.readouterr().out)
    assert Path(report["path"]) != folder and report["unchanged"] is False
    rows = {r["name"]: r["status"] for r in report["sources"]}
    assert all(rows.get(hub) == "ok" for hub in HUBS), rows  # read again from where they came
    assert big not in hashed
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["damaged"] is False


@pytest.mark.slow  # a plain refresh: the whole standard library
def test_status_and_doctor_say_when_integrity_was_not_checked(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """An index published by an older release without a STATE_FILE (meta.json without
    integrity.RECORD_KEY): nothing can be compared, and status and doctor say so (text and JSON); a plain
    refresh writes the record. A STATE_FILE deleted or not JSON in a version that has one is damage
    (tests/cli/test_index_record_cli.py)."""
    monkeypatch.setenv("COLUMNS", "400")
    folder = _built(capsys)
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["integrity"] == {"checked": True, "note": ""}
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) in (0, 1)
    assert "integrity not checked" not in capsys.readouterr().out
    (folder / STATE_FILE).unlink()
    meta = json.loads((folder / "meta.json").read_text())
    del meta[integrity.RECORD_KEY]
    (folder / "meta.json").write_text(json.dumps(meta))

    assert main(["index", "--status", "--json"]) == 0
    doc = json.loads(capsys.readouterr().out)
    assert doc["damaged"] is False
    assert doc["integrity"] == {"checked": False, "note": previous.UNCHECKED_NOTE}
    assert main(["index", "--status"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert f"note: {previous.UNCHECKED_NOTE}" in out
    assert "built by an older version of gorilla-tui, without refresh-state.json" in previous.UNCHECKED_NOTE

    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) in (0, 1)
    rep = json.loads(capsys.readouterr().out)
    assert [n["note"] for n in rep["notes"] if "integrity" in n["note"]] == [previous.UNCHECKED_NOTE]
    assert rep["index"]["integrity"] == "not checked"
    assert not any("integrity" in p["problem"] for p in rep["problems"])
    main(["doctor", "--no-inference", "--no-hash"])
    assert f"note: {previous.UNCHECKED_NOTE}" in " ".join(capsys.readouterr().out.split())

    assert main(["index", "--refresh", "--json"]) == 0
    capsys.readouterr()
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["integrity"]["checked"] is True
