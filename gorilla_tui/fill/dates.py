"""The dates a task writes, read as the ISO 8601 strings APIs take, and their parts.

- `dates`: each date the task writes in words ("March 10, 2022", "5th April 2022") or in ISO 8601 digits
  ("2026-12-25"), as ``'2022-03-10'``;
- `date_part`: the year, month or day of such a date, a number over the span where the task writes it;
- `DATE_IN_WORDS`, `ISO_DATE`: the two patterns, which fill/values.py also reads as spans never split
  (`_atoms`), and `MONTHS`, the month names (fill/values.py month_numbers).
"""

from __future__ import annotations

import datetime
import re

from gorilla_tui.fill.candidate import Candidate, literal

#: The months in words, January first.
MONTHS = "january february march april may june july august september october november december".split()
#: A date in words, month first ("March 10, 2022") or day first ("5th April 2022").
DATE_IN_WORDS = re.compile(
    r"\b(?P<mon>(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*)\.?\s+(?P<day>\d{1,2})"
    r"(?:st|nd|rd|th)?,?\s+(?P<year>\d{4})\b"
    r"|\b(?P<day2>\d{1,2})(?:st|nd|rd|th)?\s+(?P<mon2>(?:jan|feb|mar|apr|may|jun|jul|aug|sep|sept|oct|nov|dec)[a-z]*)"
    r"\.?,?\s+(?P<year2>\d{4})\b",
    re.IGNORECASE,
)

#: An ISO 8601 calendar date written in digits (2026-12-25), not inside a longer run of digits or dashes, with
#: the time of day its "T" joins to it ("2026-12-07T10:00:00", "2026-12-07T10:00:00.5+05:30": one value;
#: the time was dropped, break-it round 30, F-H2). A time after a blank stays a value of its own ("on
#: 2023-10-05 14:00": BFCL's functions take the date and the time apart).
ISO_DATE = re.compile(
    r"(?<![\w/\\.-])(?P<year>\d{4})-(?P<month>\d{2})-(?P<day>\d{2})"
    r"(?:T(?P<time>\d{2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:Z|[+-]\d{2}:?\d{2})?)(?![\d:]))?(?![\d-])"
)


def dates(task: str) -> list[Candidate]:
    """Dates the task writes in words ("March 10, 2022", "5th April 2022") or as ISO 8601 digits
    ("2026-12-25"), in order, each as an ISO 8601 string (``'2022-03-10'``), the form APIs take, a date
    with its time ("2026-12-07T10:00:00") as written; an impossible date is left out."""
    out = []
    for m in DATE_IN_WORDS.finditer(task):
        mon = (m.group("mon") or m.group("mon2")).lower()[:3]
        month = next((i for i, name in enumerate(MONTHS, 1) if name.startswith(mon)), 0)
        day, year = int(m.group("day") or m.group("day2")), int(m.group("year") or m.group("year2"))
        try:
            iso = datetime.date(year, month, day).isoformat()
        except ValueError:
            continue
        out.append(Candidate(literal(iso), iso, "date", m.start(), m.end(), True))
    for m in ISO_DATE.finditer(task):
        try:
            iso = datetime.date(int(m["year"]), int(m["month"]), int(m["day"])).isoformat()
            if m["time"]:  # a date and time as written, when Python reads it as one
                datetime.datetime.fromisoformat(m.group())  # ValueError: 25:00 is no time
                iso = m.group()
        except ValueError:
            continue
        out.append(Candidate(literal(iso), iso, "date", m.start(), m.end(), True))
    return sorted(out, key=lambda c: c.start)


def date_part(date: Candidate, part: str, task: str) -> Candidate:
    """The year, month or day (`part`) of a date Candidate of `task` (kind "date", from dates()) as a number
    Candidate over the span where the task writes that part: "2026-12-25" gives 2026, 12, 25 to
    ``datetime.date(year, month, day)``, each its own value. Raises KeyError for another part."""
    number = int(str(date.value)[:10].split("-")[{"year": 0, "month": 1, "day": 2}[part]])
    text = task[date.start : date.end]
    iso, words = ISO_DATE.fullmatch(text), DATE_IN_WORDS.fullmatch(text)  # a date and time: its date's parts
    if iso:
        start, end = iso.span(part)
    elif words:
        group = {"year": "year", "month": "mon", "day": "day"}[part]
        start, end = words.span(group) if words.group(group) else words.span(group + "2")
    else:  # not a date of this task's text: the whole span
        start, end = 0, len(text)
    return Candidate(literal(number), number, "number", date.start + start, date.start + end)
