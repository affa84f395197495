"""A value of the task as filling holds it, and its Python source: the one type every stage of filling passes.

- `Candidate`: one value of the task (or one a parameter declares), its literal, its kind and its span;
- `literal`: the Python source of a plain value, `list_items` the items of a list literal (read, never
  evaluated);
- `as_bytes`: a string value as the bytes literal a parameter of `BYTES` takes; `names_file` and
  `read_bytes`: a file the task names, read for such a parameter, never taken as its name's bytes.

The readers of the task's values are fill/values.py (numbers, strings, lists) and fill/dates.py (dates).
"""

from __future__ import annotations

import ast
import dataclasses
import math
import re
from dataclasses import dataclass
from typing import Any

from gorilla_tui.pool.file_objects import PATH_SHAPED


@dataclass(frozen=True)
class Candidate:
    """One value of the task. text: the Python literal (``10``, ``'report.csv'``, ``[1, 2]``); value: what
    Python reads from it; kind: "number", "string", "date" (an ISO 8601 date the task writes in words),
    "list", "dict" (a literal the task writes), "declared"; start, end: its span in the task
    (character offsets; -1 for a value the parameter declares); atomic: a string the task writes as one
    value (quoted text, a URL, an e-mail address, a path or file name, a formula); percent: for a number
    written with "%", "whole" (5 of "5 %") or "fraction" (0.05, the same span), "" otherwise."""

    text: str
    value: Any
    kind: str
    start: int = -1
    end: int = -1
    atomic: bool = False
    percent: str = ""


def literal(value: Any) -> str:
    """Python source of a plain value: repr for str, int, float, bool, None, and lists/tuples/dicts of them
    (tuples written as lists, as BFCL's decoded form reads them). Raises TypeError for anything else,
    and for an infinite or NaN float (its repr, ``inf``, is a name, not a literal)."""
    if isinstance(value, float) and not math.isfinite(value):
        raise TypeError(f"not a literal value: {value!r}")
    if value is None or isinstance(value, (bool, int, float, str)):
        return repr(value)
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(literal(v) for v in value) + "]"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{literal(k)}: {literal(v)}" for k, v in value.items()) + "}"
    raise TypeError(f"not a literal value: {type(value).__name__}")


def list_items(value: str) -> list[str]:
    """The source of each item of the list literal `value` (``"['a', 1]"`` -> ``["'a'", "1"]``), [] when it
    is no list. Read with ast, never evaluated."""
    try:
        node = ast.parse(value, mode="eval").body
        return [ast.unparse(x) for x in node.elts] if isinstance(node, ast.List) else []
    except (SyntaxError, ValueError, MemoryError, RecursionError):  # unparse recurses as deep as parse
        return []


#: Param.raw_type of a parameter that takes bytes (fill/filler.py takes_bytes): its values are as_bytes's.
BYTES = "bytes"


def as_bytes(c: Candidate) -> Candidate | None:
    """The string candidate `c` as a bytes literal of its UTF-8 encoding (same span; ``'user:secret'`` ->
    ``b'user:secret'``): the task's text converted, not invented. None for a candidate that is not a
    string."""
    if not isinstance(c.value, str):
        return None
    data = c.value.encode("utf-8")
    return dataclasses.replace(c, text=repr(data), value=data)


#: Words right before a value that say it names a file ("the file '/etc/passwd'", "the path 'a b'").
_SAID_FILE = re.compile(r"\b(?:file|path|filename)(?:\s+(?:named|called|at))?\s*$", re.IGNORECASE)
#: The task says the value is text ("the sha256 of the string 'notes.txt'", "the text '/etc/passwd'"):
#: its bytes, whatever its shape (break-it round 27, R27-5).
_SAID_TEXT = re.compile(r"\b(?:string|text|word|phrase|message|password|bytes)\s*$", re.IGNORECASE)


def names_file(c: Candidate, text: str) -> bool:
    """Whether string candidate `c` of task `text` names a file, not text: shaped like a path (a slash, a
    file extension: pool/file_objects.py PATH_SHAPED) or said to be one (_SAID_FILE: "the file 'data'");
    a URL is none, nor a value the task says is text (_SAID_TEXT: "the string 'notes.txt'")."""
    if not isinstance(c.value, str) or "://" in c.value:
        return False
    before = text[: c.start] if c.start >= 0 else ""
    if _SAID_TEXT.search(before):
        return False
    return bool(PATH_SHAPED.search(c.value)) or bool(_SAID_FILE.search(before))


def read_bytes(c: Candidate) -> Candidate:
    """The file candidate `c` names as the call that reads its bytes (``open('/etc/passwd', 'rb').read()``,
    the same span and value): a bytes parameter given a file takes its content, never its name's bytes
    ("compute sha256 of the file '/etc/passwd'" hashed b'/etc/passwd', break-it round 26, R26-2)."""
    return dataclasses.replace(c, text=f"open({literal(c.value)}, 'rb').read()")
