"""APIBench tier of tests/cli/test_doctor_cli.py: `gorilla-tui doctor`: reports versions, kernel, model,
index; every problem carries the fixing command."""

from __future__ import annotations

import json

from gorilla_tui.cli import main
from gorilla_tui.model.profiles import extra_bufts_default


def test_doctor_healthy(home_with_index, capsys):
    rc = main(["doctor", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc == 0, rep["problems"]
    assert rep["model"]["family"] == "fewshot" and len(rep["model"]["sha256"]) == 64
    assert rep["index"]["sources"] == {"torchhub": 94}
    # a real decode in a child process, with the effective runtime params
    assert rep["inference"]["ok"] is True and rep["inference"]["tokens"] == 16
    assert rep["inference"]["tokens_per_s"] > 0 and rep["inference"]["changed"] is None
    auto, why = extra_bufts_default()  # off on a CPU with Intel AMX, on elsewhere
    assert rep["kernel"]["use_extra_bufts"] == {"value": auto, "why": f"kernels/cpu.toml: {why}"}
    assert rep["inference"]["params"] == rep["kernel"]["runtime"]
    assert main(["doctor", "--no-hash"]) == 0
    out = capsys.readouterr().out
    assert "no problems found" in out and "inference ok, " in out and " tokens/s" in out
    assert "use_extra_bufts" in out and ("no Intel AMX" in out if auto else "the CPU has Intel AMX" in out)


def test_doctor_reports_a_model_crash_with_its_signal_and_fix(home_with_index, monkeypatch, capsys):
    monkeypatch.setenv("GORILLA_TUI_PROBE_CRASH", "always")  # every probe child dies by a real SIGSEGV
    assert main(["doctor", "--json", "--no-hash"]) == 1
    rep = json.loads(capsys.readouterr().out)
    inf = rep["inference"]
    assert inf["ok"] is False and inf["signal"] == "SIGSEGV"
    assert inf["fix"].startswith('CMAKE_ARGS="-DGGML_NATIVE=ON" pip install')
    assert [p["fix"] for p in rep["problems"]] == [inf["fix"]]
    assert main(["doctor", "--no-hash"]) == 1
    out = capsys.readouterr().out
    assert "inference crashed (SIGSEGV)" in out and "no problems found" not in out
