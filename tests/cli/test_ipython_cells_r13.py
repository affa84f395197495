"""Break-it round 13 (issue 42, kind 4), notebooks and Markdown read as IPython and doctest read them:
``%%script`` with a Python and the script magics that run one (R13-6), IPython's own magic aliases and its
help lines (R13-7), a cell's lines split as IPython splits them (R13-8), and ``pycon`` sessions. Each test
runs the real CLI (gorilla_tui.cli.main) or `run`'s reader over the small pool of tests/data/pool."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.check.notebook import HELP_NOTE, UNREAD_NOTE
from gorilla_tui.cli.run import file_code
from gorilla_tui.cli.run_notebook import WRITEFILE_MARK, written_modules
from tests.hostile_cli import POOL, WRONG_HUB, notebook, run_cli


def _found(out: str, path: str) -> list[str]:
    """The positions of the findings in `out` (":cell 1:3:1")."""
    return [ln[len(path) :].split(": ")[0] for ln in out.splitlines() if ln.startswith(path)]


@pytest.mark.parametrize(
    ("magic", "python"),
    [
        ("%%python", True),
        ("%%python3", True),
        ("%%pypy", True),
        ("%%script python", True),
        ("%%script python3", True),
        ("%%script /usr/bin/python3.12", True),
        ("%%script python3 --bg --out job", True),  # IPython's own options, taken out before the program
        ("%%script --no-raise-error pypy3 -u -W error -", True),
        ("%%python3 -X dev", True),
        ("%%script python3 -c 'print(1)'", False),  # the body is Python's stdin, never read
        ("%%script python3 -m json.tool", False),
        ("%%script python2", False),
        ("%%script bash", False),
        ("%%script /usr/bin/env python3", True),  # a shebang line's form
        ("%%script env -i PYTHONHASHSEED=0 python3 -B", True),
        ("%%python -x", None),  # a Python whose arguments are not read here: said, never passed in silence
        ("%%script env -u HOME python3", None),
        ("%%script python3 --out", False),  # IPython: UsageError, nothing runs
        ("%%script python3 -V", False),
    ],
)
def test_a_cell_magic_that_runs_the_body_with_a_python_is_checked(capsys, tmp_path, magic, python):
    """R13-6: ``%%script python3`` and ``%%pypy`` cells (IPython, script.py: the body written to that
    program's stdin) were neither checked nor noted, exit 0, though ``%%python`` was checked. Now the
    ``%%script`` line is read as IPython reads it (shlex, its argparse options out, the program and its
    options left) and the body is checked when a Python 3 reads it as its script; a Python started with
    arguments not read here (python None) is named in a note as not checked."""
    nb = notebook(tmp_path / "s.ipynb", f"{magic}\nimport torch\n{WRONG_HUB}\n")
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert (status, _found(out, nb)) == ((1, [":cell 1:3:1"]) if python else (0, [])), (out, err)
    assert (f"note: {nb}: cell 1: line 1 {UNREAD_NOTE}" in err) == (python is None), err


def test_ipythons_magic_aliases_are_read_as_the_magic(capsys, tmp_path):
    """R13-7: ``%%file m.py`` is IPython's own alias of ``%%writefile`` (interactiveshell.py init_magics:
    register_alias('file', 'writefile', 'cell')): `run` said "cell not run" and sent the next cell's
    ``import m`` to pip. Now `run` says "m.py not written" and marks the module as the notebook's own (the
    ImportError hint reads written_modules); ``%%HTML``/``%%SVG`` cells hold no Python (not checked)."""
    nb = notebook(
        tmp_path / "a.ipynb",
        "%%file m.py\nprint('from m')\n",
        "import m\n",
        f"%%HTML\n<p>{WRONG_HUB}</p>\n",
        f"%%SVG\n{WRONG_HUB}\n",
    )
    code = file_code(nb, Path(nb).read_text())
    assert WRITEFILE_MARK + "m.py" in code.splitlines() and written_modules(code) == {"m"}
    assert "cell 1 line 1 `%%file m.py` (m.py not written)" in capsys.readouterr().err
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert (status, out.strip()) == (0, ""), err


def test_ipython_help_lines_are_named_as_not_run_or_checked(capsys, tmp_path):
    """R13-7: ``x?`` (IPython's pinfo) became ``pass`` in `run` and `check` with no word. Every help line
    (``obj?``, ``obj??``, ``?obj``, ``%magic?``, ``%%magic?`` first) is named in a note by both, in a
    notebook and in a Markdown fence; the rest is checked (``%%time?`` is help, not a cell magic)."""
    nb = notebook(
        tmp_path / "h.ipynb", "x = 1\nx?\nx??\n?x\n%time?\n", f"%%time?\nimport torch\n{WRONG_HUB}\n"
    )
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert (status, _found(out, nb)) == (1, [":cell 2:3:1"]), err
    notes = [f"gorilla-tui: note: {nb}: cell 1: lines 2, 3, 4, 5 {HELP_NOTE}"]
    notes += [f"gorilla-tui: note: {nb}: cell 2: line 1 {HELP_NOTE}"]
    assert [ln for ln in err.splitlines() if "note" in ln] == notes
    file_code(nb, Path(nb).read_text())
    assert [ln for ln in capsys.readouterr().err.splitlines() if "help" in ln] == notes
    md = tmp_path / "h.md"
    md.write_text("# x\n\n```python\nimport torch\ntorch.hub.load?\n```\n")
    status, out, err = run_cli(capsys, "check", str(md), "--pool", POOL)
    assert status == 0 and f"note: {md}: line 5 {HELP_NOTE}" in err, err


@pytest.mark.parametrize("end", ["\r", "\r\n", "\n"])
def test_a_cells_lines_are_split_as_ipython_splits_them(capsys, tmp_path, end):
    """R13-8: IPython 8 splits a cell with str.splitlines (TransformerManager.transform_cell), so CR alone
    ends a line: ``%%time\\rimport shutil\\r...`` ran its body through %%time, but `check` read the cell as
    one line after a cell magic (not checked, exit 0), and a CR-only cell's finding was at 1:15, not 2:1.
    Each of Python's line ends gives the same positions, and `run` runs the same lines."""
    nb = notebook(
        tmp_path / "c.ipynb",
        end.join(["%%time", "import torch", WRONG_HUB, ""]),
        end.join(["import torch", WRONG_HUB, ""]),
        end.join(["%%bash", WRONG_HUB, ""]),
    )
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert (status, _found(out, nb)) == (1, [":cell 1:3:1", ":cell 2:2:1"]), (out, err)
    code = file_code(nb, Path(nb).read_text()).splitlines()
    assert code[:5] == ["pass", "import torch", WRONG_HUB, "import torch", WRONG_HUB]
    assert "cell 3 line 1 `%%bash` (cell not run)" in capsys.readouterr().err


def test_a_python_session_in_markdown_is_checked_as_doctest_reads_it(capsys, tmp_path):
    """```pycon fences (``>>> `` and ``... `` prompts, output lines) were neither checked nor noted. Their
    examples are read by the stdlib doctest parser and checked at their place in the file (the prompt's
    columns counted), a ```python fence that starts with a prompt too; a session doctest refuses is
    named in a note, never passed in silence."""
    md = tmp_path / "s.md"
    md.write_text(
        "# Use\n\n```pycon\n>>> import torch\n>>> m = " + WRONG_HUB + "\nTraceback (most recent call last):\n"
        "  ...\n>>> for k in [1]:\n...     m = " + WRONG_HUB + "\n```\n\n"
        "- a list item\n\n  ```python\n  >>> import torch\n  >>> " + WRONG_HUB + "\n  ```\n\n"
        "```pycon\n>>>x = 1\n```\n"
    )
    status, out, err = run_cli(capsys, "check", str(md), "--pool", POOL)
    assert (status, _found(out, str(md))) == (1, [":5:9", ":9:13", ":16:7"]), (out, err)
    assert f"note: {md}: line 20 not checked: not a Python session as doctest reads one (line 20 lacks" in err
