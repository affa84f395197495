"""APIBench tier of tests/unit/test_probe.py: The crash-contained probe: a real child process, a real SIGSEGV
(test hook), fallback chain, cache."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.cli import main
from gorilla_tui.model import probe


@pytest.mark.model
def test_crash_with_every_fallback_is_one_line_and_exit_2(home_with_index, monkeypatch, capsys):
    monkeypatch.setenv(probe.CRASH_ENV, "always")
    assert main(["ask", "classify the sports activities in a video"]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    err = captured.err.strip()
    assert len(err.splitlines()) == 1 and "Traceback" not in err
    assert err.startswith("gorilla-tui: error: llama.cpp crashed (SIGSEGV) running gemma-3-270m-q4_k_m.gguf")
    assert "n_batch = 64" in err and 'CMAKE_ARGS="-DGGML_NATIVE=ON" pip install' in err
    assert not probe.cache_file().exists()  # nothing that failed is remembered


@pytest.mark.model
def test_ask_says_once_what_the_probe_changed(home_with_index, monkeypatch, capsys):
    from gorilla_tui.paths import get_paths

    # repacking on, as "auto" sets it on a CPU without AMX (on one with AMX "auto" turns it off and the probe
    # has nothing to change); the child crashes while it is on (the test hook; with AMX, for real)
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text('use_extra_bufts = "on"\n')
    monkeypatch.setenv(probe.CRASH_ENV, "extra_bufts")
    task = "classify the sports activities in a video"
    assert main(["ask", task]) == 0
    first = capsys.readouterr().err
    assert first.startswith("gorilla-tui: warning: llama.cpp crashed (SIGSEGV) with the default runtime")
    assert "using extra buffer types off (use_extra_bufts = false) from now on" in first
    assert main(["ask", task, "--json"]) == 0
    proposal = json.loads(capsys.readouterr().out)
    assert proposal["warnings"] == [] and proposal["api_call"]  # known good now: nothing to say
