"""Formats a task says in words or in a person's pattern, written as the format strings Python reads:

- `human_date_format`: a date pattern as people write it ("DD/MM/YYYY", "YYYY-MM-DD HH:mm") as strftime's
  directives ('%d/%m/%Y'; the C standard's strftime, which Python's datetime docs list);
- `spoken_spec`: a number's format in words ("with thousands separators", "to 2 decimal places", "as a
  percentage") as a format specification (',', '.2f', '%'; the Format Specification Mini-Language);
- `with_format_strings`: both offered to the format parameter of strftime/strptime and of ``format``, in
  place of the task's words (break-it round 32: ``format(1234567.891, 'thousands')``, a ValueError, and
  ``strftime('DD/MM/YYYY')``, which prints the letters).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence

from gorilla_tui.fill.call_grammar import Slot
from gorilla_tui.fill.candidate import Candidate, literal
from gorilla_tui.pool.params import Param

#: A person's date or time pattern: two or more of its fields joined by one separator each ("DD/MM/YYYY",
#: "YYYY-MM-DD", "HH:mm:ss", "DD.MM.YY"), written in capitals as people write them (mm: minutes).
_FIELD = r"(?:YYYY|YY|MMMM|MMM|MM|DD|HH|hh|mm|SS|ss)"
HUMAN_DATE = re.compile(rf"(?<![\w%]){_FIELD}(?:[-/.: ,]{{1,2}}{_FIELD}){{1,6}}(?![\w])")
_DIRECTIVES = {"YYYY": "%Y", "YY": "%y", "MMMM": "%B", "MMM": "%b", "DD": "%d", "HH": "%H", "hh": "%I"}
_DIRECTIVES |= {"SS": "%S", "ss": "%S", "mm": "%M"}


def human_date_format(pattern: str) -> str:
    """The strftime format of a person's date pattern (HUMAN_DATE): "DD/MM/YYYY" -> '%d/%m/%Y'; "MM" is the
    month, but the minutes right after an hour ("HH:MM" -> '%H:%M')."""
    out, last = [], ""
    for field, sep in re.findall(rf"({_FIELD})([^A-Za-z]*)", pattern):
        if field == "MM":
            directive = "%M" if last in ("HH", "hh") else "%m"
        else:
            directive = _DIRECTIVES[field]
        out.append(directive + sep)
        last = field
    return "".join(out)


#: Words that say a number's format, each the part of a format specification it gives.
_GROUPING = re.compile(r"\bthousands?\b|\b(?:digit\s+)?group(?:ing|ed)?\b|\bcomma[- ]separated\b", re.I)
_PLACES = re.compile(
    r"\b(\d{1,2})\s+(?:decimal\s+places?|decimals?|digits?\s+after\s+the\s+(?:decimal\s+)?point)\b", re.I
)
_TYPES = (
    (re.compile(r"\bpercent(?:age)?\b", re.I), "%"),
    (re.compile(r"\bscientific\b|\bexponent", re.I), "e"),
    (re.compile(r"\bhex(?:adecimal)?\b", re.I), "x"),
    (re.compile(r"\bbinary\b", re.I), "b"),
    (re.compile(r"\boctal\b", re.I), "o"),
)


def spoken_spec(task: str) -> str:
    """The format specification `task` says in words, or "" where it says none: grouping by thousands ',',
    a count of decimal places '.N' (fixed point 'f' unless another type is said), a percentage '%',
    scientific 'e', hex 'x', binary 'b', octal 'o' ("with thousands separators and 2 decimal places":
    ',.2f')."""
    grouping = "," if _GROUPING.search(task) else ""
    places = _PLACES.search(task)
    kind = next((t for rx, t in _TYPES if rx.search(task)), "")
    if kind in "xbo" and kind and places:
        return ""  # "2 decimal places in hex" is no format
    precision = f".{places.group(1)}" if places else ""
    kind = kind or ("f" if places else "")
    return grouping + precision + kind if grouping + precision + kind else ""


#: A format specification of the Mini-Language with a width and precision of at most 3 digits (a value of the
#: task such as '1234567.891' reads as width 1234567: no spec of a person's).
_SPEC = re.compile(r"(?:.?[<>=^])?[-+ ]?z?#?0?\d{0,3}[,_]?(?:\.\d{1,3})?[bcdeEfFgGnosxX%]?")


def _is_spec(text: object) -> bool:
    """Whether `text` is a format specification a number takes (_SPEC), not empty."""
    return isinstance(text, str) and not text.isdigit() and bool(_SPEC.fullmatch(text))


def with_format_strings(
    callee: str, offered: Sequence[Slot], params: Sequence[Param], task: str
) -> list[Slot]:
    """`offered` where the format parameter of a strftime or strptime function takes the strftime format of
    each person's date pattern the task writes (human_date_format: its span, so the pattern counts as used),
    which no other parameter takes, and ``format``'s format_spec (of `params`) the specification the task
    says in words (spoken_spec), asked for, or else only values that are specifications: a word of the task
    is none ('thousands'). `offered` itself otherwise."""
    if callee.endswith(("strftime", "strptime")):
        found = [(m, human_date_format(m.group())) for m in HUMAN_DATE.finditer(task)]
        if not found:
            return list(offered)
        values = {literal(f): Candidate(literal(f), f, "string", m.start(), m.end(), True) for m, f in found}
        spans = [m.span() for m, _f in found]
        return [
            dataclasses.replace(s, values=values)
            if s.param.name in ("format", "fmt")
            else dataclasses.replace(
                s, values={k: c for k, c in s.values.items() if (c.start, c.end) not in spans}
            )
            for s in offered
        ]
    if callee != "format":
        return list(offered)
    spec = spoken_spec(task)
    param = next((p for p in params if p.name == "format_spec"), None)
    if (
        spec
        and param is not None
        and not any(s.param is param or s.param.name == param.name for s in offered)
    ):
        offered = [*offered, Slot(dataclasses.replace(param, required=True), {})]
    places = _PLACES.search(task) if spec else None
    if places is not None:  # "with 1 decimal place": the 1 is the spec's, no value to format
        start = places.start(1)
        offered = [dataclasses.replace(s, values={k: c for k, c in s.values.items() if c.start != start})
                   for s in offered]  # fmt: skip
    out = []
    for slot in offered:
        if slot.param.name == "format_spec":
            values = {k: c for k, c in slot.values.items() if c.kind != "number" and _is_spec(c.value)}
            if spec:
                values = {literal(spec): Candidate(literal(spec), spec, "string", atomic=True)}
            slot = dataclasses.replace(slot, values=values)
            if not values and not slot.param.required:
                continue
        out.append(slot)
    return out


def written_formats(task: str) -> list[Candidate]:
    """What a call holds for the formats `task` writes in a person's way, each over the span of the task's
    words it comes from: the strftime format of each date pattern (human_date_format) and the spoken
    specification (spoken_spec) over the count of decimal places it holds ("2 decimal places": the 2 is in
    '.2f'). fill/unused.py counts those words as in a call that holds them."""
    out = [
        Candidate(literal(f), f, "string", m.start(), m.end(), True)
        for m in HUMAN_DATE.finditer(task)
        if (f := human_date_format(m.group()))
    ]
    spec, places = spoken_spec(task), _PLACES.search(task)
    if spec and places:
        out.append(Candidate(literal(spec), spec, "string", places.start(1), places.end(1), True))
    return out
