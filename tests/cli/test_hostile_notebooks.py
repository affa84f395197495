"""Break-it pass 4, break 6: a notebook whose cells have the wrong shape, and nbformat 3 notebooks.

`check` and `run` read a notebook one way (check/notebook.py): every cell's text is a string or a list of
strings, else the notebook is "not a notebook (cell N: ...)", exit 2, listed as not checked in JSON and
SARIF; a cell list of ``[1, null]`` was "internal error: TypeError", ``"source": 5`` was skipped in silence.
nbformat 3's ``worksheets[].cells[].input`` was refused ("no cells list"): it is read. Real files in
tmp_path, the CLI in a subprocess.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.check.notebook import HELP_NOTE
from gorilla_tui.cli.run import file_code

POOL = Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl"
ROOT = Path(__file__).resolve().parents[2]
WRONG = ["import torch\n", "model = torch.hub.load('pytorch/vision', 'resnet-201')\n"]


def _cli(tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, "PYTHONPATH": str(ROOT), "GORILLA_TUI_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *args], capture_output=True, text=True, env=env, timeout=120
    )
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    return done


@pytest.mark.parametrize(
    ("cell", "why"),
    [
        ({"cell_type": "code", "source": [1, None]}, "cell 2: source is not text"),
        ({"cell_type": "code", "source": 5}, "cell 2: source is not text"),
        ({"cell_type": "markdown", "source": {"a": 1}}, "cell 2: source is not text"),
        ("import os", "cell 2 is not an object"),
        # break-it round 5: a cell without a known cell_type hid its code (a made-up model) from the check
        ({"source": WRONG}, "cell 2: cell_type is missing"),
        (
            {"cell_type": "CODE", "source": WRONG},
            'cell 2: cell_type is "CODE", not code, markdown, raw or heading',
        ),
        (
            {"cell_type": ["code"], "source": WRONG},
            'cell 2: cell_type is ["code"], not code, markdown, raw or heading',
        ),
    ],
    ids=[
        "list-of-non-strings",
        "a-number",
        "markdown-object",
        "cell-not-object",
        "no-type",
        "CODE",
        "list-type",
    ],
)
def test_a_cell_of_the_wrong_shape_is_a_notebook_not_checked(tmp_path: Path, cell, why: str) -> None:
    nb = tmp_path / "bad.ipynb"
    nb.write_text(json.dumps({"cells": [{"cell_type": "code", "source": WRONG}, cell]}))
    line = f"gorilla-tui: error: {nb}: not a notebook ({why})\n"
    done = _cli(tmp_path, "check", str(nb), "--pool", str(POOL))
    assert (done.returncode, done.stdout, done.stderr) == (2, "", line)
    done = _cli(tmp_path, "check", str(nb), "--pool", str(POOL), "--format", "sarif")
    invocation = json.loads(done.stdout)["runs"][0]["invocations"][0]
    assert done.returncode == 2 and invocation["executionSuccessful"] is False
    assert why in invocation["toolExecutionNotifications"][0]["message"]["text"]
    done = _cli(tmp_path, "check", str(nb), "--pool", str(POOL), "--format", "json")
    assert done.returncode == 2 and [e["reason"] for e in json.loads(done.stdout)] == ["not_checked"]
    done = _cli(tmp_path, "run", str(nb), "--yes", "--no-isolation")
    assert (
        done.returncode == 2
        and done.stderr == f"gorilla-tui: error: cannot run {nb}: not a notebook ({why})\n"
    )


def test_an_nbformat_3_notebook_is_read(tmp_path: Path) -> None:
    """nbformat 3: cells in worksheets, a code cell's text in ``input``, cells numbered over worksheets."""
    nb = tmp_path / "old.ipynb"
    nb.write_text(
        json.dumps(
            {
                "nbformat": 3,
                "nbformat_minor": 0,
                "metadata": {},
                "worksheets": [
                    {"cells": [{"cell_type": "heading", "level": 1, "source": ["Title"]}]},
                    {"cells": [{"cell_type": "code", "input": WRONG, "language": "python", "outputs": []}]},
                ],
            }
        )
    )
    done = _cli(tmp_path, "check", str(nb), "--pool", str(POOL))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"{nb}:cell 2:2:9: wrong_args:unknown_model"), done.stdout
    nb.write_text(json.dumps({"nbformat": 3, "worksheets": [{"cells": [{"cell_type": "code", "input": 5}]}]}))
    done = _cli(tmp_path, "check", str(nb), "--pool", str(POOL))
    assert done.returncode == 2 and done.stderr.endswith("not a notebook (cell 1: input is not text)\n")


def test_a_cell_in_another_language_does_not_hide_the_others(tmp_path: Path) -> None:
    """Break-it round 8: a ``%%bash`` cell holding ``rm -rf build/`` made the whole notebook "not Python 3
    syntax" (exit 0, a note), so the made-up model of the next cell was never reported. A cell magic of
    another language leaves its cell out; one that runs Python (``%%time``) keeps its body."""

    def code(source: str) -> dict:
        return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}

    nb = {"cells": [code("%%bash\nrm -rf build/\n"), code("%%time\n" + WRONG[0]), code(WRONG[1])],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    path = tmp_path / "magic.ipynb"
    path.write_text(json.dumps(nb))
    done = _cli(tmp_path, "check", str(path), "--pool", str(POOL))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"{path}:cell 3:1:9: wrong_args:unknown_model ")


def _code(source: str) -> dict:
    return {"cell_type": "code", "metadata": {}, "source": source, "outputs": [], "execution_count": None}


@pytest.mark.parametrize(
    "ipython",
    [
        "files = !ls\nlen(files)\n",
        "torch.hub.load?\n",
        "??torch.hub.load\n",
        "!pip install torch\n",
        "for f in ['a']:\n    !echo $f\n    %ls\n",
        "home = %env HOME\n",
        "%timeit -n 10 sum([1])\n",
        "/print 1\n,print a b\n",
    ],
    ids=[
        "system-assign",
        "help-end",
        "help-start",
        "shell",
        "indented",
        "magic-assign",
        "options",
        "autocall",
    ],
)
def test_ipython_syntax_in_one_cell_does_not_hide_the_others(tmp_path: Path, ipython: str) -> None:
    """Break-it round 9, R3: a cell with IPython syntax that is no cell magic (``files = !ls``, ``obj?``)
    made the whole notebook "not Python 3 syntax" (exit 0, a note at a line of the joined cells): the
    made-up model of the other cell was never reported. Each such line is read as IPython reads it
    (check/ipython_syntax.py); the other cell's finding is reported at its cell (exit 1), no note but the
    one naming a help line as not run or checked (break-it round 13: ``x?`` became ``pass`` in silence)."""
    nb = {"cells": [_code(WRONG[0]), _code(ipython), _code(WRONG[1])], "metadata": {}, "nbformat": 4,
          "nbformat_minor": 5}  # fmt: skip
    path = tmp_path / "ipy.ipynb"
    path.write_text(json.dumps(nb))
    done = _cli(tmp_path, "check", str(path), "--pool", str(POOL))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"{path}:cell 3:1:9: wrong_args:unknown_model ")
    notes = [ln for ln in done.stderr.splitlines() if "note" in ln]
    if "?" in ipython:
        assert notes == [f"gorilla-tui: note: {path}: cell 2: line 1 {HELP_NOTE}"], done.stderr
    else:
        assert not notes, done.stderr


def test_a_cell_that_is_no_python_is_skipped_by_its_number_and_a_time_magic_is_checked(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A cell that still does not compile (Python 2's print) is one note naming its cell and its line in
    that cell, the other cells checked; ``%time STATEMENT`` runs the statement as Python, so its made-up
    model is a finding at its own column; `run` says the same note and runs the other cells."""
    nb = {"cells": [_code(WRONG[0]), _code("x = 1\nprint 'python 2'\n"), _code("%time " + WRONG[1])],
          "metadata": {}, "nbformat": 4, "nbformat_minor": 5}  # fmt: skip
    path = tmp_path / "py2.ipynb"
    path.write_text(json.dumps(nb))
    done = _cli(tmp_path, "check", str(path), "--pool", str(POOL))
    assert done.returncode == 1, done.stderr
    assert done.stdout.startswith(f"{path}:cell 3:1:15: wrong_args:unknown_model ")
    assert done.stderr.splitlines()[1] == (
        f"gorilla-tui: note: {path}: cell 2: skipped: not Python 3 syntax (2:1: Missing parentheses in call"
        " to 'print'. Did you mean print(...)?)"
    )
    code = file_code(str(path), path.read_text())
    assert "print 'python 2'" not in code and "x = 1" not in code and "if 1: " + WRONG[1] in code
    assert capsys.readouterr().err == done.stderr.splitlines()[1] + "\n"
