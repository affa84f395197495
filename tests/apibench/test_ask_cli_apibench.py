"""APIBench tier of tests/cli/test_ask_cli.py: `gorilla-tui ask`: real embedded model, real index; JSON and
panel output; bad input exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gorilla_tui.cli import main
from tests.cli.test_ask_cli import SPORTS


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


@pytest.mark.model
def test_ask_panel_says_select_mode_code_is_the_chosen_api_call(home_with_index):
    """Select mode on a repaired MEAL V2 doc shows its api_call, not example code: the panel said "written
    by the model" though the model only chose among the hits' api_calls."""
    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    task = "MEAL V2 image classification with ensemble knowledge distillation"
    r = subprocess.run([exe, "ask", task, "--mode", "select", "-k", "5"], capture_output=True, text=True,
                       timeout=300, env={**os.environ, "COLUMNS": "200"})  # fmt: skip
    assert r.returncode == 0, r.stderr
    assert "MEAL-V2" in r.stdout
    assert "code (the chosen doc's api_call: the model chose it, no example code shown):" in r.stdout
    assert "written by the model" not in r.stdout


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
    from gorilla_tui.history import History

    rc = main(["ask", SPORTS, "--run", "--yes", "--json", "--hub", "torchhub", "--timeout", "20"])
    doc = json.loads(capsys.readouterr().out)  # one JSON document: proposal + run
    assert doc["proposal"]["verdict"]["verdict"] == "valid" and doc["verdict"]["verdict"] == "valid"
    # torch is not installed in the sandbox's interpreter: the run fails and names the pip line
    assert doc["run"]["exit_status"] != 0 and rc == 1
    assert doc["missing_package"] and "pip install" in doc["missing_package"]["pip_line"]
    entry = History().search()[0]
    assert entry.task == SPORTS and entry.verdict == "valid"
    assert History().runs(entry.id)[0]["code"] == doc["proposal"]["code"]


@pytest.mark.model
def test_ask_kernel_cuda_without_gpu_offload_warns(home_with_index, capsys):
    from gorilla_tui.model.profiles import llama_capabilities

    rc = main(["ask", SPORTS, "--json", "--hub", "torchhub", "--kernel", "cuda"])
    out = json.loads(capsys.readouterr().out)
    assert rc == 0 and out["verdict"]["verdict"] == "valid"  # still answered, on the CPU
    warned = [w for w in out["warnings"] if "kernel profile cuda requested" in w]
    if llama_capabilities().gpu_offload:  # a CUDA/Metal/Vulkan build: nothing to warn about
        assert not warned
    else:
        assert len(warned) == 1 and "no GPU offload" in warned[0] and "-DGGML_CUDA=on" in warned[0]


def test_ask_run_timeout_zero_message(home_with_index, capsys):
    assert main(["ask", SPORTS, "--run", "--yes", "--timeout", "0"]) == 2
    assert "--timeout must be greater than 0 and at most 3600 seconds, not 0" in capsys.readouterr().err


def test_eval_run_out_directory_says_write_not_read(tmp_path, apibench, capsys):
    rc = main(["eval", "run", "--hub", "torchhub", "--from", str(apibench), "--retriever", "bm25",
               "--out", str(tmp_path), "--limit", "1"])  # fmt: skip
    err = capsys.readouterr().err
    assert rc == 2 and f"cannot write responses to {tmp_path}: it is a directory" in err
    assert "cannot read" not in err


@pytest.mark.model
@pytest.mark.slow
@pytest.mark.parametrize("delay", [0.3, 1.0, 2.0, "generating"])
def test_ctrl_c_always_interrupts_ask(home_with_index, delay):
    """SIGINT at any moment (imports, index/model loading, prompt evaluation, generation) exits 130 with
    one line. Regression: at some delays the interrupt was dropped inside llama.cpp's ctypes log callback
    and the ask ran to the end with exit 0."""
    import signal
    import time

    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    # generate mode, k=20 docs: ~1 s load, ~2-3 s prompt evaluation, then ~400 tokens (Gemma 3 270M loops
    # "1. The answer is 1. ..."; with k=5 it writes one line and stops within ~2 s on the expanded index)
    cmd = [exe, "ask", SPORTS, "--mode", "generate", "--max-tokens", "400", "--hub", "torchhub", "-k", "20"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    if delay == "generating":  # after the model is loaded and the prompt evaluated: mid-generation
        time.sleep(5.0)
    else:
        time.sleep(delay)
    assert p.poll() is None, "the ask finished before the signal: make the task slower"
    sent = time.monotonic()
    p.send_signal(signal.SIGINT)
    out, err = p.communicate(timeout=60)
    assert p.returncode == 130, (p.returncode, err[-500:])
    assert err.strip().splitlines()[-1] == "gorilla-tui: interrupted" and "Traceback" not in err
    assert out == "" and time.monotonic() - sent < 10
