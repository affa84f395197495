"""Python literals a task writes whole: one value each, read by Python's parser, never split into its items.

"turn the list of pairs [('a', 1), ('b', 2)] into a dict" holds one value, the list of pairs; read by a
pattern that knows no nesting it was four (``dict('a', 1, 'b', 2)``), and "turn the bytes b'\\x00\\x01'
into an int" the str 'x00\\x01' (break-it round 30, F-H2). `compound_literals` finds the bracketed spans
and bytes literals of a task (brackets matched in one pass, quoted text inside them skipped) and reads each
with ast.literal_eval (never eval): a list, tuple, dict or set that holds another container, any set, and
any bytes literal is one value. A flat list or tuple (``[3, 1, 2]``, ``(34.2, -64.2)``) is left to
fill/values.py lists, which also offers its items (BFCL's tasks write coordinates and ranges so, and their
functions take the items).

Two more values are written whole, as one token: a network in CIDR notation (`CIDR`, confirmed by `cidr`)
and a path a shell escapes (`ESCAPED_PATH`).
"""

from __future__ import annotations

import ast
import functools
import ipaddress
import re
from typing import Any

#: A network in CIDR notation (10.0.0.0/8, 2001:db8::/32): one string, not an address and the number 8
#: (break-it round 30, F-H2: ip_network('10.0.0.0') was a /32); confirmed by ipaddress (cidr)
CIDR = re.compile(
    r"(?<![\w.:/])(?:\d{1,3}(?:\.\d{1,3}){3}|[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7})/\d{1,3}(?![\w/.])"
)
#: A path written as a shell writes it, a blank or a bracket in its name escaped with a backslash
#: ("/tmp/a\ b.txt", "~/my\ docs/notes.txt"): one value, read unescaped (fill/values.py strings; break-it
#: round 30, F-M5: it was '/tmp/a\\' and 'b.txt'). An unquoted path otherwise ends at white space
#: (fill/unused.py says the words it left behind): "copy /tmp/src notes.txt" names two.
ESCAPED_PATH = re.compile(r"(?<!\S)(?=\S*?\\ )(?:[^\s'\"`\\]|\\[ ()'\"&;\\])+(?!\S)")
#: The escapes ESCAPED_PATH reads: a backslash before a blank, a bracket, a quote, "&", ";" or itself.
SHELL_ESCAPE = re.compile(r"\\([ ()'\"&;\\])")
#: Most bracketed spans one task has read by ast.literal_eval (a task of nested brackets that are no
#: literal, "((((x))))", costs at most this many parses).
MAX_PARSES = 64
_OPENERS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = {v: k for k, v in _OPENERS.items()}
#: A bytes literal's prefix: b, rb or br, in either case, not the end of a word ("verb'", "it's").
_BYTES_PREFIX = re.compile(r"(?<![\w'\"])(?:[bB][rR]?|[rR][bB])(?=['\"])")


def _quote_end(task: str, i: int) -> int:
    """The index after the quote that closes the one at `i` (same character, not escaped by a
    backslash, on the same line), or -1."""
    q = task[i]
    j = i + 1
    while j < len(task):
        c = task[j]
        if c == "\\":
            j += 2
            continue
        if c == "\n":
            return -1
        if c == q:
            return j + 1
        j += 1
    return -1


def _pairs(task: str) -> list[tuple[int, int]]:
    """(start, end) of each bracketed span of `task` whose brackets match, and of each bytes literal, in
    one pass: inside brackets a quote opens quoted text (skipped whole, its brackets none) where it follows
    no word character ("it's" holds no quote)."""
    out: list[tuple[int, int]] = []
    stack: list[int] = []
    i = 0
    while i < len(task):
        c = task[i]
        prefix = _BYTES_PREFIX.match(task, i)
        if prefix is not None:
            end = _quote_end(task, prefix.end())
            if end > 0 and not (end < len(task) and (task[end].isalnum() or task[end] == "_")):
                out.append((i, end))
                i = end
                continue
        if c in _OPENERS:
            stack.append(i)
        elif c in _CLOSERS:
            while stack and task[stack[-1]] != _CLOSERS[c]:
                stack.pop()  # an unclosed bracket inside ("(see [1, 2)") is no span
            if stack:
                out.append((stack.pop(), i + 1))
        elif c in "'\"" and stack and not (i and (task[i - 1].isalnum() or task[i - 1] == "_")):
            end = _quote_end(task, i)
            if end > 0:
                i = end
                continue
        i += 1
    return sorted(out)


def _quoted(task: str) -> list[tuple[int, int]]:
    """(start, end) of each quoted text of `task`, its quotes included: a quote (', " or `) that follows no
    word character opens it ("it's" and b'...' open none), the same quote closes it (_quote_end)."""
    out: list[tuple[int, int]] = []
    i = 0
    while i < len(task):
        if task[i] in "'\"`" and not (i and (task[i - 1].isalnum() or task[i - 1] == "_")):
            end = _quote_end(task, i)
            if end > 0:
                out.append((i, end))
                i = end
                continue
        i += 1
    return out


def _compound(value: Any, source: str) -> bool:
    """Whether `value` read from `source` is one value only whole: bytes, a set, or a container holding a
    container (a flat list or tuple is fill/values.py lists's, its items values too)."""
    if isinstance(value, (bytes, set, frozenset)):
        return True
    if isinstance(value, dict):
        return source.startswith("{")
    if isinstance(value, (list, tuple)):
        return any(isinstance(v, (list, tuple, dict, set, frozenset, bytes)) for v in value)
    return False


@functools.lru_cache(maxsize=64)
def compound_literals(task: str) -> tuple[tuple[int, int, Any, str], ...]:
    """(start, end, value, source) of each Python literal `task` writes whole (module docstring): the
    outermost bracketed span or bytes literal ast.literal_eval reads as a nested list, tuple or dict, a
    dict, a set or bytes; source is the literal as Python writes it (ast.unparse: ``[('a', 1), ('b', 2)]``,
    ``b'\\x00\\x01'``). A bracket after a word is a call or a subscript (``f(x)``, ``a[0]``), no literal, and
    a literal in the task's quotes, or inside quoted text (_quoted: the regex '\\d{3}-\\d{4}' holds no sets),
    is that text ("parse the JSON string '{"a": [1]}'": json.loads takes a str). Cached: filling reads a
    task's values many times."""
    out: list[tuple[int, int, Any, str]] = []
    parses = 0
    quoted = _quoted(task)
    for start, end in _pairs(task):
        if any(s <= start < e for s, e, _v, _t in out):
            continue  # inside a literal already read whole
        if any(a < start and end < b for a, b in quoted):
            continue  # in quoted text: "the pattern '\\d{3}-\\d{4}'" is one string, not a str around {3}, {4}
        if task[start] in "[(" and start and (task[start - 1].isalnum() or task[start - 1] in "_)]"):
            continue
        if 0 < start and end < len(task) and task[start - 1] == task[end] and task[end] in "'\"`":
            continue
        if parses >= MAX_PARSES:
            break
        parses += 1
        text = task[start:end]
        try:
            node = ast.parse(text, mode="eval")
            value = ast.literal_eval(node)
            source = ast.unparse(node)
        except (ValueError, SyntaxError, TypeError, MemoryError, RecursionError):
            continue
        if _compound(value, text):
            out.append((start, end, value, source))
    return tuple(out)


#: (start, end) of each bracketed span and bytes literal of a task, and of each quoted text (long_values.py).
bracket_spans = _pairs
quoted_spans = _quoted


def cidr(text: str) -> bool:
    """True when the standard library reads `text` as a network (``ipaddress.ip_network``, host bits
    allowed: "10.1.2.3/8" is a host's address with its network)."""
    try:
        ipaddress.ip_network(text, strict=False)
    except ValueError:
        return False
    return True
