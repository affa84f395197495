"""What a task writes in backticks: the person's own code (a variable, an expression) or a constant.

StackOverflow's and CoNaLa's way of naming a variable is backticks ("pick 5 from `names`"). Text in
backticks that Python's parser reads as an expression rooted at a name (ast: a Name, then attributes and
subscripts: `names`, `names[0]`, `df.names`, `名前`) is that code, written in the call as it is: never a
string, nor the pieces of it filling would read as values (the list [0] of `names[0]`: break-it round 29,
F11). A keyword or one of Python's constants (`None`, `True`, `class`: keyword.iskeyword) is no variable
(F11: "your variable" None); a name in capitals (`HOME`, `PATH`) is a value's text, as is text the parser
does not read (`git status`, `$HOME`) and a file name (`data.json`: an extension Python's mimetypes knows
by default, or said to be a file: "the file `notes.cfg`").
"""

from __future__ import annotations

import ast
import functools
import keyword
import mimetypes
import re
from dataclasses import dataclass

#: Text in backticks (one line, at most 200 characters, as fill/values.py reads quoted text).
_BACKTICKED = re.compile(r"`([^`\n]{1,200})`")
#: Words right before a value that say it names a file (as fill/candidate.py reads them).
_SAID_FILE = re.compile(r"\b(?:file|path|filename)(?:\s+(?:named|called|at))?\s*$", re.IGNORECASE)


@dataclass(frozen=True)
class Backticked:
    """One span of the task in backticks. code: the expression as written (stripped), "" for no code;
    constant: True for a keyword or constant (`None`, `True`, `class`); start, end: the span, backticks
    included."""

    code: str
    constant: bool
    start: int
    end: int


@functools.lru_cache(maxsize=1)
def _extensions() -> frozenset[str]:
    """File extensions Python's mimetypes knows by default (its own table, not the machine's files)."""
    known = mimetypes.MimeTypes()
    return frozenset(e.lower() for table in known.types_map for e in table) | frozenset(known.encodings_map)


def _rooted(node: ast.expr) -> bool:
    """Whether `node` is a name, or attributes and subscripts of one (``df.names``, ``rows[0]['id']``)."""
    while isinstance(node, (ast.Attribute, ast.Subscript)):
        node = node.value
    return isinstance(node, ast.Name)


def backticked(task: str) -> list[Backticked]:
    """The spans of `task` in backticks, in order, each read as code, a constant or text (module doc)."""
    out = []
    for m in _BACKTICKED.finditer(task):
        text = m.group(1).strip()
        if keyword.iskeyword(text):
            out.append(Backticked("", True, m.start(), m.end()))
            continue
        try:
            node = ast.parse(text, mode="eval").body
        except (SyntaxError, ValueError, MemoryError, RecursionError):
            node = None
        code = node is not None and _rooted(node) and not text.isupper()
        if code and isinstance(node, ast.Attribute):  # data.json: a file, unless an extension no one uses
            file = f".{node.attr.lower()}" in _extensions() or _SAID_FILE.search(task[: m.start()])
            code = not file
        out.append(Backticked(text if code else "", False, m.start(), m.end()))
    return out
