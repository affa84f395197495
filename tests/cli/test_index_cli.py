"""`gorilla-tui index --refresh / --status` through cli.main, and clear exit-2 errors."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from gorilla_tui.cli import main


def _refresh(apibench: Path, *extra: str) -> int:
    return main(["index", "--refresh", "--from", str(apibench / "api"), *extra])


def test_refresh_summary_and_status(
    apibench: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps tables at 80 columns when not on a terminal
    assert _refresh(apibench, "--only", "torchhub", "--only", "huggingface") == 0
    out = capsys.readouterr().out
    assert "index refreshed" in out and "936" in out and "94" in out and "1030 docs" in out
    assert main(["index", "--status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in status["sources"]}
    assert (rows["torchhub"]["loaded"], rows["torchhub"]["flagged"], rows["torchhub"]["skipped"]) == (
        94,
        7,
        0,
    )
    assert (rows["huggingface"]["loaded"], rows["huggingface"]["flagged"]) == (936, 22)  # 7 ids unquoted
    assert rows["huggingface"]["calls_repaired"] == 14 and rows["torchhub"]["calls_repaired"] == 7
    flagged = [f["source"] for f in status["flagged"]]
    assert flagged.count("torchhub") == 7 and flagged.count("huggingface") == 22
    assert sum(1 for f in status["flagged"] if f["repaired"]) == status["flagged_repaired"] == 21
    assert status["size_bytes"] > 100_000 and 0 <= status["age_seconds"] < 600
    assert Path(status["path"]).parent == Path(status["index_dir"])
    assert main(["index", "--status"]) == 0
    out = capsys.readouterr().out
    assert "flagged entries (29)" in out and "torchhub:88" in out and "huggingface:719" in out
    assert "21 repaired" in out and "8 still flagged" in out


def test_refresh_json_with_user_source(
    apibench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mine = tmp_path / "team_apis.jsonl"
    mine.write_text('{"api_call": "acme.ship(order_id)", "description": "ship a customer order"}\n{broken\n')
    assert _refresh(apibench, "--only", "torchhub", "--source", str(mine), "--json") == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows["team_apis"]["loaded"] == 1 and rows["team_apis"]["skipped"] == 1
    assert main(["search", "ship the order", "--hub", "team_apis", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"][0]["api_call"] == "acme.ship(order_id)"


def test_source_named_like_a_builtin_or_given_a_name(
    apibench: Path, apizoo: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 19: `--source .../apizoo` (a read-only mirror named like the built-in source) supplies the
    built-in apizoo source instead of failing; `--source NAME=PATH` names any folder."""
    assert apizoo.name == "apizoo"
    assert _refresh(apibench, "--only", "torchhub", "--source", str(apizoo), "--json") == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows["apizoo"]["status"] == "ok" and rows["apizoo"]["loaded"] > 0
    assert "(your copy)" in rows["apizoo"]["title"] and rows["apizoo"]["origin"] == str(apizoo)
    loaded = rows["apizoo"]["loaded"]
    assert _refresh(apibench, "--only", "torchhub", "--source", f"zoo={apizoo}", "--json") == 0
    rows = {r["name"]: r for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows["zoo"]["loaded"] == loaded and rows["zoo"]["status"] == "ok"
    assert main(["search", "list my gmail messages", "--hub", "zoo", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["hits"]
    assert _refresh(apibench, "--only", "torchhub", "--source", f"x={apizoo}", "--source", f"x={apizoo}") == 2
    assert "given twice" in _one_line_error(capsys)


def test_piped_refresh_table_keeps_its_why_column_readable(
    apibench: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Issue 19: `index --refresh | cat` laid the table out at 80 columns with a 4-character "from / why"
    column. Not on a terminal (capsys) and without $COLUMNS, each row's reason now stays on one line."""
    monkeypatch.delenv("COLUMNS", raising=False)
    assert _refresh(apibench, "--only", "torchhub", "--only", "apizoo") == 0
    out = capsys.readouterr().out
    why = next(line for line in out.splitlines() if line.startswith("│ apizoo"))
    assert "*.json not found in" in why and str(apibench / "api") in why
    assert str(apibench / "api") in next(line for line in out.splitlines() if line.startswith("│ torchhub"))


def _one_line_error(capsys: pytest.CaptureFixture[str]) -> str:
    err = capsys.readouterr().err
    assert err.startswith("gorilla-tui: error: ") and "Traceback" not in err
    return err


def test_status_without_index(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--status"]) == 2
    assert "index --refresh" in _one_line_error(capsys)


def test_no_reachable_source(tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    assert main(["index", "--refresh", "--only", "torchhub"]) == 2  # hf_hub_download, offline, not cached
    err = _one_line_error(capsys)
    assert "no source reachable" in err and "gorilla-llm/APIBench/torchhub_api.jsonl" in err
    (tmp_path / "mirror").mkdir()
    assert main(["index", "--refresh", "--from", str(tmp_path / "mirror"), "--only", "torchhub"]) == 2
    assert "not found in" in _one_line_error(capsys)
    assert main(["index", "--refresh", "--from", str(tmp_path / "nope")]) == 2
    assert "not a folder" in _one_line_error(capsys)
    assert main(["index", "--refresh", "--from", str(tmp_path), "--only", "nosuch"]) == 2
    assert "unknown source" in _one_line_error(capsys)


def test_empty_source_and_empty_documents(
    apibench: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert _refresh(apibench, "--only", "torchhub", "--source", str(empty)) == 2
    assert "source empty is empty" in _one_line_error(capsys)
    blank = tmp_path / "blank.jsonl"
    blank.write_text('{"api_call": "!!!"}\n{"api_call": "???"}\n')
    assert (
        main(["index", "--refresh", "--from", str(tmp_path), "--only", "blank", "--source", str(blank)]) == 2
    )
    assert "every document is empty" in _one_line_error(capsys)
    assert main(["index", "--status"]) == 2  # nothing was published by the failed refreshes
    capsys.readouterr()


def test_offline_refresh_names_each_file_and_says_how_to_build(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """Offline with only the local python-env source: exit 0 (documented in --help) and a closing warning
    naming what could not be fetched and the --from command."""
    from huggingface_hub import constants

    monkeypatch.setenv("COLUMNS", "200")
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-hf-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    argv = ["index", "--refresh", "--only", "torchhub", "--only", "tensorflowhub", "--only", "python-env"]
    assert main([*argv, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    rows = {r["name"]: r for r in out["sources"]}
    for hub in ("torchhub", "tensorflowhub"):
        msg = rows[hub]["message"]
        assert rows[hub]["status"] == "unreachable" and f"{hub}_api.jsonl" in msg
        assert msg.count("_api.jsonl") == 1 and "--from DIR" in msg and "HF_HUB_OFFLINE" in msg
    assert sorted(out["unavailable"]) == ["tensorflowhub", "torchhub"] and rows["python-env"]["loaded"] > 100
    assert out["warning"].startswith("only python-env was indexed")
    assert main(argv) == 0
    last = capsys.readouterr().out.strip().splitlines()[-1]
    assert last.startswith("warning: only python-env was indexed; could not fetch tensorflowhub, torchhub")
    assert "gorilla-tui index --refresh --from DIR" in last
    with pytest.raises(SystemExit):
        main(["index", "--help"])
    assert "exit status: 0 when an index was built" in capsys.readouterr().out


def test_doctor_index_hint_mentions_from(capsys: pytest.CaptureFixture[str]) -> None:
    main(["doctor", "--json"])
    fixes = [p["fix"] for p in json.loads(capsys.readouterr().out)["problems"]]
    index_fix = next(f for f in fixes if "index --refresh" in f)
    assert "gorilla-tui index --refresh" in index_fix and "--from DIR" in index_fix


SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
SMALL_HUBS = ("--only", "torchhub", "--only", "tensorflowhub", "--only", "huggingface", "--only", "apizoo")


def test_an_unchanged_refresh_says_so_per_source_and_force_rebuilds(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 18: a refresh whose sources did not change keeps the live index and says "unchanged" once per
    source; --force rebuilds it; a changed file rebuilds its source only."""
    mirror = tmp_path / "pool"
    shutil.copytree(SMALL_POOL, mirror)
    refresh = ["index", "--refresh", "--from", str(mirror), *SMALL_HUBS]
    assert main([*refresh, "--json"]) == 0
    first = json.loads(capsys.readouterr().out)
    assert first["unchanged"] is False
    assert main(refresh) == 0
    lines = capsys.readouterr().out.splitlines()
    assert lines[:4] == ["huggingface: unchanged", "tensorflowhub: unchanged", "torchhub: unchanged",
                         "apizoo: unchanged"]  # fmt: skip
    assert lines[4].startswith("no source changed: the live index is kept (19 docs, ")
    assert f"-> {first['path']}; --force rebuilds it" in lines[4]
    assert main([*refresh, "--force", "--json"]) == 0
    forced = json.loads(capsys.readouterr().out)
    assert forced["unchanged"] is False and forced["path"] != first["path"]
    assert all(r["message"] != "unchanged" for r in forced["sources"])
    hub = mirror / "huggingface_api.jsonl"
    hub.write_text(hub.read_text().replace("translation", "translation and subtitles", 1))
    assert main([*refresh, "--json"]) == 0
    rows = {r["name"]: r["message"] for r in json.loads(capsys.readouterr().out)["sources"]}
    assert rows == {
        "torchhub": "unchanged",
        "tensorflowhub": "unchanged",
        "huggingface": "",
        "apizoo": "unchanged",
    }
    assert main(["index", "--status", "--force"]) == 2
    assert "--force" in _one_line_error(capsys)


def test_a_builtin_source_given_a_copy_in_another_format_is_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Break-it finding: `--source torchhub=<an APIZoo folder>` silently replaced the Torch Hub pool."""
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    shutil.copy(SMALL_POOL / "apizoo.json", zoo / "apizoo.json")
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--source", f"torchhub={zoo}"]) == 2
    err = _one_line_error(capsys)
    assert err.count("\n") == 1 and "torchhub is a built-in source of JSON Lines (torchhub_api.jsonl)" in err
    assert main(["index", "--status"]) == 2  # nothing was built
