"""Which of the offered functions a task names by the words of their own names (fill/writer.py reads it):
the functions a task speaks of, the one it names first (the first call's), and the one it names next after
the values the calls so far used (a further call's).

A function's own words are the words of its dotted name (snake_case or camelCase, first 4 letters,
spoken.name_parts) that no other offered function's name has: "median" of statistics.median beside
statistics.mode; "hourly_forecast" shared by two names names neither.
"""

from __future__ import annotations

import os
import re
from collections.abc import Callable, Sequence
from typing import Protocol, TypeVar

from gorilla_tui.fill.requests import requests
from gorilla_tui.fill.spoken import name_parts


class Named(Protocol):
    """What naming reads of a function: its callee (fill/writer.py Target)."""

    callee: str


T = TypeVar("T", bound=Named)


def own_words(targets: Sequence[Named]) -> dict[str, set[str]]:
    """callee -> the words of its name (first 4 letters) no other target's name has."""
    names = {t.callee: {p[:4] for p in name_parts(re.sub(r"\W", "_", t.callee))} for t in targets}
    return {c: parts - set().union(*(p for c2, p in names.items() if c2 != c)) for c, parts in names.items()}


def mentioned_functions(targets: Sequence[Named], task: str) -> set[str]:
    """Callees of `targets` a word of whose name no other target's name has starts a word of the task
    ("the median ... also the mode": statistics.mode beside statistics.median)."""
    words = {w.lower()[:4] for w in re.findall(r"[A-Za-z]+", task)}
    return {callee for callee, own in own_words(targets).items() if own & words}


def named_after(uncalled: Sequence[Named], offered: Sequence[Named], task: str, end: int) -> str:
    """The callee of `uncalled` (functions not called yet) one of whose own words among `offered`
    (own_words) the task speaks of first after character `end` (where the values the calls so far used
    end), or "" when none is, or only one function is offered: "... compounded quarterly for 7 years.
    Secondly, ... any lawsuits filed against them": lawsuits_search, not compound_interest again."""
    if len(offered) < 2 or not uncalled:
        return ""
    callees = {t.callee for t in uncalled}
    own = {c: w for c, w in own_words(offered).items() if c in callees}
    for m in re.finditer(r"[A-Za-z]+", task[max(end, 0) :]):
        hit = [c for c, words in own.items() if m.group().lower()[:4] in words]
        if len(hit) == 1:
            return hit[0]
    return ""


def named_at(callee: str, offered: Sequence[Named], task: str, end: int, strict: bool = False) -> int:
    """Where the task first speaks of `callee` by one of its own words among `offered` (own_words) after
    character `end` (where the values the calls so far used end): a character offset, or -1 ("who
    discovered the Higgs Boson ...? Also, I am a 180 lbs ...": get_discoverer's request is the first).
    `strict`: a task word and a word of the name must share all but their last 2 letters at least (_alike:
    "parties" and "party", not "company" and "compound")."""
    own = own_words(offered).get(callee, set())
    full = {p.lower() for p in name_parts(re.sub(r"\W", "_", callee)) if p.lower()[:4] in own}
    for m in re.finditer(r"[A-Za-z]+", task[max(end, 0) :]):
        word = m.group().lower()
        if word[:4] in own and (not strict or any(_alike(word, p) for p in full)):
            return max(end, 0) + m.start()
    return -1


def _alike(a: str, b: str) -> bool:
    """True when `a` and `b` share a prefix of 4 letters or more, 2 letters short of the shorter at most."""
    n = len(os.path.commonprefix([a, b]))
    return n >= 4 and n >= min(len(a), len(b)) - 2


def named_again(fresh: Sequence[T], called: set[str], task: str, end: int, starts: Sequence[int],
                new_values: Callable[[T, int, int], bool]) -> tuple[str, int]:  # fmt: skip
    """(callee, where it is named) of a called function of `fresh` that the task names again (named_at,
    strict, after character `end`, where the calls' values so far end) beside values it takes that no call
    used yet: new_values(target, lo, hi) says whether such values stand between characters lo and hi,
    before the name (from `end`) or after it in its request (`starts`: where each request starts,
    fill/requests.py). "a lightness level of 70%. Later, you have another substance with a mass of 5
    kilograms and a volume of 1 cubic meter. You want to calculate the density": calculate_density again;
    "... and then provide the stock forecast for Microsoft Corporation for the next 45 days": stock_forecast
    again. ("", -1) when none is: a name right after a call's own values ("a hand size of 5. What is the
    probability ...?") has no new value beside it."""
    found = []
    for t in fresh:
        at = named_at(t.callee, fresh, task, end, strict=True) if t.callee in called else -1
        stop = next((s for s in starts if s > at), len(task))
        if at >= 0 and (new_values(t, end, at) or new_values(t, at, stop)):
            found.append((at, t.callee))
    return (min(found)[1], min(found)[0]) if found else ("", -1)


def first_named(targets: Sequence[T], task: str) -> list[T]:
    """`targets` with the one whose own name's words the task speaks of first (own_words) put first,
    where the task makes several requests (requests.requests): "the capital of Australia, the population of
    Canada": country_info.capital writes the first call. Unchanged otherwise."""
    if requests(task) < 2:
        return list(targets)
    words = [(m.start(), m.group().lower()[:4]) for m in re.finditer(r"[A-Za-z]+", task)]
    own = own_words(targets)
    first = {
        callee: min((s for s, w in words if w in parts), default=1 << 30) for callee, parts in own.items()
    }
    lead = min(targets, key=lambda t: first[t.callee])
    if first[lead.callee] >= 1 << 30 or first[lead.callee] >= first[targets[0].callee]:
        return list(targets)
    return [lead, *(t for t in targets if t is not lead)]
