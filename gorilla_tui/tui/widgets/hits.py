"""The hits panel: the top-k retrieved docs (name, domain, BM25 score); Enter shows the full doc."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable

from gorilla_tui.core.types import Hit
from gorilla_tui.tui.naming import display_name

#: Columns of fixed width (characters): rank and BM25 score.
FIXED = (("#", 2), ("score", 5))
#: Share of the remaining width given to the name column (the domain column gets the rest), and the
#: smallest widths of both.
NAME_SHARE = 0.6
MIN_NAME, MIN_DOMAIN = 8, 6


def column_widths(width: int, cell_padding: int = 1) -> tuple[int, int]:
    """(name, domain) column widths in characters for a table `width` characters wide: what the fixed
    columns and the cell padding (2 * cell_padding per column) leave, NAME_SHARE of it to the name."""
    free = width - sum(w for _, w in FIXED) - 2 * cell_padding * (len(FIXED) + 2)
    name = max(MIN_NAME, int(free * NAME_SHARE))
    return name, max(MIN_DOMAIN, free - name)


class HitsPanel(Vertical):
    """A table of hits, best first. Posts HitsPanel.DocSelected(hit) when a row is chosen (Enter or click).

    Column widths follow the panel's width (set on resize, never from the cell contents, so a snapshot at a
    fixed terminal size is deterministic); names too long for their column end with an ellipsis.
    """

    class DocSelected(Message):
        """The person chose `hit` to read its full doc."""

        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []
        self._widths: tuple[int, int] | None = None

    def compose(self) -> ComposeResult:
        yield DataTable(id="hits-table", cursor_type="row", zebra_stripes=True)

    def on_mount(self) -> None:
        self._fit(self.content_size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(self.content_size.width)

    def _fit(self, width: int) -> None:
        widths = column_widths(max(width, 1))
        if widths == self._widths:
            return
        self._widths = widths
        table = self.query_one(DataTable)
        table.clear(columns=True)
        for label, w in (*FIXED, ("api", widths[0]), ("domain", widths[1])):
            table.add_column(label, width=w, key=label)
        self._fill()

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        for hit in self.hits:
            name = Text(display_name(hit.doc), no_wrap=True, overflow="ellipsis")
            domain = Text(hit.doc.domain, no_wrap=True, overflow="ellipsis")
            table.add_row(str(hit.rank), f"{hit.score:.2f}", name, domain, key=hit.doc.id)

    def set_hits(self, hits: list[Hit]) -> None:
        """Show `hits` (replacing the previous ones); scores are BM25, shown with 2 decimals."""
        self.hits = list(hits)
        if self._widths is None:
            self._fit(self.content_size.width)
        self._fill()
        self.border_subtitle = f"{len(self.hits)} hits" if self.hits else ""

    def clear(self) -> None:
        """Empty the panel."""
        self.set_hits([])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.hits):
            self.post_message(self.DocSelected(self.hits[event.cursor_row]))
