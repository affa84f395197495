"""What a stored history row reads as: HistoryEntry, each field validated (an old or edited database: a
timestamp that is text, a proposal that is not JSON, a task with escape sequences). history.py reads its
rows with entry() and stored_task()."""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.textsafe import clean_task

__all__ = ["HistoryEntry", "entry", "stored_task", "unreadable_rows"]

#: Latest timestamp a row may hold (9999-12-31T23:59:59Z, the last second time.strftime's %Y writes in 4
#: digits); a later, negative or non-numeric one is "unknown" (HistoryEntry.ts None).
_LAST_TS = 253_402_300_799.0


@dataclass(frozen=True)
class HistoryEntry:
    """One saved task. ts: seconds since the epoch (UTC), None when the row's is not a time (an old or
    edited database: text, NaN, out of range); proposal: Proposal.to_dict() or None (not answered:
    cancelled, failed, still running, or a row whose proposal is not a JSON object). verdict and api_call
    are read from the proposal ("" when none or not text). A row read from the database is validated by
    entry: task is text cleaned as History.add cleans it (textsafe.clean_task). damaged: the row holds a
    proposal that could not be read (not JSON, nested too deep, not an object): its task is kept, its
    answer is not shown, and what shows the history counts it (unreadable_rows)."""

    id: int
    ts: float | None
    task: str
    proposal: dict[str, Any] | None
    damaged: bool = False

    @property
    def verdict(self) -> str:
        return _text(_field(self.proposal, "verdict", "verdict"))

    @property
    def fit(self) -> str:
        """The proposal's fit judgment (Proposal.fit: "fits", "unsure", "nothing", or "" when not judged).
        A proposal saved before it existed gives its out-of-pool flag: "match" "weak" -> "unsure" (that rule
        only said the match was weak), else ""."""
        p = self.proposal or {}
        if "fit" in p:
            return _text(p.get("fit"))
        return "unsure" if p.get("match") == "weak" else ""

    @property
    def api_call(self) -> str:
        """The proposal's api_call, else its nearest call (nothing fits), else the call its verdict was
        decided on ("" when none)."""
        p = self.proposal or {}
        return _text(p.get("api_call") or p.get("nearest_call") or _field(p, "verdict", "api_call"))


def entry(row: tuple[Any, ...]) -> HistoryEntry:
    """A row (id, ts, task, proposal_json) as an entry, each field validated: a damaged row (an old or
    edited database: a timestamp that is text, a proposal that is not JSON or not an object, a task with
    escape sequences) must not hide the others nor crash what shows them."""
    proposal = None
    if row[3]:
        try:  # jsontext.loads: nested 5,000 deep raised RecursionError, a traceback from the history screen
            proposal = json_value(row[3])
        except (ValueError, TypeError):  # not JSON, nested too deep, or not text at all
            proposal = None
    damaged = row[3] is not None and not isinstance(proposal, dict)
    if damaged:
        proposal = None
    return HistoryEntry(
        id=int(row[0]), ts=_timestamp(row[1]), task=stored_task(row[2]), proposal=proposal, damaged=damaged
    )


def unreadable_rows(entries: list[HistoryEntry]) -> str:
    """ "N history row(s) could not be read" for the damaged entries among `entries` (HistoryEntry.damaged),
    or "" when there is none: the line a view of the history shows beside them."""
    n = sum(e.damaged for e in entries)
    if not n:
        return ""
    return f"{n} history row{'' if n == 1 else 's'} could not be read (answer not shown)"


def _timestamp(value: Any) -> float | None:
    """A row's ts as seconds since the epoch, or None when it is no time between 0 and _LAST_TS."""
    try:
        ts = float(value)
    except (TypeError, ValueError, OverflowError):
        return None
    return ts if math.isfinite(ts) and 0 <= ts <= _LAST_TS else None


def stored_task(value: Any) -> str:
    """A row's task as History.add saves one (textsafe.clean_task: escape sequences and control characters
    dropped, blanks normalised, cut); "" for one of nothing but those, or NULL."""
    try:
        return clean_task(value if isinstance(value, str) else "" if value is None else str(value))[0]
    except UsageError:
        return ""


def _field(d: Any, outer: str, inner: str) -> Any:
    """d[outer][inner] when both are objects that hold it, else None."""
    sub = d.get(outer) if isinstance(d, dict) else None
    return sub.get(inner) if isinstance(sub, dict) else None


def _text(value: Any) -> str:
    """A proposal field as text: a string as it is, "" for anything else (None, a number, a list...)."""
    return value if isinstance(value, str) else ""
