"""Loaders on the real APIBench and APIZoo files and on broken ones (malformed, empty, binary, BOM, huge)."""

from __future__ import annotations

import json
from pathlib import Path

from gorilla_tui.pool.doc import load_apizoo, load_file, load_jsonl, load_paths
from gorilla_tui.retrieve.index import ApiIndex

#: Hugging Face api_calls that Python parses but whose repo id is not quoted (``runwayml/stable-...``).
HF_UNQUOTED = {29, 34, 53, 60, 63, 720, 789}
HF_FLAGGED = {38, 112, 278, 287, 345, 544, 719, 726, 728, 731, 732, 894, 901, 908, 909}


def test_apibench_counts_and_flagged(apibench: Path) -> None:
    counts = {}
    for hub in ("torchhub", "tensorflowhub", "huggingface"):
        r = load_file(apibench / "api" / f"{hub}_api.jsonl", hub, "apibench")
        counts[hub] = (len(r.docs), r.flagged, r.skipped)
        assert all(isinstance(d.api_arguments, dict) for d in r.docs)  # dict, list, string or null normalised
        assert all(isinstance(d.env_requirements, list) and isinstance(d.example_code, str) for d in r.docs)
        assert len({d.id for d in r.docs}) == len(r.docs)
    # huggingface: 15 api_calls Python refuses + 7 with a repo id written without quotes (issue 15)
    assert counts == {"torchhub": (94, 7, 0), "tensorflowhub": (696, 0, 0), "huggingface": (936, 22, 0)}
    torch = load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub")
    assert sorted(int(d.id.split(":")[1]) for d in torch.docs if d.flagged) == list(range(88, 95))
    assert all("positional argument follows keyword" in d.flagged for d in torch.docs if d.flagged)
    hf = load_jsonl(apibench / "api" / "huggingface_api.jsonl", "huggingface")
    assert {int(d.id.split(":")[1]) for d in hf.docs if d.flagged} == HF_FLAGGED | HF_UNQUOTED
    flagged_diags = [d for d in hf.diagnostics if d.severity == "flagged"]
    assert len(flagged_diags) == 22 and all(d.line in HF_FLAGGED | HF_UNQUOTED for d in flagged_diags)
    unquoted = [d for d in hf.docs if d.flagged and "not quoted" in d.flagged]
    assert {int(d.id.split(":")[1]) for d in unquoted} == HF_UNQUOTED
    assert all(d.repaired and "'" + d.api_name in d.repaired for d in unquoted if "/" in d.api_name)
    # repaired: the 7 unquoted ids, 6 trailing '.', 1 from example_code; Torch Hub: MEAL V2, 7 of 7
    assert sum(1 for d in hf.docs if d.flagged and d.repaired) == 14
    assert sum(1 for d in torch.docs if d.flagged and d.repaired) == 7


def test_apizoo_folder_rest_and_placeholders(apizoo: Path) -> None:
    r = load_paths([apizoo], "apizoo", "apizoo")
    files = {Path(d.file).name for d in r.diagnostics}
    by_file: dict[str, int] = {}
    for d in r.docs:
        by_file[d.id.split(":")[1]] = by_file.get(d.id.split(":")[1], 0) + 1
    assert set(by_file) >= {"Gmail_API", "KubernetesAPI", "yfinance", "Youtube_API"}
    rest = [d for d in r.docs if d.kind == "rest"]
    assert rest and all(d.rest is not None and d.rest[1].startswith("/") for d in rest)
    assert any("{namespace}" in d.api_call for d in rest)
    yf = [d for d in r.docs if "yf.download" in d.api_call]
    assert yf and yf[0].kind == "python" and "{tickers}" in yf[0].api_call and yf[0].questions
    # the two hand-written files with JSON slips (trailing/missing commas) still load, with diagnostics
    for name in ("Gmail_API", "KubernetesAPI"):
        assert by_file[name] > 30
    assert {"Gmail_API.json", "KubernetesAPI.JSON"} <= files
    skipped = [d for d in r.diagnostics if d.severity == "skipped"]
    assert skipped and all(d.line > 0 for d in skipped)  # an entry still broken is reported with its line


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
