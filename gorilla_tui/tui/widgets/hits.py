"""The hits panel: the top-k retrieved docs (api_name, domain, BM25 score); Enter shows the full doc."""

from __future__ import annotations

from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable

from gorilla_tui.core.types import Hit


class HitsPanel(Vertical):
    """A table of hits, best first. Posts HitsPanel.DocSelected(hit) when a row is chosen (Enter or click)."""

    class DocSelected(Message):
        """The person chose `hit` to read its full doc."""

        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []

    def compose(self) -> ComposeResult:
        table: DataTable[str] = DataTable(id="hits-table", cursor_type="row", zebra_stripes=True)
        # fixed widths: auto-sized columns change with the timing of updates (and overflow the panel)
        for label, width in (("#", 2), ("score", 5), ("api_name", 15), ("domain", 13)):
            table.add_column(label, width=width, key=label)
        yield table

    def set_hits(self, hits: list[Hit]) -> None:
        """Show `hits` (replacing the previous ones); scores are BM25, shown with 2 decimals."""
        self.hits = list(hits)
        table = self.query_one(DataTable)
        table.clear()
        for hit in self.hits:
            name = hit.doc.api_name or hit.doc.api_call.split("(", 1)[0]
            table.add_row(str(hit.rank), f"{hit.score:.2f}", name, hit.doc.domain, key=hit.doc.id)
        self.border_subtitle = f"{len(self.hits)} hits" if self.hits else ""

    def clear(self) -> None:
        """Empty the panel."""
        self.set_hits([])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.hits):
            self.post_message(self.DocSelected(self.hits[event.cursor_row]))
