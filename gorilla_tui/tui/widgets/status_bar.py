"""The status bar: model, kernel profile, index and load state, in one line that fits the terminal's width."""

from __future__ import annotations

import re

from rich.text import Text
from textual import events
from textual.widgets import Static

from gorilla_tui.textsafe import safe_text

#: Style of the state field per load state.
_STATE_STYLE = {"ready": "green", "loading": "yellow", "busy": "cyan", "error": "bold red", "missing": "red"}
_SEP = " │ "
#: "N docs (a, b, c)" in an index label: the source list, the first thing shortened when space is short.
_SOURCES = re.compile(r"\(([^()]*)\)")


def _index_variants(index: str) -> list[str]:
    """Ever shorter forms of an index label "8499 docs (python-env, torchhub) hub=x": the full label, the
    first source and a count of the others, the number of sources, and no source list at all."""
    m = _SOURCES.search(index)
    if not m:
        return [index]
    names = [n.strip() for n in m.group(1).split(",") if n.strip()]
    out = [index]
    if len(names) > 1:
        out.append(index[: m.start()] + f"({names[0]} +{len(names) - 1})" + index[m.end() :])
        out.append(index[: m.start()] + f"({len(names)} sources)" + index[m.end() :])
    out.append((index[: m.start()].rstrip() + index[m.end() :]).strip())
    return out


def fit_fields(fields: dict[str, str], width: int) -> list[tuple[str, str]]:
    """(label, value) pairs of the status line shortened to fit `width` columns (0: no limit), the state
    (verdict and time) always last and kept whole as long as it fits alone.

    Order of cuts: the index's source list (full, "first +N", "N sources", none), then the kernel
    field, then the "model"/"index" labels, then the model name is cut to 16 characters; only then does
    the line itself get an ellipsis (the caller renders with overflow="ellipsis")."""
    model, kernel, state = fields["model"], fields["kernel"], fields["state"]
    candidates: list[list[tuple[str, str]]] = []
    for index in _index_variants(fields["index"]):
        candidates.append([("model ", model), ("kernel ", kernel), ("index ", index)])
    short_index = _index_variants(fields["index"])[-1]
    candidates.append([("model ", model), ("index ", short_index)])
    candidates.append([("", model), ("", short_index)])
    cut = model if len(model) <= 16 else model[:15] + "…"
    candidates.append([("", cut), ("", short_index)])
    for parts in candidates:
        length = sum(len(a) + len(b) + len(_SEP) for a, b in parts) + len(state)
        if not width or length <= width:
            return parts + [("", state)]
    return candidates[-1] + [("", state)]


class StatusBar(Static):
    """One line: ``model … │ kernel … │ index … │ state``. Update fields with :meth:`set`. When the line is
    wider than the bar, fit_fields shortens the source list first, so the state (the verdict and the
    answer's time) stays visible down to 80 columns and below."""

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
        width = self.content_size.width if self.is_mounted else 0
        parts = fit_fields(self.fields, width)
        text = Text(no_wrap=True, overflow="ellipsis")
        for label, value in parts[:-1]:
            if label:
                text.append(label, style="dim")
            text.append(safe_text(value))  # a model path, source names: shown as they are
            text.append(_SEP, style="dim")
        text.append(safe_text(parts[-1][1]), style=_STATE_STYLE.get(self.state_kind, ""))
        self.update(text)

    def on_mount(self) -> None:
        self.refresh_text()

    def on_resize(self, event: events.Resize) -> None:
        self.refresh_text()

    @property
    def shown(self) -> str:
        """The plain text of the line as it is fitted now."""
        width = self.content_size.width if self.is_mounted else 0
        return "".join(a + b + _SEP for a, b in fit_fields(self.fields, width)[:-1]) + self.fields["state"]
