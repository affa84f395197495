"""The matched-API card: provider/framework, functionality, performance, env requirements, and the task's
constraints in words ("top-1 ≥ 80 % on ImageNet: 85.1 ✔", tui/explain.py)."""

from __future__ import annotations

from typing import Any

from rich.table import Table
from rich.text import Text
from textual.widgets import Static

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.textsafe import safe_text
from gorilla_tui.tui.explain import constraint_words
from gorilla_tui.tui.naming import display_name

#: Colour of a constraint row by its status (constraints/rank.py STATUSES).
CONSTRAINT_STYLE = {"satisfied": "green", "violated": "red", "unknown": "yellow"}


def compact(value: Any, limit: int = 240) -> str:
    """A raw JSON value (performance, a constraint) as one short line: dicts as "k: v, …", lists joined by
    ", ", cut at `limit` characters with an ellipsis."""
    if value is None:
        return ""
    if isinstance(value, dict):
        text = ", ".join(f"{k}: {compact(v, limit)}" for k, v in value.items() if v not in (None, "", [], {}))
    elif isinstance(value, list):
        text = ", ".join(compact(v, limit) for v in value)
    else:
        text = str(value)
    return text if len(text) <= limit else text[: limit - 1] + "…"


def constraint_text(constraint: dict[str, Any]) -> str:
    """One task constraint (Proposal.constraints item) as text: its "text"/"description" if it has one,
    else its fields."""
    for key in ("text", "description", "label"):
        if isinstance(constraint.get(key), str) and constraint[key]:
            return constraint[key]
    return compact(constraint)


class ApiCard(Static):
    """Shows the ApiDoc a verdict matched (or a note why there is none) and the task's constraints."""

    def show(
        self, doc: ApiDoc | None, constraints: list[dict[str, Any]] | None = None, note: str = ""
    ) -> None:
        """Render `doc` (None: show `note`, e.g. "no pool entry matched") and the constraints, if any."""
        grid = Table.grid(padding=(0, 1))
        grid.add_column(style="bold dim", no_wrap=True)
        grid.add_column(overflow="fold")
        if doc is None:
            grid.add_row("", Text(safe_text(note or "no matched API"), style="dim italic"))
        else:
            provider = doc.framework or doc.source
            rows = [
                ("api", display_name(doc)),
                ("provider", f"{provider} ({doc.source})" if doc.framework else provider),
                ("domain", doc.domain),
                ("does", doc.functionality or doc.description),
                ("performance", compact(doc.performance)),
                ("requires", ", ".join(doc.env_requirements)),
            ]
            for label, value in rows:
                if value:  # doc fields: shown, never interpreted; a docstring's lines kept
                    grid.add_row(label, Text(safe_text(value, newlines=True)))
            if doc.repaired:  # the pool's api_call is not valid Python (pool/repair.py); the doc view has it
                grid.add_row("call", Text(safe_text(f"{doc.repaired}  (repaired pool entry)", newlines=True)))
        for c in constraints or []:
            style = CONSTRAINT_STYLE.get(str(c.get("status")), "magenta")
            words = constraint_words(c, with_note=True) if "metric" in c else constraint_text(c)
            grid.add_row("constraint", Text(safe_text(words), style=style))
        self.update(grid)

    def clear(self) -> None:
        """Empty card."""
        self.update("")
