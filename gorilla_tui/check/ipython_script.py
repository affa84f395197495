"""Whether IPython's ``%%script`` cell magic runs a cell's body as Python, its line read as IPython 8 does.

IPython (``IPython/core/magics/script.py``, ``ScriptMagics.shebang``) splits the magic's line with
``arg_split(line, posix=not Windows)`` (shlex, whitespace split, no comments: ``shlex.split``), takes its own
options out with ``parse_known_args`` (``--out VAR``, ``--err VAR``, ``--bg``, ``--proc VAR``,
``--no-raise-error``: script_args; argparse's prefix matching included, ``--b`` is ``--bg``), runs what is
left as a program (``create_subprocess_exec(*cmd)``) and writes the cell to its standard input. Its named
shortcuts (``_make_script_magic``: ``%%python3 ARGS`` is ``%%script python3 ARGS``) read the same line.

The body runs as Python when the program is a Python 3 interpreter, by its name (PEP 394's ``python``,
``python3``, ``python3.X``, PyPy's ``pypy``, ``pypy3``, ``pypy3.X``; any folder before it, ``.exe`` after
it, a free-threaded build's ``t``), and its own arguments leave the script to standard input: only the
options ``python -h`` lists that neither end the run (``-h``, ``-V``), nor name the code elsewhere (``-c``,
``-m``, a file), nor shift its lines (``-x`` skips the first one), then at most ``-`` (standard input, by
name) and the script's arguments. Break-it round 13: ``%%script python3`` and ``%%pypy`` cells were
neither checked nor named in a note, though ``%%python`` was checked.
"""

from __future__ import annotations

import argparse
import re
import shlex
import sys

#: A Python 3 interpreter's program name (PEP 394; PyPy's ``pypy``/``pypy3``), after any folder.
_PYTHON_PROGRAM = re.compile(r"(?:python|pypy)(?:3(?:\.\d+)?t?)?(?:\.exe)?", re.IGNORECASE)
#: CPython's options that take no value and keep reading the script (``python -h``, 3.8-3.13)
_FLAGS = frozenset("bBdEiIOPqsSuv")
#: CPython's options that take a value (attached, ``-Werror``, or the next argument)
_VALUED = frozenset("WX")


class _ScriptArgs(argparse.ArgumentParser):
    """IPython's MagicArgumentParser for ``%%script`` (add_help=False; an error raises, never exits)."""

    def error(self, message: str):  # type: ignore[override]
        """Raise ValueError(message): IPython raises UsageError here and runs nothing."""
        raise ValueError(message)


_PARSER = _ScriptArgs(prog="%%script", add_help=False)
for _option in ("--out", "--err", "--proc"):
    _PARSER.add_argument(_option, type=str)
_PARSER.add_argument("--bg", action="store_true")
_PARSER.add_argument("--no-raise-error", action="store_false", dest="raise_error")


def script_runs_python(line: str) -> bool:
    """True when ``%%script LINE`` (`line`: what follows ``%%script``) runs the cell's body as Python 3,
    as the module doc says; False for another program, a line that does not read (IPython: UsageError,
    nothing runs), or a Python that does not read the body as its script (``python3 -c CODE``)."""
    try:
        _, cmd = _PARSER.parse_known_args(shlex.split(line, posix=not sys.platform.startswith("win")))
    except ValueError:
        return False
    if not cmd or not _PYTHON_PROGRAM.fullmatch(re.split(r"[/\\]", cmd[0])[-1]):
        return False
    return _reads_stdin(cmd[1:])


def _reads_stdin(args: list[str]) -> bool:
    """True when a Python interpreter given `args` runs the script it reads on standard input."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-":  # the script from standard input; what follows is its sys.argv
            return True
        if arg == "--check-hash-based-pycs":
            i += 2
            continue
        if not arg.startswith("-") or arg.startswith("--"):  # a file, or a long option that ends the run
            return False
        for k, letter in enumerate(arg[1:], 1):
            if letter in _VALUED:
                i += 0 if k + 1 < len(arg) else 1  # -Werror, or -W error
                break
            if letter not in _FLAGS:
                return False
        i += 1
    return i <= len(args)
