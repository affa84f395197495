"""APIBench tier of tests/unit/test_source_validation.py: Sources are validated before they are indexed (issue
17): regular files only, bounded reads, a per-source size limit, a line is a doc only with its format's
fields, and a source that is mostly not docs is refused."""

from __future__ import annotations

import base64
import json
import os
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import MAX_DIAGNOSTICS, SourceRejected, load_file, load_jsonl, load_paths
from gorilla_tui.pool.sources import user_source


def _garbage(path: Path, apibench: Path, megabytes: float, valid: int = 3) -> Path:
    """base64 text of random bytes (76-column lines, as `base64` writes it) followed by `valid` real
    APIBench lines: the shape of the file that once took a refresh to 5.2 GB."""
    blob = base64.encodebytes(os.urandom(int(megabytes * 1e6 * 3 / 4)))
    lines = (apibench / "api" / "torchhub_api.jsonl").read_bytes().splitlines(keepends=True)[:valid]
    path.write_bytes(blob + b"".join(lines))
    return path


def test_mostly_garbage_source_is_refused_whole_with_count_and_first_bad_line(
    apibench: Path, tmp_path: Path
) -> None:
    f = _garbage(tmp_path / "garbage.jsonl", apibench, 2.0)
    n_lines = f.read_bytes().count(b"\n")
    with pytest.raises(SourceRejected) as e:
        load_paths([f], "garbage")
    msg = str(e.value)
    assert f"{n_lines - 3} of {n_lines} lines or entries are not docs" in msg
    assert f"first bad line: {f}:1" in msg and "\n" not in msg
    # the same lines read one file at a time: counted past MAX_DIAGNOSTICS, only that many kept
    r = load_jsonl(f, "garbage")
    assert len(r.docs) == 3 and r.not_docs == n_lines - 3 and r.skipped == n_lines - 3
    assert len(r.diagnostics) == MAX_DIAGNOSTICS + 1 and "more lines or entries" in r.diagnostics[-1].message


def test_a_doc_file_with_a_few_slips_still_loads(apibench: Path, tmp_path: Path) -> None:
    good = (apibench / "api" / "torchhub_api.jsonl").read_text().splitlines()
    f = tmp_path / "mine.jsonl"
    f.write_text("\n".join([*good[:10], "{broken", "[1, 2]", '{"api_name": "no call"}']) + "\n")
    r = load_paths([f], "mine", "apibench")
    assert len(r.docs) == 10 and r.not_docs == 3 and r.first_not_doc == f"{f}:11"


def test_size_limit_per_source(apibench: Path, tmp_path: Path) -> None:
    hf = apibench / "api" / "huggingface_api.jsonl"  # 1.06 MB, the largest APIBench pool
    with pytest.raises(
        SourceRejected, match=r"more than 1 MB, the size limit of one source .*--max-source-mb"
    ):
        load_paths([hf], "huggingface", "apibench", max_bytes=1_000_000)
    assert len(load_paths([hf], "huggingface", "apibench", max_bytes=2_000_000).docs) == 936
    # a folder counts all its files together
    folder = tmp_path / "two"
    folder.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (folder / name).write_bytes(hf.read_bytes()[:600_000].rsplit(b"\n", 1)[0] + b"\n")
    with pytest.raises(SourceRejected, match=r"two \(2 files\): more than 1 MB"):
        load_paths([folder], "two", max_bytes=1_000_000)


def test_user_source_refusals_and_missing_paths(apibench: Path, tmp_path: Path) -> None:
    with pytest.raises(SourceRejected, match="not docs"):
        user_source(_garbage(tmp_path / "junk.jsonl", apibench, 0.2))
    with pytest.raises(UsageError, match="no such file"):
        user_source(tmp_path / "nope.jsonl")


def test_json_nested_deeper_than_the_recursion_limit_is_a_bad_line_not_a_crash(
    apibench: Path, tmp_path: Path
) -> None:
    # hostile-input pass (breakit1): `index --refresh --source deep.json` was "internal error: RecursionError"
    real = (apibench / "api" / "torchhub_api.jsonl").read_bytes().splitlines(keepends=True)[:3]
    deep_line = b'{"a":' * 100_000 + b"1" + b"}" * 100_000 + b"\n"
    jsonl = tmp_path / "deep.jsonl"
    jsonl.write_bytes(b"".join(real) + deep_line)
    loaded = load_jsonl(jsonl, "deep")
    assert len(loaded.docs) == 3
    assert any("nested deeper" in d.message and d.line == 4 for d in loaded.diagnostics)
    apizoo = tmp_path / "deep.json"
    apizoo.write_text("[" * 200_000 + "]" * 200_000)
    loaded = load_file(apizoo, "deep")
    assert not loaded.docs
    assert any("nested deeper" in d.message for d in loaded.diagnostics)
    entries = tmp_path / "entries.json"  # not strict JSON (trailing comma): read entry by entry
    good = json.dumps({"api_name": "x", "api_call": "foo.bar(1)", "user_name": "u"})
    entries.write_text("[\n" + good + ",\n" + '{"a":' * 100_000 + "1" + "}" * 100_000 + ",\n]")
    loaded = load_file(entries, "entries")
    assert [d.api_call for d in loaded.docs] == ["foo.bar(1)"]
    assert any("entry 2: invalid JSON: nested deeper" in d.message for d in loaded.diagnostics)
