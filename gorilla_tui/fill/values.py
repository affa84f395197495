"""The values a task states, as Python literals: the only values filling may put in a call.

A value is never invented: every candidate is text of the task (a number, a quoted string, a URL, a path, a
run of words) or a value the parameter itself declares (an enum member, True/False for a boolean).

- `numbers`: digits, a scale word after them, number words, a time in words, a percentage also as its
  fraction;
- `month_numbers`: the months the task names in words outside a date;
- `strings`: quoted text, URLs, e-mail addresses, paths and file names whole, then runs of words;
- `lists`: the lists and dicts the task writes, and runs of numbers it joins.

Each reads the task's spans that are one value each, never split (`_atoms`: quoted text, dates, URLs,
paths, formulas, ...). A value is a Candidate (fill/candidate.py); the dates the task writes are read by
fill/dates.py.
"""

from __future__ import annotations

import ast
import math
import re
from typing import Any

from gorilla_tui.fill.candidate import Candidate, literal
from gorilla_tui.fill.colons import COLON_JOINED, joined
from gorilla_tui.fill.dates import DATE_IN_WORDS, ISO_DATE, MONTHS, dates
from gorilla_tui.fill.named_paths import (
    ENV_NAME,
    INTO_FOLDER,
    NAMED_COMMAND,
    NAMED_PATH,
    NAMED_PROGRAM,
    blank_names,
)
from gorilla_tui.fill.sql import statements
from gorilla_tui.fill.standards import no_value, standard_spans
from gorilla_tui.fill.written import CIDR, ESCAPED_PATH, SHELL_ESCAPE, cidr
from gorilla_tui.fill.written import compound_literals as written
from gorilla_tui.retrieve.query.handover import handed_input

#: Number words read as numbers ("wait ten seconds"), zero to twenty and the tens.
NUMBER_WORDS = {
    w: i
    for i, w in enumerate(
        "zero one two three four five six seven eight nine ten eleven twelve thirteen fourteen fifteen "
        "sixteen seventeen eighteen nineteen twenty".split()
    )
} | {"thirty": 30, "forty": 40, "fifty": 50, "sixty": 60, "seventy": 70, "eighty": 80, "ninety": 90,
     "hundred": 100, "dozen": 12}  # fmt: skip
#: Scale words after a number ("2 million" -> 2000000).
SCALES = {"thousand": 1_000, "million": 1_000_000, "billion": 1_000_000_000}

#: Text inside double quotes with quotes of its own, each written \\" and in pairs ("hi \\"there\\""): one
#: value, not cut at the first (break-it round 26, R26-1); a lone \\" is a Windows path's end ("C:\\data\\").
_ESCAPED = r'"((?:(?:[^"\n\\]|\\[^"\n])*\\"(?:[^"\n\\]|\\[^"\n])*\\")+(?:[^"\n\\]|\\[^"\n])*)"'
_QUOTED = re.compile(
    _ESCAPED
    + r"|(?<!\w)'([^'\n]{1,200})'(?!\w)|\"([^\"\n]{1,200})\"|`([^`\n]{1,200})`"
    + r"|“([^”\n]{1,200})”|‘([^’\n]{1,200})’"
)
_URL = re.compile(r"\b(?:https?|ftp|s3|gs|file)://[^\s'\"<>`]+[^\s'\"<>`.,;:!?)\]]")
# an e-mail address: its local part whole (at most 64 characters, RFC 5321 4.5.3.1.1), from white space, a
# quote, a bracket, "," or ";" on the left (an apostrophe inside it is its own: o'brien@example.com); a
# symbol in it ("bob\u00b1x@example.com", which RFC 5322 does not allow unquoted) keeps the word one value,
# never the cut-off address 'x@example.com' (break-it round 25, R25-5)
_EMAIL = re.compile(
    r"(?<![^\s'\"`\u201c\u2018(<\[{,;])[^\s@'\"`\u201c\u201d\u2018\u2019()<>\[\]{},;]"
    r"[^\s@\"`\u201c\u201d\u2018()<>\[\]{},;]{0,63}@[\w-]+(?:\.[\w-]+)+\b"
)
# a path: from the home folder or an environment variable (~/notes.txt, ~/.bashrc, $HOME/.profile,
# ${XDG_CONFIG_HOME}/app: break-it round 21, R21-2, they lost their first characters and named another
# file), with a slash (/var/log, backup/src, ./a, C:\x), a folder at the root after a space (/etc, not the
# /or of "and/or"), a file name with an extension (a.csv) or a dot-file after a space or quote (.env)
_PATH = re.compile(
    r"(?<![\w@/~$])(?:~|\$\{?[A-Za-z_]\w*\}?)(?:[/\\][\w.-]+)+[/\\]?"
    r"|(?<![\w@/])(?:~|\.{1,2})?(?:[A-Za-z]:\\|/)?[\w.-]+(?:[/\\][\w.-]*)+|(?<![\w@/.])[\w-]+(?:\.[\w-]+)*\.[A-Za-z][\w]{0,7}\b"
    r"|(?<!\S)/[A-Za-z_][\w.-]*(?![\w/])|(?<![^\s'\"`(])\.[A-Za-z_][\w.-]*\w(?![\w/])"
)
# a number, also with a unit or currency glued to it ("6cm", "$100", "5%"); not inside a word ("mp3")
_NUMBER = re.compile(
    r"(?<![\w.^])[-+]?(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d+)?(?:[eE][-+]?\d+)?(?=[a-zA-Z%°]{0,5}\b|[^\w]|$)"
    r"|(?<![\w.])[-+]?\.\d+(?!\w)"
)
# a formula: terms joined by operators ("3x^2 + 2x - 1", "x**2", "sin(x)/x")
_FORMULA = re.compile(r"(?<![\w])(?=[\w(.]*[\d\w])[\w.()]+(?:\s*(?:\*\*|[-+*/^])\s*[\w.()]+)+")
_WORD = re.compile(r"[\w'’.-]+|[^\w\s]")
_LIST = re.compile(r"[\[(]\s*[^\[\]()]{1,300}?[\])]")
# a dict the task writes as a literal ({"a": 1}): one value, its quoted keys no values of their own
_DICT = re.compile(r"\{[^{}]{1,300}\}")
# an IP address or a version (93.184.216.34, 3.11.2): one string, not the number 93.184
_DOTTED = re.compile(r"(?<![\w.])\d+(?:\.\d+){2,}(?![\w]|\.\d)")
# a name written in capitals with an underscore, as environment variables and constants are (HOME_DIR)
_CONSTANT = re.compile(r"(?<![\w'\"`])[A-Z][A-Z0-9]*(?:_[A-Z0-9]+)+(?![\w'\"`])")
#: Words a string span does not start or end with (articles, prepositions, conjunctions).
EDGE_WORDS = frozenset(
    "a an the of in on at to for from by with and or as is are be that this these those it its into than "
    "then my your our their his her me i you we they please can could would should will what which who about "
    "how when where whose find get give show tell calculate compute".split()
    # a pronoun's contraction ("First, I'm interested in ... Leonardo DiCaprio": no actor "I'm interested")
    + "i'm i've i'd i'll it's that's let's we're we've you're they're there's here's what's".split()
)
#: The EDGE_WORDS a string span may hold inside ("Treaty of Lisbon", "Lord of the Rings"); any other one
#: ends it ("Bitcoin in US" is Bitcoin, then US).
INNER_WORDS = frozenset(("of", "the"))
#: Longest run of words one string candidate spans.
MAX_SPAN_WORDS = 6


def _number(text: str) -> int | float | None:
    """The number `text` writes, or None: not a number, a float beyond float's range ("1e309" reads as
    inf, no literal), or an integer longer than Python converts (sys.get_int_max_str_digits, 4,300)."""
    cleaned = text.replace(",", "")
    try:
        value = float(cleaned)
        if re.fullmatch(r"[-+]?\d+", cleaned):
            return int(cleaned)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


def numbers(task: str) -> list[Candidate]:
    """The numbers of `task` in order: digits (``1,000``, ``-3``, ``2.5``, ``1e-3``), a scale word after
    them (``2 million``), number words (``ten``) and a time in words ("half a second": 0.5, "an hour": 1).
    A number inside a URL, path or e-mail is not one, nor an exponent (the 2 of "m/s^2"). A percentage
    gives two Candidates of one span: the number as written and its fraction (percent "whole",
    "fraction"; BFCL's rates are mostly fractions: 3 % -> 0.03)."""
    taken = [(s, e) for s, e in _atoms(task) if not _QUOTED.fullmatch(task[s:e])]
    out: list[Candidate] = []
    for m in _NUMBER.finditer(task):
        if any(s <= m.start() < e for s, e in taken):
            continue
        value = _number(m.group())
        if value is None:
            continue
        end = m.end()
        # ASCII case only: Unicode's matched "bıllion", no key of SCALES (round 19, R19-1)
        scale = re.match(r"\s*(thousand|million|billion)\b", task[end:], re.IGNORECASE | re.ASCII)
        if scale and isinstance(value, (int, float)):
            scaled = value * SCALES[scale.group(1).lower()]
            if isinstance(scaled, float) and not math.isfinite(scaled):
                continue  # "1e308 million" is beyond float's range
            value = scaled if isinstance(scaled, int) or not scaled.is_integer() else int(scaled)
            end += scale.end()
        if re.match(r"\s?%", task[end:]):  # "5 %": 5 as written, and 0.05, the form a rate takes
            out.append(Candidate(literal(value), value, "number", m.start(), end, percent="whole"))
            try:
                share = round(value / 100, 12)
            except OverflowError:  # an integer beyond float's range has no fraction to give
                continue
            out.append(Candidate(literal(share), share, "number", m.start(), end, percent="fraction"))
            continue
        out.append(Candidate(literal(value), value, "number", m.start(), end))
    # number words only where the task writes no digits ("two charged bodies of 1e-9 and 2e-9"), or as a
    # count after first, top, next, last, past ("the product of the first five prime numbers" beside "1000")
    digits = bool(out)
    for m in re.finditer(r"\b[a-zA-Z]+\b", task):
        word = m.group().lower()
        if digits and not re.search(r"\b(?:first|top|next|last|past)\s+$", task[: m.start()], re.IGNORECASE):
            continue
        if word in NUMBER_WORDS and word not in ("hundred",):
            out.append(
                Candidate(literal(NUMBER_WORDS[word]), NUMBER_WORDS[word], "number", m.start(), m.end())
            )
    if not digits:  # "half a second" is 0.5 of it, "a minute" and "an hour" one (a unit follows each)
        for m in _PART_OF_UNIT.finditer(task):
            value = 0.5 if m.group(1) else 1
            out.append(Candidate(literal(value), value, "number", m.start(), m.end()))
    return sorted(out, key=lambda c: c.start)


#: A time the task writes in words with no number: "half a second", "half an hour" (0.5 of the unit after
#: the span), "a minute", "an hour" (one); "a second car" or "a day" (per day) are none.
_PART_OF_UNIT = re.compile(
    r"\b(half\s+)an?(?=\s+(?:ms|millisecond|second|sec|minute|min|hour|day)s?\b)"
    r"|\ban?(?=\s+(?:minute|hour)\b)",
    re.IGNORECASE,
)


#: A month the task names in words outside a date ("february 2024"); "may" only capitalised (the verb).
_MONTH_NAME = re.compile(r"\b(?:" + "|".join(m for m in MONTHS if m != "may") + r")\b|\bMay\b", re.IGNORECASE)


def month_numbers(task: str) -> list[Candidate]:
    """The months `task` names in words, each as its number over the word's span ("how many days does
    february 2024 have": 2), for a parameter named month (``calendar.monthrange(year, month)``); a month
    inside a date (dates()) is that date's part, and one inside a path or quoted text no month."""
    dated = [(c.start, c.end) for c in dates(task)] + _atoms(task)  # not a path's "june" either
    out = []
    for m in _MONTH_NAME.finditer(task):
        if m.group() == "may" or any(s <= m.start() < e for s, e in dated):
            continue
        number = MONTHS.index(m.group().lower()) + 1
        out.append(Candidate(literal(number), number, "number", m.start(), m.end()))
    return out


def strings(task: str) -> list[Candidate]:
    """String values of `task`: quoted text, URLs, e-mail addresses, paths and file names, each whole, the
    input a colon hands over whole (retrieve/query/handover.py handed_input), then every run of 1 to
    MAX_SPAN_WORDS words that neither starts nor ends with an EDGE_WORDS word or punctuation (a capitalised
    "The" inside a sentence may start one: "The Weeknd") and has a word of letters that is not one, and the
    parts of a hyphenated word ("gas" of "gas-powered"). A possessive's "'s" is no part of a value. First
    occurrence kept, in task order."""
    out: dict[str, Candidate] = {}

    def add(text: str, start: int, end: int, atomic: bool = False) -> None:
        text = text.strip()
        if text and text not in out:
            out[text] = Candidate(literal(text), text, "string", start, end, atomic)

    for c in dates(task):
        if len(str(c.value)) > 10 and _in_quotes(task, c.start, c.end):  # quoted, a date and time is text
            c = Candidate(literal(c.value[:10]), c.value[:10], "date", c.start, c.start + 10, True)
        out.setdefault(c.value, c)
    tokens = _tokens(task)
    literals = {(s, e) for s, e, _v, _t in written(task)}
    handed = handed_input(task)  # the input a colon hands over is one value: what it quotes is no other
    for text, start, end, atomic in tokens:
        if handed and handed[0] <= start and end <= handed[1] and (start, end) != handed:
            continue  # "escape this for html: <script>alert("x & y")</script>": not 'x & y' alone
        if (
            atomic
            and (start, end) not in literals
            and not (
                _DICT.fullmatch(text)
                and isinstance(_literal_value(text), dict)
                and not _in_quotes(task, start, end)
            )
        ):
            # a dict or nested list the task writes ({'q': 'python'}) is a value of lists, not the string of
            # its text; in quotes it is that text ("parse the JSON string '{"name": "bob"}'": json.loads
            # takes a str)
            if no_value(text):
                continue  # "ISO 8601", "SHA-256": a standard's name, no value (fill/standards.py)
            quoted = _QUOTED.fullmatch(text)
            inside = next(g for g in quoted.groups() if g is not None) if quoted else text
            if not quoted and ESCAPED_PATH.fullmatch(text):
                inside = SHELL_ESCAPE.sub(r"\1", text)  # "/tmp/a\ b.txt" names '/tmp/a b.txt'
            add(inside.replace('\\"', '"') if quoted and quoted.group(1) else inside, start, end, True)
    if handed is not None:  # "make this uppercase: please read the manual"
        add(task[handed[0] : handed[1]], *handed, True)
    for i, (first, start, _end, atomic) in enumerate(tokens):
        edge = first.lower() in EDGE_WORDS and not _names(task, first, start)
        if atomic or edge or not re.search(r"\w", first):
            continue
        for j, (last, _start, end, atomic) in enumerate(tokens[i : i + MAX_SPAN_WORDS]):
            if atomic or not re.search(r"\w", last) and last != ",":
                break
            if last.lower() in ("and", "or"):
                break  # "Taylor Swift and Maroon 5" are two values, each its own run
            if j and _SENTENCE_END.search(task[max(0, _start - 6) : _start]):
                break  # a run of words ends with its sentence ("... in Boston. Also, get cases")
            if last.lower() in EDGE_WORDS or last == ",":
                if last.lower() not in INNER_WORDS and last != ",":
                    break  # "ATP in the mitochondria", "Bitcoin in US": a preposition ends a value
                continue
            if j and not any(_WORDLIKE.match(t[0]) and t[0].lower() not in EDGE_WORDS
                             for t in tokens[i : i + j + 1]):  # fmt: skip
                continue  # "2010 to 2015" is two numbers, no string
            add(task[start:end], start, end)
    for text, start, _end, atomic in tokens:  # "gas-powered": "gas" is the value BFCL's answers take
        if not atomic and "-" in text:
            for part in re.finditer(r"[^\W\d_]{2,}", text):
                if part.group().lower() not in EDGE_WORDS:
                    add(part.group(), start + part.start(), start + part.end())
    return sorted(out.values(), key=lambda c: (c.start, -c.end))


_WORDLIKE = re.compile(r"[^\W\d_]")
#: A sentence's end before a word: a full stop, "?" or "!" after a word of 4 letters or more or a number
#: ("Boston. Also", "2010. I've"), not after an abbreviation ("St. Louis", "Apple Inc. in").
_SENTENCE_END = re.compile(r"(?:[^\W\d_]{4}|\d)[.?!]\s$")


def _in_quotes(task: str, start: int, end: int) -> bool:
    """Whether the task writes its text from `start` to `end` between a pair of the same quotes."""
    return start > 0 and end < len(task) and task[start - 1] == task[end] and task[end] in "'\"`"


def _names(task: str, word: str, start: int) -> bool:
    """True for a capitalised "The" inside a sentence: the start of a name ("for The Weeknd")."""
    return word == "The" and bool(re.search(r"[a-z,]\s+$", task[:start]))


def _atoms(task: str) -> list[tuple[int, int]]:
    """Spans of `task` that are one value each, never split: quoted text, dates in words or ISO 8601 digits
    (the 2026 of "2026-01-01" is no number of days), URLs, e-mail addresses, values joined by colons (a time,
    an IPv6 or MAC address, host:port: fill/colons.py), names of standards and encodings ("ISO 8601",
    "UTF-8": fill/standards.py), paths, formulas
    ("3x^2 + 2x - 1"), SQL statements (fill/sql.py) and files or folders named by a bare word ("the folder
    old_build", NAMED_PATH; the folder a named file goes into, "unpack data.bin into out": INTO_FOLDER),
    environment variables named in capitals ("the environment variable HOME",
    "$HOME": ENV_NAME) and command lines after "the command" (NAMED_COMMAND, the paths in it its own),
    first match kept where two overlap."""
    whole = (len(task) - len(task.lstrip()), len(task.rstrip()))
    if whole[1] - whole[0] > 1 and task[whole[0]] + task[whole[1] - 1] in ('""', "“”"):
        # a task written in quotes as a whole ("What is ...?") is no quoted value, and its opening quote
        # pairs with no quote inside it ("a 180 lbs, 5'11\" tall individual"): read without the two
        task = f"{task[: whole[0]]} {task[whole[0] + 1 : whole[1] - 1]} {task[whole[1] :]}"
    atoms = [(s, e) for s, e, _v, _t in written(task)]  # [('a', 1), ('b', 2)], b'\x00': Python's parser
    atoms += [(s, e) for s, e in standard_spans(task) if not any(a < e and s < b for a, b in atoms)]
    for rx in (_DICT, _QUOTED, DATE_IN_WORDS, ISO_DATE, _URL, _EMAIL, CIDR, COLON_JOINED, _DOTTED,
               ESCAPED_PATH, _PATH, _CONSTANT, _FORMULA):  # fmt: skip
        for m in rx.finditer(task):
            text = m.group().rstrip(".")
            if rx is CIDR and not cidr(text):
                continue
            if rx is COLON_JOINED and not joined(m):
                continue  # "a:b:c" is no IPv6 address (fill/colons.py)
            if rx is _DICT and not isinstance(_literal_value(text), dict):
                continue  # "{name}" is a template's placeholder, no dict
            if rx is _FORMULA and (_number(text) is not None or not re.search(
                    r"[\^*]|\d\s*[a-z]|[a-z]\s*[-+/]\s*\d", text)):  # fmt: skip
                continue  # "10-15", "1e-9" or "and/or" is no formula
            if rx is _FORMULA and re.split(r"\W+", text.lower())[0] in EDGE_WORDS:
                continue  # "37.7749 and -122.4194": "and -122.4194" is a word and a negative number
            end = m.start() + len(text)
            if not any(s < end and m.start() < e for s, e in atoms):
                atoms.append((m.start(), end))
    commands = [
        (m.start(1), m.start(1) + len(m.group(1).rstrip(".!?"))) for m in NAMED_COMMAND.finditer(task)
    ]
    # unquoted SQL or a command line is one value, the paths and quoted text inside it too; so is a file
    # name with blanks ("the file called old name.txt": named_paths.blank_names)
    for start, end in [*statements(task), *commands, *blank_names(task)]:
        if not any(s < end and start < e and not start <= s < e <= end for s, e in atoms):
            atoms = [(s, e) for s, e in atoms if not start <= s < e <= end] + [(start, end)]
    named = [next(m.span(g) for g in (1, 2, 3, 4, 5) if m.group(g)) for m in NAMED_PATH.finditer(task)]
    named += [next(m.span(g) for g in (1, 2, 3) if m.group(g)) for m in ENV_NAME.finditer(task)]
    named += [m.span(2) for m in INTO_FOLDER.finditer(task)]
    for start, end in named + [m.span(1) for m in NAMED_PROGRAM.finditer(task)]:
        if not any(s < end and start < e for s, e in atoms):
            atoms.append((start, end))
    return atoms


def _literal_value(text: str) -> Any:
    """What ast.literal_eval reads from `text`, or None where it reads nothing."""
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None


def _tokens(task: str) -> list[tuple[str, int, int, bool]]:
    """(text, start, end, atomic) of each token of `task` in order: the _atoms are one atomic token each (a
    run of words never splits or joins them); words keep inner apostrophes, dots and hyphens; punctuation
    is one token a character."""
    atoms = _atoms(task)
    out: list[tuple[str, int, int, bool]] = [(task[s:e], s, e, True) for s, e in atoms]
    for m in _WORD.finditer(task):
        text = re.sub(r"['’]s$", "", m.group()).strip(".'’-") or m.group()  # "Weeknd's" names Weeknd
        start = m.start() + m.group().find(text)
        end = start + len(text)
        if not any(s < end and start < e for s, e in atoms):
            out.append((text, start, end, False))
    return sorted(out, key=lambda t: t[1])


def lists(task: str) -> list[Candidate]:
    """Lists the task writes: a bracketed literal Python reads (``[1, 2, 3]``), and a run of 2 or more
    numbers joined by commas, "and" or "or" (``4, 5 and 6`` -> ``[4, 5, 6]``); and the dicts it writes as
    literals (``{"a": 1}``, kind "dict"), which only an object or untyped parameter takes."""
    out: list[Candidate] = []
    whole = written(task)  # nested, a set, bytes: one value, its inner lists none of their own
    for start, end, value, source in whole:
        kind = "bytes" if isinstance(value, bytes) else "set" if isinstance(value, (set, frozenset)) else (
            "dict" if isinstance(value, dict) else "list")  # fmt: skip
        out.append(Candidate(source, value, kind, start, end, atomic=True))
    for m in _LIST.finditer(task):
        if any(s <= m.start() < e for s, e, _v, _t in whole):
            continue
        value = _literal_value(m.group())
        if isinstance(value, (list, tuple)):
            try:
                out.append(Candidate(literal(list(value)), list(value), "list", m.start(), m.end()))
            except TypeError:  # an item that is no plain value (a set)
                continue
    for m in _DICT.finditer(task):
        if any(s <= m.start() < e for s, e, _v, _t in whole):
            continue
        value = _literal_value(m.group())
        if isinstance(value, dict):
            try:
                out.append(Candidate(literal(value), value, "dict", m.start(), m.end(), atomic=True))
            except TypeError:
                continue
    nums = [c for c in numbers(task) if c.percent != "fraction"]
    run: list[Candidate] = []
    for c in nums + [None]:  # type: ignore[list-item]
        if (
            c is not None
            and run
            and re.fullmatch(r"\s*(?:,|,?\s*(?:and|or|&))\s*", task[run[-1].end : c.start])
        ):
            run.append(c)
            continue
        if len(run) >= 2:
            values = [x.value for x in run]
            out.append(Candidate(literal(values), values, "list", run[0].start, run[-1].end))
        run = [c] if c is not None else []
    return out
