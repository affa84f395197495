"""The requests of a task that asks for several things, as fill/writer.py reads them (BFCL's parallel and
parallel_multiple): where each request stands, a call's values kept to its own request, and an optional
value the task states once for several calls.

A request is the text between two of CLAUSE's separators (a sentence's end, "also", "then",
"finally", "first," ...). People write one request's values together ("law cases where Charles Dickens is a
party and it happened in Boston. Also, get cases where University of California was a party and happened in
Los Angeles": Boston is the first call's city), and the requests in the order the calls are meant.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Sequence
from typing import Any

from gorilla_tui.fill.candidate import Candidate

#: What separates the requests of a task that asks for several things: a sentence's end, "also", "then",
#: "finally", "first," ... (BFCL: 185 of 200 "multiple" questions are one request, 177 of 200
#: "parallel_multiple" ones more than one).
CLAUSE = re.compile(
    r"[.?!;]\s+(?=\S)|,?\s+\b(?:also|then|after that|afterwards|additionally|furthermore|finally|lastly|"
    r"secondly|thirdly|plus|as well as)\b|\b(?:first|second|third),|,\s+(?:and\s+)?(?=(?:what|how)\b)",
    re.IGNORECASE,
)


def requests(task: str) -> int:
    """How many requests `task` makes, by its separators (CLAUSE): 1 for "the weather in Oslo", 2 for
    "Find X. Also find Y"."""
    return 1 + len(CLAUSE.findall(task.strip().rstrip(".?!\"'")))


#: Nats added to a value of the task that stands in the same request as the first value the call took from
#: the task, while the task makes several requests; chosen on BFCL's even ids (docs/benchmarks.md).
CLAUSE_BIAS = 2.0


def request_starts(task: str) -> list[int]:
    """The character offsets where each request of `task` starts (CLAUSE's separators), the first
    at 0: [0] for a task of one request."""
    return [0] + [m.end() for m in CLAUSE.finditer(task)]


def request_of(starts: Sequence[int], pos: int) -> int:
    """The index of the request (request_starts) the character `pos` stands in; -1 for a value the task
    does not write (pos < 0)."""
    return bisect.bisect_right(starts, pos) - 1 if pos >= 0 else -1


def clause_bias(starts: Sequence[int], used: Sequence[tuple[int, int]], cands: Sequence[Candidate | None],
                named: int = -1) -> list[float]:  # fmt: skip
    """Nats per option of a call's next argument: CLAUSE_BIAS for a value (`cands`, None for an option that
    is no value of the task) in the request of the first value the call used (`used`: its spans in order),
    or, before it used one, in the request where the task names the call's function (`named`: a character
    offset, naming.named_at; -1: not named); 0 otherwise, and 0 for all where the task makes one
    request."""
    if len(starts) < 2 or not used and named < 0:
        return [0.0] * len(cands)
    home = request_of(starts, used[0][0] if used else named)
    return [CLAUSE_BIAS if c is not None and c.start >= 0 and request_of(starts, c.start) == home else 0.0
            for c in cands]  # fmt: skip


def share_optionals(calls: Sequence[tuple[Any, dict[str, tuple[str, str]]]]) -> None:
    """Give an optional parameter that one call took from the task the same value in the other calls that
    offer it and left it out, where every call that took one took that value ("the Real GDP of California
    in those same years ... with the adjustment set to 'Real'": both GDP calls). `calls`: (target, name ->
    (value source, origin)) as fill/writer.py write_calls returns them (target.offered: the slots);
    changed in place."""
    given: dict[str, set[str]] = {}
    for _t, args in calls:
        for name, (value, origin) in args.items():
            if origin == "task":
                given.setdefault(name, set()).add(value)
    for target, args in calls:
        for slot in target.offered:
            name = slot.param.name
            if slot.param.required or name in args or len(given.get(name, ())) != 1:
                continue
            (value,) = given[name]
            if value in slot.values:
                args[name] = (value, "task")
