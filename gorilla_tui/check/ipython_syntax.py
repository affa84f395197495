"""A notebook cell's IPython syntax made Python, line for line, the way IPython's input transformers read it.

IPython turns a cell into Python before it compiles it (IPython 8, ``IPython/core/inputtransformer2.py``;
the docs' "Custom input transformation", ipython.readthedocs.io/en/stable/config/inputtransforms.html). The
rules kept here are the ones that decide what a cell means, each at the start of a *logical* line (not
inside brackets, a string or after a backslash continuation, as IPython finds them by tokens):

- an escaped command, a line whose first character is ``!`` / ``!!`` (shell), ``%`` / ``%%`` (magic),
  ``?`` / ``??`` (help), or ``,`` ``;`` ``/`` (autocall): IPython's ``EscapedCommand``;
- ``name = !cmd`` and ``name = %magic args``: ``SystemAssign`` and ``MagicAssign``;
- a line ending in ``?`` or ``??`` after a (dotted, ``*``-wildcard) name: ``HelpEnd``, whose pattern is
  IPython's ``_help_end_re``.

Each becomes a line of Python that keeps the cell's lines and columns (a finding elsewhere in the cell keeps
its position): ``pass`` at the line's indentation for a command (IPython's ``get_ipython().system(...)``
call is no API call of any pool), ``TARGET = []`` / ``TARGET = None`` for an assignment (the name stays
bound, as the kernel binds it), and for the line magics that run their argument as Python (``%time``,
``%timeit``, ``%prun``: TIMED_MAGICS) ``if 1:`` padded to the magic's width followed by the argument, so
``%time model = torch.hub.load(...)`` is checked as the Python it runs. A magic with options (``%timeit -n
10 f()``) or an argument that is no simple statement is ``pass``: not checked.

Break-it round 9 (R3): ``files = !ls`` or ``shutil.copytree?`` in one cell made the whole notebook "not
Python 3 syntax", so a made-up call in another cell was never reported (exit 0).
"""

from __future__ import annotations

import ast
import re

#: Line magics whose argument IPython runs as Python code in the user's namespace (IPython's
#: ``ExecutionMagics``: ``%time statement``, ``%timeit statement``, ``%prun statement``).
TIMED_MAGICS = frozenset({"time", "timeit", "prun"})
#: First characters of IPython's escaped commands (inputtransformer2 ESC_SHELL "!", ESC_MAGIC "%",
#: ESC_HELP "?", ESC_QUOTE ",", ESC_QUOTE2 ";", ESC_PAREN "/"; doubled forms start with the same one).
ESCAPES = ("!", "%", "?", ",", ";", "/")
#: IPython's ``_help_end_re`` (inputtransformer2): ``obj?``, ``obj.attr??``, ``%magic?``, ``np.*load*?``.
_HELP_END = re.compile(r"%{0,2}(?!\d)[\w*]+(?:\.[\w*]+)*\?\??$")
#: The characters _scan stops at outside a string, and inside a string of each quote.
_SPECIAL = re.compile(r"[#'\"()\[\]{}]")
_IN_STRING = {q: re.compile(r"[\\" + q + "]") for q in "'\""}


def python_lines(src: str) -> list[str]:
    """The lines of cell text `src` (split on "\\n") with IPython's syntax made Python as the module doc
    says, as many lines as `src` has, every other line as it is."""
    lines = src.split("\n")
    out: list[str] = []
    depth, quote, continued, escaped = 0, "", False, False
    for line in lines:
        if escaped:  # a backslash-continued line of an escaped command: part of that command
            out.append("")
            escaped = line.rstrip().endswith("\\")
            continue
        if depth == 0 and not quote and not continued:
            made = _command(line)
            if made is not None:
                out.append(made)
                escaped = line.rstrip().endswith("\\")
                continue
        out.append(line)
        depth, quote, continued = _scan(line, depth, quote)
    return out


def _command(line: str) -> str | None:
    """The Python line for `line` when it is one of IPython's commands (the module doc), else None."""
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    if stripped.startswith(ESCAPES):
        if stripped.startswith("%") and not stripped.startswith("%%"):
            name, _, arg = stripped[1:].partition(" ")
            arg = arg.lstrip()
            width = len(stripped) - len(arg)
            if name in TIMED_MAGICS and arg and not arg.startswith("-") and width >= len("if 1: "):
                made = "if 1:" + " " * (width - len("if 1:")) + arg
                if _parses(made):
                    return indent + made
        return indent + "pass"
    if _HELP_END.match(stripped.rstrip()):
        return indent + "pass"
    target, eq, value = stripped.partition("=")  # no regex: "a" + 50,000 spaces + "b" took 3.6 s in one
    kind = value.lstrip()[:1]
    if eq and kind in ("!", "%") and target.strip() and not any(c in target for c in "!%#'\""):
        if _parses(target + " = None"):
            return indent + target.rstrip() + (" = []" if kind == "!" else " = None")
    return None


def _parses(code: str) -> bool:
    """True when `code` alone compiles (one line: a simple statement or an assignment target)."""
    try:
        ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return True


def _scan(line: str, depth: int, quote: str) -> tuple[int, str, bool]:
    """The bracket depth, the open string's quote ("" for none) and whether the line continues with a
    backslash, after `line`, starting at `depth` inside `quote`: a small scanner of Python's lexical rules
    (strings, triple-quoted strings, comments, brackets), enough to tell where a logical line starts. It
    jumps from one character that matters to the next (_SPECIAL), so a long line costs one regex pass."""
    i, n = 0, len(line)
    while i < n:
        if quote:
            m = _IN_STRING[quote[0]].search(line, i)
            if m is None:
                break
            i = m.start()
            if line[i] == "\\":
                i += 2
            elif line.startswith(quote, i):
                i, quote = i + len(quote), ""
            else:
                i += 1
            continue
        m = _SPECIAL.search(line, i)
        if m is None:
            break
        i, c = m.start(), m.group()
        if c == "#":
            return depth, "", False
        if c in "\"'":
            quote = line[i : i + 3] if line[i : i + 3] in ('"""', "'''") else c
            i += len(quote)
            continue
        if c in "([{":
            depth += 1
        elif c in ")]}":
            depth = max(depth - 1, 0)
        i += 1
    continued = line.endswith("\\")
    if len(quote) == 1 and not continued:  # a one-quote string ends with its line (or is an error)
        quote = ""
    return depth, quote, continued
