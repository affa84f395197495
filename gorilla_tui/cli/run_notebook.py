"""What `run` does not run of a notebook as IPython would: one note naming each such line or cell, and the
modules a skipped ``%%writefile`` would have made (so an ImportError of one is not "pip install it").

`run` runs a notebook's code cells as Python (check/notebook.py reads them, check/ipython_syntax.py makes
IPython's syntax Python line for line). IPython runs more: shell commands (``!cmd``, ``x = %sx cmd``,
``%system``), cell magics in other languages (``%%bash``, ``%%writefile m.py``) and magics that change the
kernel's state (``%env``, ``%cd``). Break-it round 12: those were dropped in silence (``x = %sx echo hi``
gave None, a skipped ``%%writefile m.py`` made the next cell's ``import m`` say "pip install m"). This module
only reads the tables of those two modules (read_cell, cell_magic, cell_python: IPython's aliases
resolved, ``%%file m.py`` is ``%%writefile m.py``); it changes neither.
"""

from __future__ import annotations

import json
import re
import shlex
from typing import Any

from gorilla_tui.check.ipython_syntax import cell_lines, cell_magic, cell_python, read_cell
from gorilla_tui.check.notebook import CODE_CELL, LISTED_LINES

#: The comment `run` puts in place of a ``%%writefile NAME.py`` cell's first line (the cell is blank in the
#: code it runs): shown in the run confirmation, and read back by written_modules for the ImportError hint.
WRITEFILE_MARK = "# gorilla-tui: not written by run: %%writefile "
_WRITTEN = re.compile(r"^# gorilla-tui: not written by run: %%writefile (?:-a )?(\S+?)\.py\s*$", re.MULTILINE)
#: Characters of a skipped line shown in the note (the rest: "…").
SHOWN_CHARS = 60


def skipped_ipython(text: str) -> list[tuple[int, int, str, str]]:
    """(cell, line in the cell, the line as written, what `run` loses) for each line or cell of notebook
    `text` that IPython runs and `run` does not run the same way: a cell magic in another language (the
    whole cell, named by its first line: "%%writefile m.py" -> "m.py not written", "%%bash" -> "cell not
    run"), a shell command ("!cmd" -> "not run", "x = !cmd" -> "x gets []"), a line magic IPython runs that
    is no Python ("%env FOO=1", "%cd /" -> "not run"; "x = %sx cmd" -> "x gets None"). Lines IPython runs
    as Python (``%time f()``), help (``obj?``) and the lines check's own notes name (not read, help) are
    not listed. A cell's lines are split as IPython splits them (cell_lines). `text` must be a notebook
    check/notebook.py reads (file_code reads it first)."""
    nb = json.loads(text)
    cells = nb.get("cells") if isinstance(nb.get("cells"), list) else _worksheet_cells(nb)
    out: list[tuple[int, int, str, str]] = []
    for n, cell in enumerate(cells, 1):
        if cell.get("cell_type") != CODE_CELL:
            continue
        key = "input" if "source" not in cell and "input" in cell else "source"
        src = cell.get(key, "")
        src = src if isinstance(src, str) else "".join(src)
        lines = cell_lines(src)
        magic = cell_magic(lines)
        if magic is not None and cell_python(*magic[1:]) != "python":
            first, name, arg = magic
            target = _writefile_target(arg) if name == "writefile" else None
            lost = f"{target} not written" if target else "cell not run"
            out.append((n, first + 1, lines[first].strip(), lost))
            continue
        made = read_cell("\n".join(lines))
        for k, (line, python) in enumerate(zip(lines, made.lines, strict=False), 1):
            lost = _lost(line.strip(), python.strip(), k in made.shell)
            if lost and k not in made.unread and k not in made.help:
                out.append((n, k, line.strip(), lost))
    return out


def _worksheet_cells(nb: dict[str, Any]) -> list[Any]:
    """The cells of every worksheet of an nbformat 3 notebook, in order."""
    return [c for sheet in nb.get("worksheets", []) for c in sheet.get("cells", [])]


def _lost(line: str, python: str, shell: bool) -> str | None:
    """What `run` loses of cell line `line` made Python line `python`, or None when it runs as IPython runs
    it. shell: read_cell counted it a shell command."""
    if python == line:
        return None
    target = python.rpartition(" = ")[0] if " = " in python else ""
    if shell:
        return f"{target} gets []" if target else "not run"
    if target and python.endswith(" = None"):
        return f"{target} gets None"
    if python == "pass" and line.startswith("%"):
        return "not run"
    return None


def _writefile_target(arg: str) -> str | None:
    """The file a ``%%writefile [-a] NAME`` line names (`arg`: what follows the magic's name), or None when
    it does not read."""
    try:
        argv = shlex.split(arg)
    except ValueError:
        return None
    names = [a for a in argv if a not in ("-a", "--append")]
    return names[0] if names else None


def ipython_note(skipped: list[tuple[int, int, str, str]]) -> str:
    """The one note for skipped_ipython's list: "IPython lines not run as IPython runs them (`run` runs the
    Python): cell 1 line 1 `x = %sx echo hi` (x gets None); cell 2 line 1 `%%writefile m.py` (m.py not
    written)"; at most LISTED_LINES named, the rest counted."""
    named = [
        f"cell {n} line {k} `{line[:SHOWN_CHARS]}{'…' if len(line) > SHOWN_CHARS else ''}` ({lost})"
        for n, k, line, lost in skipped[:LISTED_LINES]
    ]
    more = f" (and {len(skipped) - LISTED_LINES} more)" if len(skipped) > LISTED_LINES else ""
    return "IPython lines not run as IPython runs them (`run` runs the Python): " + "; ".join(named) + more


def written_modules(code: str) -> set[str]:
    """The module names of the ``%%writefile NAME.py`` cells `run` left out of `code` (WRITEFILE_MARK)."""
    return set(_WRITTEN.findall(code))
