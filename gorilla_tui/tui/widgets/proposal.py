"""The proposal panel: streams the model's tokens, then shows the call and code highlighted, with buttons."""

from __future__ import annotations

from rich.syntax import Syntax
from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Horizontal, Vertical
from textual.message import Message
from textual.widgets import Button, Static, TextArea

from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.answer_text import choice_note, code_note, effective_call
from gorilla_tui.tui.arguments import arguments_line, marked_call
from gorilla_tui.tui.explain import aside_words, constraints_sentence, set_aside
from gorilla_tui.types import FIT_LINES, Proposal, code_origin

#: Rich Syntax theme for the call line (pygments); the code area uses TextArea's tree-sitter highlighting.
CALL_THEME = "monokai"


def match_line(proposal: Proposal) -> str:
    """The first line of the answer when nothing fits (Proposal.fit "nothing": "✘ " + types.FIT_LINES), or
    "" otherwise (the verdict badge shows every fit judgment). The panel shows it in #match, which short
    terminals keep (app.tcss) when they drop the other choice lines."""
    return f"✘ {FIT_LINES['nothing']}" if proposal.fit == "nothing" else ""


def choice_lines(proposal: Proposal) -> list[str]:
    """The lines above the call: that no API in the pool matches the task well (match_line), how select
    mode chose (answer_text.choice_note, with how many hits were set aside), the task's constraints in words,
    and the hits set aside with their reasons (tui/explain.py). The panel wraps them (up to 5 rows, then an
    ellipsis: app.tcss #choice), and shows the first (match_line) apart, in #match."""
    warning = match_line(proposal)
    lines = [warning] if warning else []
    aside = set_aside(proposal)
    n_out = sum(a.why.startswith("not ") for a in aside)
    choice = choice_note(proposal)
    if choice:
        out = f" ({n_out} of {len(proposal.hits)} set aside, below)" if n_out else ""
        lines.append(f"▶ {choice}{out}")
    if proposal.constraints:
        lines.append("constraints: " + constraints_sentence(proposal.constraints))
    if aside:
        lines.append(aside_words(aside))
    return lines


class ProposalPanel(Vertical):
    """States: empty (a hint), streaming (raw tokens), answered (call + code), error, cancelled.

    Posts ProposalPanel.CopyRequested(what) from the Copy buttons (what: "call" or "code") and
    ProposalPanel.RunRequested() from the Run button.
    """

    class CopyRequested(Message):
        """Copy the call or the whole code (what: "call" | "code")."""

        def __init__(self, what: str) -> None:
            super().__init__()
            self.what = what

    class RunRequested(Message):
        """Run the code in the sandbox."""

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self._tokens: list[str] = []
        # A message that arrived before the children were mounted (a model that fails to load at once
        # posts its error while the screen is still being composed): shown by on_mount.
        self._pending: tuple[str, str, str] | None = None
        self._mounted_children = False

    def compose(self) -> ComposeResult:
        yield Static("", id="stream")
        yield Static("", id="match")
        yield Static("", id="choice")
        yield Static("", id="call")
        yield Static("", id="arguments")
        yield TextArea("", id="code", language="python", read_only=True, show_line_numbers=False)
        yield Static("", id="code-note")
        with Horizontal(id="actions"):
            yield Button("Copy call", id="copy-call", variant="primary")
            yield Button("Copy code", id="copy-code")
            yield Button("Run", id="run")

    def on_mount(self) -> None:
        self._mounted_children = True
        message, style, hint = self._pending or ("Type a task above and press Enter.", "dim italic", "")
        self._pending = None
        self.show_message(message, style=style, hint=hint)

    def _answered(self, answered: bool) -> None:
        self.query_one("#call").display = answered
        self.query_one("#code").display = answered
        self.query_one("#actions").display = answered
        if not answered:
            self.query_one("#code-note").display = False
            self.query_one("#choice").remove_class("-shown")
            self.query_one("#match").remove_class("-shown")
            self.query_one("#arguments").remove_class("-shown")
        self.query_one("#stream").display = not answered

    @property
    def streamed_text(self) -> str:
        """Everything streamed since :meth:`start` (the model's raw text so far)."""
        return "".join(self._tokens)

    def show_message(self, message: str, *, style: str = "", hint: str = "") -> None:
        """Replace the panel's content with a message (and an optional hint on a second line).

        Before the panel's children are mounted the message is kept and shown on mount.
        """
        if not self._mounted_children:
            self._pending = (message, style, hint)
            return
        self._answered(False)
        text = Text(safe_text(message, newlines=True), style=style)
        if hint:
            text.append("\n" + safe_text(hint, newlines=True), style="dim")  # lines of their own
        self.query_one("#stream", Static).update(text)

    def start(self, task: str) -> None:
        """A new task: clear, and show that the model is being asked."""
        self._tokens = []
        self.border_subtitle = ""
        self.show_message(f"Asking: {task}", style="dim")

    def add_token(self, text: str) -> None:
        """Append one streamed piece of the model's output."""
        self._tokens.append(text)
        self.query_one("#stream", Static).update(Text(safe_text(self.streamed_text, newlines=True)))

    def show_proposal(self, proposal: Proposal, subtitle: str = "") -> None:
        """Show the weak-match warning (match_line; kept on short terminals), how select mode chose the call
        (choice_lines; hidden in generate mode and, by app.tcss, on short terminals), the call (rich Syntax)
        and the code (read-only TextArea, python highlighting). A filled call (Proposal.arguments) is shown
        with each value marked by its origin and a line under it ("from your task: secs=10 · needs: dst",
        tui/arguments.py); the code area is then hidden when the code is that call alone."""
        self._answered(True)
        warning = match_line(proposal)
        match_widget = self.query_one("#match", Static)
        match_widget.update(Text(safe_text(warning), overflow="ellipsis"))  # up to 2 lines (app.tcss)
        match_widget.set_class(bool(warning), "-shown")
        lines = choice_lines(proposal)[1 if warning else 0 :]
        choice_widget = self.query_one("#choice", Static)
        choice_widget.update(Text("\n".join(safe_text(line) for line in lines), overflow="ellipsis"))  # wraps
        choice_widget.set_class(bool(lines), "-shown")
        call = effective_call(proposal)
        text = proposal.code or call
        filled = bool(call and proposal.arguments)
        call_widget = self.query_one("#call", Static)
        if filled:  # each value marked by where it came from (tui/arguments.py), the line under it says so
            call_widget.update(marked_call(call, proposal.arguments, CALL_THEME))
        else:
            call_widget.update(
                Syntax(
                    safe_text(call or "(no API call)", newlines=True),
                    "python",
                    theme=CALL_THEME,
                    word_wrap=True,
                )
            )
        code_is_call = text.strip() == call.strip()
        call_widget.display = filled or not code_is_call  # the code area shows an unmarked call itself
        call_widget.set_class(filled, "-filled")
        arguments = self.query_one("#arguments", Static)
        unused = bool(call and proposal.unused and proposal.fit != "nothing")
        given = proposal.arguments if filled else ()
        arguments.update(arguments_line(given, proposal.unused if unused else ()))
        arguments.set_class(filled or unused, "-shown")
        code = self.query_one("#code", TextArea)
        code.display = not (filled and code_is_call)  # the marked call above is the whole code
        # shown for review: escape sequences visible, never interpreted; cut at textsafe's block caps
        code.load_text(safe_text(text, newlines=True, whole="Ctrl+G copies it whole"))
        code.scroll_home(animate=False)
        note = code_note(proposal)
        self.query_one("#code-note", Static).update(Text(safe_text(f"⚠ {note}") if note else ""))
        self.query_one("#code-note").display = bool(note)
        # the same words as the CLI panel's "code (...)" line (types.code_origin)
        self.border_subtitle = subtitle or f"code ({code_origin(proposal.code_source, proposal.mode)})"

    def show_error(self, message: str, hint: str = "") -> None:
        """An error of the backend or pipeline (the app keeps running)."""
        self.border_subtitle = "error"
        self.show_message(f"Error: {message}", style="bold red", hint=hint)

    def show_cancelled(self) -> None:
        self.border_subtitle = "cancelled"
        partial = self.streamed_text
        self.show_message("Cancelled." + (f"\n{partial}" if partial else ""), style="yellow")

    def on_button_pressed(self, event: Button.Pressed) -> None:
        event.stop()
        if event.button.id == "copy-call":
            self.post_message(self.CopyRequested("call"))
        elif event.button.id == "copy-code":
            self.post_message(self.CopyRequested("code"))
        elif event.button.id == "run":
            self.post_message(self.RunRequested())
