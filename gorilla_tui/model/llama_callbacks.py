"""The callbacks llama.cpp calls into Python: its log lines routed to a logger instead of the terminal, and
Ctrl+C kept and honoured while llama.cpp runs C code (loading a model, evaluating a prompt)."""

from __future__ import annotations

import contextlib
import logging
import threading
from collections.abc import Iterator
from typing import Any

from gorilla_tui.cancel import ctrl_c_sets

_log = logging.getLogger("gorilla_tui.llama")
_LOG_CALLBACK: Any = None  # keeps the ctypes callback alive for as long as llama.cpp may call it
#: Set when Ctrl+C's KeyboardInterrupt was raised inside the ctypes log callback, where ctypes would print
#: and drop it; LlamaBackend re-raises it once control is back in Python (after loading, between tokens).
PENDING_INTERRUPT = threading.Event()


def quiet_llama_logs() -> None:
    """Route llama.cpp / ggml log lines to the Python logger "gorilla_tui.llama" at DEBUG, instead of the
    terminal (llama_log_set with our own callback; Llama(verbose=False) alone still lets lines through)."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    from gorilla_tui.model import llama_internals  # heavy: loads libllama (~0.1 s)

    def _callback(_level: int, text: bytes) -> None:
        # Python runs pending signal handlers here too: a KeyboardInterrupt raised in a ctypes callback is
        # printed and ignored by ctypes, so keep it for raise_pending_interrupt().
        try:
            _log.debug("%s", text.decode("utf-8", "replace").rstrip())
        except KeyboardInterrupt:
            PENDING_INTERRUPT.set()

    _LOG_CALLBACK = llama_internals.set_log_callback(_callback)


def raise_pending_interrupt() -> None:
    """Raise the KeyboardInterrupt that the log callback had to swallow, if any."""
    if PENDING_INTERRUPT.is_set():
        PENDING_INTERRUPT.clear()
        raise KeyboardInterrupt


def prompt_eval_abort(llm: Any, cancel: threading.Event | None) -> Any:
    """Install (cancel given) or remove (None) llama.cpp's abort callback on Llama `llm`; returns the ctypes
    callback, which must stay referenced while installed. llama_decode() asks it between graph nodes and stops
    (returns 2) when it answers true, so a cancel or Ctrl+C during prompt evaluation (~1 s for 500 tokens on
    2 cores) takes effect at once instead of after the whole prompt. Installed for the prompt only: each call
    takes the GIL, ~600 calls per decode of Gemma 3 270M, negligible once per prompt but ~5-10% per token."""
    from gorilla_tui.model import llama_internals  # deferred: loads libllama

    if cancel is None:
        return llama_internals.set_abort_callback(llm, None)

    def should_abort() -> bool:
        try:
            return cancel.is_set() or PENDING_INTERRUPT.is_set()
        except KeyboardInterrupt:  # Ctrl+C under Python's default handler: stop and re-raise it afterwards
            PENDING_INTERRUPT.set()
            return True

    return llama_internals.set_abort_callback(llm, should_abort)


@contextlib.contextmanager
def sigint_after_load() -> Iterator[None]:
    """Defer Ctrl+C while llama.cpp loads a model and raise KeyboardInterrupt once Llama() returns.

    Loading runs in C and calls the Python log callback many times; Python's default SIGINT handler then
    raises KeyboardInterrupt inside the callback, where ctypes drops it, so the load (and the whole ask)
    carried on. Ctrl+C is recorded by cancel.ctrl_c_sets, which steps aside off the main thread and when a
    caller's own handler is installed (cli/ask.py, eval run)."""
    with ctrl_c_sets(only_if_default=True) as hit:
        yield
    if hit:
        raise KeyboardInterrupt
    raise_pending_interrupt()
