"""APIBench tier of tests/unit/test_pool.py: Loaders on the real APIBench and APIZoo files and on broken ones
(malformed, empty, binary, BOM, huge)."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui.pool.doc import load_file, load_jsonl, load_paths

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


def test_apizoo_placeholder_in_words_is_repaired_and_checked(apizoo: Path) -> None:
    """OpenWeatherMap's api_call writes its key as ``appid={API key}`` (not Python): the doc gets a repaired
    call with the placeholder made one name, so select mode can offer it and a filled-in call is valid."""
    from gorilla_tui.check.validator import Validator

    docs = load_file(apizoo / "aryanvichare.json", "apizoo").docs
    weather = [d for d in docs if "openweathermap" in d.api_call]
    assert len(weather) == 2
    for doc in weather:
        assert doc.flagged and doc.repaired and "{API_key}" in doc.repaired and "{API key}" in doc.api_call
        assert doc.call == doc.repaired
    one_call = next(d for d in weather if "one_call" in d.api_call)
    validator = Validator(docs)
    filled = validator.check("openweathermap.one_call(lat=52.52, lon=13.40, exclude='hourly', appid='MYKEY')")
    assert filled.kind == "valid" and filled.matched is one_call
    assert validator.check("openweathermap.two_call(lat=52.52, lon=13.40, appid='MYKEY')").kind != "valid"
