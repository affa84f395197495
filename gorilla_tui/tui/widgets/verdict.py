"""The verdict badge: valid / incomplete / wrong_args / hallucination / unparseable / no_call, and
did-you-mean choices; above it, as prominent, the fit line (Proposal.fit: fits / unsure / nothing fits)."""

from __future__ import annotations

from rich.text import Text
from textual.app import ComposeResult
from textual.containers import Vertical
from textual.message import Message
from textual.widgets import OptionList, Static

from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.answer_text import needs_line
from gorilla_tui.types import FIT_LINES, FITS, VERDICTS, Verdict

#: Badge text per verdict kind (DESIGN.md, "verdict"); colours are in app.tcss (.-valid, .-hallucination…).
LABELS = {
    "valid": "✔ valid — the call matches an API of the pool",
    "incomplete": "✎ incomplete",  # + " — needs: src, dst" (the verdict's needs line, set_verdict)
    "wrong_args": "✘ wrong_args — known API, unknown identifying argument",
    "hallucination": "✘ hallucination — this API is not in the pool",
    "unparseable": "✘ unparseable — the output is not valid Python",
    "no_call": "∅ no_call — the model gave no API call",
}
#: The fit line's mark per judgment (the text is types.FIT_LINES; colours in app.tcss: #fit.-fits ...).
FIT_MARKS = {"fits": "● ", "unsure": "? ", "nothing": "✘ "}
#: The badge's words when nothing fits: the verdict is the nearest call's, which is not a proposal.
NEAREST = "nearest call, not a proposal"


class VerdictBadge(Vertical):
    """Shows one Verdict. Posts VerdictBadge.SuggestionAccepted(text) when a did-you-mean is chosen
    (Enter on the list, a click, or the app's accept key via :meth:`accept`)."""

    class SuggestionAccepted(Message):
        """The person accepted did-you-mean `suggestion` (an api_call or a callee of the pool)."""

        def __init__(self, suggestion: str) -> None:
            super().__init__()
            self.suggestion = suggestion

    def __init__(self, **kwargs) -> None:
        super().__init__(**kwargs)
        self.verdict: Verdict | None = None
        self.fit = ""

    def compose(self) -> ComposeResult:
        yield Static("", id="fit")
        yield Static("", id="badge")
        yield Static("", id="diagnostics")
        yield OptionList(id="suggestions")

    def on_mount(self) -> None:
        self.clear()

    def _set_kind(self, kind: str | None) -> None:
        badge = self.query_one("#badge", Static)
        for k in (*VERDICTS, "pending"):
            badge.set_class(k == kind, f"-{k}")

    def clear(self, text: str = "") -> None:
        """No verdict (yet); `text` says why (e.g. "checking…")."""
        self.verdict = None
        self.fit = ""
        self.set_fit("")
        self._set_kind("pending" if text else None)
        self.query_one("#badge", Static).update(Text(safe_text(text)))  # may quote a suggestion of the pool
        self.query_one("#diagnostics", Static).display = False
        options = self.query_one(OptionList)
        options.clear_options()
        options.display = False
        self.border_subtitle = ""

    def set_verdict(self, verdict: Verdict) -> None:
        """Show `verdict`: its badge, diagnostics, and suggestions as a choosable list."""
        self.verdict = verdict
        self._set_kind(verdict.kind)
        # the verdict word leads; the rest wraps under it (app.tcss #badge: one row, cut, on short terminals)
        text = LABELS.get(verdict.kind, verdict.kind)
        if self.fit == "nothing":  # no ✔ on a call that does not do the task
            text = f"{verdict.kind} — {NEAREST}"
        needs = needs_line(verdict)  # incomplete: the values to fill in are the badge's own text
        notes = [d for d in verdict.diagnostics if not needs or d != needs]
        if needs:
            text += " — " + safe_text(needs)
        self.query_one("#badge", Static).update(Text(text, overflow="ellipsis"))
        diagnostics = self.query_one("#diagnostics", Static)
        diagnostics.update(Text("\n".join(safe_text(n) for n in notes)))
        diagnostics.display = bool(notes)
        options = self.query_one(OptionList)
        options.clear_options()
        suggestions = [] if verdict.kind == "valid" else verdict.suggestions
        if suggestions:
            options.add_options([Text(safe_text(f"→ {s}")) for s in suggestions])
            options.highlighted = 0
        options.display = bool(suggestions)
        self.border_subtitle = "did you mean → ctrl+n accepts (or Tab, ↑↓, Enter)" if suggestions else ""

    def set_fit(self, fit: str) -> None:
        """Show the fit judgment `fit` (one of types.FITS) above the badge, as prominent; "" hides it. When
        nothing fits the badge, set after it, names the call the nearest, not a proposal."""
        self.fit = fit
        line = self.query_one("#fit", Static)
        for k in FITS[:-1]:
            line.set_class(k == fit, f"-{k}")
        text = FIT_MARKS.get(fit, "") + FIT_LINES.get(fit, "")
        line.update(Text(text, overflow="ellipsis"))  # wraps, or one row on short terminals (app.tcss)
        line.display = bool(fit)
        if self.verdict is not None:
            self.set_verdict(self.verdict)

    @property
    def suggestions(self) -> list[str]:
        """The did-you-mean suggestions on show ([] for a valid verdict)."""
        if self.verdict is None or self.verdict.kind == "valid":
            return []
        return list(self.verdict.suggestions)

    def accept(self) -> bool:
        """Accept the highlighted suggestion (the first when none is); False when there is none."""
        suggestions = self.suggestions
        if not suggestions:
            return False
        index = self.query_one(OptionList).highlighted or 0
        self.post_message(self.SuggestionAccepted(suggestions[min(index, len(suggestions) - 1)]))
        return True

    def on_option_list_option_selected(self, event: OptionList.OptionSelected) -> None:
        event.stop()
        suggestions = self.suggestions
        if 0 <= event.option_index < len(suggestions):
            self.post_message(self.SuggestionAccepted(suggestions[event.option_index]))
