"""cancel.ctrl_c_sets, the one Ctrl+C helper of `ask`, `eval run` and model loading, with real SIGINTs."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from gorilla_tui.cancel import ctrl_c_sets


def _ctrl_c() -> None:
    os.kill(os.getpid(), signal.SIGINT)
    time.sleep(0.05)  # Python runs the handler between bytecodes, here


def test_each_ctrl_c_sets_the_next_event_then_escalates():
    stop, cancel = threading.Event(), threading.Event()
    with pytest.raises(KeyboardInterrupt):
        with ctrl_c_sets(stop, cancel, escalate=True) as hits:
            _ctrl_c()
            assert stop.is_set() and not cancel.is_set() and hits == [signal.SIGINT]
            _ctrl_c()
            assert cancel.is_set() and len(hits) == 2
            _ctrl_c()  # the third is a plain KeyboardInterrupt
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_without_escalate_ctrl_c_only_sets_and_records():
    cancel = threading.Event()
    with ctrl_c_sets(cancel) as hits:
        _ctrl_c()
        _ctrl_c()
    assert cancel.is_set() and hits == [signal.SIGINT, signal.SIGINT]
    assert signal.getsignal(signal.SIGINT) is signal.default_int_handler


def test_it_steps_aside_for_a_callers_handler_and_off_the_main_thread():
    outer = threading.Event()
    with ctrl_c_sets(outer) as outer_hits:
        with ctrl_c_sets(only_if_default=True) as inner_hits:
            _ctrl_c()
        assert outer.is_set() and outer_hits == [signal.SIGINT] and inner_hits == []
    seen: list[list[int]] = []

    def worker() -> None:
        with ctrl_c_sets(threading.Event()) as hits:
            seen.append(hits)

    thread = threading.Thread(target=worker)
    thread.start()
    thread.join()
    assert seen == [[]] and signal.getsignal(signal.SIGINT) is signal.default_int_handler
