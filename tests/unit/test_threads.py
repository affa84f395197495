"""model/threads.py: one llama.cpp thread while the CPU is contended, the configured count otherwise."""

from __future__ import annotations

import os
import sys

import pytest

from gorilla_tui.model import llama_internals as li
from gorilla_tui.model.threads import EFFICIENCY_FLOOR, MIN_WALL, RETRY_SECONDS, ThreadGovernor


class Clocks:
    """A wall clock and a thread CPU clock the test moves by hand."""

    def __init__(self) -> None:
        self.wall = 100.0
        self.cpu = 5.0

    def run(self, wall: float, share: float) -> None:
        """One decode of `wall` seconds during which the calling thread ran `share` of the time."""
        self.wall += wall
        self.cpu += wall * share


def governor(counts=(1, 2), load=0.1):
    clocks, applied = Clocks(), []
    g = ThreadGovernor(lambda n, nb: applied.append((n, nb)), *counts, clock=lambda: clocks.wall,
                       cpu=lambda: clocks.cpu, load=lambda: load)  # fmt: skip
    return g, clocks, applied


def decode(g: ThreadGovernor, clocks: Clocks, wall: float, share: float) -> None:
    g.begin()
    clocks.run(wall, share)
    g.end()


def test_a_contended_decode_drops_to_one_thread_and_the_count_comes_back_later():
    g, clocks, applied = governor()
    decode(g, clocks, 0.4, 0.95)  # idle machine: the thread had its core
    assert g.current == (1, 2) and applied == []
    decode(g, clocks, 0.6, EFFICIENCY_FLOOR - 0.05)  # waited to be scheduled
    assert g.current == (1, 1) and applied == [(1, 1)]
    clocks.wall += RETRY_SECONDS - 1
    decode(g, clocks, 0.4, 0.5)  # one thread: nothing lower to go to, nothing applied
    assert g.current == (1, 1) and applied == [(1, 1)]
    clocks.wall += 2  # RETRY_SECONDS after the drop: the configured count is tried again
    g.begin()
    assert g.current == (1, 2) and applied[-1] == (1, 2)


def test_the_first_decode_of_a_context_is_not_judged():
    g, clocks, applied = governor()
    decode(g, clocks, 0.5, 0.5)  # llama.cpp starts its thread pool and allocates the graph in it
    assert g.current == (1, 2) and applied == []
    decode(g, clocks, 0.5, 0.5)
    assert g.current == (1, 1) and applied == [(1, 1)]


def test_short_decodes_are_not_judged():
    g, clocks, applied = governor()
    decode(g, clocks, 0.4, 0.95)
    decode(g, clocks, MIN_WALL / 2, 0.0)
    assert g.current == (1, 2) and applied == []


def test_a_busy_machine_starts_at_one_thread():
    g, _clocks, applied = governor(load=float(os.cpu_count() or 1))
    assert g.current == (1, 1) and applied == [(1, 1)]


def test_one_thread_configured_is_never_touched():
    g, clocks, applied = governor(counts=(1, 1), load=99.0)
    decode(g, clocks, 1.0, 0.1)
    assert not g.governs and applied == []


@pytest.mark.model
def test_the_backend_sets_the_counts_on_its_llama_context(gemma_path):
    from gorilla_tui.model.backend import LlamaBackend

    b = LlamaBackend(gemma_path, params={"n_ctx": 256, "n_threads": 1, "n_threads_batch": 2,
                                         "use_extra_bufts": False})  # fmt: skip
    assert b.threads.configured == (1, 2)
    assert li.thread_counts(b.llama) == b.threads.current  # (1, 1) when the machine was already busy
    b.threads._apply(1, 1)
    assert li.thread_counts(b.llama) == (1, 1)
    b.threads._apply(1, 2)
    assert li.thread_counts(b.llama) == (1, 2)
    assert len(b.loglikelihoods(["Here is an API.\nimage classification\n"], "classify a photo")) == 1


@pytest.mark.model
def test_a_model_load_leaves_stdout_and_stderr_alone(gemma_path, monkeypatch):
    """llama-cpp-python's suppress_stdout_stderr dup2()s /dev/null onto fds 1 and 2 for the whole process
    while a model loads: beside the TUI (the model loads in a thread) Textual's screen writes were lost."""
    moved: list[int] = []
    real_dup2 = os.dup2
    monkeypatch.setattr(os, "dup2", lambda a, b, *r: (moved.append(b), real_dup2(a, b, *r))[1])
    out, err = sys.stdout, sys.stderr
    llm = li.new_llama(str(gemma_path), {"n_ctx": 256, "use_extra_bufts": False})
    assert llm is not None and moved == [] and sys.stdout is out and sys.stderr is err
