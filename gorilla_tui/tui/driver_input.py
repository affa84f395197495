"""Textual's terminal input read leniently: a byte that is not UTF-8 becomes U+FFFD instead of ending
Textual's input thread.

Textual's Linux drivers decode the terminal's bytes with a strict incremental UTF-8 decoder
(textual/drivers/linux_driver.py run_input_thread, ``getincrementaldecoder("utf-8")()``): one byte that is
not UTF-8 (Alt+a in xterm's eightBitInput mode sends 0xE1, a latin-1 paste) raised UnicodeDecodeError in the
input thread, which printed a traceback over the screen and left the app with no keys (break-it round 8;
Textualize/textual#6456, open in textual 8.2.8, the newest release). Until Textual decodes with
errors="replace" itself, the drivers' module-level ``getincrementaldecoder`` is given one that does.
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Callable
from typing import Any

from textual.drivers import linux_driver, linux_inline_driver


def _replacing(encoding: str) -> Callable[..., Any]:
    """codecs.getincrementaldecoder(encoding) whose decoders replace bytes they cannot decode (U+FFFD)."""
    return functools.partial(codecs.getincrementaldecoder(encoding), errors="replace")


def lenient_input() -> None:
    """Make Textual's Linux drivers decode terminal input with errors="replace" (module doc). Idempotent;
    the drivers read the name when their input thread starts, so call it before the app runs."""
    for module in (linux_driver, linux_inline_driver):
        module.getincrementaldecoder = _replacing  # type: ignore[attr-defined]
