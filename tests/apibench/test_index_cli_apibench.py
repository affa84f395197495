"""APIBench tier of tests/cli/test_index_cli.py: `gorilla-tui index --refresh / --status` through cli.main,
and clear exit-2 errors."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from tests.cli.test_index_cli import _one_line_error


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
    assert (
        main(["index", "--status"]) == 0
    )  # a state, not an error: nothing was published by the failed refreshes
    assert capsys.readouterr().out.startswith("no index yet")
