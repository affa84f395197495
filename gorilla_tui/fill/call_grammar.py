"""The GBNF grammar of a filled call: each parameter's value is one of the task's values of its type.

The model writes the arguments after ``callee(``; the grammar lets through only calls whose values are the
task's own (fill/values.py), a parameter's enum members, True/False for a boolean, or, for a required
parameter the task gives no value of its type, the parameter's name as a placeholder. Required parameters
come first in declared order, then any optional ones, each at most once.
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Sequence
from dataclasses import dataclass, field

from gorilla_tui.fill.candidate import BYTES, Candidate, as_bytes, literal, names_file, read_bytes
from gorilla_tui.fill.dates import date_part
from gorilla_tui.fill.excluded import kept
from gorilla_tui.fill.shadow import as_typed, shadow
from gorilla_tui.fill.spoken import PATHLIKE, described, mentioned, name_parts, negated, spoken_of
from gorilla_tui.fill.standards import ENCODING_PARAMS, encodings
from gorilla_tui.fill.units import in_seconds, measures_other, named_by_unit, takes_seconds
from gorilla_tui.fill.values import lists, month_numbers, numbers, strings
from gorilla_tui.model.grammar import gbnf_literal
from gorilla_tui.pool.params import Param
from gorilla_tui.retrieve.query.handover import handed_input

#: Kinds of Param a filled call gives by keyword or position (``*args`` and ``**kwargs`` are never filled).
FILLABLE = ("keyword", "positional", "posonly", "kwonly")
_RULE = re.compile(r"[^a-zA-Z0-9]")
#: The characters a quoted value of the task starts with (fill/values.py _QUOTED: its span holds them).
_QUOTES = frozenset("'\"`“‘")
#: Candidate.kind of a variable the task names (fill/kinds.py VARIABLE): a whole value, never a list's item.
WHOLE_VARIABLE = "variable"
#: Words of a string parameter's name or description that take a date the task writes ("May 3rd 2022"):
#: a city parameter does not.
_DATELIKE = re.compile(r"date|day|time|when|period|deadline|schedule|birth|year|month|start|end|since|until",
                       re.IGNORECASE)  # fmt: skip


@dataclass
class Slot:
    """One parameter as the grammar offers it: its values (Python literal source -> the Candidate it comes
    from), or none, then the placeholder alone (a required parameter the task gives no value for); role:
    "source" or "dest" where the call, not the parameter's name, says which path it takes (a receiver
    read from, fill/receivers.py with_spread), "" otherwise (fill/roles.py reads the name)."""

    param: Param
    values: dict[str, Candidate] = field(default_factory=dict)
    role: str = ""

    @property
    def placeholder(self) -> bool:
        return not self.values

    @property
    def is_list(self) -> bool:
        """True for an array parameter whose values are the items, written as ``[item, item]`` (not the
        lists the task writes whole, values_for, nor a variable the task names: fill/kinds.py, the whole
        collection, so "the last 3 items of `queue`" is ``list(queue)``, never ``list([queue])``, and
        "the index of `x` in `items`" never ``list([x, items])``: break-it round 30, F-H4); a ``*args`` slot
        takes its items, variables too (``os.path.join(q1_sales, q2_sales)``)."""
        kinds = {c.kind for c in self.values.values()}
        return (
            self.param.type == "array"
            and not self.param.enum
            and "list" not in kinds
            and (self.param.kind == "var" or WHOLE_VARIABLE not in kinds)  # *args: its items, variables too
        )


@dataclass
class TaskValues:
    """The task's values by kind, read once per task (fill/values.py)."""

    numbers: list[Candidate]
    strings: list[Candidate]
    lists: list[Candidate]
    words: list[str]
    text: str = ""

    @classmethod
    def of(cls, task: str) -> TaskValues:
        """The values of `task`, each string as typed. A combining mark, format character or symbol (_MARKS; a
        name pasted decomposed, as macOS keeps file names: "Re\\u0301sume\\u0301.pdf") is read as a letter
        (MARK_STANDIN, one character for one: the spans stay), since the patterns' ``\\w`` takes none and
        cut the path at each (break-it rounds 20 and 22, R20-2, R22-5); the string values are then taken
        from the task's own characters, so the name keeps its bytes (Linux file names are bytes: putting the
        task in NFC named another, missing file; round 21, R21-1). A word shaped like a path or file name
        (fill/shadow.py PATH_TOKEN) is read whole whatever else it holds (shadow: "report\u20ac2024.txt"
        was the file '2024.txt', break-it round 24, R24-9). A value the task says not to use ("not new.log",
        "but keep backup.txt": fill/excluded.py) is none of its values."""
        shadowed = shadow(task)
        words = re.findall(r"[A-Za-z]+", task)
        if shadowed == task:
            return cls(
                kept(task, numbers(task)), kept(task, strings(task)), kept(task, lists(task)), words, task
            )
        typed = [as_typed(c, task, shadowed) for c in strings(shadowed)]
        return cls(kept(task, numbers(shadowed)), kept(task, typed), kept(task, lists(shadowed)), words, task)


def _declared(values: Sequence[object]) -> dict[str, Candidate]:
    out = {}
    for v in values:
        try:
            out[literal(v)] = Candidate(literal(v), v, "declared")
        except TypeError:
            continue
    return out


#: Parameters that take one part of a date the task writes (fill/dates.py date_part).
DATE_PARTS = frozenset({"year", "month", "day"})
#: Parameters that take a month's number, which a task may name in words (fill/values.py month_numbers).
MONTH_PARAMS = frozenset({"month", "themonth"})
#: Names of a Python parameter of unknown type that takes a sequence: when the task writes a list in
#: brackets, that list is its value ("pick one winner from ['ann', 'bob']": not the 1 of "one").
_SEQUENCE = re.compile(r"seq|sequence|population|iterable|items|elements|data")


#: The words before a file the task writes to, after the one it reads ("compress notes.txt to notes.txt.gz").
_WRITTEN_TO = re.compile(r"\b(?:to|into|as)\s+(?:the\s+|a\s+)?(?:(?:new\s+)?file\s+)?['\"`]?$", re.IGNORECASE)


def values_for(param: Param, task: TaskValues, paths: int = 1) -> dict[str, Candidate]:
    """The values `param` may take for this task: literal source -> Candidate. An enum's members when it has
    one; else by type: integer (the task's whole numbers), number (every number, a percentage as its
    fraction), boolean (True, False), string (the task's strings), array (the lists the task writes whole
    whose items fit the item type, else the values its items may take: the task's numbers or strings by
    the item type; Slot.is_list), object (a dict the task writes as a literal; never one read from words),
    any (numbers, lists, dicts and the strings the task writes as one value: quoted text, URLs, paths). A
    parameter named for a path or URL (PATHLIKE) takes the task's paths and URLs, and its one-word strings
    too when the task writes at least one path but fewer than `paths`, the count of such parameters ("the
    other path"; no path at all leaves the placeholder: "open the zip archive" is no file 'zip'), never the
    text a colon hands over unless it is shaped like a path (handover.py handed_input); where the
    task writes a value shaped like a path (a slash, a file extension), quoted text that is not one is no
    path ("write 'done' to status.txt": the file is status.txt). A date the task writes goes only to a string
    parameter whose name or description speaks of dates or times (_DATELIKE), as ISO 8601, and to a number
    parameter named year, month or day (DATE_PARTS) as that part. A parameter that takes bytes
    (Param.raw_type BYTES, fill/filler.py takes_bytes) takes the text the task quotes, encoded as UTF-8 bytes
    literals (base64.b64encode('user:secret') fails: b64encode takes bytes), and the bytes literals it
    writes (b'abc'); never a path or URL (a file's
    name is not its content: "the sha256 of installer.iso" does not hash b'installer.iso'): a file the task
    names, quoted or not (names_file), is read (read_bytes: ``open('installer.iso', 'rb').read()``). A
    parameter that takes seconds (fill/units.py takes_seconds) takes a time the task writes in seconds."""
    if param.enum:
        return _declared(param.enum)
    if takes_seconds(param.name, param.description):  # "wait 2 minutes": time.sleep(120), units.in_seconds
        task = dataclasses.replace(task, numbers=in_seconds(task.numbers, task.text))
    if param.raw_type == BYTES:  # a bytes-like parameter takes the text the task quotes, encoded
        files = [c for c in task.strings if c.atomic and names_file(c, task.text)]
        handed = handed_input(task.text)  # "base64 encode this: hello world": the input is the data
        quoted = [c for c in task.strings if c.atomic and c not in files
                  and (is_quoted(c, task.text) or (c.start, c.end) == handed)]  # fmt: skip
        out = {b.text: b for c in quoted if (b := as_bytes(c)) is not None}
        out |= {c.text: c for c in task.lists if c.kind == "bytes"}  # b'abc' as the task writes it
        # the file written to is no data read ("compress notes.txt to notes.txt.gz": notes.txt alone)
        read = [c for i, c in enumerate(files) if not (i and _WRITTEN_TO.search(task.text[: c.start]))]
        return out | {b.text: b for b in map(read_bytes, read)}
    t = param.type
    in_dates = [c for c in task.strings if c.kind == "date"]
    if in_dates and param.name in DATE_PARTS and t in ("integer", "number", "any"):
        # "2026-12-25" fills datetime.date(year, month, day) part by part, not with its digits in any order
        parts = {(c := date_part(d, param.name, task.text)).text: c for d in in_dates}
        if param.name == "year":  # and a year the task writes on its own ("the year 2010 ... '2022-12-25'")
            dated = [(d.start, d.end) for d in in_dates]
            parts |= {c.text: c for c in task.numbers if isinstance(c.value, int) and 1000 <= c.value < 3000
                      and not any(s <= c.start < e for s, e in dated)}  # fmt: skip
        return parts
    named_months = month_numbers(task.text) if param.name in MONTH_PARAMS and t in ("integer", "any") else []
    if named_months:  # "february 2024": calendar.monthrange(2024, 2), the month's number, not 2024
        return {c.text: c for c in named_months}
    nums = [c for c in task.numbers if (t != "integer" or isinstance(c.value, int))
            and not measures_other(param.name, c, task.text)]  # fmt: skip
    if t in ("integer", "number"):  # a rate given in percent: 0.03 for a float, 3 for an integer
        return {c.text: c for c in nums if c.percent != ("whole" if t == "number" else "fraction")}
    whole = [c for c in task.numbers if c.percent != "fraction"]
    if t == "boolean":
        return _declared([True, False])
    if t == "string":
        # a date the task writes goes to a date parameter as ISO 8601 (what BFCL's answers all accept),
        # to no other
        dated = {(c.start, c.end) for c in task.strings if c.kind == "date"}
        keep = "date" if _DATELIKE.search(f"{param.name} {param.description}") else None
        strings = [c for c in task.strings if (c.start, c.end) not in dated or c.kind == keep]
        task = dataclasses.replace(task, strings=[c for c in strings if _may_be(param, c)])
    if t == "string" or (t == "any" and PATHLIKE.search(param.name)):
        atoms = [c for c in task.strings if c.atomic]
        if 0 < len(atoms) < paths:  # "copy src to backup/src": a bare word names the other path
            atoms += [c for c in task.strings if not c.atomic and " " not in c.value]
        if atoms and PATHLIKE.search(param.name):  # a path or URL parameter takes the task's path or URL
            handed = handed_input(task.text)  # the text a colon hands over is data, no file's name
            atoms = [c for c in atoms if (c.start, c.end) != handed or PATH_SHAPED.search(c.value)]
            atoms = [c for c in atoms if not encodings([c])]  # "open notes.txt as UTF-16": no file 'UTF-16'
            if any(PATH_SHAPED.search(c.value) for c in atoms):  # "write 'done' to status.txt": not 'done'
                atoms = [c for c in atoms if PATH_SHAPED.search(c.value) or not is_quoted(c, task.text)]
            return {c.text: c for c in atoms}
        if t == "string":
            return {c.text: c for c in task.strings}
    if t == "array":
        # a list the task writes whole ("[3, 4, 5]", "4, 5 and 6") is one value; else the items: the model
        # writes the list one item at a time
        written = [c for c in task.lists if _items_fit(c.value, param.items)]
        if written:
            return {c.text: c for c in written}
        fractions = [c for c in task.numbers if c.percent != "whole"]
        items = {"integer": [c for c in whole if isinstance(c.value, int)], "number": fractions,
                 "string": task.strings}.get(param.items, whole + task.strings)  # fmt: skip
        return {c.text: c for c in items}
    if t == "object":  # a dict only as the task writes it ({"a": 1}), never read from words
        return {c.text: c for c in task.lists if c.kind == "dict"}
    # a parameter of unknown type takes only what the task marks as a value: a number, a list, or quoted
    # text, a URL or a path (a run of words would pass "ein zufälliges Element" to random.choice); not an item
    # of a list it writes whole ("from [1, 2, 3]": the list, not 1)
    inner = [(c.start, c.end) for c in task.lists if task.text[c.start : c.start + 1] in "[("]
    if inner and _SEQUENCE.fullmatch(param.name):  # random.choice(seq) of "pick one from ['a', 'b']"
        return {c.text: c for c in task.lists if c.kind == "list" and (c.start, c.end) in inner}
    items = whole + [c for c in task.strings if c.atomic]
    items = [c for c in items if not any(s < c.start < e for s, e in inner)]
    return {c.text: c for c in items + task.lists}


def _no_paths(param: Param, values: dict[str, Candidate], text: str) -> dict[str, Candidate]:
    """`values` of an optional parameter of unknown type without the paths and URLs the task writes
    unquoted, unless its name says it takes one (PATHLIKE): gzip.open's compresslevel (default a named
    constant) is no file ("compress data.txt with gzip into data.txt.gz"); a bytes parameter's are kept
    (a file is read there, values_for)."""
    if param.required or param.type != "any" or PATHLIKE.search(param.name) or spoken_of(param, text):
        return values  # "falling back to /home/guest": os.getenv's default takes the path
    if param.raw_type == BYTES:
        return values  # a file it names is read (values_for: read_bytes), never taken as its name
    return {k: c for k, c in values.items() if not _path_shaped(c) or is_quoted(c, text)}


def _path_shaped(c: Candidate) -> bool:
    return isinstance(c.value, str) and bool(PATH_SHAPED.search(c.value))


#: A value written like a path or URL: a slash, or a file name's extension at its end.
PATH_SHAPED = re.compile(r"[/\\]|\.[A-Za-z]\w{0,7}$")


def is_quoted(c: Candidate, text: str) -> bool:
    """Whether the task writes candidate `c` in quotes (its span starts with one)."""
    return c.start >= 0 and text[c.start : c.start + 1] in _QUOTES


#: What a date parameter's string value holds: digits, a month or weekday, a day named from today ("today",
#: "next friday"); of the 66 string values of date parameters in BFCL's ground truth every one has it.
_DATE_WORDS = re.compile(
    r"\d|\b(?:jan(?:uary)?|feb(?:ruary)?|mar(?:ch)?|apr(?:il)?|may|june?|july?|aug(?:ust)?|sept?(?:ember)?|"
    r"oct(?:ober)?|nov(?:ember)?|dec(?:ember)?)\b|\b(?:mon|tues|wednes|thurs|fri|satur|sun)day\b|"
    r"\b(?:today|tomorrow|yesterday|tonight|now)\b|\b(?:next|last|this|coming|past|previous)\s+\w+",
    re.IGNORECASE,
)


def _may_be(param: Param, c: Candidate) -> bool:
    """False for a string of the task that cannot be `param`'s value: a word of the parameter's own name
    ("a type of cell" gives cell_shape no 'cell': the task names the thing, not its value; none of BFCL's
    2,311 string answers is one), or, for a parameter named a date, words with no date in them ("last
    year" gives start_date neither 'year' nor 'last': _DATE_WORDS)."""
    if c.kind != "string" or c.atomic:
        return True
    words = {w.lower() for w in re.findall(r"\w+", str(c.value))}
    parts = {p.lower() for p in name_parts(param.name)}
    if words and words <= parts:
        return False
    return "date" not in parts or _DATE_WORDS.search(str(c.value)) is not None


def _items_fit(value: object, items: str) -> bool:
    if not isinstance(value, list):
        return False
    checks = {"integer": lambda v: isinstance(v, int) and not isinstance(v, bool),
              "number": lambda v: isinstance(v, (int, float)) and not isinstance(v, bool),
              "string": lambda v: isinstance(v, str), "boolean": lambda v: isinstance(v, bool)}  # fmt: skip
    check = checks.get(items)
    return check is None or all(check(v) for v in value)


def slots(params: Sequence[Param], task: TaskValues) -> list[Slot]:
    """The Slots of the fillable parameters: each required one (with the placeholder alone when the task has
    no value of its type), and each optional one the task has a value for (an optional parameter with no
    value is left out of the call: its default applies; one the unit of a number of the task names is
    spoken of: "after 5 seconds" offers timeout, fill/units.py). A boolean the task speaks of, required or
    not, offers the one value the task's words give (False after a negation, negated); a year, month or day
    parameter (DATE_PARTS) is filled from a date the task writes, as if required, and an encoding parameter
    from the encoding the task names (fill/standards.py encodings), never from other words. An optional
    parameter of unknown type takes a path or URL only when named for one (_no_paths). *args / **kwargs
    are never offered."""
    out = []
    paths = sum(1 for p in params if p.kind in FILLABLE and p.required and PATHLIKE.search(p.name))
    for p in params:
        if p.kind not in FILLABLE or not p.required and p.has_default and p.enum == (p.default,):
            continue  # the one value it may take is its default: no argument (fill/documented.py)
        values = _no_paths(p, values_for(p, task, paths), task.text)
        if p.name in DATE_PARTS and any(c.kind == "date" for c in task.strings):
            p = dataclasses.replace(p, required=True)  # the date the task writes gives every part of it
        if p.name in ENCODING_PARAMS:  # an encoding's name, the one the task names ("... as UTF-16"), or none
            values = encodings(task.strings)
            p = dataclasses.replace(p, required=p.required or bool(values))
        elif (
            not p.required
            and not mentioned(p, task)
            and not named_by_unit(p.name, task.numbers, task.text)
            and not described(p, task)
        ):
            values = {}  # an optional parameter the task does not speak of keeps its default
        elif p.type == "boolean" and (not p.required or mentioned(p, task)):
            # a flag the task speaks of is asked for ("including human impact"), required or not: given,
            # not left to the model ("if we do not include the impact of human activities": False; a
            # required one, "does it have a specific function": True, 16 of BFCL's 17 on even ids)
            values = _declared([not negated(p, task.text)])
            p = dataclasses.replace(p, required=True)
        if values or p.required:
            out.append(Slot(p, values))
    return out


def python_slots(params: Sequence[Param], offered: list[Slot], task: TaskValues) -> list[Slot]:
    """`offered` (slots) with what only a Python function's signature has: the parameter it acts on
    (with_subject) and its ``*args`` (with_varargs). Not for a method's receiver (fill/filler.py)."""
    return with_varargs(params, with_subject(params, offered, task), task)


def with_subject(params: Sequence[Param], offered: list[Slot], task: TaskValues) -> list[Slot]:
    """`offered`, or, when it is empty, the function's first positional parameter with the task's values for
    it: what the function acts on ("the sha256 of 'hello world'": ``hashlib.sha256(string=b'')``, optional,
    never spoken of by name). Python functions only (a function-calling source's parameters are keywords)
    and not a method's receiver (fill/receivers.py with_spread offers its path)."""
    first = next((p for p in params if p.kind in ("positional", "posonly")), None)
    if offered or first is None:
        return offered
    values = _no_paths(first, values_for(first, task), task.text)
    return [Slot(first, values)] if values else offered


def with_varargs(params: Sequence[Param], offered: list[Slot], task: TaskValues) -> list[Slot]:
    """`offered` with a Python function's ``*args`` (``os.path.join(a, *p)``, ``print(*args)``) offered last,
    optional, as a list of the values the task marks (numbers, strings it writes as one value: quoted
    text, paths, URLs, and each literal it writes in brackets, one item whole: ``dict([('a', 1)])``, its
    own items none), which render.render writes as positional arguments; `offered` itself when the
    function has none, the task marks no value, or an optional positional parameter comes before it (the
    items would bind to that one). "join /home/ann and notes.md" was ``os.path.join('notes.md')``."""
    var = next((p for p in params if p.kind == "var"), None)
    if var is None or any(
        not p.required for p in params[: params.index(var)] if p.kind in ("positional", "posonly")
    ):
        return offered
    # a literal the task writes in brackets is one item, never its own items ("turn the list of pairs
    # [('a', 1), ('b', 2)] into a dict" was dict('a', 1, 'b', 2), break-it round 30, F-H2)
    written = [c for c in task.lists if c.atomic or task.text[c.start : c.start + 1] in "[("]
    inside = [(c.start, c.end) for c in written]
    items = {c.text: c for c in task.numbers if c.percent != "fraction"}
    items |= {c.text: c for c in task.strings if c.atomic}
    items = {k: c for k, c in items.items() if not any(s <= c.start < e for s, e in inside)}
    items |= {c.text: dataclasses.replace(c, kind="literal", atomic=True) for c in written}
    if not items:
        return offered
    return [*offered, Slot(dataclasses.replace(var, type="array", items=""), items)]


def call_grammar(slot_list: Sequence[Slot]) -> str:
    """GBNF for the text after ``callee(``: the required slots in order (``name=value``, ", " between), then
    optional slots in any order, each value one of its slot's, and the closing ")"."""
    rules: list[str] = []
    required, optional = [], []
    for i, slot in enumerate(slot_list):
        name = slot.param.name
        values = [name] if slot.placeholder else list(slot.values)
        rule = f"v{i}-{_RULE.sub('-', name)}"
        alts = " | ".join(gbnf_literal(v) for v in values)
        if slot.is_list and not slot.placeholder:
            rules.append(f"{rule}-item ::= {alts}")
            alts = f'"[" {rule}-item (", " {rule}-item)* "]"'
        rules.append(f"{rule} ::= {alts}")
        item = f"{gbnf_literal(name + '=')} {rule}"
        (required if slot.param.required else optional).append(item)
    opt = ""
    if optional:
        rules.append("opt ::= " + " | ".join(f"({o})" for o in optional))
        opt = '(", " opt)*' if required else '(opt (", " opt)*)?'
    head = ' ", " '.join(required)
    root = " ".join(x for x in (head, opt, '")"') if x)
    return "\n".join([f"root ::= {root}", *rules]) + "\n"
