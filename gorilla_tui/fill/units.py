"""A number's unit names the parameter it goes to: "give up after 5 seconds" is a timeout, "to 2 decimal
places" is ndigits, "no line longer than 72 characters" is a width.

The task names such an optional parameter by the unit of its value, not by the parameter's own name
(``urlopen(url, timeout=5)``, ``round(3.14159, 2)``, ``textwrap.wrap(text, width=72)``): without this, an
optional parameter the task does not name keeps its default (fill/call_grammar.py slots) and the value is
lost. A unit is the word or two right after the number; UNIT_PARAMS says which parameter names take it. The
value stays the task's own number (a unit is never converted: "5 minutes" names no timeout in seconds).
"""

from __future__ import annotations

import re
from collections.abc import Sequence

from gorilla_tui.fill.values import Candidate

#: (unit words right after a number, the parameter names or name parts that take a number of that unit):
#: seconds (Python's timeouts and delays are in seconds), decimal places or digits (a precision), characters
#: or columns (a width), years (a duration: "for the first 2 years" is the time of compound interest).
UNIT_PARAMS: tuple[tuple[re.Pattern[str], frozenset[str]], ...] = (
    (re.compile(r"s|secs?|seconds?", re.IGNORECASE),
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
