"""Textual's terminal input read leniently: a byte that is not UTF-8 becomes U+FFFD instead of ending
Textual's input thread, and a bracketed paste read as text only.

Textual's Linux drivers decode the terminal's bytes with a strict incremental UTF-8 decoder
(textual/drivers/linux_driver.py run_input_thread, ``getincrementaldecoder("utf-8")()``): one byte that is
not UTF-8 (Alt+a in xterm's eightBitInput mode sends 0xE1, a latin-1 paste) raised UnicodeDecodeError in the
input thread, which printed a traceback over the screen and left the app with no keys (break-it round 8;
Textualize/textual#6456, open in textual 8.2.8, the newest release). Until Textual decodes with
errors="replace" itself, the drivers' module-level ``getincrementaldecoder`` is given one that does.

The same decoder removes terminal escape sequences inside a bracketed paste (between ESC[200~ and ESC[201~),
as xterm.js and alacritty do on their side. Textual's parser (textual/_xterm_parser.py, 8.2.8) sends what
follows an ESC inside a paste as key presses before the Paste event itself, with the ESC shown as "^": a
pasted ``delete the file ESC[31mred.txtESC[0m`` became the task "^[31mred.txt^[0mdelete the file" and the
call ``os.remove('31mred.txt')`` (break-it round 32, finding 9; `tmux paste-buffer -p` pastes such text).
"""

from __future__ import annotations

import codecs
import functools
from collections.abc import Callable
from typing import Any

from textual.drivers import linux_driver, linux_inline_driver

from gorilla_tui.textsafe import is_escape_at, strip_escape_sequences

#: xterm's bracketed-paste markers (xterm ctlseqs, "Bracketed Paste Mode").
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"

#: The most characters of an unfinished escape sequence a paste holds back for the next read (a CSI with a
#: 256-colour or RGB argument is under 20; a longer run after an ESC is text).
_LONGEST_HELD = 64


class PasteSafeDecoder:
    """An incremental decoder (codecs.IncrementalDecoder's ``decode(data, final)``) that replaces bytes it
    cannot decode with U+FFFD and removes escape sequences inside a bracketed paste (module doc).

    Outside a paste the text passes unchanged, so a lone Escape key is never held back. Inside one, an ESC
    whose sequence may still be arriving is held until the next read (at most one sequence's length), and
    the markers themselves pass through for Textual's parser.
    """

    def __init__(self, encoding: str = "utf-8") -> None:
        self._inner = codecs.getincrementaldecoder(encoding)(errors="replace")
        self._in_paste = False
        self._held = ""

    def decode(self, data: bytes, final: bool = False) -> str:
        """The text of `data` (bytes read from the terminal) for Textual's parser; "" while a pasted escape
        sequence is still incomplete."""
        text, self._held = self._held + self._inner.decode(data, final), ""
        out: list[str] = []
        while text:
            if not self._in_paste:
                start = text.find(PASTE_START)
                if start < 0:
                    out.append(text)
                    self._hold_start_of_marker(out, final)
                    break
                out.append(text[: start + len(PASTE_START)])
                text, self._in_paste = text[start + len(PASTE_START) :], True
                continue
            end = text.find(PASTE_END)
            body, rest = (text, "") if end < 0 else (text[:end], text[end:])
            cut = body.rfind("\x1b")
            unfinished = 0 <= cut and len(body) - cut < _LONGEST_HELD and not is_escape_at(body, cut)
            if end < 0 and not final and unfinished:
                body, self._held = body[:cut], body[cut:]
            out.append(strip_escape_sequences(body))
            if end < 0:
                break
            out.append(PASTE_END)
            text, self._in_paste = rest[len(PASTE_END) :], False
        return "".join(out)

    def _hold_start_of_marker(self, out: list[str], final: bool) -> None:
        """Hold back the end of out[-1] when it is the unfinished start of ESC[200~ (3 to 5 characters: a
        lone ESC, the Escape key, and ESC[, Alt+[, are never held)."""
        tail = out[-1]
        for size in range(len(PASTE_START) - 1, 2, -1):
            if not final and tail.endswith(PASTE_START[:size]):
                out[-1], self._held = tail[:-size], tail[-size:]
                return


def _replacing(encoding: str) -> Callable[..., Any]:
    """A factory like codecs.getincrementaldecoder(encoding): its decoders are PasteSafeDecoder."""
    return functools.partial(PasteSafeDecoder, encoding)


def lenient_input() -> None:
    """Make Textual's Linux drivers decode terminal input with errors="replace" and read pastes as text
    (module doc). Idempotent;
    the drivers read the name when their input thread starts, so call it before the app runs."""
    for module in (linux_driver, linux_inline_driver):
        module.getincrementaldecoder = _replacing  # type: ignore[attr-defined]
