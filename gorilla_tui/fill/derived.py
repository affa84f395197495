"""Values a Python function's parameter takes in another form than the task writes them, each made from the
task's own text by a rule stated here (never invented), for the standard library's functions (python-env):

- `with_commands`: a command line the task writes ("run the command ls -la") is a list of its words
  (shlex.split) for a parameter typeshed types as a command (``subprocess.check_output(['ls', '-la'])``);
- `characters`: characters the task names in words ("with commas" ',', "four spaces" '    ', "every tab"
  '\\t'), for a text parameter (``re.sub('\\t', '    ', line)``) or a string method's receiver
  (``str(',').join(parts)``, `with_text_receiver`), "replace A with B in C" read part by part;
- `with_bytes_names`: the string a task names after its type ("encode the string hello") as the bytes a
  bytes parameter takes (``base64.b64encode(b'hello')``), not a variable of type str;
- `with_formats`: the strptime format of an ISO 8601 date the task writes ('2026-12-06' -> '%Y-%m-%d');
- `with_collected`: a variable the task names passed to a function whose only parameter is ``*args``
  (``set(emails)``);
- `with_no_case`: "ignoring case" as the key or flags that say so (``sorted(names, key=str.lower)``).
"""

from __future__ import annotations

import dataclasses
import re
import shlex
from collections.abc import Sequence

from gorilla_tui.fill.call_grammar import PATH_SHAPED, Slot, TaskValues
from gorilla_tui.fill.candidate import BYTES, Candidate, literal
from gorilla_tui.fill.kinds import VARIABLE, variables
from gorilla_tui.fill.spoken import PATHLIKE
from gorilla_tui.fill.values import NUMBER_WORDS
from gorilla_tui.pool.params import Param
from gorilla_tui.pool.stub_cache import admits, takes_command
from gorilla_tui.retrieve.query.handover import handed_input

#: Kind of a Candidate that is a command line split into its words (its text a list literal, written whole
#: as one item of a ``*popenargs``).
COMMAND = "command"


#: What only a shell reads in a command line: pipes, lists (; && ||), redirections, substitutions and
#: variables ($, backquotes, parentheses), globs, and ~ at a word's start (POSIX shell, section 2.2-2.6).
_SHELL = re.compile(r"[|&;<>`$()*?\[\]]|(?:^|\s)~")


def with_commands(callee: str, offered: Sequence[Slot]) -> list[Slot]:
    """`offered` where a parameter typeshed types as a command line (pool/stub_params.py takes_command:
    subprocess's ``args``, which its signature may write as ``*popenargs``) takes each string the task
    writes as one value (the command after "the command", quoted text, a path) as the list of its words,
    split as a POSIX shell does (shlex.split): "run the command ls -la" is
    ``subprocess.check_output(['ls', '-la'])``, which runs, where ``check_output('ls -la')`` looks for a
    program named "ls -la". A string shlex cannot split (an open quote) is left out, and so is one that
    needs a shell to mean what it says (_SHELL: a pipe, ``&&``, a redirection, ``$HOME``, a glob, ``~``):
    split, "cat /etc/hosts | grep localhost" passed "|" to cat as a file name (break-it round 21, R21-4)."""
    out = []
    for slot in offered:
        name = "args" if slot.param.kind == "var" else slot.param.name
        if not takes_command(callee, name):
            out.append(slot)
            continue
        values = {}
        for c in slot.values.values():
            if c.kind != "string" or not c.atomic or not isinstance(c.value, str):
                continue
            if _SHELL.search(c.value):
                continue
            try:
                words = shlex.split(c.value)
            except ValueError:
                continue
            if words:
                values[literal(words)] = Candidate(literal(words), words, COMMAND, c.start, c.end, True)
        if values or slot.param.required:
            out.append(dataclasses.replace(slot, values=values))
    return out


#: Characters a task names in words, by the word's stem ("commas", "every tab", "a newline").
_CHARACTERS = {
    "tab": "\t", "newline": "\n", "new line": "\n", "line break": "\n", "space": " ", "comma": ",",
    "semicolon": ";", "colon": ":", "dash": "-", "hyphen": "-", "underscore": "_", "pipe": "|",
    "backslash": "\\", "slash": "/", "period": ".", "dot": ".",
}  # fmt: skip
_CHARACTER = re.compile(
    r"\b(?:(\d{1,2}|"
    + "|".join(NUMBER_WORDS)
    + r")\s+)?("
    + "|".join(sorted(_CHARACTERS, key=len, reverse=True)).replace(" ", r"\s+")
    + r")(?:e?s)?\b(?![-'])",
    re.IGNORECASE,
)


def characters(task: str) -> list[Candidate]:
    """The characters `task` names in words (_CHARACTERS), each a string Candidate over the words' span,
    repeated as many times as a count before it says ("four spaces": '    ', "2 newlines": '\\n\\n'; at
    most 20): "join ... with commas" gives ','. ASCII case only, as everywhere a word is read."""
    out = []
    for m in _CHARACTER.finditer(task):
        word = re.sub(r"\s+", " ", m.group(2).lower())
        if word not in _CHARACTERS or not m.group(2).isascii():
            continue
        count = m.group(1)
        n = (int(count) if count.isdigit() else NUMBER_WORDS.get(count.lower(), 0)) if count else 1
        if not 0 < n <= 20:
            continue
        text = _CHARACTERS[word] * n
        out.append(Candidate(literal(text), text, "string", m.start(), m.end(), True))
    return out


def _takes_text(callee: str, param: Param) -> bool:
    """Whether `param` may take a text value the task names: a string or untyped parameter, not a path's,
    not bytes, that its stub lets take a string."""
    return (
        param.type in ("any", "string")
        and param.raw_type != BYTES
        and not PATHLIKE.search(param.name)
        and admits(callee, param.name, "string")
    )


#: Kinds of Param a character is offered to (not a function-calling source's "keyword" ones, nor *args).
_NAMED = ("positional", "posonly", "kwonly")
#: Names of an optional parameter that takes a separator: offered the characters a task names.
SEPARATORS = frozenset({"sep", "separator", "delimiter", "delim", "fillchar"})


def with_characters(callee: str, offered: Sequence[Slot], params: Sequence[Param], task: str) -> list[Slot]:
    """`offered` with the characters the task names (`characters`) offered to each text slot (_takes_text)
    that is offered already, and to an optional separator parameter (SEPARATORS: "split the string line on
    commas" is ``str(line).split(',')``): "replace every tab with four spaces in the string line" offers
    re.sub's pattern and repl '\\t' and '    ' beside the variable line; the words' own run ('tab') is
    taken away. A slot that holds only the input a colon hands over (handed) keeps it alone."""
    named = characters(task)
    if not named:
        return list(offered)
    have = {s.param.name for s in offered}
    wanted = [p for p in params if p.name in SEPARATORS and p.name not in have]
    offered = [*offered, *(Slot(p, {}) for p in wanted if p.kind in _NAMED and _takes_text(callee, p))]
    spans = [(c.start, c.end) for c in named]
    given = {(c.start, c.end) for c in handed(task)}
    out = []
    for slot in offered:
        if slot.param.kind not in _NAMED or not _takes_text(callee, slot.param):
            out.append(slot)
            continue
        if given and {(c.start, c.end) for c in slot.values.values()} == given:
            out.append(slot)  # the input a colon hands over is the text ("split this line on commas: a,b,c")
            continue
        values = {
            k: c for k, c in slot.values.items()
            if not (c.kind == "string" and any(s <= c.start and c.end <= e for s, e in spans))
        }  # fmt: skip
        values |= {c.text: c for c in named}
        if slot.param.name in SEPARATORS and not slot.param.required:  # asked for: given
            slot = dataclasses.replace(slot, param=dataclasses.replace(slot.param, required=True))
        out.append(dataclasses.replace(slot, values=values))
    return replace_roles(out, task)


#: "replace A with B in C": what is replaced, what replaces it, and the text it is done in.
_REPLACE = re.compile(
    r"\breplace\s+(.+?)\s+(?:with|by)\s+(.+?)(?:\s+(?:in|inside|within|of)\s+(.+?))?\s*[.!?]?$", re.IGNORECASE
)
#: Parameter names of each part of "replace A with B in C" (re.sub, str.replace and its receiver).
_REPLACE_ROLES = {"pattern": 1, "old": 1, "repl": 2, "new": 2, "string": 3, "object": 3}
#: "split A on B": the text, and what it is split at (re.split, str.split and its receiver).
_SPLIT = re.compile(r"\bsplit\s+(.+?)\s+(?:on|by|at|with)\s+(.+?)\s*[.!?]?$", re.IGNORECASE)
#: Parameter names of each part of "split A on B" (break-it round 21, R21-4: "split the string row on
#: semicolons" was ``re.split(row, ';')``, the text as the pattern).
_SPLIT_ROLES = {"string": 1, "s": 1, "object": 1, "pattern": 2, "sep": 2, "separator": 2, "delimiter": 2}
#: "join A with B": the items joined, and what joins them (str.join's iterable and its receiver, the
#: separator: Python's documentation, "str.join(iterable): ... The separator between elements is the string
#: providing this method"). Break-it round 29, F2: "join `parts` with commas" was ``str(parts).join(',')``.
_JOIN = re.compile(r"\bjoin\s+(.+?)\s+(?:with|by|using|on)\s+(.+?)\s*[.!?]?$", re.IGNORECASE)
#: Parameter names of each part of "join A with B".
_JOIN_ROLES = {"iterable": 1, "object": 2}


def replace_roles(offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where the parts of "replace A with B in C" go to their parameters by name (_REPLACE_ROLES):
    re.sub's pattern and str.replace's old take the values in A, repl and new those in B, string (and a
    str receiver) those in C: "replace every tab with four spaces in the string line" is
    ``re.sub('\t', '    ', line)`` whatever order the model reads; so do the parts of "split A on B"
    (_SPLIT_ROLES: ``re.split(';', row)``) and of "join A with B" (_JOIN_ROLES: ``','.join(parts)``). A
    slot none of whose values is in its part keeps them all; another task, or a parameter of another name,
    is left as it is."""
    m, roles = _REPLACE.search(task), _REPLACE_ROLES
    if m is None:
        m, roles = _SPLIT.search(task), _SPLIT_ROLES
    if m is None:
        m, roles = _JOIN.search(task), _JOIN_ROLES
    if m is None:
        return list(offered)
    out = []
    for slot in offered:
        group = roles.get(slot.param.name)
        if group is not None and m.group(group):
            start, end = m.span(group)
            inside = {k: c for k, c in slot.values.items() if start <= c.start and c.end <= end}
            slot = dataclasses.replace(slot, values=inside) if inside else slot
        out.append(slot)
    return out


def with_text_receiver(receiver_callee: str, receiver_params: Sequence[Param], offered: list[Slot],
                       task: str, method: str = "") -> list[Slot]:  # fmt: skip
    """`offered` with a string method's receiver (the template's ``str()``: ``str().join(iterable)``) offered
    first, required, when the task names text for it: a character in words ("with commas": ``','.join``),
    a string variable ("the string line": ``line.replace(...)``) or quoted text, or only the input a colon
    hands over when there is one (handed: "split this line on commas: a,b,c"; not for `method` join, whose
    receiver is the separator); `offered` itself for another
    receiver or when the task names none. The receiver is written ``str(',')``, which the checker reads as
    str's (a literal or a variable as the receiver is no call of the pool to it)."""
    if receiver_callee != "str":
        return offered
    given = {c.text: c for c in handed(task)} if method != "join" else {}  # join's receiver: the separator
    if any(s.param.name == "object" for s in offered):  # offered already: the handed input, when any, alone
        return [
            dataclasses.replace(s, values=given) if given and s.param.name == "object" else s for s in offered
        ]
    param = next((p for p in receiver_params if p.name == "object"), None)
    if param is None:
        return offered
    # the string the task names is what the method acts on ("split the string line on commas": line); the
    # characters it names are the receiver only when it names no string (join's separator)
    values = {c.text: c for c in variables(task) if c.value == "string"}
    values = values or {c.text: c for c in characters(task)}
    quoted = [c for c in TaskValues.of(task).strings if c.atomic and task[c.start : c.start + 1] in "'\"`"]
    values |= {c.text: c for c in quoted if not PATH_SHAPED.search(c.value)}
    values = given or values  # the input a colon hands over is the text acted on, alone
    if not values and method != "join":
        # "left pad the number 42 with zeros to 6 digits": str(42).zfill(6), the number the task names as
        # such is the text acted on, and no other parameter's (break-it round 32: str().zfill(42))
        named = {c.text: c for c in TaskValues.of(task).numbers if _NAMED_NUMBER.search(task[: c.start])}
        if named:
            offered = [dataclasses.replace(s, values={t: c for t, c in s.values.items() if t not in named})
                       for s in offered]  # fmt: skip
            values = named
    if not values:
        return offered
    return [Slot(dataclasses.replace(param, required=True), values), *offered]


#: The words before a number a task names as the value acted on: "the number 42", "the integer 7".
_NAMED_NUMBER = re.compile(r"\bthe\s+(?:number|integer|int|value|float)\s+$", re.IGNORECASE)


def handed(task: str) -> list[Candidate]:
    """The input a colon of `task` hands over (retrieve/query/handover.py handed_input: "make this uppercase:
    please read the manual") as one string Candidate, [] when none: the text a string method acts on and
    the data of a bytes parameter."""
    span = handed_input(task)
    if span is None:
        return []
    text = task[span[0] : span[1]]
    return [Candidate(literal(text), text, "string", span[0], span[1], True)]


def with_bytes_names(offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where a bytes parameter (Param.raw_type BYTES) takes the string a task names after its type
    as that text's UTF-8 bytes ("encode the string hello as base64": ``base64.b64encode(b'hello')``), in
    place of a variable of that name: a str variable is no bytes value; the input a colon hands over too
    (handed: "base64 encode this: hello world" -> ``b'hello world'``)."""
    named = [c for c in variables(task) if c.value == "string"]
    named += [dataclasses.replace(c, text=c.value) for c in handed(task)]  # "base64 encode this: hi"
    if not named:
        return list(offered)
    out = []
    for slot in offered:
        if slot.param.raw_type != BYTES:
            out.append(slot)
            continue
        values = {k: c for k, c in slot.values.items() if c.kind != VARIABLE}
        for c in named:
            data = c.text.encode("utf-8")
            values[repr(data)] = Candidate(repr(data), data, "string", c.start, c.end, True)
        out.append(dataclasses.replace(slot, values=values))
    return out


#: An ISO 8601 date with an optional time as a task writes it, and the strptime format of each form.
_ISO = re.compile(
    r"(?<![\d-])\d{4}-\d{2}-\d{2}(?:([T ])\d{2}:\d{2}(?:(:\d{2})(\.\d+)?)?(Z|[+-]\d{2}:?\d{2})?)?(?![\d:-])"
)
#: Parameters that take a strptime format.
_FORMAT_PARAMS = frozenset({"format", "fmt"})


def with_formats(callee: str, offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where a strptime function's format (``datetime.datetime.strptime(date_string, format)``,
    ``time.strptime(data_string, format)``) takes the format of each ISO 8601 date the task writes
    ('2026-12-06' -> '%Y-%m-%d'; with a time '%Y-%m-%d %H:%M' or '...T%H:%M:%S', a fraction '.%f' and a
    UTC offset or "Z" '%z': the whole value, break-it round 30, F-H2), the one form whose
    format follows from the digits alone, and its text parameter the date as written; `offered` itself for
    another function. With no such date the format takes only a format the task writes (a "%" in it):
    "14:00:00+05:30 with strptime" gave the format '05:30' (break-it round 26, R26-1)."""
    if not callee.endswith("strptime"):
        return list(offered)
    found = list(_ISO.finditer(task))
    if not found:
        return [
            dataclasses.replace(s, values={k: c for k, c in s.values.items() if "%" in str(c.value)})
            if s.param.name in _FORMAT_PARAMS
            else s
            for s in offered
        ]
    written = {
        literal(m.group()): Candidate(literal(m.group()), m.group(), "string", m.start(), m.end(), True)
        for m in found
    }
    formats = {}
    for m in found:
        fmt = "%Y-%m-%d" + (f"{m.group(1)}%H:%M" + (":%S" if m.group(2) else "") if m.group(1) else "")
        fmt += (".%f" if m.group(3) else "") + ("%z" if m.group(4) else "")  # "Z", "+05:30": %z reads both
        # no span of the task: the date's own span is its text parameter's, which the same call takes too
        formats[literal(fmt)] = Candidate(literal(fmt), fmt, "string", atomic=True)
    out = []
    for slot in offered:
        if slot.param.name in _FORMAT_PARAMS:
            slot = dataclasses.replace(slot, values=formats)
        elif slot.param.kind in ("positional", "posonly") and slot.param.name.endswith("string"):
            slot = dataclasses.replace(slot, values=written)
        out.append(slot)
    return out


def with_collected(params: Sequence[Param], offered: list[Slot], task: str) -> list[Slot]:
    """`offered`, or, when it is empty and the function's first parameter is ``*args`` (``set(*args)`` as
    inspect reads the builtin), that parameter offered the collection variables the task names ("remove
    duplicates from the list emails": ``set(emails)``), one item."""
    first = next((p for p in params if p.kind != "varkw"), None)
    if offered or first is None or first.kind != "var":
        return offered
    named = {c.text: c for c in variables(task) if c.value in ("array", "any", "object")}
    if not named:
        return offered
    return [Slot(dataclasses.replace(first, type="array", items=""), named)]


#: Words asking for a comparison that ignores case: "ignoring case", "case-insensitive", "regardless of case".
_NO_CASE = re.compile(
    r"\bignor\w*\s+(?:the\s+)?(?:upper\s*/?\s*lower\s*)?case\b|\bcase[- ]?insensitiv\w*"
    r"|\bregardless\s+of\s+case\b",
    re.IGNORECASE,
)
#: What each parameter that makes a comparison ignore case takes: a sort's or min's key (a function of one
#: str) and a regular expression's flags.
_CASE_VALUES = {"key": "str.lower", "flags": "re.IGNORECASE"}


def with_no_case(callee: str, offered: Sequence[Slot], params: Sequence[Param], task: str) -> list[Slot]:
    """`offered` with the parameter that makes a standard-library function compare without case
    (_CASE_VALUES: ``sorted(names, key=str.lower)``, ``re.search(..., flags=re.IGNORECASE)``) given, where
    the task asks for it (_NO_CASE: "sort the list names alphabetically ignoring case"): the value the
    words name, a name Python reads (never evaluated here), for a parameter the function has (re's flags;
    a key its stub types as a function); `offered` itself otherwise."""
    m = _NO_CASE.search(task)
    if m is None:
        return list(offered)
    have = {s.param.name for s in offered}
    out = list(offered)
    for p in params:
        value = _CASE_VALUES.get(p.name)
        if value is None or p.name in have or p.kind not in _NAMED:
            continue
        if p.name == "key" and admits(callee, "key", "string"):
            continue  # a key that is a value (dict.get's), not a function
        if p.name == "flags" and not callee.startswith("re."):
            continue
        c = Candidate(value, value, "name", m.start(), m.end(), True)
        out.append(Slot(dataclasses.replace(p, required=True), {value: c}))
    return out


#: Words asking for the largest first: "in descending order", "reverse order", "highest first", "from the
#: largest to the smallest".
_DESCENDING = re.compile(
    r"\bdescending\b|\breverse(?:d)?\s+(?:sort(?:ed)?\s+)?order\b|\b(?:largest|highest|biggest|greatest|"
    r"newest|latest)\s+first\b|\bfrom\s+(?:the\s+)?(?:largest|highest|biggest|greatest)\s+to\b",
    re.IGNORECASE,
)


def with_descending(offered: Sequence[Slot], params: Sequence[Param], task: str) -> list[Slot]:
    """`offered` with a sort's boolean ``reverse`` parameter (``sorted``, ``list.sort``: Python's "sorted
    as if each comparison were reversed") given True where the task asks for the largest first
    (_DESCENDING: "sort the list `scores` in descending order" is ``scores.sort(reverse=True)``; the
    model had left it out, sorting ascending); `offered` itself otherwise."""
    m = _DESCENDING.search(task)
    param = next((p for p in params if p.name == "reverse" and p.kind in _NAMED), None)
    if m is None or param is None or param.type not in ("boolean", "any"):
        return list(offered)
    c = Candidate("True", True, "declared")  # as a boolean the task speaks of (call_grammar.slots)
    kept = [s for s in offered if s.param.name != "reverse"]
    return [*kept, Slot(dataclasses.replace(param, required=True), {"True": c})]
