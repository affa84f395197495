"""The rich Console every command prints with: readable when stdout is piped or redirected."""

from __future__ import annotations

import os

from rich.console import Console

#: Columns used when the stream is not a terminal and $COLUMNS is not set. rich would use 80, which squeezes
#: the wide columns of our tables (`index --refresh | cat` gave "from / why" 4 characters); tables are not
#: expanded, so they still take only the width they need.
PIPE_WIDTH = 200
#: Narrowest width a table is laid out at, even on a narrower terminal (the terminal then wraps lines).
MIN_WIDTH = 60


def make_console(stderr: bool = False) -> Console:
    """A Console on stdout (or stderr): the terminal's width, at least MIN_WIDTH, or PIPE_WIDTH when the
    stream is not a terminal (unless $COLUMNS says otherwise)."""
    con = Console(stderr=stderr)
    if not con.is_terminal and not os.environ.get("COLUMNS"):
        return Console(stderr=stderr, width=PIPE_WIDTH)
    if con.width < MIN_WIDTH:
        return Console(stderr=stderr, width=MIN_WIDTH)
    return con
