"""The task's values a filled call left out: said beside the call, never dropped in silence.

"whats the sha256 of setup.py" filled as ``hashlib.sha256()`` answers with a call that exists and reads
as done, but the file the person named is in no argument: the answer says "not in the call: setup.py"
(`ask`, the TUI's line under the call, ``--json`` and MCP as ``unused``). A value counts as in the call
when the call's source holds it in any form filling writes it (fill/call_grammar.py values_for): the same
literal, a time converted to seconds (fill/units.py in_seconds), a percentage as its fraction, a host and
port as one address (fill/addresses.py), a date whole or as its year, month and day, a list whole or item
by item, a string inside a longer one (a file name in a URL) or a large part of it (the host of
``example.com:8080``). Only the values the task writes as one value are listed: numbers, quoted text,
URLs, e-mail addresses, paths and file names, dates, lists and dicts; runs of plain words are not (most
of a task's words name the API, not a value), but for the words an unquoted path left behind at a space
("/tmp/a b c": "b c", `_tail`).
"""

from __future__ import annotations

import ast
import contextlib
import datetime
import re
from collections.abc import Iterator
from typing import Any

from gorilla_tui.fill.addresses import addresses
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.documented import extension_values
from gorilla_tui.fill.format_specs import written_formats
from gorilla_tui.fill.lengths import character_counts
from gorilla_tui.fill.units import in_seconds
from gorilla_tui.fill.values import EDGE_WORDS, MAX_SPAN_WORDS

_QUOTES = "'\"`“‘"
_DIGIT_START = re.compile(r"[-+]?\.?\d")
_UNIT_BEFORE = re.compile(r"\d\s?$")  # "4 m/s", "12ft": a unit right after a number
_ABBREVIATION = re.compile(r"(?:[A-Za-z]\.)+[A-Za-z]?\.?")
_DIGIT_GROUPS = re.compile(r"\d+(?:[/.-]\d+){2,}")
_RATIO = re.compile(r"\d+/\d+")
#: A network in CIDR notation (fill/values.py _CIDR): its prefix length is part of the value.
_NETWORK = re.compile(r"[\d.]+/\d{1,2}|[0-9A-Fa-f:]+/\d{1,3}")
#: A string constant of the call shorter than this many characters, or than a third of the task's value,
#: is not read as that value's part (the 'src' of "backup/src" is another value).
MIN_PART_CHARS = 3


def left_out(task: str, call: str) -> list[str]:
    """The values of `task` that `call` does not hold, as the task writes them, in task order.

    Args:
        task: the task as typed.
        call: the filled call's source (one call per line for a parallel task).

    Returns:
        The task's text of each value left out (``["setup.py"]``); [] when every value is in the call, the
        task writes none, or `call` is no Python source (then nothing can be said of it).
    """
    try:
        tree = ast.parse(call)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return []
    constants = list(_constants(tree))
    values = TaskValues.of(task)
    salient = [c for c in values.numbers + values.strings + values.lists if _salient(c, task)]
    pool = (
        salient
        + in_seconds(values.numbers, task)
        + addresses(task)
        + character_counts(values.numbers, task, call)
        + written_formats(task)
    )
    used = [
        (c.start, c.end) for c in pool if c.start >= 0 and _held(c, _others_removed(c, constants, salient))
    ]
    unused = [
        c for c in salient if not any(s < c.end and c.start < e for s, e in used)
    ]  # a value overlapping one in the call is in it (a list's items, a percentage's two forms)
    spans = {(c.start, c.end) for c in unused}
    spans |= {t for c in salient if (t := _tail(c, task, salient, constants)) is not None}
    inner = {(s, e) for s, e in spans for s2, e2 in spans if s2 <= s and e <= e2 and (s2, e2) != (s, e)}
    outer = [span for span in sorted(spans) if span not in inner]
    return [task[s:e] for s, e in outer]


#: Where a path's clause ends: a line break, a mark, or a full stop before white space or the end.
_CLAUSE_END = re.compile(r"[\n,;:!?()]|\.(?:\s|$)")
#: Words after a path that go on with the sentence, not with the path's name: EDGE_WORDS (to, and, in,
#: then...) and a few adverbs of time and manner.
_GOES_ON = EDGE_WORDS | frozenset(
    "now please again also too first only quickly recursively here there".split()
)


def _tail(c: Candidate, task: str, salient: list[Candidate], constants: list[Any]) -> tuple[int, int] | None:
    """The span of the words that follow an unquoted path in `task` to the end of its clause, the rest of a
    name with white space in it that the path left behind ("list the files in /tmp/a b c": "b c";
    "~/Documents/my files": "files"), or None: not a path (a separator, no URL), quoted, no such words,
    a word that goes on with the sentence among them (_GOES_ON: "/tmp/a to /tmp/b"), a value of its own
    (`salient`) among them, or the call holds them (`constants`). An unquoted path ends at white space, of
    any kind but a no-break space (fill/shadow.py PATH_TOKEN), and the rest is said, not dropped
    (break-it round 26, R26-3)."""
    value = c.value
    if not (c.kind == "string" and isinstance(value, str) and re.search(r"[/\\]", value)) or "://" in value:
        return None
    if task[c.start : c.start + 1] in _QUOTES or not task[c.end : c.end + 1].isspace():
        return None
    stop = _CLAUSE_END.search(task, c.end)
    end = stop.start() if stop else len(task)
    words = list(re.finditer(r"\S+", task[c.end : end]))
    if not words or len(words) > MAX_SPAN_WORDS:
        return None
    if any(w.group().lower().strip(".'\"") in _GOES_ON for w in words):
        return None
    start, end = c.end + words[0].start(), c.end + words[-1].end()
    if any(o.start < end and start < o.end for o in salient if o is not c):
        return None
    text = task[start:end]
    return None if any(isinstance(k, str) and text in k for k in constants) else (start, end)


def _others_removed(c: Candidate, constants: list[Any], salient: list[Candidate]) -> list[Any]:
    """`constants` without those that are another value of the task, written elsewhere in it: the URL of
    "download https://x.org/data.csv to data.csv" holds the text data.csv, but it is the URL, not the file
    name the task writes after it."""
    others = {o.value for o in salient if isinstance(o.value, str) and (o.end <= c.start or c.end <= o.start)}
    return [k for k in constants if not (isinstance(k, str) and k in others and k != c.value)]


def _salient(c: Candidate, task: str) -> bool:
    """A value the task writes as one: numbers in digits, quoted text, URLs, e-mail addresses, paths and file
    names, formulas, dates, lists and dicts. Not a run of words, a value a parameter declares, a number in
    words ("two adults": most are counts of the sentence, not values), a part of a clock time, a unit after
    a number ("4 m/s^2", "350 sq.ft"), an abbreviation ("e.g", "U.S") or a ratio ("4/5")."""
    if c.start < 0 or not (c.kind in ("number", "date", "list", "dict") or c.atomic):
        return False
    text = task[c.start : c.end]
    if c.kind == "number":  # in digits, and not a part of a clock time ("at 14:00": one value, not 14 and 0)
        clock = task[c.end : c.end + 1] == ":" or task[max(0, c.start - 1) : c.start] == ":"
        return bool(_DIGIT_START.match(text)) and not clock
    if c.kind != "string" or task[c.start : c.start + 1] in _QUOTES:
        return True
    unit = _UNIT_BEFORE.search(task[: c.start])
    return not (unit or _ABBREVIATION.fullmatch(text) or _RATIO.fullmatch(text))


def _extensions_held(node: ast.Call, passed: list[ast.expr]) -> Iterator[str]:
    """The file extensions the callee's module binds to a string the call passes (fill/documented.py
    extension_values: ``shutil.make_archive('photos', 'gztar')`` holds "tar.gz" and "tgz" as 'gztar'), so
    "a tar.gz archive" is said to be in the call."""
    module = ast.unparse(node.func).rpartition(".")[0] if isinstance(node.func, ast.Attribute) else ""
    if not re.fullmatch(r"[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*", module):
        return
    texts = {a.value for a in passed if isinstance(a, ast.Constant) and isinstance(a.value, str)}
    if texts:
        yield from (ext for ext, value in extension_values(module).items() if value in texts)


def _constants(tree: ast.AST) -> Iterator[Any]:
    """Every literal of the call: each constant (bytes as text), each list, tuple or dict literal whole, and
    the names the call writes as text: its callee's dotted name, its keywords ("use the
    'calculate_velocity' function", "with 'a' = 3": the task names the function or the parameter) and the
    variables it passes ("write the dict `scores` to data.json" -> ``json.dump(scores, ...)`` holds
    `scores`: break-it round 19, R19-2), the file extensions a value it passes stands for
    (_extensions_held), and the last number of a ``range(a, b)`` (b - 1)."""
    for node in ast.walk(tree):
        if isinstance(node, ast.Call):
            with contextlib.suppress(ValueError, TypeError):
                yield ast.unparse(node.func)
            yield from (k.arg for k in node.keywords if k.arg)
            passed = [*node.args, *(k.value for k in node.keywords)]
            yield from (a.id for a in passed if isinstance(a, ast.Name))
            yield from _extensions_held(node, passed)
            end = node.args[1] if isinstance(node.func, ast.Name) and node.func.id == "range" and len(
                node.args) == 2 else None  # fmt: skip
            if isinstance(end, ast.Constant) and type(end.value) is int:
                yield end.value - 1  # range(1, 101) holds the 100 of "between 1 and 100" (fill/ranges.py)
        if isinstance(node, ast.Constant) and not isinstance(node.value, bool) and node.value is not None:
            value = node.value
            yield value.decode("utf-8", "replace") if isinstance(value, bytes) else value
        elif isinstance(node, (ast.List, ast.Tuple, ast.Dict, ast.Set, ast.UnaryOp)):
            try:
                yield ast.literal_eval(node)
            except (ValueError, TypeError, SyntaxError, MemoryError, RecursionError):
                continue


def _held(c: Candidate, constants: list[Any]) -> bool:
    """True when one of the call's `constants` is candidate `c` in a form filling writes (module
    docstring)."""
    value = c.value
    if isinstance(value, bool):
        return False
    if c.kind == "date" and _date_held(str(value), constants):
        return True
    if c.kind == "date" and len(str(value)) > 10:
        return False  # a date and its time: no part of it is the value
    if isinstance(value, (int, float)):
        digits = re.compile(rf"(?<![\d.]){re.escape(c.text)}(?![\d])")
        return any(
            (isinstance(k, (int, float)) and not isinstance(k, bool) and k == value)
            or (isinstance(k, str) and digits.search(k) is not None)
            for k in constants
        )
    if isinstance(value, bytes):  # the call's bytes are read as text (_constants)
        return value.decode("utf-8", "replace") in constants
    if isinstance(value, str):
        if _NETWORK.fullmatch(value):  # 10.0.0.0/8 whole: '10.0.0.0' alone is another network (a /32)
            return any(isinstance(k, str) and value in k for k in constants)
        part = max(MIN_PART_CHARS, len(value) / 3)
        formula = _formula(value)
        if _DIGIT_GROUPS.fullmatch(value):  # a date written with slashes or dots: its numbers, any format
            groups = _digit_groups(value)
            found = (k for k in constants if isinstance(k, str))
            if any(groups <= _digit_groups(k) for k in found):
                return True
        return any(
            isinstance(k, str)
            and (value in k or (len(k) >= part and k in value) or (formula and formula == _formula(k)))
            for k in constants
        )
    if isinstance(value, (list, tuple)):
        items = list(value)
        return any(isinstance(k, (list, tuple)) and list(k) == items for k in constants) or (
            bool(items) and all(any(type(k) is type(i) and k == i for k in constants) for i in items)
        )
    if isinstance(value, (dict, set, frozenset)):
        return any(k == value for k in constants)
    return False


def _formula(text: str) -> str:
    """A formula's text with spaces and multiplication signs left out and powers as ``^`` ("3*x**2 + 1" and
    "3x^2+1" read the same); "" for text with no operator."""
    if not re.search(r"[-+*/^]", text):
        return ""
    return re.sub(r"\s+|\*(?!\*)", "", text.replace("**", "^"))


def _date_held(iso: str, constants: list[Any]) -> bool:
    """True when the call writes the ISO date `iso` as text, or its year, month and day as numbers
    (``datetime.date(2026, 12, 25)``); a date with its time only as text holding both."""
    if any(isinstance(k, str) and iso in k for k in constants):
        return True
    if len(iso) > 10:  # a date and its time ("2026-12-07T10:00:00"): the date alone drops the time
        return False
    try:
        day = datetime.date.fromisoformat(iso[:10])
    except ValueError:
        return False
    parts = {day.year, day.month, day.day}
    numbers = {k for k in constants if isinstance(k, int) and not isinstance(k, bool)}
    # or a date string of another format ("01/01/2021", "2021-1-1")
    return parts <= numbers or any(
        isinstance(k, str) and {str(p) for p in parts} <= _digit_groups(k) for k in constants
    )


def _digit_groups(text: str) -> set[str]:
    """The numbers `text` writes in digits, each without its leading zeros ("01/01/2021" -> {"1", "2021"}):
    compared as text, so a run longer than Python converts to int (sys.get_int_max_str_digits, 4,300) is one
    too (an int() of it raised ValueError: break-it round 15)."""
    return {d.lstrip("0") or "0" for d in re.findall(r"\d+", text)}
