"""The biases fill/writer.py adds to the model's choice at each step: nats for where a value stands in the
task (its order, a value written twice, list items the task joins), what it names (an enum member, a word
of the parameter's name beside a value), what earlier calls did (a value used, a further call reading on
after the previous call's values), and the calls the task asks for. The constants were chosen on BFCL's even
ids (docs/benchmarks.md, "BFCL end to end"); the biases of a value's role are fill/roles.py's, of its unit
fill/units.py's.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Collection, Sequence

from gorilla_tui.fill.backticks import backticked
from gorilla_tui.fill.call_grammar import DATE_PARTS, Slot
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.spoken import name_parts

#: Nats added to a value of the task that comes before the previous argument's value ("copy src to
#: backup/src": arguments mostly follow the task's order); chosen on BFCL's even ids (docs/benchmarks.md).
ORDER_BIAS = -1.0
NEXT_BIAS = -0.5
#: Nats added to going on with another call ("; callee(") rather than ending the line (offered only while a
#: value is left for it, _fresh: the model's own preference for ending the line was over 8 nats on every
#: BFCL dev question, parallel ones included), and to a value an earlier call of the task used; chosen on
#: BFCL's even ids (docs/benchmarks.md).
CALL_BIAS = 10.0
#: Nats added to a method called on the previous call's result (fill/chains.py: ``.execute(`` after
#: ``sqlite3.connect('notes.db')``), offered only while the task has a value left that the method takes;
#: chosen on the dev tasks of bench/data/literal_tasks.toml.
CHAIN_BIAS = 20.0
REUSE_BIAS = -3.0
#: Nats added to a list's next item where the task joins it to the previous one ("Personal Info and Job
#: History", "4, 5 and 6"), and to an enum member the task names ("in feet"); chosen on BFCL's even ids
#: (docs/benchmarks.md).
JOIN_BIAS = 6.0
NAMED_BIAS = 3.0
#: Nats added to an optional parameter's value the task marks (a number, a path...) that no call used yet;
#: chosen on BFCL's even ids (docs/benchmarks.md).
OPTIONAL_BIAS = 3.0
#: Nats added to a value the task marks (a number, a list, a string it writes whole) that stands beside a
#: word of the parameter's name ("a loan amount of $500,000": loan_amount; "for 30 days": days), and, in a
#: further call of the same function, to the first unused value after the one the previous call gave that
#: parameter ("from San Francisco to Tokyo ... from Tokyo to Sydney": the second call reads on), and to a
#: function not called yet whose own name's words the task speaks of ("the median ... also the mode":
#: statistics.mode); chosen on BFCL's even ids (docs/benchmarks.md).
NEAR_BIAS = 2.0
#: Nats taken off a value offered to one parameter that stands beside another one's name and not its own
#: (beside_other): "turn {...} into JSON indented by 4 spaces" is json.dumps({...}, indent=4), not
#: json.dumps(4, indent={...}); chosen on the dev tasks of bench/data/literal_tasks.toml.
BESIDE_OTHER_BIAS = 6.0
ON_BIAS = 2.0
MENTION_BIAS = 3.0
#: Nats added to the function the task names next, after the values the calls so far used ("... mix red and
#: blue. Later, another substance ... the density": calculate_density, not mix_paint_color again with the
#: numbers left over): one not called yet (naming.named_after), else a called one named again after new
#: values of its own (naming.named_again); chosen on BFCL's even ids (docs/benchmarks.md).
NEXT_NAMED_BIAS = 8.0
#: Nats added to a value of a series the task enumerates that the call takes by its position (fill/series.py:
#: "Taylor Swift and Maroon 5 ... 20 and 15 minutes": the second call's are Maroon 5 and 15), taken from
#: one of another item of the series; added to another call of a function while its series ask for more
#: calls, and taken from one beyond them; chosen on BFCL's even ids (docs/benchmarks.md).
PLAN_BIAS = 4.0
PLAN_CALL_BIAS = 6.0
#: Words before and after a value that may name its parameter (NEAR_BIAS).
NEAR_BEFORE, NEAR_AFTER = 4, 2
#: What joins a list's items in a task: a comma, "and", "or", "&", an article after them.
_JOIN = re.compile(r"\s*(?:,|,?\s*(?:and|or|&))?\s*(?:(?:a|an|the)\s+)?", re.IGNORECASE)


def marked(c: Candidate, slot: Slot) -> bool:
    """A value the task marks as one: a string it writes whole, digits ("Case No 28473"), or a number for
    a parameter declared a number (a parameter of unknown type, python-env's, does not count numbers: the
    2024 of "05/01/2024" is no second call of strptime; a part of a date the task writes, given to a
    parameter named for it, counts: "2026-12-25" -> datetime.date(2026, 12, 25), call_grammar.DATE_PARTS)."""
    if c.start < 0:
        return False
    if c.kind == "number":
        return slot.param.type in ("integer", "number") or slot.param.name in DATE_PARTS
    if c.kind == "list":
        return True  # a list the task writes whole: "[3, -2, 1] ... and then [1, 0, -1]"
    return c.atomic or str(c.value).isdigit()


def located(c: Candidate, spans: Sequence[tuple[int, int]], task: str) -> Candidate:
    """`c` at the first place the task writes it again outside `spans`, where its own place is in them ("from
    San Francisco to Tokyo ... from Tokyo to Sydney": the second call's Tokyo); `c` itself otherwise (a
    value written once, quoted, or not read from the task)."""
    written = task[c.start : c.end]
    if not task or c.start < 0 or not overlaps(c, spans) or written not in (c.value, c.text):
        return c
    # another place the task writes it on its own, not inside a path ("notes.txt to /mnt/usb/notes.txt")
    for m in re.finditer(rf"(?<![\w./\\~:-]){re.escape(written)}(?![\w/\\-]|\.\w)", task):
        moved = dataclasses.replace(c, start=m.start(), end=m.end())
        if not overlaps(moved, spans):
            return moved
    return c


def overlaps(c: Candidate | None, spans: Sequence[tuple[int, int]]) -> bool:
    return c is not None and c.start >= 0 and any(s < c.end and c.start < e for s, e in spans)


def order_bias(starts: Sequence[int], used: Sequence[tuple[int, int]]) -> list[float]:
    """Nats added to each option by where its value stands in the task: ORDER_BIAS before the last value
    used, NEXT_BIAS after it but not the first value there (arguments mostly follow the task's order: "copy
    src to backup/src"); 0 for the first value after it and for values the task does not write."""
    last = max((e for _s, e in used), default=-1)
    ahead = [s for s in starts if last <= s < 1 << 30]
    first = min(ahead, default=-1)
    return [0.0 if s >= 1 << 30 or s == first else ORDER_BIAS if s < last else NEXT_BIAS for s in starts]


def extra(slot: Slot, c: Candidate, task: str, before: Sequence[tuple[int, int]]) -> float:
    """NAMED_BIAS for an enum member the task names, OPTIONAL_BIAS for a value the task marks (marked)
    (or one beside the parameter's name, near) that no call used yet offered to an optional parameter the
    task speaks of ("less than 500 calories": maxCalories=500), else 0."""
    if named(c, task):
        return NAMED_BIAS
    if (
        not slot.param.required
        and (marked(c, slot) or near(slot.param.name, c, task))
        and not overlaps(c, before)
    ):
        return OPTIONAL_BIAS  # or beside its name: "indented by 4 spaces" is json.dumps' indent=4
    return 0.0


def named(c: Candidate, task: str) -> bool:
    """True for an enum member (a declared string) the task names as a word ("in feet": 'feet')."""
    return (
        c.kind == "declared"
        and isinstance(c.value, str)
        and bool(c.value.strip())
        and re.search(rf"(?<!\w){re.escape(c.value)}(?!\w)", task, re.IGNORECASE) is not None
    )


def joined(task: str, end: int, c: Candidate) -> bool:
    """True when the task joins `c` to the value that ends at `end` by a comma, "and", "or" (_JOIN)."""
    if not task or c.start < 0 or end < 0 or c.start < end:
        return False
    return _JOIN.fullmatch(task[end : c.start]) is not None and bool(task[end : c.start].strip())


@functools.lru_cache(maxsize=64)
def without_code(task: str) -> str:
    """`task` with the code it writes in backticks (fill/backticks.py: a variable, a constant) blanked, one
    space a character (the spans stay): the names of the person's variables are no words of the task's
    ("replace `old` with `new` in `line`": `old` is not the word old beside `new`, so it does not make new
    the value of str.replace's parameter old; break-it round 30, F-H4)."""
    out = task
    for b in backticked(task):
        if b.code or b.constant:
            out = out[: b.start] + " " * (b.end - b.start) + out[b.end :]
    return out


def near(name: str, c: Candidate, task: str) -> bool:
    """True for a value the task marks (a number, a list, a string it writes whole) with a word of the
    parameter's name (its first 4 letters, spoken.name_parts) among the NEAR_BEFORE words before it or
    the NEAR_AFTER words after it ("annual income of $100,000": annual_income; "for 30 days": days)."""
    if not task or c.start < 0 or not (c.kind in ("number", "list") or c.atomic):
        return False
    parts = {p[:4] for p in name_parts(name)}
    text = without_code(task)  # `old` of "replace `old` with `new`" is a name, no word beside new
    around = re.findall(r"[A-Za-z]+", text[: c.start])[-NEAR_BEFORE:] + re.findall(
        r"[A-Za-z]+", text[c.end :])[:NEAR_AFTER]  # fmt: skip
    return bool(parts) and any(w.lower()[:4] in parts for w in around)


def beside_other(k: int, offered: Sequence[Slot], c: Candidate | None, task: str,
                 given: Collection[str] = ()) -> bool:  # fmt: skip
    """True when value `c`, offered to slot `k`, stands beside the name of another slot of the call not
    `given` yet that is offered the same value, and not beside slot `k`'s own (near): "turn {...} into JSON
    indented by 4 spaces" gives json.dumps' obj the dict, not the 4 of indent. A slot given already claims
    nothing ("the zip file data.zip into out/": out/ is extractall's path, file took data.zip). The writer
    takes BESIDE_OTHER_BIAS off it."""
    if c is None or near(offered[k].param.name, c, task):
        return False
    return any(
        j != k and s.param.name not in given and c.text in s.values and near(s.param.name, c, task)
        for j, s in enumerate(offered)
    )


def reads_on(prev: Candidate | None, options: Sequence[tuple[int, Candidate]]) -> int | None:
    """The index of the option whose value is the first after `prev` (the value the previous call of the
    function gave this parameter) of its kind (a string of the same case first letter, whole or not), or None:
    "from Tokyo to Sydney" after "from San Francisco to Tokyo"."""
    if prev is None or prev.start < 0:
        return None

    def alike(c: Candidate) -> bool:
        if c.kind != prev.kind or c.atomic != prev.atomic:
            return False
        return c.kind != "string" or c.atomic or c.value[:1].isupper() == prev.value[:1].isupper()

    after = [(c.start, j) for j, c in options if c.start >= prev.end and alike(c)]
    return min(after)[1] if after else None
