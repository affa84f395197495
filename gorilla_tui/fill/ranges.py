"""A range of whole numbers the task bounds in words, as the sequence a sampling function draws from.

"pick 3 random numbers between 1 and 100" was ``random.randint(1, 100)``, or ``random.sample([1, 100], 3)``:
the two bounds read as a list of two numbers (fill/values.py lists joins "1 and 100"), so 3 numbers were
drawn from two (break-it round 31, finding 14). "between A and B" and "from A to B" bound a range: for the
sequence parameter of the standard library's functions that draw from one (`DRAWN_FROM`), the task's
bounds are ``range(A, B + 1)``, B included as "between 1 and 100" and ``random.randint(1, 100)`` include it
(Python's documentation of random.randint: "Return a random integer N such that a <= N <= b").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gorilla_tui.fill.call_grammar import Slot
from gorilla_tui.fill.candidate import Candidate

#: Parameters that take the sequence drawn from, by function (typeshed: ``population: Sequence[_T]``,
#: ``seq: SupportsLenAndGetItem[_T]``).
DRAWN_FROM = {
    "random.sample": "population",
    "random.choices": "population",
    "random.choice": "seq",
    "random.Random.sample": "population",
    "random.Random.choices": "population",
    "random.Random.choice": "seq",
}
#: Two whole numbers that bound a range: "between 1 and 100", "from 10 to 50".
_BOUNDS = re.compile(r"\b(?:between\s+(-?\d+)\s+and|from\s+(-?\d+)\s+(?:to|through|up\s+to))\s+(-?\d+)\b")


def with_ranges(callee: str, offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where the sequence parameter of a function that draws from one (DRAWN_FROM) takes the
    range the task bounds (``range(1, 101)`` for "between 1 and 100") in place of the values read over the
    bounds' span (the list [1, 100], each bound: no other parameter takes them, a slot left with none is
    dropped unless required); `offered` itself for another function, or a task that bounds no range or
    bounds it downwards."""
    name = DRAWN_FROM.get(callee)
    m = _BOUNDS.search(task)
    if name is None or m is None:
        return list(offered)
    low, high = int(m.group(1) or m.group(2)), int(m.group(3))
    if high <= low:
        return list(offered)
    start, end = m.span()
    made = f"range({low}, {high + 1})"
    out = []
    for slot in offered:
        values = {k: c for k, c in slot.values.items() if not (start <= c.start and c.end <= end)}
        if slot.param.name == name:
            values = {made: Candidate(made, made, "list", start, end, True)}  # the text: a range may be vast
        if values or slot.param.required:
            out.append(dataclasses.replace(slot, values=values))
    return out
