"""The one Ctrl+C helper: while inside, SIGINT sets cancel events instead of raising KeyboardInterrupt.

Used by `gorilla-tui ask` (Ctrl+C cancels the ask), `eval run` (first Ctrl+C: stop after the current task,
second: drop it, third: plain KeyboardInterrupt) and model.backend (Ctrl+C while llama.cpp loads a model is
deferred until Llama() returns: raised inside llama.cpp's ctypes log callback it would be printed and
dropped).
"""

from __future__ import annotations

import contextlib
import signal
import threading
from collections.abc import Iterator
from typing import Any


@contextlib.contextmanager
def ctrl_c_sets(
    *events: threading.Event, escalate: bool = False, only_if_default: bool = False
) -> Iterator[list[int]]:
    """While inside, the n-th Ctrl+C (SIGINT) sets events[n-1] (and every earlier one) and is appended to the
    yielded list, instead of raising KeyboardInterrupt wherever Python happens to be. Later Ctrl+Cs keep
    setting the last event, unless `escalate`: once every event is set, Python's default handler is put
    back, so the next Ctrl+C raises KeyboardInterrupt. The previous handler is restored on exit.

    Does nothing (yields an empty list that stays empty) off the main thread, where signal handlers cannot be
    set, and, with only_if_default, when a handler other than Python's default is installed (a caller's own
    ctrl_c_sets already decides what Ctrl+C means).

    Args:
        events: set in order, one per Ctrl+C; none: Ctrl+C is only recorded.
        escalate: after the last event, Ctrl+C raises KeyboardInterrupt again.
        only_if_default: step aside unless signal.default_int_handler is installed.

    Returns:
        The list of signal numbers received inside (empty when there was no Ctrl+C).
    """
    hits: list[int] = []
    if threading.current_thread() is not threading.main_thread() or (
        only_if_default and signal.getsignal(signal.SIGINT) is not signal.default_int_handler
    ):
        yield hits
        return

    def handler(signum: int, _frame: Any) -> None:
        hits.append(signum)
        for event in events[: len(hits)]:
            event.set()
        if escalate and len(hits) >= len(events):
            signal.signal(signal.SIGINT, signal.default_int_handler)

    old = signal.signal(signal.SIGINT, handler)
    try:
        yield hits
    finally:
        signal.signal(signal.SIGINT, old)
