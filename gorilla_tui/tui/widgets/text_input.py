"""The one text input of the TUI: every Input of the app is a SafeInput (the task, the history search, the
settings' model and k, the index build's folder).

An Input renders its value as it is, so a control character in it reaches the terminal: a bracketed paste
of "hello \\x9b2J world \\u202e rtl" put the C1 CSI (U+009B) and the right-to-left override raw on the
screen. Round 8 cleaned the task input's paste alone; the settings dialog, the history search and the
index-build folder kept the raw text (break-it round 9). Here the value itself is cleaned, whatever sets it
(a paste, a key, a recalled task, a value read from config.toml): textsafe.strip_controls drops escape
sequences whole and makes every other control character, bidi control and lone surrogate a space.
"""

from __future__ import annotations

from textual.widgets import Input

from gorilla_tui.textsafe import strip_controls


class SafeInput(Input):
    """textual.widgets.Input whose value never holds a character a terminal acts on instead of showing
    (textsafe.strip_controls). Text inserted (a paste, a key) is cleaned before the length and type checks
    of Input.replace, so a cut counts what is kept; any value set directly is cleaned as it is set."""

    def validate_value(self, value: str) -> str:
        """The reactive `value`'s validator (Textual calls validate_<name> on every assignment)."""
        return strip_controls(value)

    def replace(self, text: str, start: int, end: int) -> None:
        """Input.replace with `text` cleaned first: the cursor then lands after what was kept."""
        super().replace(strip_controls(text), start, end)
