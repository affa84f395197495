"""The code cells of a Jupyter notebook (.ipynb), read the one way `check` and `run` both read them.

nbformat 4 keeps the cells in ``cells``, each cell's text in ``source``; nbformat 3 (and 2) in
``worksheets[].cells[]``, a code cell's text in ``input`` (the schemas of the nbformat package:
nbformat/v3/nbformat.v3.schema.json, nbformat/v4/nbformat.v4.schema.json). Every cell's shape is
checked (an object whose text is a string or a list of strings), so a damaged notebook is "not a
notebook (cell N: ...)" (exit 2, listed as not checked), never "internal error" (break-it pass 4:
``"source": [1, null]`` raised TypeError) nor a cell skipped in silence (``"source": 5``).
"""

from __future__ import annotations

import ast
import json
import re
from typing import Any

from gorilla_tui.check.ipython_syntax import CellLines, cell_lines, cell_magic, cell_python, read_cell
from gorilla_tui.jsontext import decode

#: Cell types whose text is Python code (nbformat 4: "code"; nbformat 3 also has "heading" and
#: "markdown" cells, which are not code).
CODE_CELL = "code"
#: Every cell type of nbformat 4 (code, markdown, raw) and 3 (also heading); another one, or none, is a
#: damaged notebook: its cell's code would be skipped in silence (break-it round 5: a cell without
#: cell_type hid a made-up model from a pre-commit hook).
CELL_TYPES = frozenset({CODE_CELL, "markdown", "raw", "heading"})


def notebook_lines(
    text: str, max_bytes: int | None = None
) -> tuple[list[str], list[tuple[int, int]], list[str], list[tuple[int, int]]]:
    """The lines of a notebook's code cells, in order, IPython's syntax made Python line for line
    (check/ipython_syntax.py: ``!cmd``, ``%magic``, ``files = !ls``, ``obj?``; a cell in another language,
    ipython_syntax.cell_python, blank whole; a cell's lines split as IPython splits them, cell_lines);
    for each line its (1-based cell number over the whole notebook,
    1-based line in that cell); and a note per cell that still is no Python (blank whole, the other cells
    kept: a cell is compiled alone, as the kernel does, top-level ``await`` allowed), "cell N: skipped: not
    Python 3 syntax (LINE:COL: why)", LINE in the cell, or per cell with lines IPython runs as Python that
    are not read here "cell N: lines 2, 5 not checked: ..." (UNREAD_NOTE), or per cell with IPython help
    lines "cell N: line 3 not run or checked: IPython help ..." (HELP_NOTE); and the (cell, line) of every
    shell command (``!cmd``, ``x = !cmd``: `run` says it does not run them). A notebook whose kernel is
    not Python (foreign_language: R, Julia) has every line blank and the one note "not Python: R kernel: not
    checked" (KERNEL_NOTE); a code cell whose own language is not (_cell_language: VS Code's
    ``metadata.vscode.languageId``) is blank whole, "cell N: not Python: sql cell: not checked".
    max_bytes: when the code cells hold more (UTF-8), their lines are given as they are, neither made
    Python nor compiled (the caller refuses that much code: a 2.5 MB notebook took 9 s and 0.9 GB to read
    that way, not 0.5 s, before it was refused).

    Raises:
        ValueError: "not a notebook (...)": not JSON, nested deeper than Python's recursion limit, no cells
            list (nbformat 4) nor worksheets list (nbformat 3), a cell that is not an object, a cell
            whose cell_type is not one of CELL_TYPES, or a cell whose text (``source``, or ``input`` for a
            code cell of nbformat 3) is not a string or a list of strings.
    """
    try:
        nb = decode(text)  # a number too long for Python: said so, not with Python's advice (break-it R28)
    except ValueError as e:
        raise ValueError(f"not a notebook (not JSON: {e})") from None
    except RecursionError:  # [[[... 100,000 deep was "internal error" (issue 42)
        raise ValueError("not a notebook (JSON nested deeper than Python's recursion limit)") from None
    kernel = foreign_language(nb)
    code_cells: list[tuple[int, str]] = []
    cell_languages: dict[int, str] = {}
    for n, cell in enumerate(_cells(nb), 1):
        if not isinstance(cell, dict):
            raise ValueError(f"not a notebook (cell {n} is not an object)")
        kind = cell.get("cell_type")
        if not isinstance(kind, str) or kind not in CELL_TYPES:  # a list is unhashable: str first
            shown = (
                "missing" if kind is None else f"{json.dumps(kind)[:40]}, not code, markdown, raw or heading"
            )
            raise ValueError(f"not a notebook (cell {n}: cell_type is {shown})")
        key = "input" if kind == CODE_CELL and "source" not in cell and "input" in cell else "source"
        src = _cell_text(cell.get(key, ""), n, key)
        if kind == CODE_CELL:
            code_cells.append((n, src))
            language = _cell_language(cell)
            if language is not None:
                cell_languages[n] = language
    if kernel is not None:  # no cell is Python: every line blank, one note (R's `round(x, digits = 2)`)
        where = [(n, k) for n, src in code_cells for k in range(1, len(cell_lines(src)) + 1)]
        return [""] * len(where), where, [f"{KERNEL_NOTE}{kernel} kernel: not checked"], []
    size = sum(len(src.encode("utf-8", "surrogatepass")) for _, src in code_cells)
    read = max_bytes is None or size <= max_bytes
    lines: list[str] = []
    where: list[tuple[int, int]] = []
    notes: list[str] = []
    shell: list[tuple[int, int]] = []
    for n, src in code_cells:  # one block: cells share their imports, as the kernel runs them
        split = cell_lines(src)
        magic = cell_magic(split)
        runs = "python" if magic is None else cell_python(*magic[1:])
        language = cell_languages.get(n)
        if language is not None:  # VS Code's cell language (metadata.vscode.languageId) is not Python
            notes.append(f"cell {n}: {KERNEL_NOTE}{language} cell: not checked")
            runs = "other"
        foreign = runs != "python"
        if runs == "unread":  # a Python started with arguments not read here (%%python -x)
            notes.append(f"cell {n}: {numbered_lines([magic[0] + 1])} {UNREAD_NOTE}")
        cell = read_cell("\n".join(split)) if read and not foreign else CellLines(split)
        made = cell.lines
        why = None if foreign or not read else _not_python("\n".join(made))
        if why is not None:
            notes.append(f"cell {n}: skipped: not Python 3 syntax ({why})")
        else:
            notes += [f"cell {n}: {numbered_lines(cell.unread)} {UNREAD_NOTE}"] if cell.unread else []
            notes += [f"cell {n}: {numbered_lines(cell.help)} {HELP_NOTE}"] if cell.help else []
        shell += [(n, k) for k in cell.shell] if why is None else []
        for k, ln in enumerate(made, 1):
            lines.append("" if foreign or why is not None else ln)
            where.append((n, k))
    return lines, where, notes, shell


#: What a note says of the lines IPython runs as Python that check/ipython_syntax.py does not turn into it
#: (break-it round 11: ``%time %time f()``, ``%timeit -n1 f()`` and ``/f x`` passed unchecked, exit 0).
UNREAD_NOTE = "not checked: Python that IPython runs through a magic or an autocall in a form not read here"
#: What a note says of IPython's help lines (``obj?``, ``?obj``; break-it round 13: ``x?`` became ``pass``
#: in silence): IPython-only lines, neither run by `run` nor checked.
HELP_NOTE = "not run or checked: IPython help (`obj?`, `?obj`), which shows documentation only"
#: At most this many line numbers are listed in one note; the rest are counted.
LISTED_LINES = 10


#: What the note on a notebook (or cell) in another language than Python starts with: "not Python: R kernel:
#: not checked" (`run` refuses such a notebook with it, cli/run.py).
KERNEL_NOTE = "not Python: "
#: A language name that is Python: "python" (ipykernel's language_info.name), "python3", "Python 3",
#: "ipython3", "pypy3" (case and the spaces around it ignored). Python 2 is read as Python too: its cells
#: that are no Python 3 are skipped with their own note, as before.
_PYTHON_NAME = re.compile(r"(?:i?python|pypy) ?[\d.]*", re.IGNORECASE)
#: Most characters of a language name shown in a note
_SHOWN_NAME = 40


def foreign_language(nb: Any) -> str | None:
    """The language of notebook `nb`'s kernel (parsed JSON) when it is not Python, else None: its
    ``metadata.language_info.name``, else ``metadata.kernelspec.language`` (the nbformat 4 docs, "Top-level
    metadata": language_info is what the kernel reports, kernelspec what launched it; older notebooks
    have ``metadata.language``). None as well when neither names a language (a notebook without metadata
    is read as Python, as before). Break-it round 14: an R notebook's ``round(x, digits = 2)`` parsed as
    Python and was two wrong_args findings, exit 1 (a pre-commit hook failed every R notebook)."""
    meta = nb.get("metadata") if isinstance(nb, dict) else None
    if not isinstance(meta, dict):
        return None
    info, spec = meta.get("language_info"), meta.get("kernelspec")
    for name in (
        info.get("name") if isinstance(info, dict) else None,
        spec.get("language") if isinstance(spec, dict) else None,
        meta.get("language"),
    ):
        if isinstance(name, str) and name.strip():
            return _not_python_name(name)
    return None


def _cell_language(cell: dict[str, Any]) -> str | None:
    """A code cell's own language when it is not Python, else None: VS Code's ``metadata.vscode.languageId``
    (what its notebook editor writes for a cell whose language is not the kernel's, "sql", "r"), else
    nbformat 3's code cell ``language``."""
    meta = cell.get("metadata")
    vscode = meta.get("vscode") if isinstance(meta, dict) else None
    name = vscode.get("languageId") if isinstance(vscode, dict) else None
    name = name if isinstance(name, str) and name.strip() else cell.get("language")
    return _not_python_name(name) if isinstance(name, str) and name.strip() else None


def _not_python_name(name: str) -> str | None:
    """`name` (a language name) as shown in a note (cut to _SHOWN_NAME characters) when it is not Python,
    else None."""
    name = name.strip()
    return None if _PYTHON_NAME.fullmatch(name) else name[:_SHOWN_NAME]


def numbered_lines(numbers: list[int]) -> str:
    """ "line 2", "lines 2, 5", "lines 1, 2, ... (and 12 more)" (at most LISTED_LINES numbers listed)."""
    shown = ", ".join(str(k) for k in numbers[:LISTED_LINES])
    more = f" (and {len(numbers) - LISTED_LINES} more)" if len(numbers) > LISTED_LINES else ""
    return f"line{'s' if len(numbers) > 1 else ''} {shown}{more}"


def _not_python(code: str) -> str | None:
    """Why CPython refuses cell `code` ("LINE:COL: message"), or None when it compiles (top-level ``await``
    allowed: IPython runs such cells, its autoawait)."""
    try:  # to bytecode, not to Python's ast objects: a tenth of the memory; nothing is run
        compile(code, "<cell>", "exec", ast.PyCF_ALLOW_TOP_LEVEL_AWAIT, dont_inherit=True)
    except SyntaxError as e:
        return f"{e.lineno or 1}:{e.offset or 1}: {e.msg}"
    except (ValueError, RecursionError, MemoryError) as e:  # NUL bytes, nested too deep for the parser
        return f"1:1: {type(e).__name__}"
    return None


def _cells(nb: Any) -> list[Any]:
    """The notebook's cells: ``cells`` (nbformat 4), else every worksheet's ``cells`` in order (3 and 2).
    Raises ValueError when neither is a list."""
    if not isinstance(nb, dict):
        raise ValueError("not a notebook (no cells list)")
    cells = nb.get("cells")
    if isinstance(cells, list):
        return cells
    sheets = nb.get("worksheets")
    if not isinstance(sheets, list):
        raise ValueError("not a notebook (no cells list)")
    out: list[Any] = []
    for i, sheet in enumerate(sheets, 1):
        sheet_cells = sheet.get("cells") if isinstance(sheet, dict) else None
        if not isinstance(sheet_cells, list):
            raise ValueError(f"not a notebook (worksheet {i} has no cells list)")
        out += sheet_cells
    return out


def _cell_text(value: Any, n: int, key: str) -> str:
    """A cell's text (`key`: source or input): a string, or a list of strings joined (nbformat's multiline
    string). Raises ValueError for anything else."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(part, str) for part in value):
        return "".join(value)
    raise ValueError(f"not a notebook (cell {n}: {key} is not text)")
