"""Loaders on broken files (malformed, empty, binary, BOM, huge, APIZoo slips); on the real APIBench and
APIZoo files: tests/apibench/test_pool_apibench.py."""

from __future__ import annotations

import json
from pathlib import Path

from gorilla_tui.pool.doc import load_apizoo, load_file, load_jsonl
from gorilla_tui.retrieve.index import ApiIndex


def test_malformed_line_is_skipped_with_line_number(tmp_path: Path) -> None:
    f = tmp_path / "docs.jsonl"
    good = {"api_call": "foo.bar(x=1)", "domain": "Testing", "description": "frobnicate the widget"}
    f.write_text(
        json.dumps(good) + "\n{not json\n\n[1, 2]\n" + json.dumps(dict(good, api_call="baz()")) + "\n"
    )
    r = load_jsonl(f, "mine")
    assert [d.api_call for d in r.docs] == ["foo.bar(x=1)", "baz()"]
    assert [(d.line, d.severity) for d in r.diagnostics] == [(2, "skipped"), (4, "skipped")]
    assert str(f) in str(r.diagnostics[0]) and ":2:" in str(r.diagnostics[0])


def test_empty_binary_and_bom_files(tmp_path: Path) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    r = load_file(empty, "e")
    assert r.docs == [] and r.diagnostics[0].message == "empty file"
    binary = tmp_path / "blob.json"
    binary.write_bytes(b"\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR" * 10)
    r = load_file(binary, "b")
    assert r.docs == [] and r.diagnostics[0].severity == "skipped" and "binary" in r.diagnostics[0].message
    bom = tmp_path / "bom.jsonl"
    bom.write_bytes(
        b"\xef\xbb\xbf" + json.dumps({"api_call": "np.zeros(3)", "domain": "Arrays"}).encode() + b"\n"
    )
    r = load_file(bom, "bom")
    assert [d.api_call for d in r.docs] == ["np.zeros(3)"] and r.diagnostics == []
    zoo = tmp_path / "zoo.json"
    zoo.write_bytes(
        b"\xef\xbb\xbf" + json.dumps([{"api_call": "GET /v1/items/{id}", "api_name": "items"}]).encode()
    )
    r = load_apizoo(zoo, "zoo")
    assert r.docs[0].kind == "rest" and r.docs[0].rest == ("GET", "/v1/items/{id}")


def test_one_huge_field_loads_and_indexes(tmp_path: Path) -> None:
    f = tmp_path / "huge.jsonl"
    huge = "zebra " * 400_000  # a 2.4 MB description
    rows = [
        {"api_call": "zoo.feed(animal='zebra')", "description": huge},
        {"api_call": "zoo.open()", "description": "open gates"},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    r = load_jsonl(f, "zoo")
    assert len(r.docs) == 2 and len(r.docs[0].description) == len(huge.strip())
    hits = ApiIndex.build(r.docs).search("open the gates")
    assert hits[0].doc.api_call == "zoo.open()"


def test_apizoo_repairs_slips_entry_by_entry(tmp_path: Path) -> None:
    zoo = tmp_path / "zoo.json"
    zoo.write_text(
        "[\n"
        '  {"api_name": "a", "api_call": "a.get(x)", "questions": ["q1",]},\n'  # trailing comma
        '  {"api_name": "b", "api_call": "GET /v1/b/{id}"}\n'  # missing comma after this entry
        '  {"api_name": "c", "api_call": "c.put(y), "broken": 1},\n'  # unterminated string: skipped
        '  {"api_name": "d", "api_call": "d.run(\\"s, t\\")"}\n'  # a comma inside a string stays
        "]\n",
        encoding="utf-8",
    )
    r = load_apizoo(zoo, "zoo")
    assert [d.api_name for d in r.docs] == ["a", "b", "d"]
    assert (
        r.docs[0].questions == ["q1"] and r.docs[1].kind == "rest" and r.docs[2].api_call == 'd.run("s, t")'
    )
    # entries are split on their opening lines, so the missing comma after b needs no repair of b itself
    assert [(d.line, d.severity) for d in r.diagnostics] == [(2, "repaired"), (4, "skipped")]
