"""The full ApiDoc of a hit, in a modal (Escape closes)."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.table import Table
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Static

from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.naming import display_name


def _arguments(arguments: dict[str, str]) -> str:
    """api_arguments one per line ("name: default"); a signature of separators alone ("/": python-env's
    mark of a function that takes no argument, pool/pyenv/names.py) reads "none"."""
    if arguments and all(k in ("/", "*") for k in arguments):
        return "none"
    return "\n".join(f"{k}: {v}" if v else k for k, v in arguments.items())


#: Where a doc field cut by safe_text's block caps (textsafe.cut_block) is whole.
WHOLE = "`search --json` has it whole"


def doc_table(doc: ApiDoc, score: float | None = None, lm_score: float | None = None) -> Table:
    """Every non-empty field of `doc` as a two-column table (example code highlighted); score is the hit's
    BM25 score, lm_score its log p(task | doc) in nats (select by likelihood, model/likelihood.py)."""
    table = Table.grid(padding=(0, 1))
    table.add_column(style="bold cyan", no_wrap=True)
    table.add_column(overflow="fold")
    rows: list[tuple[str, object]] = [
        ("api_name", doc.api_name),
        (
            "api_call",
            Syntax(
                safe_text(doc.api_call, newlines=True, whole=WHOLE), "python", theme="monokai", word_wrap=True
            ),
        ),
        ("score", f"{score:.3f} (BM25)" if score is not None else ""),
        ("lm score", f"{lm_score:.2f} nats, log p(task | doc)" if lm_score is not None else ""),
        ("source", f"{doc.source} ({doc.id})"),
        ("domain", doc.domain),
        ("framework", doc.framework),
        ("functionality", doc.functionality),
        ("arguments", _arguments(doc.api_arguments)),
        ("requirements", ", ".join(doc.env_requirements)),
        ("performance", json_text(doc.performance) if doc.performance else ""),
        ("description", doc.description),
        (
            "example",
            Syntax(
                safe_text(doc.example_code, newlines=True, whole=WHOLE),
                "python",
                theme="monokai",
                word_wrap=True,
            )
            if doc.example_code
            else "",
        ),
        ("flagged", doc.flagged or ""),
        ("repaired", _code(doc.repaired) if doc.repaired else ""),
    ]
    for label, value in rows:
        if value:  # doc fields: shown through safe_text, never interpreted as markup
            table.add_row(
                label, Text(safe_text(value, newlines=True, whole=WHOLE)) if isinstance(value, str) else value
            )
    return table


def _code(text: str) -> Syntax:
    return Syntax(safe_text(text, newlines=True, whole=WHOLE), "python", theme="monokai", word_wrap=True)


class DocScreen(ModalScreen[None]):
    """Shows one ApiDoc in full (with the hit's BM25 score and likelihood score, when given)."""

    BINDINGS = [Binding("escape,q", "app.pop_screen", "Close")]

    def __init__(self, doc: ApiDoc, score: float | None = None, lm_score: float | None = None) -> None:
        super().__init__(classes="modal")
        self.doc = doc
        self.score = score
        self.lm_score = lm_score

    def compose(self) -> ComposeResult:
        with VerticalScroll(id="dialog") as scroll:
            # a doc's name: shown as it is (a border title is read as markup: "[/x]" crashed the app, and an
            # OSC sequence in an api_name set the terminal's title)
            scroll.border_title = Text(safe_text(display_name(self.doc)))
            scroll.border_subtitle = "Escape closes"
            yield Static(doc_table(self.doc, self.score, self.lm_score), id="doc")
