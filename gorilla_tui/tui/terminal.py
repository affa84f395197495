"""The terminal while the TUI starts, before Textual's driver owns it: keys typed then are kept for the app.

A terminal in its ordinary (cooked) mode has XON/XOFF flow control on (`stty ixon`, the Linux default of
a tty and of a tmux pane): the line discipline itself takes Ctrl+Q (START) and Ctrl+S (STOP) out of the
input, so a Ctrl+Q pressed before Textual turns that off is gone for good, whatever the app does later.
keep_early_keys turns off at once what Textual's driver (textual/drivers/linux_driver.py, _patch_iflag and
_patch_lflag) turns off when it starts, except ISIG: Ctrl+C still interrupts the start. Keys typed
meanwhile wait in the input queue (Textual sets its own modes with TCSANOW, which keeps it) and reach the
app; they are not echoed onto the shell's screen either. No Textual import: it runs before that.
"""

from __future__ import annotations

import os
import sys
import termios
from collections.abc import Iterator
from contextlib import contextmanager

#: Input flags Textual's driver clears (flow control; CR/NL translation), cleared here before it starts.
IFLAG_OFF = termios.IXON | termios.IXOFF | termios.ICRNL | termios.INLCR | termios.IGNCR
#: Local flags Textual's driver clears but ISIG (Ctrl+C stops a start that has no app to quit yet).
LFLAG_OFF = termios.ECHO | termios.ICANON | termios.IEXTEN


@contextmanager
def keep_early_keys(fd: int | None = None) -> Iterator[bool]:
    """Around the TUI's start and run: clear IFLAG_OFF and LFLAG_OFF on terminal `fd` (default stdin) at
    once, restore its modes as they were on the way out (Textual restores the ones it found, which are
    these). Yields True when the modes were changed, False when `fd` is no terminal or refuses them (then
    nothing is touched). Raises nothing of its own."""
    try:
        fd = sys.stdin.fileno() if fd is None else fd
        before = termios.tcgetattr(fd) if os.isatty(fd) else None
    except (OSError, ValueError, termios.error):  # no stdin, a closed one, or not a terminal after all
        before = None
    if before is None:
        yield False
        return
    early = list(before)
    early[0] &= ~IFLAG_OFF
    early[3] &= ~LFLAG_OFF
    try:
        termios.tcsetattr(fd, termios.TCSANOW, early)
    except termios.error:
        yield False
        return
    try:
        yield True
    finally:
        try:
            termios.tcsetattr(fd, termios.TCSANOW, before)
        except termios.error:
            pass  # the terminal went away: nothing left to restore
