"""`gorilla-tui index --refresh --source NAME=FILE` with the formats function calling uses (issue 37): an
OpenAI tools file, an MCP tools/list result, an OpenAPI 3 document; then `search` and `check` on the index
built, and a bad document refused in one line with the live index left as it was."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool.doc import load_paths

FILES = Path(__file__).resolve().parents[1] / "data" / "function_sources"


def _refresh(name: str, path: Path, capsys: pytest.CaptureFixture[str]) -> dict:
    assert main(["index", "--refresh", "--only", name, "--source", f"{name}={path}", "--json"]) == 0
    return json.loads(capsys.readouterr().out)


def _hits(task: str, capsys: pytest.CaptureFixture[str], k: int = 3) -> list[dict]:
    assert main(["search", task, "-k", str(k), "--json"]) == 0
    return json.loads(capsys.readouterr().out)["hits"]


def test_tools_and_mcp_sources_are_searched_and_checked(capsys: pytest.CaptureFixture[str]) -> None:
    report = _refresh("tools", FILES / "openai_tools.json", capsys)
    assert {r["name"]: r["loaded"] for r in report["sources"]} == {"tools": 3}
    assert _hits("what is the weather like in Paris today", capsys)[0]["api_name"] == "get_weather"
    assert _hits("email my boss the report", capsys)[0]["api_name"] == "send_email"
    # the validator judges calls against the function docs read back from the stored index
    assert main(["check", "--json", "get_weather(city='Paris')"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "valid" and verdict["matched"]["id"] == "tools:1"
    loaded = load_paths([FILES / "openai_tools.json"], "tools").docs[0]
    assert verdict["matched"]["parameters"] == loaded.parameters  # the store round trip keeps the schema
    assert main(["check", "--json", "get_wether(city='Paris')"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "hallucination"
    report = _refresh("fs", FILES / "mcp_tools_list.json", capsys)  # beside the tools source, kept
    assert {r["name"]: r["loaded"] for r in report["sources"]} == {"fs": 3, "tools": 3}
    assert _hits("read the contents of a text file", capsys)[0]["api_name"] == "read_file"
    assert main(["check", "list_directory(path='/tmp')"]) == 0
    capsys.readouterr()


def test_an_openapi_source_is_searched_and_its_requests_checked(capsys: pytest.CaptureFixture[str]) -> None:
    report = _refresh("pets", FILES / "petstore.yaml", capsys)
    (row,) = report["sources"]
    assert row["loaded"] == 5 and row["status"] == "ok"
    hits = _hits("add a new pet to the store", capsys)
    assert (hits[0]["api_name"], hits[0]["api_call"]) == ("createPet", "POST /pets")
    assert _hits("upload a photo of the owner", capsys)[0]["api_call"] == "PUT /owners/{ownerId}/photo"
    assert main(["check", "--json", "requests.get('https://eu.petstore.example.com/v1/pets/42')"]) == 0
    verdict = json.loads(capsys.readouterr().out)
    assert verdict["verdict"] == "valid" and verdict["matched"]["api_name"] == "showPetById"
    assert verdict["matched"]["parameters"]["properties"]["petId"]["x-in"] == "path"


def test_a_bad_openapi_document_is_one_line_exit_2_and_the_live_index_is_unchanged(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _refresh("pets", FILES / "petstore.yaml", capsys)
    assert main(["index", "--status", "--json"]) == 0
    before = json.loads(capsys.readouterr().out)
    broken = FILES / "broken_ref.yaml"
    assert main(["index", "--refresh", "--only", "pets", "--source", f"pets={broken}"]) == 2
    out, err = capsys.readouterr()
    assert out == "" and err.count("\n") == 1 and "Traceback" not in err
    assert err.startswith(f"gorilla-tui: error: --source refused: {broken}: broken $ref ")
    not_yaml = tmp_path / "api.yaml"
    not_yaml.write_text("openapi: 3.0.0\ninfo: [title\n")
    assert main(["index", "--refresh", "--only", "pets", "--source", f"pets={not_yaml}"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and f"{not_yaml}: invalid YAML at line 3 column 1: " in err
    assert main(["index", "--status", "--json"]) == 0
    after = json.loads(capsys.readouterr().out)
    assert (after["path"], after["n_docs"], after["sources"]) == (before["path"], 5, before["sources"])
    assert _hits("list the pets of the store", capsys)[0]["api_name"] == "listPets"
