"""Which of two paths is the source and which the destination: the task's words around a value and the
parameter's name ("copy src to backup/src": src='src', dst='backup/src').

The tiny model alone swapped them ("copy src to backup/src" gave ``shutil.copy('backup/src', 'src')``,
"rename a.txt to b.txt" gave ``os.replace('b.txt', 'a.txt')``): a swapped copy or rename overwrites the
wrong file. A value after "to", "into", "onto" or "as" is the destination, one after "from" or right before
"to ..." is the source; a parameter named dst, dest, destination, target, new, output is a destination, one
named src, source, old, orig, input a source. `role_bias` pushes a value to the parameter of its role.
Where the words say nothing, positional parameters take the values the task marks (paths, URLs, numbers)
in the task's order ("extract data.zip into out/": ``zipfile.ZipFile('data.zip').extractall('out/')``).
A value only a regular expression writes goes to a parameter named for a pattern (form_bias). Where the
doc's own words say which parameter is the part and which the whole ("choose k items from n items"), the
task's words say which value is which ("pick 3 people out of 10": k=3, n=10; doc_roles, count_role).
`word_bias` gives these for one step of fill/writer.py.
"""

from __future__ import annotations

import dataclasses
import functools
import re
from collections.abc import Mapping, Sequence

from gorilla_tui.fill.call_grammar import Slot, TaskValues, values_for
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.fill.values import NUMBER_WORDS
from gorilla_tui.pool.params import Param

#: Nats added to a value whose role (from the task's words) is the parameter's, and taken from one whose
#: role is the other: strong enough to outweigh the order and name biases of fill/writer.py, as the words
#: say which file is written.
ROLE_BIAS = 6.0
#: Nats taken from a value the task marks (a path, a URL, a number) offered to a positional parameter that
#: another positional one follows, when the task marks another value before it: the task's order.
ORDER_EXTRA = 3.0
#: Nats added to a value the words make a destination ("into out/", "to a.zip") offered to an optional
#: parameter named for a path with no role of its own (``extractall(path)``, ``urlretrieve(url, filename)``):
#: where the task says to put the result; taken from a source ("extract X to Y": X).
DEST_PATH_BIAS = 5.0
#: Names of a parameter that takes a path to write to (a URL is read, not written).
_PATH_NAMES = re.compile(r"path|file|dir|folder", re.IGNORECASE)
#: Parameter kinds the rule reads: python-env's positional parameters (function-calling tools, keyword,
#: keep the biases BFCL's settings were chosen with).
KINDS = ("positional", "posonly")
#: Name parts of a destination / source parameter.
DEST_NAMES = frozenset(("dst", "dest", "destination", "target", "new", "to", "out", "output", "outfile"))
SOURCE_NAMES = frozenset(("src", "source", "old", "orig", "original", "input", "infile", "from"))
#: Words before a value that make it the destination / the source ("copy X to Y", "copy from X to Y").
_DEST_MARKS = frozenset(("to", "into", "onto", "as"))
_SOURCE_MARKS = frozenset(("from",))
#: Words that may stand between the mark and the value ("to the folder backup/", "as a file named b.txt").
_FILLER = frozenset(
    "a an the file files folder folders directory dir path new name named called location place".split()
)
_WORDS = re.compile(r"[\w'-]+")
#: A link's words right before a value: what it points to is read from (os.symlink's src), the link's own
#: name is written (dst): "make a symlink called latest pointing to build/v2".
_LINK_TARGET = re.compile(r"\bpoint(?:s|ing|ed)?\s+(?:to|at)\s+(?:the\s+)?(?:(?:file|folder|directory)\s+)?$",
                          re.IGNORECASE)  # fmt: skip
_LINK_NAME = re.compile(r"\b(?:sym|hard)?links?\s+(?:called|named|at)\s+$", re.IGNORECASE)


def param_role(param: Param) -> str:
    """ "dest", "source" or "" for a parameter, by the parts of its name (``dst``, ``new_path``: dest)."""
    parts = {p.lower() for p in re.split(r"_|(?<=[a-z])(?=[A-Z])", param.name) if p}
    if parts & DEST_NAMES:
        return "dest"
    if parts & SOURCE_NAMES:
        return "source"
    return ""


def value_role(c: Candidate, task: str) -> str:
    """ "dest", "source" or "" for a value of the task: "dest" after "to", "into", "onto" or "as" (filler
    words such as "the folder" between), "source" after "from" or right before "to" ("copy X to Y": X)."""
    if not task or c.start < 0:
        return ""
    if _LINK_TARGET.search(task[: c.start]):  # "a symlink ... pointing to build/v2": what it links to
        return "source"
    if _LINK_NAME.search(task[: c.start]):  # "a symlink called latest": the link made
        return "dest"
    before = [w.lower() for w in _WORDS.findall(task[: c.start])][-4:]
    while before and before[-1] in _FILLER:
        before.pop()
    if before and before[-1] in _DEST_MARKS:
        return "dest"
    if before and before[-1] in _SOURCE_MARKS:
        return "source"
    after = _WORDS.findall(task[c.end :])[:1]
    if after and after[0].lower() in _DEST_MARKS:
        return "source"
    return ""


def role_bias(param: Param, c: Candidate, task: str, role: str = "") -> float:
    """Nats added to offering value `c` to `param` (fill/writer.py adds them to the model's choice):
    +ROLE_BIAS when the value's role is the parameter's, -ROLE_BIAS when it is the other one (a source or
    destination, or a part or whole where the doc says so, count_role),
    +DEST_PATH_BIAS / -DEST_PATH_BIAS for a destination / a source offered to an optional path parameter
    without a role, 0 when either
    has none or the parameter is not positional (KINDS). `role`: the parameter's role where the call gives
    it (Slot.role), else its name's (param_role)."""
    if param.kind not in KINDS:
        return 0.0
    want = role or param_role(param)
    if want in PART_WHOLE:
        have = count_role(c, task)
        return 0.0 if not have else ROLE_BIAS if want == have else -ROLE_BIAS
    have = value_role(c, task) if want else ""
    if not want and not param.required and _PATH_NAMES.search(param.name):
        role = value_role(c, task)  # "extract X to Y": Y is where to put it, X is not
        return DEST_PATH_BIAS if role == "dest" else -DEST_PATH_BIAS if role == "source" else 0.0
    if not want or not have:
        return 0.0
    return ROLE_BIAS if want == have else -ROLE_BIAS


#: The roles of a count's two values: the part chosen and the whole it is chosen from (doc_roles).
PART_WHOLE = ("part", "whole")
#: Words between a part and its whole, in a doc ("k items from n items") and in a task ("3 out of 10").
_FROM = r"(?:from|out\s+of|of|among|amongst)"
#: Words that may stand before the whole in a task ("out of a total of 10", "from a group of 12").
_WHOLE_FILLER = r"(?:(?:a|an|the)\s+)?(?:(?:total|group|set|pool|list|team|class|deck|bag|box)\s+of\s+)?"
#: Parameter names a doc's words cannot be read for (an article or a preposition reads as one).
_NOT_NAMES = frozenset(("a", "an", "the", "of", "to", "i", "in", "on", "at", "by", "or", "and"))


def doc_roles(description: str, offered: Sequence[Slot], params: Sequence[Param] = (),
              task: TaskValues | None = None) -> list[Slot]:  # fmt: skip
    """`offered` with the roles "part" and "whole" (Slot.role) given to two positional parameters where the
    doc's `description` writes the first one, then "from", "out of", "of" or "among" and the second one
    within a few words ("Number of ways to choose k items from n items": k is the part, n the whole;
    random.sample's "Chooses k unique random elements from a population": k, population); `offered`
    itself otherwise, or where a slot has a role already. One of the two left out of `offered` (an optional
    parameter the task does not name: math.perm's k) is offered, from `params`, when the task gives a value
    of its role (count_role: "4 out of 12"). Python signatures only (KINDS)."""
    have = {s.param.name for s in offered}
    names = [p.name for p in params if p.kind in KINDS] or [
        s.param.name for s in offered if s.param.kind in KINDS
    ]
    names = [n for n in names if n.lower() not in _NOT_NAMES]
    if any(s.role for s in offered if s.param.name in names):
        return list(offered)
    for part, whole in ((a, b) for a in names for b in names if a != b):
        rx = (rf"(?<![\w*]){re.escape(part)}(?![\w*])[\w\s-]{{0,40}}?\b{_FROM}\s+(?:(?:a|an|the)\s+)?"
              rf"{re.escape(whole)}\b")  # fmt: skip
        if not re.search(rx, description):
            continue
        roles = {part: "part", whole: "whole"}
        out = [dataclasses.replace(s, role=roles.get(s.param.name, s.role)) for s in offered]
        for p in params if task is not None else ():
            if p.name in roles and p.name not in have:
                values = values_for(p, task)
                if any(count_role(c, task.text) == roles[p.name] for c in values.values()):
                    after = {q.name for q in params[: list(params).index(p)]}
                    at = sum(1 for s in out if s.param.name in after)
                    out.insert(at, Slot(dataclasses.replace(p, required=True), values, roles[p.name]))
        return out
    return list(offered)


def count_role(c: Candidate, task: str) -> str:
    """ "part" or "whole" for a number, list or value the task writes whole, by the words around it: the
    value before "out of" / "from" / "of" / "among" with another value after it is the part, the one after
    it (with a value before) the whole ("pick 3 poeple out of 10": 3, 10); "10 choose 3": the whole, then
    the part; "taken 3 at a time": the part; "" otherwise ("the factorial of 5": no part before it)."""
    if not task or c.start < 0 or not (c.kind in ("number", "list") or c.atomic):
        return ""
    before, after = task[: c.start], task[c.end :]
    marker = re.search(rf"\b{_FROM}\s+{_WHOLE_FILLER}$", before, re.IGNORECASE)
    if marker and _VALUE.search(before[: marker.start()]):
        return "whole"
    if re.match(
        rf"(?:\s+[A-Za-z'’-]+){{0,3}}\s+{_FROM}\s+{_WHOLE_FILLER}{_VALUE_START}", after, re.IGNORECASE
    ):
        return "part"
    if re.match(r"\s+choose\s+\d", after, re.IGNORECASE):
        return "whole"
    if re.search(r"\d\s+choose\s+$|\btaken\s+$", before, re.IGNORECASE):
        return "part"
    return ""


#: A value in a task: digits, a list, quoted text, a number word (fill/values.py NUMBER_WORDS).
_WORDS_OF_NUMBERS = "|".join(sorted(NUMBER_WORDS, key=len, reverse=True))
_VALUE = re.compile(rf"\d|\]|(?<!\w)['\"]|\b(?:{_WORDS_OF_NUMBERS})\b", re.IGNORECASE)
_VALUE_START = rf"(?:\d|\[|['\"]|(?:{_WORDS_OF_NUMBERS})\b)"


def writes_to_path(params: Sequence[Param]) -> bool:
    """True when one of a method's `params` is the path it writes to: named a destination (param_role) or
    an optional path parameter without a role (``extractall(path)``, which DEST_PATH_BIAS gives the
    destination): the object it is called on is then what is read ("extract backup.tar.gz to /opt/app":
    ``tarfile.TarFile('backup.tar.gz').extractall('/opt/app')``)."""
    return any(
        p.kind in KINDS
        and (param_role(p) == "dest" or not param_role(p) and not p.required and _PATH_NAMES.search(p.name))
        for p in params
    )


#: Names of a parameter that takes a regular expression (re.match(pattern, string), fnmatch's pat).
PATTERN_NAMES = frozenset(("pattern", "pat", "regex", "regexp"))
#: What only a regular expression writes: an escaped class (\d, \w, \s, \b), an anchor at an end, a
#: character set, a group's (?...), a repeat of a set or a dot (.*, ]+, {2}).
_REGEX_FORM = re.compile(r"\\[dDwWsSbB]|^\^|(?<!\\)\$$|\[[^\]]+\][*+?{]|\(\?|\.[*+]|\{\d+(?:,\d*)?\}")


def form_bias(offered: Sequence[Slot], k: int, c: Candidate) -> float:
    """Nats added to offering value `c` to slot `k`, by the value's form: a string that only a regular
    expression writes (_REGEX_FORM: ``'^[a-z]+\\d+$'``) gets +ROLE_BIAS at a parameter named for a pattern
    (PATTERN_NAMES) and -ROLE_BIAS at another where one is offered ("check if 'hello123' matches the regex
    '^[a-z]+\\d+$'": ``re.fullmatch('^[a-z]+\\d+$', 'hello123')``, not the task's order); 0 otherwise or
    for a parameter not positional (KINDS)."""
    param = offered[k].param
    if param.kind not in KINDS or not isinstance(c.value, str) or not _REGEX_FORM.search(c.value):
        return 0.0
    if param.name.lower() in PATTERN_NAMES:
        return ROLE_BIAS
    return -ROLE_BIAS if any(s.param.name.lower() in PATTERN_NAMES for s in offered) else 0.0


#: The role of a method's receiver (Slot.role, fill/filler.py target_of) and of a function's parameter named
#: for what it acts on (CONTAINER_NAMES): the object the task's words say the call looks in or acts on.
CONTAINER = "container"
#: Names of a Python function's parameter that takes what it looks in or acts on (re.findall's string,
#: random.sample's population, bisect.insort's a): a value the task writes after "in" or "of" goes there.
CONTAINER_NAMES = frozenset(
    "a s seq sequence iterable population string text data items elements mapping container collection lst "
    "arr array".split()
)
#: Words before a value that make it what the call looks in or acts on: "in `line`", "into the sorted list
#: `xs`", "from the dict `d`" (strong), or "of `queue`" (read only where no strong word marks a value: "the
#: index of `x` in `items`" acts on items).
_STRONG_MARKS = frozenset(("in", "into", "inside", "within", "from"))
_WEAK_MARKS = frozenset(("of",))
#: Words after a value that make it what is looked in: "`s` starts with `prefix`", "`line` contains 'x'".
_SUBJECT_OF = re.compile(
    r"\s+(?:does\s+not\s+|doesn't\s+)?(?:start|begin|end|contain|match|include)(?:s|es)?\b", re.IGNORECASE
)
#: Words that mark it only with a type's name after them: "append `item` to the list `results`" (not
#: "rename `a` to `b`").
_TYPED_MARKS = frozenset(("to", "onto"))
_TYPE_WORDS = frozenset(
    "list dict dictionary set string str tuple array sequence queue deque bytes mapping".split()
)
#: Words that may stand between such a word and the value: an article, a possessive, a type's name and an
#: adjective of order ("from the dict `d`", "into the sorted list `xs`").
_CONTAINER_FILLER = frozenset(
    "the a an my your our this that given sorted whole original input list dict dictionary string str set "
    "tuple array sequence queue deque text bytes mapping iterable collection variable object".split()
)
#: A value the task writes as one piece: code in backticks, quoted text, a list or dict in brackets.
_WRITTEN_WHOLE = re.compile(
    r"`[^`\n]{1,200}`|'[^'\n]{1,200}'|\"[^\"\n]{1,200}\"|\[[^\]\n]{0,400}\]|\{[^}\n]{0,400}\}"
)


@functools.lru_cache(maxsize=64)
def container_starts(task: str) -> frozenset[int]:
    """Where the values the task's words make what the call acts on start: each value written as one piece
    (_WRITTEN_WHOLE: `code`, quoted text, a list or dict literal) right after "in", "into", "inside",
    "within" or "from" (_CONTAINER_FILLER words between: "from the dict `d`"), or, where none is, after "of"
    ("the last 3 items of `queue`"); after "to" or "onto" only with a type's name between ("append `item`
    to the list `results`"; "rename `a` to `b`" names no container); before "starts with", "ends with",
    "contains", "matches" ("whether `s` starts with `prefix`": s is looked in). Break-it round 30, F-H4:
    "replace `old` with `new` in `line`" had ``str(old).replace(new, line)``, "find the index of `x` in
    `items`" ``list([x, items]).index(value)``."""
    strong, weak = set(), set()
    for m in _WRITTEN_WHOLE.finditer(task):
        words = [w.lower() for w in _WORDS.findall(task[: m.start()])][-5:]
        before = list(words)
        while before and before[-1] in _CONTAINER_FILLER:
            before.pop()
        typed = any(w in _TYPE_WORDS for w in words[len(before) :])  # "to the list `results`"
        if before and (before[-1] in _STRONG_MARKS or before[-1] in _TYPED_MARKS and typed):
            strong.add(m.start())
        elif _SUBJECT_OF.match(task, m.end()):  # "whether `s` starts with `prefix`": s is looked in
            strong.add(m.start())
        elif before and before[-1] in _WEAK_MARKS:
            weak.add(m.start())
    return frozenset(strong or weak)


def is_container_slot(slot: Slot) -> bool:
    """Whether `slot` takes what the call acts on: a method's receiver (role CONTAINER, fill/filler.py), the
    whole a doc's words choose from (doc_roles) or a Python parameter without a role named for it
    (CONTAINER_NAMES)."""
    if slot.role:
        return slot.role in (CONTAINER, "whole")  # doc_roles' whole: random.sample's population
    return slot.param.kind in KINDS and slot.param.name.lower() in CONTAINER_NAMES


def with_container(offered: Sequence[Slot], task: str) -> list[Slot]:
    """`offered` where what the task's words make the call act on (container_starts) goes to the slot that
    takes it alone. A method's receiver (role CONTAINER) offered such a value is offered only those, and the
    method's own slots none of them: "remove `key` from the dict `cache`" is ``dict(cache).pop(key)``
    whatever the model reads of the names (it wrote ``dict(key).pop(cache)``). For a function, a parameter
    named for it (is_container_slot: re.findall's string) keeps its values and the others lose it: "find
    all e-mail addresses in `text`" leaves re.findall's pattern a placeholder, not `text` (the only value it
    had been offered, so container_bias could not move it). A slot left with no value keeps its
    placeholder when required and is dropped when optional; `offered` itself where no such slot is offered
    such a value."""
    starts = container_starts(task)
    holder = next((s for s in offered if is_container_slot(s)
                   and any(c.start in starts for c in s.values.values())), None)  # fmt: skip
    if holder is None:
        return list(offered)
    out = []
    for slot in offered:
        if slot is holder and slot.role != CONTAINER:
            values = dict(slot.values)  # a parameter's name is weaker than a receiver: the model decides
        elif slot.role == CONTAINER:
            values = {k: c for k, c in slot.values.items() if (c.start in starts) == (slot is holder)}
        else:
            values = {k: c for k, c in slot.values.items() if c.start not in starts}
        if values or slot.param.required:
            out.append(dataclasses.replace(slot, values=values))
    return out


def container_bias(offered: Sequence[Slot], k: int, c: Candidate, task: str) -> float:
    """Nats added to offering value `c` to slot `k` by what the task's words make it (container_starts): a
    value the call acts on gets +ROLE_BIAS at a slot that takes it (is_container_slot) and -ROLE_BIAS at
    another where the call has such a slot ("get the key `k` from the dict `d`": ``dict(d).get(k)``, not
    ``dict(k).get(d)``; "using re find all email addresses in `text`": re.findall's string, never its
    pattern); 0 otherwise."""
    if c.start < 0 or c.start not in container_starts(task):
        return 0.0
    if is_container_slot(offered[k]):
        return ROLE_BIAS
    return -ROLE_BIAS if any(is_container_slot(s) for s in offered) else 0.0


def _marks(c: Candidate) -> bool:
    return c.start >= 0 and (c.atomic or c.kind == "number")


def word_bias(offered: Sequence[Slot], options: Sequence[tuple[int, str, str]],
              where: Mapping[tuple[int, str], Candidate], task: str) -> list[float]:  # fmt: skip
    """Nats added to each option of one step of fill/writer.py (options: (slot index, value source,
    origin), where: (slot index, value source) -> its Candidate): role_bias, form_bias, and -ORDER_EXTRA
    for a value the task marks offered to a positional parameter (KINDS) that a later positional slot
    follows, when another value it marks stands before it among the options of that slot (not where the
    value's form says where it goes, form_bias, or the words what the call acts on, container_bias)."""
    first: dict[int, int] = {}
    for k, v, o in options:
        c = where.get((k, v))
        if o == "task" and c is not None and _marks(c):
            first[k] = min(first.get(k, c.start), c.start)
    out = []
    for k, v, o in options:
        c = where.get((k, v))
        if o != "task" or c is None:
            out.append(0.0)
            continue
        param = offered[k].param
        form = form_bias(offered, k, c)
        role = offered[k].role if offered[k].role != CONTAINER else ""
        acts_on = container_bias(offered, k, c, task)
        bias = role_bias(param, c, task, role) + form + acts_on
        later = any(s.param.kind in KINDS for s in offered[k + 1 :])
        if (
            not form
            and not acts_on
            and param.kind in KINDS
            and later
            and _marks(c)
            and c.start > first.get(k, c.start)
        ):
            bias -= ORDER_EXTRA
        out.append(bias)
    return out
