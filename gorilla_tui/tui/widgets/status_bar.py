"""The status bar: model, kernel profile, index and load state, in one line."""

from __future__ import annotations

from rich.text import Text
from textual.widgets import Static

#: Style of the state field per load state.
_STATE_STYLE = {"ready": "green", "loading": "yellow", "busy": "cyan", "error": "bold red", "missing": "red"}


class StatusBar(Static):
    """One line: ``model … │ kernel … │ index … │ state``. Update fields with :meth:`set`."""

    def __init__(self, **kwargs) -> None:
        super().__init__("", **kwargs)
        self.fields: dict[str, str] = {"model": "…", "kernel": "…", "index": "…", "state": "starting"}
        self.state_kind = "loading"

    def set(self, *, state_kind: str | None = None, **fields: str) -> None:
        """Change fields (model, kernel, index, state); state_kind picks the colour of the state field
        (ready, loading, busy, error, missing)."""
        self.fields.update(fields)
        if state_kind:
            self.state_kind = state_kind
        self.refresh_text()

    def refresh_text(self) -> None:
        text = Text(no_wrap=True, overflow="ellipsis")
        for name in ("model", "kernel", "index"):
            text.append(f"{name} ", style="dim")
            text.append(self.fields[name])
            text.append(" │ ", style="dim")
        text.append(self.fields["state"], style=_STATE_STYLE.get(self.state_kind, ""))
        self.update(text)

    def on_mount(self) -> None:
        self.refresh_text()
