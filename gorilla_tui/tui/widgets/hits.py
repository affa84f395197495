"""The hits panel: the top-k retrieved docs (source, name, domain, BM25, dense and likelihood scores), each
call once with how many of the hits it stands for; Enter shows a doc."""

from __future__ import annotations

from rich.text import Text
from textual import events
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import DataTable

from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.naming import display_name
from gorilla_tui.types import Hit, call_key, group_by_call

#: Columns of fixed width (characters): rank (the order: the fused ranking, types.Hit) and the hit's plain
#: BM25 score, labelled as such: the order is not by it (it was "score", and looked out of order).
FIXED = (("#", 2), ("bm25", 5))
#: The dense side's cosine similarity of task and doc (Hit.dense, 2 decimals), shown when a hit has one.
DENSE = ("cos", 5)
#: The same plus the likelihood score log p(task | doc) in nats (Hit.lm_score, 1 decimal), shown when select
#: mode chose by likelihood.
FIXED_LM = (*FIXED, ("lm", 6))
#: How many of the hits a row's call stands for ("x3"; types.group_by_call), shown when a call repeats.
SAME_CALL = ("docs", 4)
#: The source column (which part of the API pool a hit comes from, ApiDoc.source), after the scores.
SOURCE = ("source", 6)
#: Short labels of the shipped sources (index/*.toml) for the source column; other names are cut to fit.
SOURCE_LABELS = {
    "torchhub": "torch",
    "tensorflowhub": "tfhub",
    "huggingface": "hf",
    "apizoo": "apizoo",
    "python-env": "python",
}
#: Share of the remaining width given to the name column (the domain column gets the rest), and the
#: smallest widths of both; when both do not fit, the domain column is left out.
NAME_SHARE = 0.6
MIN_NAME, MIN_DOMAIN = 8, 6
#: Marks the hit select mode chose (MainScreen.show_proposal, answer_text.chosen_hit).
CHOSEN = "▶ "
#: Rich style of the chosen hit's row.
CHOSEN_STYLE = "bold green"


def column_widths(
    width: int, cell_padding: int = 1, fixed: tuple[tuple[str, int], ...] = FIXED
) -> tuple[int, int]:
    """(name, domain) column widths in characters for a table `width` characters wide: what the `fixed`
    columns and the cell padding (2 * cell_padding per column) leave, NAME_SHARE of it to the name.
    domain is 0 (no domain column) when the rest is narrower than MIN_NAME + MIN_DOMAIN."""
    free = width - sum(w for _, w in fixed) - 2 * cell_padding * (len(fixed) + 2)
    if free < MIN_NAME + MIN_DOMAIN:
        return max(MIN_NAME, free + 2 * cell_padding), 0
    name = int(free * NAME_SHARE)
    return name, free - name


#: Score columns left out, in this order, when the panel is too narrow for the api column to get MIN_NAME
#: characters beside them (an 80-column terminal: the api column, and the chosen mark in it, were pushed
#: out of sight behind #, bm25, cos, lm, docs and source).
DROPPABLE = ("cos", "bm25")


def fit_fixed(
    fixed: tuple[tuple[str, int], ...], width: int, cell_padding: int = 1
) -> tuple[tuple[str, int], ...]:
    """`fixed` without the DROPPABLE score columns (in that order) that leave the api column, beside them,
    fewer than MIN_NAME characters in a table `width` characters wide (cell padding: 2 * cell_padding per
    column); the rank, lm, docs and source columns are always kept."""
    for label in DROPPABLE:
        free = width - sum(w for _, w in fixed) - 2 * cell_padding * (len(fixed) + 1)
        if free >= MIN_NAME:
            break
        fixed = tuple(col for col in fixed if col[0] != label)
    return fixed


def source_label(source: str) -> str:
    """The source column's text for ApiDoc.source: SOURCE_LABELS, else the name itself (cut to fit)."""
    return SOURCE_LABELS.get(source, source)


def lm_text(score: float | None) -> str:
    """A likelihood score (nats) as shown in the lm column: 1 decimal, none below -999.5, "—" for None."""
    if score is None:
        return "—"
    return f"{score:.1f}" if score > -999.5 else f"{score:.0f}"


class HitsPanel(Vertical):
    """A table of hits, best first. Posts HitsPanel.DocSelected(hit) when a row is chosen (Enter or click).

    Column widths follow the panel's width (set on resize, never from the cell contents, so a snapshot at a
    fixed terminal size is deterministic); names too long for their column end with an ellipsis. When a hit
    has a dense cosine (Hit.dense, a hybrid index) a "cos" column follows the BM25 score, when it has a
    likelihood score (Hit.lm_score) an "lm" column follows them; a "source" column says
    which source of the API pool each hit comes from (source_label); the chosen hit (`chosen`,
    an index into `hits`, or None) is in CHOSEN_STYLE and its name starts with CHOSEN.

    Each call is one row (`rows`, types.group_by_call: the best-ranked hit of the call, and how many of
    `hits` have it); when a call repeats, a "docs" column says "xN" (APIBench's TensorFlow Hub pool: 696
    docs, 80 distinct calls). Display only: `hits` keeps every hit, as the choice saw them.
    """

    class DocSelected(Message):
        """The person chose `hit` to read its full doc."""

        def __init__(self, hit: Hit) -> None:
            super().__init__()
            self.hit = hit

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.hits: list[Hit] = []
        self.rows: list[tuple[Hit, int]] = []
        self.chosen: int | None = None
        self._layout: tuple[tuple[int, int], bool, bool, bool] | None = None
        self._shown: set[str] = set()  # the labels of the fixed columns on show (fit_fixed)

    def compose(self) -> ComposeResult:
        yield DataTable(id="hits-table", cursor_type="row", zebra_stripes=True)

    @property
    def scored(self) -> bool:
        """True when some hit on show has a likelihood score (the lm column is shown)."""
        return any(h.lm_score is not None for h in self.hits)

    def on_mount(self) -> None:
        self._fit(self.content_size.width)

    def on_resize(self, event: events.Resize) -> None:
        self._fit(self.content_size.width)

    @property
    def cosines(self) -> bool:
        """True when some hit on show has a dense cosine (the cos column is shown)."""
        return any(h.dense is not None for h in self.hits)

    @property
    def repeats(self) -> bool:
        """True when some call stands for several hits on show (the docs column is shown)."""
        return len(self.rows) < len(self.hits)

    def _fit(self, width: int) -> bool:
        """Rebuild the columns (and rows) when the width or the cos / lm / docs columns changed; True when
        they did."""
        scored, cosines, repeats = self.scored, self.cosines, self.repeats
        fixed = fit_fixed(
            (
                *FIXED,
                *((DENSE,) if cosines else ()),
                *(FIXED_LM[len(FIXED) :] if scored else ()),
                *((SAME_CALL,) if repeats else ()),
                SOURCE,
            ),
            max(width, 1),
        )
        widths, labels = column_widths(max(width, 1), fixed=fixed), {label for label, _ in fixed}
        if (widths, scored, cosines, repeats) == self._layout and labels == self._shown:
            return False
        self._layout, self._shown = (widths, scored, cosines, repeats), labels
        table = self.query_one(DataTable)
        table.clear(columns=True)
        columns = (*fixed, ("api", widths[0]), ("domain", widths[1]))
        for label, w in columns:
            if w:
                table.add_column(label, width=w, key=label)
        self._fill()
        return True

    def _fill(self) -> None:
        table = self.query_one(DataTable)
        table.clear()
        if self._layout is None:
            return
        (_, domain_width), scored, cosines, repeats = self._layout
        shown = self._shown
        chosen = self.chosen_row
        for i, (hit, n) in enumerate(self.rows):
            style = CHOSEN_STYLE if i == chosen else ""
            numbers = [str(hit.rank)] + ([f"{hit.score:.2f}"] if "bm25" in shown else [])
            numbers += (
                ["—" if hit.dense is None else f"{hit.dense:.2f}"] if cosines and "cos" in shown else []
            )
            numbers += [lm_text(hit.lm_score)] if scored else []
            numbers += [f"x{n}" if n > 1 else ""] if repeats else []
            cells: list[str | Text] = [Text(n, style=style, end="") if style else n for n in numbers]
            label = safe_text(source_label(hit.doc.source))
            cells.append(Text(label, style=style, no_wrap=True, overflow="ellipsis"))
            name = (CHOSEN if i == chosen else "") + display_name(hit.doc)
            texts = [name, hit.doc.domain] if domain_width else [name]
            cells += [Text(safe_text(t), style=style, no_wrap=True, overflow="ellipsis") for t in texts]
            table.add_row(*cells, key=hit.doc.id)

    def set_hits(self, hits: list[Hit], chosen: int | None = None) -> None:
        """Show `hits` (replacing the previous ones) in rank order; the numbers are each hit's BM25 score
        and dense cosine (2 decimals; the order is their fusion, not either of them), and
        log p(task | doc) in nats (1 decimal) when a hit has one; `chosen` marks hits[chosen] (on the row of
        its call). Each call is one row (see the class docstring)."""
        self.hits = list(hits)
        self.rows = group_by_call(self.hits)
        self.chosen = chosen if chosen is not None and 0 <= chosen < len(self.hits) else None
        if not self._fit(self.content_size.width):
            self._fill()
        n = len(self.hits)
        parts = [f"{n} hit" if n == 1 else f"{n} hits"] if n else []
        if self.repeats:
            parts.append(f"{len(self.rows)} calls" if len(self.rows) > 1 else "1 call")
        if self.chosen is not None:
            parts.append(f"{CHOSEN}chosen")
        if self.hits and self.scored:
            parts.append("lm = log p(task | doc)")
        self.border_subtitle = " · ".join(parts)

    @property
    def chosen_row(self) -> int | None:
        """The row of the chosen hit's call (an index into `rows`), or None."""
        if self.chosen is None:
            return None
        key = call_key(self.hits[self.chosen].doc)
        return next((i for i, (hit, _) in enumerate(self.rows) if call_key(hit.doc) == key), None)

    def clear(self) -> None:
        """Empty the panel."""
        self.set_hits([])

    def on_data_table_row_selected(self, event: DataTable.RowSelected) -> None:
        event.stop()
        if 0 <= event.cursor_row < len(self.rows):
            # the chosen call's row opens the chosen doc (it can be another hit of that call than the first)
            chosen = event.cursor_row == self.chosen_row and self.chosen is not None
            hit = self.hits[self.chosen] if chosen else self.rows[event.cursor_row][0]
            self.post_message(self.DocSelected(hit))
