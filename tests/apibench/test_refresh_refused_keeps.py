"""A refresh whose --from folder holds a source's file over the size limit (a 10 GB sparse
huggingface_api.jsonl) keeps that source's docs of the live index, says so in one line and exits 2, and
refuses the file without reading or hashing it (issue 42 kind 3, break-it round 8 N15). Real APIBench
files."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths
from gorilla_tui.pool import files
from gorilla_tui.pool.doc import LoadResult, SourceRejected
from gorilla_tui.pool.manifest import FetchContext, load_manifests
from gorilla_tui.pool.sources import docs_fingerprint
from gorilla_tui.retrieve.index import ApiIndex

HUBS = ["--only", "torchhub", "--only", "huggingface"]


def _sparse(path: Path, size: int) -> Path:
    with open(path, "wb") as fh:
        fh.truncate(size)  # a hole: no disk used
    return path


def test_a_10gb_file_in_the_mirror_keeps_the_sources_live_docs_and_exits_2(
    apibench: Path, gorilla_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    api = str(apibench / "api")
    assert main(["index", "--refresh", "--from", api, *HUBS, "--no-dense", "--json"]) == 0
    capsys.readouterr()
    before = [d.api_call for d in ApiIndex.load().docs if d.source == "huggingface"]
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    shutil.copy(apibench / "api" / "torchhub_api.jsonl", mirror)
    _sparse(mirror / "huggingface_api.jsonl", 10 * 2**30)
    rc = main(["index", "--refresh", "--from", str(mirror), *HUBS, "--no-dense", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 2
    assert {r["name"]: r["status"] for r in out["sources"]}["huggingface"] == "kept"
    assert len(out["warnings"]) == 1, out["warnings"]
    assert out["warnings"][0].startswith("huggingface refused: ")
    assert "more than 64 MB" in out["warnings"][0]
    assert f"its {len(before):,} docs of the previous index were kept" in out["warnings"][0]
    assert [d.api_call for d in ApiIndex.load().docs if d.source == "huggingface"] == before


def test_an_oversized_file_is_refused_before_it_is_hashed_or_read(
    apibench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    mirror = tmp_path / "mirror"
    mirror.mkdir()
    big = mirror / "huggingface_api.jsonl"
    shutil.copy(apibench / "api" / "huggingface_api.jsonl", big)
    limit = big.stat().st_size - 1
    manifest = next(m for m in load_manifests() if m.name == "huggingface")
    with pytest.raises(SourceRejected, match="more than"):
        docs_fingerprint(manifest, FetchContext(mirrors=[mirror], max_bytes=limit))

    real_open = files.open_regular

    def opened_unread(path: Path, limit: int) -> object:
        """files.open_regular, which must refuse the oversized file by its size: opening it fails the test."""
        real_open(path, limit).close()
        raise AssertionError("the oversized file was opened to be read")

    monkeypatch.setattr(files, "open_regular", opened_unread)
    with pytest.raises(SourceRejected, match="more than"):
        files.read_text(big, LoadResult(), limit)
    with pytest.raises(SourceRejected, match="more than"):
        list(files.jsonl_lines(big, LoadResult(), limit))


def test_a_refused_config_source_with_no_live_docs_to_keep_exits_2(
    apibench: Path, gorilla_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A refused source is bad input whether or not the live index held docs of it to keep (the live index
    damaged, or a source never indexed): exit 2 with its "refused" row (it was 0)."""
    bad = tmp_path / "mine.jsonl"
    bad.write_text("\n".join(["not json"] * 50) + "\n")
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"sources = [{json.dumps(str(bad))}]\n")
    rc = main(
        ["index", "--refresh", "--from", str(apibench / "api"), "--only", "torchhub", "--no-dense", "--json"]
    )
    out = json.loads(capsys.readouterr().out)
    assert rc == 2
    assert {r["name"]: r["status"] for r in out["sources"]}["mine"] == "refused"
    assert "mine" not in ApiIndex.load().sources and "torchhub" in ApiIndex.load().sources
