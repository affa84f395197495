"""A number's unit names the parameter it goes to: "give up after 5 seconds" is a timeout, "to 2 decimal
places" is ndigits, "no line longer than 72 characters" is a width.

The task names such an optional parameter by the unit of its value, not by the parameter's own name
(``urlopen(url, timeout=5)``, ``round(3.14159, 2)``, ``textwrap.wrap(text, width=72)``): without this, an
optional parameter the task does not name keeps its default (fill/call_grammar.py slots) and the value is
lost. A unit is the word or two right after the number; UNIT_PARAMS says which parameter names take it. A
number of another unit stays the task's own, but for a parameter that takes seconds (takes_seconds: Python's
timeouts and delays, a parameter documented "in seconds"), a time is converted to seconds: "wait 2 minutes"
is ``time.sleep(120)``, "pause for 250ms" ``time.sleep(0.25)`` (in_seconds; BFCL's simple_python_293 asks
for "a duration of 3 minutes" as track_length 180, "Length of the mix track in seconds").
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gorilla_tui.fill.candidate import Candidate

#: (unit words right after a number, the parameter names or name parts that take a number of that unit):
#: a time (Python's timeouts and delays are in seconds; in_seconds converts), decimal places or digits (a
#: precision), characters or columns (a width), years (a duration: "for the first 2 years" is the time of
#: compound interest).
UNIT_PARAMS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"s|secs?|seconds?|ms|msecs?|millisec(?:ond)?s?|mins?|minutes?|hrs?|hours?", re.IGNORECASE),
     frozenset({"timeout", "secs", "seconds", "delay", "interval", "wait"})),
    (re.compile(r"(?:decimal\s+)?(?:places?|digits?)|decimals?|dp", re.IGNORECASE),
     frozenset({"ndigits", "digits", "precision", "places", "decimals"})),
    (re.compile(r"char(?:acter)?s?|columns?|cols", re.IGNORECASE), frozenset({"width", "columns", "cols"})),
    (re.compile(r"years?|yrs?", re.IGNORECASE), frozenset({"years", "time", "duration", "period", "term"})),
)  # fmt: skip
#: Nats added to a number whose unit names the parameter ("after 5 seconds": timeout), and taken from one
#: whose unit names another offered parameter: the words say where it goes, as ROLE_BIAS (fill/roles.py);
#: fill/writer.py adds it.
UNIT_BIAS = 6.0
_UNIT = re.compile(r"\s?([A-Za-z]+)(?:\s+([A-Za-z]+))?")


def _name_words(name: str) -> set[str]:
    """The name and its snake_case / camelCase parts, lower case (``read_timeout``: read_timeout, read,
    timeout)."""
    parts = [p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", name) if p]
    return {name.lower(), *parts}


def unit_of(c: Candidate, task: str) -> frozenset[str]:
    """The parameter names the unit of number `c` takes (UNIT_PARAMS; the word or two right after it in
    `task`), empty for a value that is no number of the task or has no such unit."""
    if c.kind != "number" or c.start < 0 or not task:
        return frozenset()
    m = _UNIT.match(task, c.end)
    if m is None:
        return frozenset()
    words = [m.group(1)] + ([f"{m.group(1)} {m.group(2)}"] if m.group(2) else [])
    for unit, names in UNIT_PARAMS:
        if any(unit.fullmatch(w) for w in words):
            return names
    return frozenset()


def unit_names(name: str, c: Candidate, task: str) -> bool:
    """True when the unit of number `c` (unit_of) names the parameter `name` ("5 seconds": timeout)."""
    return bool(unit_of(c, task) & _name_words(name))


def named_by_unit(name: str, numbers: Sequence[Candidate], task: str) -> bool:
    """True when a number of the task (`numbers`, fill/values.py numbers) has a unit that names the
    parameter `name`: the task asks for it, though not by its name (fill/call_grammar.py slots offers it)."""
    return any(unit_names(name, c, task) for c in numbers)


#: What a number's unit measures, and the parameter name words that take that measure: a length is no
#: weight ("the base is 10 meters" gives determine_body_mass_index no weight), a mass no height. Of the 227
#: numbers of BFCL's answers to such parameters that the question writes with a unit, none has the other's.
MEASURES: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"m|meters?|metres?|cm|centimeters?|mm|km|kilometers?|ft|feet|foot|inch(?:es)?|miles?|yards?",
                re.IGNORECASE),
     frozenset({"height", "length", "distance", "width", "radius", "depth", "altitude"})),
    (re.compile(r"kg|kilograms?|g|grams?|lbs?|pounds?|oz|ounces?|tons?", re.IGNORECASE),
     frozenset({"weight", "mass"})),
)  # fmt: skip


def measures_other(name: str, c: Candidate, task: str) -> bool:
    """True when number `c` has a unit (the word right after it) that measures another thing than the
    parameter `name` names (MEASURES): "10 meters" for weight, "70 kg" for height."""
    if c.kind != "number" or c.start < 0 or not task:
        return False
    m = _UNIT.match(task, c.end)
    words = _name_words(name)
    return m is not None and any(
        unit.fullmatch(m.group(1))
        and not names & words
        and any(n & words for _u, n in MEASURES if n is not names)
        for unit, names in MEASURES
    )


def unit_bias(names: Sequence[str], k: int, c: Candidate, task: str) -> float:
    """UNIT_BIAS for a number whose unit names parameter `names[k]`, -UNIT_BIAS for one whose unit names
    another of the offered parameters `names` ("wrap ... notes.txt ... 72 characters": 72 is the width,
    not the text), else 0."""
    if unit_names(names[k], c, task):
        return UNIT_BIAS
    if any(unit_names(name, c, task) for j, name in enumerate(names) if j != k):
        return -UNIT_BIAS
    return 0.0


#: Seconds in one of each time unit a task writes after a number (the word right after it).
TIME_UNITS: tuple[tuple[re.Pattern[str], float], ...] = (
    (re.compile(r"ms|msecs?|millisec(?:ond)?s?", re.IGNORECASE), 0.001),
    (re.compile(r"s|secs?|seconds?", re.IGNORECASE), 1),
    (re.compile(r"mins?|minutes?", re.IGNORECASE), 60),
    (re.compile(r"h|hrs?|hours?", re.IGNORECASE), 3600),
    (re.compile(r"days?", re.IGNORECASE), 86400),
)
#: Names (or their parts) of Python parameters that take seconds when their doc says no unit.
SECONDS_NAMES = frozenset({"seconds", "secs", "sec", "timeout", "delay", "interval"})
_IN_SECONDS = re.compile(r"\bseconds\b|\bin\s+secs?\b|\(s\)", re.IGNORECASE)
_OTHER_TIME = re.compile(r"\b(?:milli\w*|minutes?|hours?|days?|ms)\b", re.IGNORECASE)


def takes_seconds(name: str, description: str) -> bool:
    """True for a parameter that takes a time in seconds: its description says seconds ("Length of the mix
    track in seconds") and no other time unit, or it says no time unit and its name is one of Python's
    (SECONDS_NAMES: time.sleep's secs, a timeout, a delay)."""
    if _OTHER_TIME.search(description):
        return False
    return bool(_IN_SECONDS.search(description)) or bool(_name_words(name) & SECONDS_NAMES)


def in_seconds(numbers: Sequence[Candidate], task: str) -> list[Candidate]:
    """`numbers` with each one the task writes with a time unit (TIME_UNITS, the word right after it) as
    that time in seconds, on the same span ("2 minutes" -> 120, "250ms" -> 0.25, "1.5 hours" -> 5400; an
    integer where the seconds are whole); a number with no time unit, or with seconds, as it is."""
    out = []
    for c in numbers:
        m = _UNIT.match(task, c.end) if c.kind == "number" and c.start >= 0 and not c.percent else None
        factor = next((f for unit, f in TIME_UNITS if m is not None and unit.fullmatch(m.group(1))), 1)
        if factor == 1 or isinstance(c.value, bool):
            out.append(c)
            continue
        try:
            value = c.value * factor  # an int times a whole factor stays an int, however long
            if isinstance(value, float):
                value = round(value, 9)
                value = int(value) if value.is_integer() else value
        except OverflowError:  # an integer beyond float's range times a fraction ("250 ms"): kept as written
            out.append(c)
            continue
        out.append(dataclasses.replace(c, text=repr(value), value=value))
    return out
