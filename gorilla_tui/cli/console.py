"""The rich Console every command prints with: readable when stdout is piped or redirected."""

from __future__ import annotations

import os
from typing import Any

from rich.console import Console
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    ProgressColumn,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)
from rich.text import Text

from gorilla_tui.textsafe import safe_text

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


def shown(text: object, style: str = "") -> Text:
    """`text` (any value; str() of it) as a rich Text for a table cell, a title or a line: made safe for the
    terminal by textsafe.safe_text and never read as markup ("[/b]" in a path raised MarkupError)."""
    return Text(safe_text(str(text)), style=style)


class PlainColumn(ProgressColumn):
    """A progress column showing one field of the task (its description, or a name of its fields) as plain
    text made safe by textsafe.safe_text on one line: rich's TextColumn reads it as markup (a --source path
    with "[/b]" raised MarkupError mid-refresh) and writes its escape sequences raw."""

    def __init__(self, field: str = "description") -> None:
        super().__init__()
        self.field = field

    def render(self, task: Any) -> Text:
        value = task.description if self.field == "description" else task.fields.get(self.field, "")
        return Text(safe_text(str(value)))


class RateColumn(ProgressColumn):
    """Seconds per item (rich's own speed estimate over its recent samples): "1.25 s/task"."""

    def __init__(self, unit: str = "task") -> None:
        super().__init__()
        self.unit = unit

    def render(self, task: Any) -> Text:
        rate = f"{1 / task.speed:.2f}" if task.speed else "--"
        return Text(f"{rate} s/{self.unit}", style="cyan")


def progress_columns(unit: str = "task") -> tuple[ProgressColumn, ...]:
    """The columns of an eval's progress bar (`eval run`, `eval bfcl`): spinner, description, bar, done of
    total, seconds per `unit`, elapsed time and the time left."""
    return (SpinnerColumn(), PlainColumn(), BarColumn(), MofNCompleteColumn(),
            RateColumn(unit), TimeElapsedColumn(), TextColumn("eta"), TimeRemainingColumn())  # fmt: skip
