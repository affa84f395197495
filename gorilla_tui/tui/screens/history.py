"""The history screen: browse and search saved tasks; Enter re-asks the highlighted one."""

from __future__ import annotations

import time

from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.screen import ModalScreen
from textual.widgets import DataTable, Input, Static

from gorilla_tui.history import History
from gorilla_tui.history_rows import HistoryEntry, unreadable_rows
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.widgets.text_input import SafeInput
from gorilla_tui.types import FIT_LINES


def when(ts: float | None) -> str:
    """A history row's local time "YYYY-MM-DD HH:MM", or "unknown" (HistoryEntry.ts None, or one the
    platform's localtime refuses)."""
    if ts is None:
        return "unknown"
    try:
        return time.strftime("%Y-%m-%d %H:%M", time.localtime(ts))
    except (OverflowError, OSError, ValueError):
        return "unknown"


class HistoryScreen(ModalScreen[str | None]):
    """Dismisses with the task to ask again (Enter on a row), or None (Escape)."""

    BINDINGS = [
        Binding("escape", "close", "Close"),
        Binding("ctrl+f", "search", "Search"),
    ]

    def __init__(self, history: History) -> None:
        super().__init__(classes="modal")
        self.history = history
        self.entries: list[HistoryEntry] = []

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog") as box:
            box.border_title = "History"
            box.border_subtitle = "type to search · ↓ to the list · Enter re-asks · Escape closes"
            yield SafeInput(placeholder="search tasks and proposals", id="history-search")
            table: DataTable[str] = DataTable(id="history-table", cursor_type="row", zebra_stripes=True)
            table.add_columns("when", "verdict", "task", "call")
            yield table
            yield Static("", id="history-detail")

    def on_mount(self) -> None:
        self.reload()
        self.query_one("#history-search", Input).focus()

    def reload(self, query: str = "") -> None:
        """Fill the table with entries matching `query` (newest first)."""
        self.entries = self.history.search(query)
        table = self.query_one(DataTable)
        table.clear()
        for e in self.entries:  # every cell shown as it is, never as markup (an edited database's verdict)
            table.add_row(
                when(e.ts),
                Text(safe_text(e.verdict or "—")),
                Text(safe_text(e.task[:60])),
                Text(safe_text(e.api_call[:60])),
                key=str(e.id),
            )
        self.query_one("#history-detail", Static).update(
            f"{len(self.entries)} tasks" if self.entries else "no saved tasks match"
        )
        # rows whose answer could not be read (an edited database) are said in the title, kept in sight
        damaged = unreadable_rows(self.entries)
        self.query_one("#dialog").border_title = f"History · {damaged}" if damaged else "History"

    def on_input_changed(self, event: Input.Changed) -> None:
        self.reload(event.value)

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self.entries:
            self.query_one(DataTable).focus()

    def on_key(self, event) -> None:
        if event.key == "down" and self.focused is self.query_one("#history-search") and self.entries:
            self.query_one(DataTable).focus()
            event.stop()

    def on_data_table_row_highlighted(self, event: DataTable.RowHighlighted) -> None:
        if 0 <= event.cursor_row < len(self.entries):
            e = self.entries[event.cursor_row]
            call = e.api_call or ("(the answer could not be read)" if e.damaged else "(no answer saved)")
            fit = FIT_LINES.get(e.fit, "")  # as the answer said it, first when nothing fits
            first = f"✘ {fit}\n" if e.fit == "nothing" else ""
            last = f"\n{fit}" if fit and not first else ""
            arrow = "nearest:" if first else "→"
            verdict = safe_text(e.verdict or "—")  # each text one line: an edited row forges none
            self.query_one("#history-detail", Static).update(
                Text(f"{safe_text(e.task)}\n{first}{arrow} {safe_text(call)}  [{verdict}]{last}")
            )

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.entries):
            self.dismiss(self.entries[event.cursor_row].task)

    def action_search(self) -> None:
        self.query_one("#history-search", Input).focus()

    def action_close(self) -> None:
        self.dismiss(None)
