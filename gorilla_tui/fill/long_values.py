"""Long values the request writes, kept whole for the call while the search and the model read a stand-in.

fill/set_aside.py keeps a long input a colon hands over whole; a long value elsewhere in the task went to the
search and the model as typed: "add up the numbers [0, 1, ..., 1499]" (7,909 characters) was cut at
MAX_TASK_CHARS and MODEL_TASK_WORDS (``sum`` of its first 196 numbers, ~20x the time of "[1, 2, 3]"), and
"convert 1000...0 (5,000 zeros) to hex" was cut to "convert", the number one word longer than the cut
(break-it round 31, findings 10 and 11). `stand_ins` replaces each value of the task longer than
STAND_IN_CHARS characters by a stand-in of at most that many, read as a value of the same kind:

- a bracketed literal ast.literal_eval reads (list, tuple, set, dict): its first items, closed
  ("[0, 1, ..., 1499]" -> "[0, 1, ..., 39]");
- quoted text: its start, cut at a blank, in the same quotes;
- a word without blanks (a blob, a path; a number only beyond MAX_TASK_CHARS digits, where the task's cut
  would split it: filling reads a number's value, converts its unit): its first characters; a number
  longer than Python reads (sys.get_int_max_str_digits, 4,300 digits: its parser refuses the literal,
  "Exceeds the limit ... for integer string conversion") is a UsageError, one line, not a cut task.

`LongValue.restored` writes the whole value back wherever the filled call holds the stand-in, in each form
filling writes a value in (the task's text, ast.unparse, fill/candidate.py literal, a str of the text).
"""

from __future__ import annotations

import ast
import re
import sys
from dataclasses import dataclass
from typing import Any

from gorilla_tui.errors import UsageError
from gorilla_tui.fill.candidate import literal
from gorilla_tui.fill.written import bracket_spans, quoted_spans
from gorilla_tui.textsafe import MAX_TASK_CHARS

#: Characters of a long value the task keeps in its place (fill/set_aside.py's stand-in of a handed input
#: is as long): longer values are set aside.
STAND_IN_CHARS = 200
#: A number's digits, with the separators fill/values.py reads in one (``1,000``, ``1_000``), a sign first.
_DIGITS = re.compile(r"[-+]?\d[\d,_]*(?:\.\d+)?")
_WORD = re.compile(r"\S+")


@dataclass(frozen=True)
class LongValue:
    """One value set aside: `whole` and `stand_in` as the task writes them, `start` where `whole` began in
    the task (characters), `forms` the (stand-in, whole) source pairs a filled call may hold it in, longest
    stand-in first, and `values` the (stand-in, whole) pairs of decoded values (render.decoded_calls)."""

    whole: str
    stand_in: str
    start: int
    forms: tuple[tuple[str, str], ...]
    values: tuple[tuple[Any, Any], ...] = ()

    def restored(self, source: str) -> str:
        """`source` (a call, an argument's value) with each form of the stand-in made the whole value's."""
        for short, whole in self.forms:
            if short[0].isdigit() or short[0] in "+-":  # digits: not inside a longer number
                source = re.sub(rf"(?<![\w.]){re.escape(short)}(?![\w.])", lambda _m, w=whole: w, source)
            else:
                source = source.replace(short, whole)
        return source

    def shortened(self, source: str) -> str:
        """`source` (a restored call) with each form of the whole value made the stand-in's again: what the
        task the model read writes (fill/unused.py left_out reads that task)."""
        for short, whole in sorted(self.forms, key=lambda p: -len(p[1])):
            source = source.replace(whole, short)
        return source

    def value(self, value: Any) -> Any:
        """A decoded value with the stand-in made the whole value, inside lists and dicts too."""
        for short, whole in self.values:
            if type(value) is type(short) and value == short:
                return whole
        if isinstance(value, list):
            return [self.value(v) for v in value]
        if isinstance(value, dict):
            return {k: self.value(v) for k, v in value.items()}
        return value

    def taken(self, source: str) -> bool:
        """Whether the call `source` (restored) holds the whole value."""
        return any(whole in source for _short, whole in self.forms)

    def note(self, taken: bool) -> str:
        """The warning the answer gives: the value read whole into the call, or left out of it."""
        n, at = f"{len(self.whole):,}", f"{self.start + 1:,}"
        what = f"the value of {n} characters at character {at} ({self.whole[:9]}…)"
        if taken:
            return (
                f"{what} is in the call whole; the search and the model read {len(self.stand_in):,} of them"
            )
        return f"{what} is in no argument of the call: it was not taken"


def _pairs(*pairs: tuple[str, str]) -> tuple[tuple[str, str], ...]:
    """The distinct (stand-in, whole) pairs, longest stand-in first (a shorter form inside a longer one is
    replaced after it)."""
    out = {s: w for s, w in pairs if s and s != w}
    return tuple(sorted(out.items(), key=lambda p: -len(p[0])))


def _text_forms(short: str, whole: str) -> list[tuple[str, str]]:
    """A text value's forms: its str and bytes literals (a value filling quotes)."""
    return [(repr(short), repr(whole)), (repr(short.encode("utf-8")), repr(whole.encode("utf-8")))]


def _rendered(node: ast.expr, value: Any) -> list[str]:
    """The sources filling writes a literal in: ast.unparse, and candidate.literal of it (a tuple as a
    list) where it writes one."""
    out = [ast.unparse(node)]
    for v in (value, list(value) if isinstance(value, (tuple, set, frozenset)) else None):
        try:
            out.append(literal(v)) if v is not None else None
        except TypeError:  # a set, bytes: no plain literal
            pass
    return out


def _literal_stand_in(text: str, start: int) -> LongValue | None:
    """The stand-in of the bracketed literal `text` (its first items, closed), or None: no literal
    ast.literal_eval reads, or no first item short enough."""
    try:
        node = ast.parse(text, mode="eval").body
        value = ast.literal_eval(node)
    except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
        return None
    if isinstance(node, ast.Dict):
        items = [
            f"{ast.get_source_segment(text, k)}: {ast.get_source_segment(text, v)}"
            for k, v in zip(node.keys, node.values, strict=True)
            if k is not None
        ]
    elif isinstance(node, (ast.List, ast.Tuple, ast.Set)):
        items = [ast.get_source_segment(text, e) or "" for e in node.elts]
    else:
        return None
    kept: list[str] = []
    for item in items:
        if len(", ".join([*kept, item])) + 3 > STAND_IN_CHARS:
            break
        kept.append(item)
    if not kept or len(kept) == len(items):
        return None
    short = text[0] + ", ".join(kept) + ("," if len(kept) == 1 and text[0] == "(" else "") + text[-1]
    short_node = ast.parse(short, mode="eval").body
    short_value = ast.literal_eval(short_node)
    forms = [(short, text), *zip(_rendered(short_node, short_value), _rendered(node, value), strict=False)]
    values = [(short_value, value)]
    if isinstance(value, (tuple, set, frozenset)):
        values.append((list(short_value), list(value)))
    return LongValue(text, short, start, _pairs(*forms, *_text_forms(short, text)), tuple(values))


def _quoted_stand_in(text: str, start: int) -> LongValue | None:
    """The stand-in of the quoted text `text` (quotes included): its start, cut at a blank."""
    inner = text[1:-1]
    cut = inner[: STAND_IN_CHARS - 2]
    if " " in cut:
        cut = cut.rsplit(" ", 1)[0]
    cut = cut.rstrip()
    if not cut:
        return None
    return LongValue(text, text[0] + cut + text[-1], start, _pairs(*_text_forms(cut, inner)), ((cut, inner),))


def _int_digits_limit() -> int:
    """Python's limit on an integer's decimal digits (0: none; sys.get_int_max_str_digits, Python 3.11+)."""
    get = getattr(sys, "get_int_max_str_digits", None)
    return get() if callable(get) else 0


def _word_stand_in(text: str, start: int) -> LongValue:
    """The stand-in of the word `text`: its first STAND_IN_CHARS characters. Raises UsageError for a
    number of more digits than Python reads."""
    short = text[:STAND_IN_CHARS].rstrip(".,_")
    forms = [(short, text), *_text_forms(short, text)]
    values: list[tuple[Any, Any]] = [(short, text)]
    number = _DIGITS.fullmatch(text)
    if number is not None:
        whole = number.group().replace(",", "").replace("_", "")
        digits = sum(c.isdigit() for c in whole.split(".")[0])
        limit = _int_digits_limit()
        if limit and digits > limit:
            raise UsageError(
                f"the number at character {start + 1:,} has {digits:,} digits: Python reads an integer of at "
                f"most {limit:,} (sys.set_int_max_str_digits raises it); write it shorter or as a power"
            )
        plain = short.replace(",", "").replace("_", "")
        forms.append((plain, whole))
        if "." not in whole:
            values.append((int(plain), int(whole)))
    return LongValue(text, short, start, _pairs(*forms), tuple(values))


def stand_ins(task: str) -> tuple[str, list[LongValue]]:
    """(`task` with each value longer than STAND_IN_CHARS replaced by its stand-in, the values set aside in
    the task's order), or (`task`, []) when none is. `task` is a cleaned one (textsafe.clean_task). Read in
    turn: bracketed literals (outermost), quoted text outside them, then words outside both. Raises
    UsageError for a number longer than Python reads (module docstring)."""
    if len(task) <= STAND_IN_CHARS:
        return task, []
    found: list[LongValue] = []
    taken: list[tuple[int, int]] = []

    def free(s: int, e: int) -> bool:
        return not any(a < e and s < b for a, b in taken)

    quoted = quoted_spans(task)
    for s, e in bracket_spans(task):
        if e - s > STAND_IN_CHARS and free(s, e) and not any(a < s and e < b for a, b in quoted):
            value = _literal_stand_in(task[s:e], s)
            if value is not None:
                found.append(value)
                taken.append((s, e))
    whole = (len(task) - len(task.lstrip()), len(task.rstrip()))
    for s, e in quoted:
        if (s, e) == whole:
            continue  # a task in quotes as a whole is no quoted value (values.py _atoms; BFCL writes many)
        if e - s > STAND_IN_CHARS + 2 and free(s, e):
            value = _quoted_stand_in(task[s:e], s)
            if value is not None:
                found.append(value)
                taken.append((s, e))
    for m in _WORD.finditer(task):
        word = m.group().rstrip(".,;:!?")  # a sentence's mark after it is no part of it
        # a number is set aside only where the task's cut would split it: filling reads its value (400
        # digits of hours are seconds times 3,600, a value no stand-in can be written back over)
        longest = MAX_TASK_CHARS if _DIGITS.fullmatch(word) else STAND_IN_CHARS
        if len(word) > longest and free(m.start(), m.end()):
            found.append(_word_stand_in(word, m.start()))
            taken.append(m.span())
    found.sort(key=lambda v: v.start)
    out, at = [], 0
    for v in found:
        out += [task[at : v.start], v.stand_in]
        at = v.start + len(v.whole)
    return "".join([*out, task[at:]]), found
