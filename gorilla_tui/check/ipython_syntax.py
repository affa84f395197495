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
its position): ``pass`` at the line's indentation for a command (IPython's ``get_ipython().system(...)`` call
is no API call of any pool), ``TARGET = []`` / ``TARGET = None`` for an assignment (the name stays bound, as
the kernel binds it; ``TARGET = CODE`` when the magic runs Python: ``t = %timeit -o f()``), and for what
IPython runs as Python (run_code): the line magics that run their argument (``%time``, ``%timeit``, ``%prun``,
``%debug``: PYTHON_LINE_MAGICS, their options read as IPython 8's parse_options reads them, magics nested in
them unwrapped) and the autocalls (``/f x`` is ``f(x)``), ``if 1:`` padded to the command's width followed by
the code, so ``%time model = torch.hub.load(...)`` is checked as the Python it runs. A backslash-continued
command is read whole, as IPython assembles it. A line IPython runs as Python that is not turned into it here
is ``pass`` and listed in CellLines.unread: the caller names it in a note, never skips it in silence (break-it
round 11: ``%time %time f()``, ``%timeit -n1 f()``, ``%time \\`` and ``/f x`` passed a hook unchecked, exit
0); so is a help line (CellLines.help: ``x?`` became ``pass`` in silence, round 13). Magic names are read
through IPython's own aliases (MAGIC_ALIASES), and a notebook cell is split into lines as IPython splits it
(cell_lines).

Break-it round 9 (R3): ``files = !ls`` or ``shutil.copytree?`` in one cell made the whole notebook "not
Python 3 syntax", so a made-up call in another cell was never reported (exit 0).
"""

from __future__ import annotations

import ast
import getopt
import re
import shlex
from dataclasses import dataclass, field

from gorilla_tui.check.ipython_script import script_python


@dataclass(frozen=True)
class PythonMagic:
    """How IPython 8 runs one magic that runs Python (IPython/core/magics/execution.py, ``ExecutionMagics``;
    script.py for ``%%python``; osm.py for ``%%capture``). options: the getopt letters its line reads
    ("" none; None: an argparse line, run as it is only when it has no option); line: as a line magic
    (``%timeit f()``) its argument after the options runs as Python; cell_line: as a cell magic, what
    follows the options on its ``%%`` line runs as Python too (``%%timeit -n1 SETUP``: timeit's setup
    statement; ``%%debug STATEMENT``: run before the body); the body of each runs as Python. script: one
    of IPython's ``%%script`` shortcuts (script.py ScriptMagics.script_magics: ``%%python3 ARGS`` runs
    ``%%script python3 ARGS``), its body Python only when that line reads so (check/ipython_script.py)."""

    options: str | None
    line: bool
    cell_line: bool
    script: bool = False


#: The one table of the magics that run Python, line and cell forms (read_cell, run_code, and
#: notebook.py's cells): ``%time statement`` (no options; ``%%time`` refuses a statement on its line),
#: ``%timeit -n1 -r1 statement`` ("n:r:tcp:qo"), ``%prun -s cumtime statement`` ("D:l:rs:T:q": as a cell
#: magic its line holds options only), ``%debug statement``; ``%%capture`` runs its body only, and so do
#: ``%%python``, ``%%python3`` and ``%%pypy``, the Python ones of IPython's default script magics
#: (script.py ``_script_magics_default``: sh, bash, perl, ruby, python, python2, python3, pypy; python2 is
#: no Python 3), as ``%%script`` with a Python does (cell_python). Break-it round 12: ``%%timeit -n1
#: -r1 import shutil; shutil.copytree('x')`` ran its setup unchecked and unnoted, exit 0; round 13:
#: ``%%script python3`` and ``%%pypy`` cells were neither checked nor noted.
PYTHON_MAGICS: dict[str, PythonMagic] = {
    "time": PythonMagic("", line=True, cell_line=False),
    "timeit": PythonMagic("n:r:tcp:qo", line=True, cell_line=True),
    "prun": PythonMagic("D:l:rs:T:q", line=True, cell_line=False),
    "debug": PythonMagic(None, line=True, cell_line=True),
    "capture": PythonMagic(None, line=False, cell_line=False),
    "python": PythonMagic(None, line=False, cell_line=False, script=True),
    "python3": PythonMagic(None, line=False, cell_line=False, script=True),
    "pypy": PythonMagic(None, line=False, cell_line=False, script=True),
}
#: Line magics whose argument IPython runs as Python, with the option letters each reads (PYTHON_MAGICS).
PYTHON_LINE_MAGICS: dict[str, str | None] = {k: m.options for k, m in PYTHON_MAGICS.items() if m.line}
#: IPython's own aliases of its magics, by kind (interactiveshell.py ``init_magics``: register_alias('ed',
#: 'edit'), ('hist', 'history'), ('rep', 'recall'), ('SVG', 'svg', 'cell'), ('HTML', 'html', 'cell'),
#: ('file', 'writefile', 'cell')): a magic's name is read through them (magic_name). Break-it round 13:
#: ``%%file m.py`` was "cell not run" and the next cell's ``import m`` "pip install m".
MAGIC_ALIASES: dict[str, dict[str, str]] = {
    "line": {"ed": "edit", "hist": "history", "rep": "recall"},
    "cell": {"SVG": "svg", "HTML": "html", "file": "writefile"},
}


def magic_name(kind: str, name: str) -> str:
    """The magic IPython runs for `name` of `kind` ("line" or "cell"), aliases resolved (MAGIC_ALIASES)."""
    return MAGIC_ALIASES[kind].get(name, name)


def cell_magic(lines: list[str]) -> tuple[int, str, str] | None:
    """(0-based line, magic name with aliases resolved, the rest of its line) of the cell magic that cell
    `lines` (cell_lines) start with, else None: IPython 8's cell_magic transformer (inputtransformer2.py) on
    the first line that is not blank (leading_empty_lines, leading_indent), ``%%NAME ARGS`` split at its
    first space after trailing blanks are cut. ``%%time?`` is help, not a cell magic (IPython leaves it to
    help_end, the rest of the cell is Python)."""
    first = next((k for k, ln in enumerate(lines) if ln.strip()), None)
    if first is None or not lines[first].lstrip().startswith("%%") or _CELL_HELP.match(lines[first].lstrip()):
        return None
    name, _, arg = lines[first].strip()[2:].partition(" ")
    return first, magic_name("cell", name), arg


def cell_python(name: str, arg: str) -> str:
    """What cell magic `name` (aliases resolved) with line `arg` runs of the cell's body: "python" (the
    kernel's Python, or a Python it starts: ``%%python3``, ``%%script /usr/bin/python3.12 --bg``),
    "unread" (a Python started with arguments not read here, ``%%python -x``: said to be not checked) or
    "other": another language (``%%bash``, ``%%html``, ``%%writefile``, ``%%script python3 -c CODE``)."""
    if name == "script":
        return script_python(arg)
    magic = PYTHON_MAGICS.get(name)
    if magic is not None and magic.script:
        return script_python(f"{name} {arg}")
    return "python" if magic is not None else "other"


def cell_lines(src: str) -> list[str]:
    """The lines of notebook cell text `src` as IPython 8 splits a cell (TransformerManager.transform_cell:
    ``str.splitlines``, so CR alone ends a line too), the one split `check` and `run` use for a cell's
    magics and the positions of its findings. Break-it round 13: a CR-only cell's ``%%time`` line was read
    with its body as one line (not checked, exit 0), and a CR-only cell's finding was placed at 1:15."""
    return src.splitlines()


#: First characters of IPython's escaped commands (inputtransformer2 ESC_SHELL "!", ESC_MAGIC "%",
#: ESC_HELP "?", ESC_QUOTE ",", ESC_QUOTE2 ";", ESC_PAREN "/"; doubled forms start with the same one).
ESCAPES = ("!", "%", "?", ",", ";", "/")
#: A first line IPython's cell_magic transformer leaves to help_end (``%%time?``: help on the magic)
_CELL_HELP = re.compile(r"%%\w+\?")
#: IPython's ``_help_end_re`` (inputtransformer2): ``obj?``, ``obj.attr??``, ``%magic?``, ``np.*load*?``.
_HELP_END = re.compile(r"%{0,2}(?!\d)[\w*]+(?:\.[\w*]+)*\?\??$")
#: The characters _scan stops at outside a string, and inside a string of each quote.
_SPECIAL = re.compile(r"[#'\"()\[\]{}]")
_IN_STRING = {q: re.compile(r"[\\" + q + "]") for q in "'\""}


@dataclass
class CellLines:
    """A cell's text made Python line for line (read_cell). lines: as many as the cell has; unread: the
    1-based lines IPython runs as Python that are not turned into it here (a magic's options or argument
    that do not read, nesting past MAX_NESTED_MAGICS, an autocall that is no Python): ``pass`` here, and the
    caller names them in a note; shell: the 1-based lines of shell commands (``!cmd``, ``x = !cmd``), which
    `run` does not run; help: the 1-based lines of IPython's help (``obj?``, ``?obj``, ``obj??``), which
    show documentation and run none of the cell's code: the caller names them in a note too."""

    lines: list[str] = field(default_factory=list)
    unread: list[int] = field(default_factory=list)
    shell: list[int] = field(default_factory=list)
    help: list[int] = field(default_factory=list)


def python_lines(src: str) -> list[str]:
    """The lines of cell text `src` (split on "\\n") with IPython's syntax made Python as the module doc
    says, as many lines as `src` has, every other line as it is (read_cell(src).lines)."""
    return read_cell(src).lines


def read_cell(src: str) -> CellLines:
    """Cell text `src` made Python line for line (python_lines), with the lines that were not (CellLines).
    An escaped command continued with backslashes is read whole, as IPython's EscapedCommand assembles it
    (``%time \\`` then the call on the next line); its Python goes on its first line, the others are
    blank."""
    lines = src.split("\n")
    out = CellLines()
    depth, quote, continued = 0, "", False
    first = next((k for k, ln in enumerate(lines) if ln.strip()), len(lines))
    i = 0
    while i < len(lines):
        line = lines[i]
        head = line.lstrip()
        if i == first and head.startswith("%%") and not _CELL_HELP.match(head):  # IPython reads it alone
            out.lines.append(_cell_magic_line(line, out, i + 1))
            i += 1
            continue
        if depth == 0 and not quote and not continued:
            end = i
            while lines[end].endswith("\\") and end + 1 < len(lines):  # IPython's find_end_of_continued_line
                end += 1
            made = _command(_assembled(lines, i, end) if end > i else line, out, i + 1)
            if made is not None:
                out.lines += [made] + [""] * (end - i)
                i = end + 1
                continue
        out.lines.append(line)
        depth, quote, continued = _scan(line, depth, quote)
        i += 1
    return out


def _cell_magic_line(line: str, out: CellLines, number: int) -> str:
    """The Python line for a cell's ``%%magic`` line (`number` in the cell): what a magic of PYTHON_MAGICS
    runs from its line (cell_line: ``%%timeit -n1 SETUP``), placed as a line magic's code is (_placed),
    else ``pass``; added to out.unread when it runs Python that does not read here (IPython says
    UsageError for options it cannot read: nothing runs, a note says so all the same)."""
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    name, _, arg = stripped[2:].partition(" ")
    magic = PYTHON_MAGICS.get(name)
    if magic is None or not magic.cell_line or not arg.strip():
        return indent + "pass"
    statement = _statement(name, arg)
    made = _placed(stripped, statement) if statement is not None else None
    if statement is not None and not statement.strip():
        return indent + "pass"  # options only
    if made is None:
        out.unread.append(number)
        return indent + "pass"
    return indent + made


def _assembled(lines: list[str], start: int, end: int) -> str:
    """Lines start..end joined as IPython's assemble_continued_line joins them: each but the last without
    trailing blanks and its backslash, then one space between them."""
    return " ".join([ln.rstrip()[:-1] for ln in lines[start:end]] + [lines[end].rstrip()])


def _command(line: str, out: CellLines, number: int) -> str | None:
    """The Python line for `line` when it is one of IPython's commands (the module doc), else None; an
    escaped command IPython runs as Python that is not read here is added to out.unread, a shell command
    to out.shell (`number`: the line's number in the cell)."""
    stripped = line.lstrip()
    indent = line[: len(line) - len(stripped)]
    if stripped.startswith(ESCAPES):
        kind, code = run_code(stripped)
        if kind == "shell":
            out.shell.append(number)
        if kind == "unread":
            out.unread.append(number)
        if kind == "help":
            out.help.append(number)
        if kind != "python":
            return indent + "pass"
        made = _placed(stripped, code)
        if made is None:
            out.unread.append(number)
            return indent + "pass"
        return indent + made
    if _HELP_END.match(stripped.rstrip()):
        out.help.append(number)
        return indent + "pass"
    target, eq, value = stripped.partition("=")  # no regex: "a" + 50,000 spaces + "b" took 3.6 s in one
    kind = value.lstrip()[:1]
    if eq and kind in ("!", "%") and target.strip() and not any(c in target for c in "!%#'\""):
        if _parses(target + " = None"):
            if kind == "!":
                out.shell.append(number)
                return indent + target.rstrip() + " = []"
            ran, code = run_code(value.lstrip())  # x = %timeit -o f(): f() runs, its call is checked
            assigned = f"{target.rstrip()} = {code}"
            if ran == "python" and _parses(assigned):
                return indent + assigned
            if ran not in ("other", "help"):
                out.unread.append(number)
            return indent + target.rstrip() + " = None"
    return None


def _placed(command: str, code: str) -> str | None:
    """The line of Python that stands for escaped `command` whose code is `code`: ``if 1:`` padded to the
    command's width before the code when the code ends the command (columns kept), else the code alone,
    else ``if 1: `` and the code; None when none of them compiles."""
    width = len(command) - len(code)
    trials = []
    if command.endswith(code) and width >= len("if 1: "):
        trials.append("if 1:" + " " * (width - len("if 1:")) + code)
    trials += [code, "if 1: " + code]
    return next((t for t in trials if _parses(t)), None)


#: Most line magics nested in one another that are read (``%time %time f()``): IPython itself recurses
#: per level (transform_cell in each magic) and fails a few hundred levels down; deeper is not checked.
MAX_NESTED_MAGICS = 32


def run_code(command: str) -> tuple[str, str]:
    """What IPython runs for escaped command `command` (a line that starts with one of ESCAPES, its
    continuation lines joined), as (kind, Python): ("python", code) for a line magic of
    PYTHON_LINE_MAGICS, its options read as the magic reads them and nested magics unwrapped (IPython's
    %time and %timeit run transform_cell on their argument), and for an autocall (``/f a b`` -> ``f(a,
    b)``, ``,f a b`` -> ``f("a", "b")``, ``;f a b`` -> ``f("a b")``: inputtransformer2's _tr_paren,
    _tr_quote, _tr_quote2); ("shell", "") for ``!cmd`` / ``!!cmd``; ("help", "") for help (``?obj``,
    ``obj?``, ``%magic?``); ("other", "") for any other magic (no code of the cell runs); ("unread", "")
    for a Python-running magic whose options or
    nesting are not read here. Loops, never recurses: bounded by MAX_NESTED_MAGICS."""
    text = command
    for _ in range(MAX_NESTED_MAGICS):
        text = text.lstrip()
        if text.startswith("!"):
            return "shell", ""
        if text.startswith("?") or _HELP_END.match(text.rstrip()):
            return "help", ""
        if text.startswith("%%"):
            return "other", ""  # "%%x" past a cell's first line (IPython makes it an empty line)
        if text.startswith(("/", ",", ";")):
            name, _, args = text[1:].partition(" ")
            if text[0] == "/":
                return "python", f"{name}({', '.join(args.split())})"
            quoted = '", "'.join(args.split()) if text[0] == "," else args
            return "python", f'{name}("{quoted}")'
        if not text.startswith("%"):
            return "python", text
        name, _, arg = text[1:].partition(" ")
        name = magic_name("line", name)
        if name not in PYTHON_LINE_MAGICS:
            return "other", ""
        statement = _statement(name, arg)
        if statement is None:
            return "unread", ""
        text = statement
    return "unread", ""


def _statement(magic: str, arg: str) -> str | None:
    """The code line magic `magic` runs for argument `arg`, its options read as IPython 8 reads them
    (Magics.parse_options: getopt over arg_split(arg, posix=False)); None when they do not read (IPython
    says "UsageError" and runs nothing then, or runs what is not read here: %debug with options)."""
    letters = PYTHON_MAGICS[magic].options
    if letters is None:  # %debug: a statement without options runs as it is (Python, not transformed)
        return None if arg.lstrip().startswith("-") else arg
    if not letters or not arg.split():
        return arg
    try:
        argv = shlex.split(arg, posix=False)
        opts, rest = getopt.getopt(argv, letters)
    except (ValueError, getopt.GetoptError):  # an unclosed quote, an unknown option or one without value
        return None
    if magic == "timeit":  # parse_options(preserve_non_opts=True): each option and value cut out once
        for option, value in opts:
            arg = arg.replace(option, "", 1).replace(value, "", 1)
        return arg.lstrip()
    return " ".join(rest)


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
