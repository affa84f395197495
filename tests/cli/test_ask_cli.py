"""`gorilla-tui ask`: real embedded model, real index; JSON and panel output; bad input exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gorilla_tui.cli import main

SPORTS = "I want to classify sports activities in videos"


@pytest.mark.model
def test_ask_json_select_gives_a_valid_verdict(home_with_index, capsys):
    rc = main(["ask", SPORTS, "--json", "-k", "5", "--hub", "torchhub", "--mode", "select"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"]["verdict"] == "valid"
    assert "pytorchvideo" in out["api_call"] and out["code_source"] == "example_code"
    assert 1 <= len(out["hits"]) <= 5 and out["timings"]["total"] > 0


@pytest.mark.model
@pytest.mark.slow
def test_ask_panel_subprocess(home_with_index):
    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    r = subprocess.run([exe, "ask", SPORTS], capture_output=True, text=True, timeout=120,
                       env={**os.environ, "COLUMNS": "120"})  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "valid" in r.stdout and "pytorchvideo" in r.stdout and "example_code" in r.stdout
    assert "llama" not in r.stderr.lower()  # llama.cpp's own logging stays off the terminal


def test_ask_bad_input(home_with_model, capsys):
    assert main(["ask", "   "]) == 2
    assert "task is empty" in capsys.readouterr().err
    assert main(["ask", SPORTS]) == 2  # no index yet
    assert "index" in capsys.readouterr().err


def test_ask_missing_model_file(home_with_index, tmp_path, capsys):
    rc = main(["ask", SPORTS, "--model", str(tmp_path / "nope.gguf")])
    err = capsys.readouterr().err
    assert rc == 2 and "model file not found" in err and "Traceback" not in err
    bad = tmp_path / "bad.gguf"
    bad.write_bytes(b"PK\x03\x04 a zip, not a model")
    assert main(["ask", SPORTS, "--model", str(bad)]) == 2
    assert "not a GGUF" in capsys.readouterr().err


def test_ask_run_refuses_without_a_tty_before_loading_the_model(home_with_index, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin.isatty", lambda: False)
    rc = main(["ask", SPORTS, "--run", "--hub", "torchhub"])
    err = capsys.readouterr().err
    assert rc == 2 and "refusing to run code without confirmation" in err and "--yes" in err


@pytest.mark.model
def test_ask_run_yes_runs_the_proposal_in_the_sandbox_and_records_it(home_with_index, capsys):
    from gorilla_tui.core.history import History

    rc = main(["ask", SPORTS, "--run", "--yes", "--json", "--hub", "torchhub", "--timeout", "20"])
    doc = json.loads(capsys.readouterr().out)  # one JSON document: proposal + run
    assert doc["proposal"]["verdict"]["verdict"] == "valid" and doc["verdict"]["verdict"] == "valid"
    # torch is not installed in the sandbox's interpreter: the run fails and names the pip line
    assert doc["run"]["exit_status"] != 0 and rc == 1
    assert doc["missing_package"] and "pip install" in doc["missing_package"]["pip_line"]
    entry = History().search()[0]
    assert entry.task == SPORTS and entry.verdict == "valid"
    assert History().runs(entry.id)[0]["code"] == doc["proposal"]["code"]
