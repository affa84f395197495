"""The help screen: every key of the app, read from the bindings themselves (so it cannot go stale)."""

from __future__ import annotations

from rich.table import Table
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

#: Keys that come from Textual's own widgets (Input, DataTable, OptionList) rather than our BINDINGS.
BUILTIN_KEYS: tuple[tuple[str, str], ...] = (
    ("enter", "ask the task (in the task input); show the full doc (in the hits table); accept (in lists)"),
    ("tab / shift+tab", "move the focus between input, hits, code, buttons and suggestions"),
    ("ctrl+c", "copy the selected text (Textual's selection copy)"),
    ("ctrl+v", "paste (a multi-line paste is joined into one line, with a notice)"),
    ("ctrl+p", "command palette"),
)


def binding_rows(groups: list[tuple[str, list]]) -> list[tuple[str, str, str]]:
    """(where, key, description) for every Binding with a description in `groups` ((where, BINDINGS))."""
    rows = []
    for where, bindings in groups:
        for b in bindings:
            if isinstance(b, Binding) and b.description:
                rows.append((where, b.key.replace(",", " / "), b.description))
    return rows


class HelpScreen(ModalScreen[None]):
    """Lists the keys of the app, the main screen and the task input, plus Textual's built-in keys."""

    BINDINGS = [Binding("escape,q,f1", "app.pop_screen", "Close")]

    def __init__(self, groups: list[tuple[str, list]]) -> None:
        super().__init__(classes="modal")
        self.groups = groups
        #: (where, key, description) rows on show
        self.rows = binding_rows(groups) + [("anywhere", key, what) for key, what in BUILTIN_KEYS]

    def compose(self) -> ComposeResult:
        table = Table(expand=True, show_edge=False)
        table.add_column("where", style="dim", no_wrap=True)
        table.add_column("key", style="bold cyan", no_wrap=True)
        table.add_column("does")
        for row in self.rows:
            table.add_row(*row)
        with VerticalScroll(id="dialog") as scroll:
            scroll.border_title = "Keys"
            scroll.border_subtitle = "Escape closes"
            yield Static(table, id="help-table")
