"""Whether a task speaks of a parameter: its name or everyday words for it in the task ("overwrite",
"recursively"), a negation before them, a path-like name, examples of its description; read by the slots of
fill/call_grammar.py, which offer an optional parameter only when the task speaks of it."""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Protocol

from gorilla_tui.fill.candidate import BYTES, Candidate
from gorilla_tui.pool.params import Param
from gorilla_tui.retrieve.query.handover import handed_input


class TaskValues(Protocol):
    """What this module reads of a task's values (fill/call_grammar.py TaskValues, which imports this module):
    its words, text, and the numbers and strings it states."""

    words: list[str]
    text: str

    @property
    def numbers(self) -> Sequence[Candidate]: ...

    @property
    def strings(self) -> Sequence[Candidate]: ...


#: Parameter names that take a path or URL: offered when the task writes one, named or not.
PATHLIKE = re.compile(r"path|file|dir|folder|url|uri|src|dst|dest|cwd", re.IGNORECASE)


#: Words that make the flag a task speaks of a "no" when they come shortly before it.
_NEGATIONS = re.compile(r"\b(?:not|no|never|without|exclud\w*|don'?t|doesn'?t|isn'?t|nor)\b", re.IGNORECASE)


def name_parts(name: str) -> list[str]:
    """The words of a parameter name (snake_case or camelCase) a task may speak of it by."""
    return [part.lower() for part in re.split(r"_|(?<=[a-z])(?=[A-Z])", name)
            if len(part) > 2 and part.lower() not in ("type", "value", "name")]  # fmt: skip


def negated(param: Param, task: str) -> bool:
    """True when a negation (_NEGATIONS) stands in the 4 words before the first word of `task` that a word
    of the flag's name starts ("do not include the impact": include_human_impact is False)."""
    parts = {part[:4] for part in name_parts(param.name)}
    for m in re.finditer(r"[A-Za-z]+", task):
        if m.group().lower()[:4] in parts:
            before = " ".join(task[: m.start()].split()[-4:])
            return _NEGATIONS.search(before) is not None
    said = spoken_of(param, task)
    if said is not None and any(w.search(said.group()) and negatable for _p, w, negatable in _SPOKEN_OF):
        return _NEGATIONS.search(" ".join(task[: said.start()].split()[-4:])) is not None
    return False


#: Everyday words for a parameter whose name's words a task seldom says, by a word of the name: "overwrite
#: whatever is there" and "don't fail if it's already there" ask for dirs_exist_ok / exist_ok, "including
#: subfolders" for recursive, "falling back to /home/guest" and "a default of /root" for default. (name
#: word, the task's words, whether a negation before them makes a flag False: "don't fail if it's already
#: there" is no "no").
_SPOKEN_OF = (
    ("exist", re.compile(r"\balready\s+(?:there|exists?|present)\b", re.IGNORECASE), False),
    ("exist", re.compile(r"\boverwrit\w*", re.IGNORECASE), True),
    ("recursive", re.compile(r"\bsub-?(?:folders?|dir\w*)\b|\bnested\b", re.IGNORECASE), True),
    # "falling back to /home/guest", "with a default of /root"
    (
        "default",
        re.compile(r"\bfall(?:s|ing)?\s+back\b|\bfallback\b|\bdefault(?:ing)?\b", re.IGNORECASE),
        False,
    ),
    # "run make in the folder build": the working directory a subprocess runs in (subprocess's cwd)
    (
        "cwd",
        re.compile(
            r"\b(?:in|inside|within|from)\s+(?:the\s+)?(?:folder|directory|dir)\b|\bworking\s+dir",
            re.IGNORECASE,
        ),
        False,
    ),
)


def spoken_of(param: Param, text: str) -> re.Match[str] | None:
    """The first of the task's everyday words for `param` (_SPOKEN_OF), or None."""
    parts = set(name_parts(param.name))
    for part, words, _negatable in _SPOKEN_OF:
        if part in parts and (m := words.search(text)):
            return m
    return None


def mentioned(param: Param, task: TaskValues) -> bool:
    """True when a word of the parameter's name (its first 4 letters: "units" for unit, "exploring" for
    exploration_type) starts a word of the task, or the parameter takes a path or URL (PATHLIKE) and the
    task writes one, or the parameter takes bytes and the task hands over its input after a colon
    (retrieve/query/handover.py handed_input): an optional parameter is offered only then ("sort in reverse
    order" offers reverse=True; "the hypotenuse of 4 and 5" does not offer z)."""
    if param.raw_type == BYTES and handed_input(task.text) is not None:
        return True  # "compute the sha256 of this: hello world": the input is the data hashed
    words = {w.lower()[:4] for w in task.words}
    said = " ".join(task.words).lower()
    if any(isinstance(v, str) and re.search(rf"\b{re.escape(v.lower())}\b", said) for v in param.enum):
        return True  # "in imperial units" offers units='imperial'
    if (
        param.type != "boolean"
        and PATHLIKE.search(param.name)
        and any(
            c.value.count("/") or "." in c.value for c in task.strings if c.start >= 0 and " " not in c.value
        )
    ):
        # "list the files in /var/log" offers os.listdir's path; a flag is not a path: a file the task
        # names does not set sqlite3.connect's uri=True
        return True
    parts = name_parts(param.name)
    if param.type == "boolean" and param.kind != "keyword" and len(parts) > 1:
        # a Python flag of several words is asked for by its first, the verb ("sort the keys": sort_keys),
        # not by a noun it shares ("the dict config" asks no sort_dicts); a function-calling source's flags
        # are asked for by their noun ("the temperature and humidity": include_temperature)
        said = parts[0][:4] in words
    else:
        said = any(part[:4] in words for part in parts)
    return said or spoken_of(param, task.text) is not None


#: Where a description lists example values: "(e.g. Drama, Comedy, etc)", "such as 'Open', 'Close'".
_EXAMPLES = re.compile(
    r"(?:\be\.g\.|\bsuch as\b|\bfor example\b|\bfor instance\b)\s*,?\s*([^);]+)", re.IGNORECASE
)
#: Words of a description that say nothing of what its parameter is (not read by _described).
_PLAIN_WORDS = frozenset(
    "default defaults value values number numbers given specified optional parameter which their there "
    "about would should other where while".split()
)


def described(param: Param, task: TaskValues) -> bool:
    """True when the task names a value the parameter's description gives as an example ("The category of
    the film (e.g. Drama, Comedy, etc)": "the Drama and Comedy movies"), or, for a number parameter, a
    number of the task stands beside a word of its description (NEAR: 2 words either side, first 5 letters
    of words of 5 letters or more: "a 0.3 probability of winning" for p, "The probability of success";
    "compounded 4 times" for n, "The number of times that interest is compounded"). An optional parameter
    is offered then, as when the task names it (mentioned)."""
    text = task.text
    for m in _EXAMPLES.finditer(param.description):
        for example in re.split(r",|/|\bor\b|\band\b|\betc\b", m.group(1)):
            example = example.strip(" '\"`.")
            if len(example) > 1 and re.search(rf"(?<!\w){re.escape(example)}(?!\w)", text, re.IGNORECASE):
                return True
    if param.type not in ("integer", "number") or not text:
        return False
    words = {w.lower()[:5] for w in re.findall(r"[A-Za-z]{5,}", param.description)} - {
        w[:5] for w in _PLAIN_WORDS
    }
    for c in task.numbers:
        if c.start < 0:
            continue
        near = re.findall(r"[A-Za-z]+", text[: c.start])[-2:] + re.findall(r"[A-Za-z]+", text[c.end :])[:2]
        if any(len(w) >= 5 and w.lower()[:5] in words for w in near):
            return True
    return False
