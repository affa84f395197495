"""A yes/no modal: y / Enter confirm, n / Escape decline; dismisses with True or False."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Horizontal, Vertical, VerticalScroll
from textual.screen import ModalScreen
from textual.widgets import Button, Static

from gorilla_tui.textsafe import safe_text


class ConfirmScreen(ModalScreen[bool]):
    """Ask `question`; `detail` is shown below it, `code` (optional) as highlighted Python. All three go
    through textsafe.safe_text and are never read as markup (they may hold doc, model or code text)."""

    BINDINGS = [
        Binding("y", "answer(True)", "Yes"),
        Binding("n,escape", "answer(False)", "No"),
    ]

    def __init__(
        self, question: str, detail: str = "", *, code: str = "", yes: str = "Yes", no: str = "Cancel"
    ):
        super().__init__(classes="modal")
        self.question = question
        self.detail = detail
        self.code = code
        self.yes = yes
        self.no = no

    def compose(self) -> ComposeResult:
        with Vertical(id="dialog"):
            yield Static(Text(safe_text(self.question, newlines=True)), id="question")
            if self.code:
                with VerticalScroll(id="confirm-code"):
                    yield Static(
                        Syntax(
                            safe_text(self.code, newlines=True, limit=None),
                            "python",
                            theme="monokai",
                            word_wrap=True,
                        )
                    )
            if self.detail:
                yield Static(Text(safe_text(self.detail, newlines=True)), id="detail")
            with Horizontal(id="buttons"):
                yield Button(f"{self.yes} (y)", id="yes", variant="warning")
                yield Button(f"{self.no} (n)", id="no")

    def on_mount(self) -> None:
        self.query_one("#no", Button).focus()

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        self.dismiss(event.button.id == "yes")

    def action_answer(self, yes: bool) -> None:
        self.dismiss(yes)
