"""`gorilla-tui model list | pull`."""

from __future__ import annotations

import json

from gorilla_tui.cli import main


def test_model_list_json(gorilla_home, capsys):
    assert main(["model", "list", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    names = [r["name"] for r in rows]
    assert names[0] == "gemma3-270m" and "gorilla-openfunctions-v2" in names and len(rows) == 6
    assert rows[0]["path"] is None  # not assembled in a fresh home


def test_model_pull_embedded_and_offline_registry(home_with_model, capsys):
    assert main(["model", "pull", "--json"]) == 0
    info = json.loads(capsys.readouterr().out)
    assert info["kind"] == "embedded" and info["size_bytes"] > 200_000_000
    assert main(["model", "list"]) == 0
    assert main(["model", "pull", "gorilla-7b-hf-v1"]) == 2  # HF_HUB_OFFLINE=1 and not cached
    assert "not in the Hugging Face cache" in capsys.readouterr().err
