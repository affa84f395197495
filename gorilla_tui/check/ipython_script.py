"""Whether IPython's ``%%script`` cell magic runs a cell's body as Python, its line read as IPython 8 does.

IPython (``IPython/core/magics/script.py``, ``ScriptMagics.shebang``) splits the magic's line with
``arg_split(line, posix=not Windows)`` (shlex, whitespace split, no comments: ``shlex.split``), takes its own
options out with ``parse_known_args`` (``--out VAR``, ``--err VAR``, ``--bg``, ``--proc VAR``,
``--no-raise-error``: script_args; argparse's prefix matching included, ``--b`` is ``--bg``), runs what is
left as a program (``create_subprocess_exec(*cmd)``) and writes the cell to its standard input. Its named
shortcuts (``_make_script_magic``: ``%%python3 ARGS`` is ``%%script python3 ARGS``) read the same line.

The body runs as Python when the program is a Python 3 interpreter, by its name (PEP 394's ``python``,
``python3``, ``python3.X``, PyPy's ``pypy``, ``pypy3``, ``pypy3.X``; any folder before it, ``.exe`` after
it, a free-threaded build's ``t``; ``env`` and its variables before it), and its own arguments leave the
script to standard input: only the options ``python -h`` lists that neither end the run (``-h``, ``-V``),
nor name the code elsewhere (``-c``, ``-m``, a file), then at most ``-`` (standard input, by name) and the
script's arguments. A Python run with arguments not read here (``-x`` skips the body's first line) is
said to be not checked, never taken for another language in silence. Break-it round 13: ``%%script
python3`` and ``%%pypy`` cells were neither checked nor named in a note, though ``%%python`` was checked.
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
#: CPython's options after which the script on standard input is not run: ``-c CODE``, ``-m MOD`` run
#: other code, ``-h``/``-?``/``-V`` print and exit
_ELSEWHERE = frozenset("cmh?V")
#: ``env``'s options that leave the command to run next (coreutils env: -i, ``-``, --ignore-environment)
_ENV_FLAGS = frozenset({"-i", "-", "--ignore-environment"})


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


def script_python(line: str) -> str:
    """What ``%%script LINE`` (`line`: what follows ``%%script``) runs of the cell's body, as the module doc
    says: "python" when a Python 3 reads it as its script; "unread" when a Python runs it with arguments
    not read here (``-x``, an option this table lacks, an ``env`` option): the caller says it is not
    checked; "other" for another program, a line that does not read (IPython: UsageError, nothing runs),
    or a Python that runs other code (``-c CODE``, ``-m MOD``, a file) or nothing (``-V``)."""
    try:
        _, cmd = _PARSER.parse_known_args(shlex.split(line, posix=not sys.platform.startswith("win")))
    except ValueError:
        return "other"
    if cmd and _program(cmd[0]) == "env":  # ``/usr/bin/env python3``, a shebang line's form
        cmd = cmd[1:]
        while cmd and (cmd[0] in _ENV_FLAGS or re.fullmatch(r"[^=-][^=]*=.*", cmd[0], re.S)):
            cmd = cmd[1:]
        if cmd and cmd[0].startswith("-"):  # env's other options (-u NAME, -S STRING): not read here
            return "unread" if any(_PYTHON_PROGRAM.fullmatch(_program(a)) for a in cmd) else "other"
    if not cmd or not _PYTHON_PROGRAM.fullmatch(_program(cmd[0])):
        return "other"
    return _python_args(cmd[1:])


def _program(path: str) -> str:
    """The program name of `path`, its folders cut (``/usr/bin/python3.12`` -> ``python3.12``)."""
    return re.split(r"[/\\]", path)[-1]


def _python_args(args: list[str]) -> str:
    """What a Python interpreter given `args` runs of the script on its standard input (script_python)."""
    i = 0
    while i < len(args):
        arg = args[i]
        if arg == "-":  # the script from standard input; what follows is its sys.argv
            return "python"
        if arg == "--check-hash-based-pycs":
            i += 2
            continue
        if not arg.startswith("-") or arg.startswith(("--help", "--version")):  # a file, or nothing runs
            return "other"
        if arg.startswith("--"):
            return "unread"
        for k, letter in enumerate(arg[1:], 1):
            if letter in _VALUED:
                i += 0 if k + 1 < len(arg) else 1  # -Werror, or -W error
                break
            if letter in _ELSEWHERE:
                return "other"
            if letter not in _FLAGS:
                return "unread"
        i += 1
    return "python" if i <= len(args) else "other"  # -W without its value: Python refuses to start
