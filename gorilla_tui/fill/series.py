"""The series a task enumerates, and how many calls they ask of a function (fill/writer.py reads them).

A series is two or more values of one kind the task writes side by side, joined by a comma, "and", "or"
("Taylor Swift and Maroon 5", "3 and 4, 5 and 12"), each in the same frame of words: a unit after each
("20 minutes and 15 minutes"), words before each ("the factorial of 5, the factorial of 7, and the
factorial of 9", "first 2 years, first 3 years and first 5 years"). A series is read from the task's own
structure, before any model runs.

A function gets one call per group of a series' items: a group is one item, or, for a series written bare
(no frame) of numbers, as many items as the function has required number parameters ("3 and 4, 5 and 12"
for a, b: two calls, (3, 4) and (5, 12); "the GCD of 12 and 18": one). Items of the series go to the calls
by position ("Drama and Comedy ... 2010 and 2012 respectively": (Drama, 2010), (Comedy, 2012)); series
that ask for different numbers of calls combine as every combination ("'Open', 'Close', 'High', and 'Low'
... for Microsoft and Apple": eight calls). A series a list parameter takes whole ("multiples of 3 and 5",
"vegan and gluten-free") asks for no calls.
"""

from __future__ import annotations

import dataclasses
import math
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gorilla_tui.fill.call_grammar import Slot, TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.spoken import name_parts

#: What joins two items: a comma, "and", "or", "&" (with an Oxford comma); strings may have an article after.
_JOIN = r"(?:\s*,\s*(?:and|or)\s+|\s*,\s+|\s+(?:and|or|&)\s+)"
_STRING_JOIN = _JOIN + r"(?:(?:the|a|an)\s+)?"
#: The gap between two numbers of a series: up to 2 words of unit after the first, the join, up to 3 words
#: (and a currency sign) before the second ("minutes and ", "years, first ", ", the factorial of ").
_NUMBER_GAP = re.compile(
    r"(?P<unit>(?:\s*[^\W\d_]+){0,2}?)" + _JOIN + r"(?P<pre>(?:[^\W\d_]+\s+){0,3}[$€£]?)", re.IGNORECASE
)
#: A series after these words is a range, not a series ("between 1 and 1000", "between New York City and
#: Los Angeles"); a two-item one after "from" too.
_RANGE = re.compile(r"\b(?:between|range)\s*[$€£]?$", re.IGNORECASE)
_FROM = re.compile(r"\bfrom\s*[$€£]?$", re.IGNORECASE)


@dataclass(frozen=True)
class Series:
    """Values the task enumerates. items: each item's span in the task (character offsets), in order;
    kind: "number" or "string"; framed: each item stands in the same words (a unit, words before it), so
    each is one value of one parameter; rivals: the spans of other numbers of the task with the series'
    unit ("I plan to keep my money in the bank for 10 years ... for the first 2 years, first 3 years and
    first 5 years": 10), which the calls of the series do not take; outside: how many numbers of the task
    are in no series and no rival (values the calls share: "$5000 ... 2.5%"); texts: each item as written,
    without quotes."""

    items: tuple[tuple[int, int], ...]
    kind: str
    framed: bool = False
    rivals: tuple[tuple[int, int], ...] = ()
    outside: int = 0
    texts: tuple[str, ...] = ()

    def item_of(self, c: Candidate) -> int:
        """Index of the item `c`'s span overlaps, or that the task writes again where `c` stands ("the
        weight of Neutron and Proton ... the diameter of a Proton and Neutron"; a name, not a number: "the
        multiples of 3 and 5 ... the first five primes" takes no item), or -1 (a declared value, or one
        outside the series)."""
        if c.start < 0:
            return -1
        j = next((j for j, (s, e) in enumerate(self.items) if s < c.end and c.start < e), -1)
        if j < 0 and c.kind != "number" and str(c.value) in self.texts:
            j = self.texts.index(str(c.value))
        return j

    def rival(self, c: Candidate) -> bool:
        """True when `c` is a number of the task with the series' unit outside it (Series.rivals)."""
        return c.start >= 0 and (c.start, c.end) in self.rivals


def series(values: TaskValues) -> list[Series]:
    """The series of numbers and of strings `values.text` writes, in task order (module doc); a series of
    strings over a series of numbers ("20 minutes and 15 minutes") is the numbers'."""
    nums = _number_series(values)
    spans = [span for n in nums for span in n.items]
    every = {(c.start, c.end) for c in values.numbers if c.start >= 0}
    nums = [dataclasses.replace(n, outside=len(every - set(spans) - set(n.rivals))) for n in nums]
    strs = [s for s in _string_series(values)
            if not any(a[0] < b[1] and b[0] < a[1] for a in s.items for b in spans)]  # fmt: skip
    strs = [s for s in strs if not _RANGE.search(values.text[: s.items[0][0]].rstrip())]
    return sorted(nums + strs, key=lambda s: s.items[0])


def _number_series(values: TaskValues) -> list[Series]:
    task = values.text
    written = [(c.start, c.end) for c in values.lists if task[c.start : c.start + 1] in "[("]
    nums = sorted({(c.start, c.end) for c in values.numbers
                   if c.start >= 0 and not any(s <= c.start < e for s, e in written)})  # fmt: skip
    out: list[Series] = []
    run: list[tuple[int, int]] = []
    framed, unit = False, ""
    for span in [*nums, None]:
        if span is not None and run:
            m = _NUMBER_GAP.fullmatch(task[run[-1][1] : span[0]])
            if m and _framed(task, run[-1], span, m.group("unit"), m.group("pre")):
                framed = framed or bool(m.group("unit").strip() or m.group("pre").strip())
                unit = unit or " ".join(m.group("unit").split()).lower()
                run.append(span)
                continue
        before = task[: run[0][0]].rstrip() if run else ""
        if len(run) >= 2 and not _RANGE.search(before) and not (len(run) == 2 and _FROM.search(before)):
            rivals = tuple(n for n in nums if unit and n not in run and _unit_after(task, n, unit))
            texts = tuple(task[a:b] for a, b in run)
            out.append(Series(tuple(run), "number", framed, rivals, texts=texts))
        run, framed, unit = ([span] if span is not None else []), False, ""
    return out


def _unit_after(task: str, span: tuple[int, int], unit: str) -> bool:
    """True when `unit` (words, lower case) follows the number at `span`."""
    words = r"\s+".join(re.escape(w) for w in unit.split())
    return re.match(rf"\s*{words}\b", task[span[1] :], re.IGNORECASE) is not None


def _framed(task: str, a: tuple[int, int], b: tuple[int, int], unit: str, pre: str) -> bool:
    """True when the unit after item `a` also follows `b`, and the words before `b` also stand before `a`."""
    unit, pre = " ".join(unit.split()).lower(), " ".join(pre.split()).lower()
    after_b = " ".join(task[b[1] :].split()).lower()
    before_a = " ".join(task[: a[0]].split()).lower()
    return (not unit or after_b.startswith(unit)) and (not pre or before_a.endswith(pre))


def _string_series(values: TaskValues) -> list[Series]:
    """Runs of strings joined item to item: the item after a join is the longest string the task writes
    from there; the one before it, the longest ending there of no more words (a middle item: a string
    spanning the whole gap between two joins)."""
    task = values.text
    strings = [
        c
        for c in values.strings
        if c.kind == "string"
        and c.start >= 0
        and not c.value[:1].isdigit()
        and not re.search(r"[,.;]", c.value)
    ]
    ending: dict[int, list[Candidate]] = {}
    starting: dict[int, list[Candidate]] = {}
    for c in strings:
        ending.setdefault(c.end, []).append(c)
        starting.setdefault(c.start, []).append(c)
    pairs: list[tuple[tuple[int, int], tuple[int, int], bool]] = []
    for m in re.finditer(_STRING_JOIN, task, re.IGNORECASE):
        after, before = starting.get(m.end(), []), ending.get(m.start(), [])
        if not after or not before:
            continue
        first, then = _pair(before, after)
        if (
            first is not None
            and then is not None
            and first.atomic == then.atomic
            and not any(_digits(c, values.numbers) for c in (first, then))
        ):
            pairs.append(((first.start, first.end), (then.start, then.end), "," not in m.group()
                          or bool(re.search(r"\b(?:and|or)\b", m.group()))))  # fmt: skip
    out: list[Series] = []
    run: list[tuple[int, int]] = []
    joined = False  # the run's last join is "and", "or": a bare comma between clauses joins no series
    for pair in [*pairs, None]:
        if pair is not None and run and run[-1][0] <= pair[0][0] < run[-1][1]:  # the same middle item
            run[-1] = (run[-1][0], pair[0][1])
            run.append(pair[1])
            joined = pair[2]
            continue
        if len(run) >= 2 and joined:
            out.append(Series(tuple(run), "string", texts=tuple(task[a:b].strip("'\"`“”‘’") for a, b in run)))
        run, joined = ([pair[0], pair[1]], pair[2]) if pair is not None else ([], False)
    return out


def _pair(before: list[Candidate], after: list[Candidate]) -> tuple[Candidate | None, Candidate | None]:
    """The two items beside a join: names (words in capitals, "of", "the" inside) or strings the task
    writes whole (quoted), the longest on either side ("Amazon Rainforest and the Boreal Forests of Canada",
    "Microsoft and Apple over the past"); (None, None) for other words: common nouns the task joins are
    mostly one value's parts ("wind speed and temperature", "Thai food and vegan menu")."""
    names_before = [c for c in before if _name(c.value) or c.atomic]
    names_after = [c for c in after if _name(c.value) or c.atomic]
    if names_before and names_after:
        return max(names_before, key=_words), max(names_after, key=_words)
    return None, None


def _digits(c: Candidate, numbers: Sequence[Candidate]) -> bool:
    """True for a string over a number of the task that is no name ("radius of 15m"; "Maroon 5" is one)."""
    return not _name(c.value) and any(n.start < c.end and c.start < n.end for n in numbers)


def _name(text: str) -> bool:
    words = text.split()
    return bool(words) and words[0][:1].isupper() and all(
        w[:1].isupper() or w[:1].isdigit() or w in ("of", "the") for w in words)  # fmt: skip


def _words(c: Candidate) -> int:
    return len(c.value.split())


def _numeric(slot: Slot) -> bool:
    return slot.param.type in ("integer", "number")


def group_size(s: Series, offered: Sequence[Slot]) -> int:
    """How many items of `s` one call takes: for strings, the function's required string parameters that
    share a word of their names ("two cities, New York and Los Angeles" for start_city, end_city: one call;
    team1, team2), else 1; for numbers, the function's required number
    parameters that the numbers outside every series (Series.outside) leave without a value ("6cm and
    10cm" for base and height: one call; "$5000 ... 2.5% ... first 2 years, first 3 years and first 5 years"
    for principal, rate, time: three calls), at least 1."""
    if s.kind == "string":
        parts = [{p[:4] for p in name_parts(re.sub(r"\d", "", sl.param.name))} for sl in offered
                 if sl.param.required and sl.param.type == "string"]  # fmt: skip
        return max((sum(1 for q in parts if w in q) for p in parts for w in p), default=1)
    return max(1, sum(1 for sl in offered if sl.param.required and _numeric(sl)) - s.outside)


def takes(s: Series, offered: Sequence[Slot]) -> bool:
    """True when a parameter of `offered` that is no list takes a value of the series' first item, and no
    list parameter takes the series whole (a list the task writes, "3 and 5", or items of its kind)."""

    def in_item(slot: Slot) -> bool:
        return any(s.item_of(c) == 0 for c in slot.values.values())

    for slot in offered:
        first, last = s.items[0][0], s.items[-1][1]
        if slot.param.type == "array" and any(c.kind == "list" and c.start <= first and c.end >= last
                                              for c in slot.values.values()):  # fmt: skip
            return False
        if slot.is_list and in_item(slot):
            return False
    return any(sl.param.type != "array" and in_item(sl) for sl in offered)


@dataclass
class Progress:
    """What a function's calls so far did with its Plan's series: params: series index -> the parameter
    that took its items; taken: series index -> the groups calls took; calls: how many calls were made."""

    params: dict[int, str] = field(default_factory=dict)
    taken: dict[int, set[int]] = field(default_factory=dict)
    calls: int = 0


@dataclass(frozen=True)
class Plan:
    """The calls a function's series ask for: each series with its group size and call count, and calls:
    how many calls in all (1 when no series asks for more). by_use: the series count for the function only
    once a call of it took an item of theirs (a task of several functions: "the sum of the multiples of 3
    and 5 ... Also the product of the first five primes" asks product_of_primes for no two calls)."""

    parts: tuple[tuple[Series, int, int], ...] = ()
    calls: int = 1
    by_use: bool = False

    def _active(self, k: int, done: Progress) -> bool:
        return not self.by_use or k in done.taken

    def wanted(self, done: Progress) -> int:
        """How many calls the function's series ask for, as its calls so far (`done`) stand."""
        if not self.by_use:
            return self.calls
        return math.prod({n for k, (_s, _g, n) in enumerate(self.parts) if k in done.taken})

    def group(self, k: int, done: Progress) -> int:
        """The group of series `k` the next call takes: the first no call took yet where the series ask for
        the same number of calls (aligned), the call's place among every combination where they differ."""
        counts = sorted({n for _s, _g, n in self.parts})
        n = self.parts[k][2]
        if len(counts) == 1:
            return min(set(range(n)) - done.taken.get(k, set()), default=0)
        stride = math.prod(counts[: counts.index(n)])
        return (done.calls // stride) % n

    def more(self, done: Progress) -> int:
        """+1 for another call of the function while its series ask for more calls, -1 for one beyond
        them, 0 for a plan of no series or a function not called yet (fill/writer.py PLAN_CALL_BIAS)."""
        if not self.parts or not done.calls:
            return 0
        return 1 if done.calls < self.wanted(done) else -1

    def favours(self, c: Candidate, param: str, done: Progress) -> int:
        """+1 when `c` is an item of a series of the plan that the next call takes (Plan.group), offered to
        the parameter an earlier call gave that series' item (Progress.params); -1 when it is another item
        of a series; 0 otherwise (a value of no series, or the right item for another parameter: "$5000 ...
        first 2 years, first 3 years": 2 is no principal)."""
        for k, (s, group, _n) in enumerate(self.parts):
            if not self._active(k, done):
                continue
            j = s.item_of(c)
            if j >= 0:
                if j // group != self.group(k, done):
                    return -1
                return 1 if done.params.get(k) == param else 0
            if s.rival(c):
                return -1
        return 0

    def shares(self, c: Candidate, param: str, done: Progress) -> bool:
        """True when `c`, a value an earlier call used, is one the next call of the plan may use again: a
        value the task marks (a number, a list, a string it writes whole) of no series, while the series ask
        for more calls ("$5000 ... 2.5% ... first 2 years, first 3 years": each call's principal and rate),
        or the item of a series the next call takes (every combination: "'Open', 'Close', 'High', and
        'Low' ... for Microsoft and Apple": Microsoft in four calls)."""
        if self.favours(c, param, done) > 0:
            return True
        marked = c.kind in ("number", "list") or c.atomic  # a run of words is shared by no call ("ATP")
        return (
            marked
            and 0 < done.calls < self.wanted(done)
            and all(s.item_of(c) < 0 for s, _g, _n in self.parts)
        )

    def record(self, spans: dict[str, Candidate], done: Progress) -> None:
        """Add one call's values (`spans`: parameter -> Candidate of the task) to `done`."""
        for k, (s, group, _n) in enumerate(self.parts):
            for name, c in spans.items():
                if (j := s.item_of(c)) >= 0:
                    done.params.setdefault(k, name)
                    done.taken.setdefault(k, set()).add(j // group)
        done.calls += 1


def plan(all_series: Sequence[Series], offered: Sequence[Slot], by_use: bool = False) -> Plan:
    """The Plan of a function (its offered slots) for a task's series: the series it takes (takes) whose
    items split evenly into two or more groups (group_size); `by_use`: Plan.by_use (the task's calls may go
    to several functions)."""
    parts = []
    for s in all_series:
        group = group_size(s, offered)
        if takes(s, offered) and len(s.items) % group == 0 and len(s.items) // group >= 2:
            parts.append((s, group, len(s.items) // group))
    if not parts:
        return Plan()
    return Plan(tuple(parts), math.prod(sorted({n for _s, _g, n in parts})), by_use)
