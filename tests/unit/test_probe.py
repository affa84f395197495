"""The crash-contained probe: a real child process, a real SIGSEGV (test hook), fallback chain, cache."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.model import llama_internals as li
from gorilla_tui.model import probe
from gorilla_tui.model.profiles import load_profiles, runtime_params

FIX = load_profiles()["cpu"].install

#: every child here runs for real (tests/fixtures_model.py session_probes would reuse the session's results)
pytestmark = pytest.mark.fresh_probe


def _params() -> dict:
    """The CPU profile's params ("auto": repacking off on a CPU with Intel AMX), on 2 threads."""
    return {**runtime_params(load_profiles()["cpu"]), "n_threads": 2, "n_threads_batch": 2}


def _repacking() -> dict:
    """_params() with llama.cpp's weight repacking on, as "auto" gives where the CPU has no AMX: the chain
    starts from the same params on every machine."""
    return {**_params(), "use_extra_bufts": True}


def test_fallback_chain_extra_buffers_then_threads_then_batch():
    chain = probe.fallback_chain(_repacking())
    assert [c for c, _ in chain] == [
        "",
        "extra buffer types off (use_extra_bufts = false)",
        "1 thread (n_threads = 1)",
        "n_batch = 64",
    ]
    last = chain[-1][1]
    assert (last["use_extra_bufts"], last["n_threads"], last["n_threads_batch"], last["n_batch"]) == (
        False, 1, 1, 64)  # fmt: skip
    # steps that change nothing are left out
    safe = {**_params(), "use_extra_bufts": False, "n_threads": 1, "n_threads_batch": 1, "n_batch": 32}
    assert [c for c, _ in probe.fallback_chain(safe)] == [""]


@pytest.mark.model
def test_healthy_model_is_probed_once_then_known_good(gemma_path):
    params = _params()
    first = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version=li.version())
    assert first.probed and first.params == params and first.note is None
    (change, result), = first.attempts  # fmt: skip
    assert change == "" and result.ok and result.tokens == probe.PROBE_TOKENS and result.tokens_per_s > 0
    again = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version=li.version())
    assert not again.probed and again.params == params and again.attempts == []
    # another llama-cpp-python version is another combination: probed again
    other = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version="0.3.99")
    assert other.probed


@pytest.mark.model
def test_crashing_child_walks_the_fallback_chain_and_remembers(gemma_path, monkeypatch):
    # the child segfaults (a real SIGSEGV) while extra buffer types are on or it has more than one thread
    monkeypatch.setenv(probe.CRASH_ENV, "extra_bufts,threads")
    params = _repacking()  # on a CPU with AMX the first attempt would crash for real: the same SIGSEGV
    decision = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version=li.version())
    assert [(c, r.ok, r.signal) for c, r in decision.attempts] == [
        ("", False, "SIGSEGV"),
        ("extra buffer types off (use_extra_bufts = false)", False, "SIGSEGV"),
        ("1 thread (n_threads = 1)", True, None),
    ]
    assert decision.params == {**params, "use_extra_bufts": False, "n_threads": 1, "n_threads_batch": 1}
    assert decision.note == (
        "llama.cpp crashed (SIGSEGV) with the default runtime params; using extra buffer types off "
        "(use_extra_bufts = false), 1 thread (n_threads = 1) from now on for gemma-3-270m-q4_k_m.gguf"
    )
    cached = json.loads(probe.cache_file().read_text())
    assert [e["params"] for e in cached.values()] == [decision.params]
    again = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version=li.version())
    assert (again.probed, again.params, again.note) == (False, decision.params, None)  # said once


@pytest.mark.model
def test_ctrl_c_in_the_child_is_not_a_crash(gemma_path, monkeypatch):
    monkeypatch.setenv(probe.CRASH_ENV, "interrupt")  # the child gets a real SIGINT before decoding
    params = _params()
    decision = probe.ensure_runtime(gemma_path, params, fix=FIX, llama_version=li.version())
    assert [(c, r.signal) for c, r in decision.attempts] == [("", "SIGINT")]  # no fallback chain
    assert decision.params == params and decision.note is None
    assert not probe.cache_file().exists()  # probed again next time


@pytest.mark.model
def test_cancel_stops_the_probe_child(gemma_path):
    import threading

    cancel = threading.Event()
    threading.Timer(0.2, cancel.set).start()  # Ctrl+C while the child is still loading
    with pytest.raises(probe.ProbeCancelled, match="cancelled while probing the model"):
        probe.ensure_runtime(gemma_path, _params(), fix=FIX, llama_version=li.version(), cancel=cancel)
    assert not probe.cache_file().exists()
