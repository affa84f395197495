"""Break-it round 14 (issue 42, kind 4): a notebook in another language than Python (R14-11), and the files
of a `--source` folder that are not regular files (R14-12). Each test runs the real CLI
(gorilla_tui.cli.main) over the small pool of tests/data/pool, or a real refresh of a folder source."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gorilla_tui.check import lint
from tests.hostile_cli import POOL, WRONG_HUB, run_cli

#: Ordinary R that parses as Python: two wrong_args findings when read as Python
R_CODE = "x <- c(3.14159, 2.71828)\nround(x, digits = 2)\nprint(x, digits = 3)\n"
#: The hallucinated hub call with its import, a finding in a Python cell
WRONG = f"import torch\n{WRONG_HUB}\n"


def _notebook(path: Path, metadata: dict, *cells: tuple[str, dict]) -> str:
    made = [
        {"cell_type": "code", "metadata": meta, "outputs": [], "execution_count": None, "source": src}
        for src, meta in cells
    ]
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": metadata, "cells": made}))
    return str(path)


@pytest.mark.parametrize(
    ("metadata", "language"),
    [
        ({"kernelspec": {"language": "R", "name": "ir"}, "language_info": {"name": "R"}}, "R"),
        ({"kernelspec": {"language": "R", "name": "ir"}}, "R"),  # no language_info: the kernelspec's
        ({"language_info": {"name": "julia"}, "kernelspec": {"language": "python"}}, "julia"),
    ],
    ids=["R", "R-kernelspec-only", "language_info-first"],
)
def test_a_notebook_whose_kernel_is_not_python_is_not_checked(capsys, tmp_path, metadata, language):
    """R14-11: an R notebook's ``round(x, digits = 2)`` parsed as Python: two wrong_args findings, exit 1
    (a pre-commit hook failed every R notebook). Its kernel's language (language_info.name, else
    kernelspec.language) is not Python: not checked, one note, exit 0; `run` refuses it in one line."""
    nb = _notebook(tmp_path / "analysis.ipynb", metadata, (R_CODE, {}), (WRONG, {}))
    note = f"gorilla-tui: note: {nb}: not Python: {language} kernel: not checked\n"
    assert run_cli(capsys, "check", nb, "--pool", POOL) == (0, "", note)
    status, out, _ = run_cli(capsys, "check", nb, "--pool", POOL, "--format", "json")
    assert status == 0 and [e["reason"] for e in json.loads(out)] == ["not_checked"]
    status, _, err = run_cli(capsys, "run", nb, "--yes", "--no-isolation")
    assert (status, err) == (2, f"gorilla-tui: error: cannot run {nb}: not Python: {language} kernel\n")


@pytest.mark.parametrize("kernel", ["python", "Python", "python3", "ipython3"])
def test_a_python_kernel_is_checked(capsys, tmp_path, kernel):
    """The same notebook with a Python kernel is checked as before: the made-up model is a finding."""
    meta = {"kernelspec": {"language": kernel, "name": "python3"}, "language_info": {"name": kernel}}
    nb = _notebook(tmp_path / "py.ipynb", meta, (WRONG, {}))
    status, out, _ = run_cli(capsys, "check", nb, "--pool", POOL)
    assert status == 1 and f"{nb}:cell 1:2:1: wrong_args:unknown_model" in out, out


def test_a_cell_whose_vscode_language_is_not_python_is_not_checked(capsys, tmp_path):
    """A cell VS Code marks as R (``metadata.vscode.languageId``) in a Python notebook is not checked, with
    a note naming it; the Python cells beside it are."""
    python = {"kernelspec": {"language": "python", "name": "python3"}}
    nb = _notebook(tmp_path / "mixed.ipynb", python, (R_CODE, {"vscode": {"languageId": "r"}}), (WRONG, {}))
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert (
        status == 1 and out.startswith(f"{nb}:cell 2:2:1: wrong_args:unknown_model") and "round" not in out
    ), out
    assert f"note: {nb}: cell 1: not Python: r cell: not checked" in err, err
    old = tmp_path / "old.ipynb"  # nbformat 3: each code cell names its language
    cells = [
        {"cell_type": "code", "input": R_CODE, "language": "r"},
        {"cell_type": "code", "input": WRONG, "language": "python"},
    ]
    old.write_text(json.dumps({"nbformat": 3, "metadata": {}, "worksheets": [{"cells": cells}]}))
    status, out, err = run_cli(capsys, "check", str(old), "--pool", POOL)
    assert out.startswith(f"{old}:cell 2:2:1: wrong_args:unknown_model") and "round" not in out, out
    assert status == 1 and f"note: {old}: cell 1: not Python: r cell: not checked" in err, err


def test_a_source_folders_files_that_are_not_regular_are_named_with_checks_cause(capsys, tmp_path):
    """R14-12: `index --refresh --source NAME=DIR` left a FIFO b.jsonl out with no word (the table said 0
    skipped), and a link to /dev/zero was "a symbolic link that leads to no file". Each is now counted as
    skipped and named with the cause `check DIR` gives the same file (check/lint.py unreadable), and a
    folder holding only such files says which and why."""
    src = tmp_path / "src"
    src.mkdir()
    doc = {"api_name": "zz.copy_thing", "api_call": "zz.copy_thing(src, dst)", "description": "copy zzq"}
    (src / "a.jsonl").write_text(json.dumps(doc) + "\n")
    os.mkfifo(src / "b.jsonl")
    os.symlink("/dev/zero", src / "c.jsonl")
    os.symlink("d.json", src / "d.json")  # a loop
    causes = {
        name: lint.unreadable(str(src / name)).removesuffix(": not checked")
        for name in ("b.jsonl", "c.jsonl", "d.json")
    }
    assert causes["b.jsonl"] == "not a regular file (a FIFO)"
    assert causes["c.jsonl"] == "not a regular file (a character device)"
    refresh = ("index", "--refresh", "--source", f"zf={src}", "--only", "zf", "--no-dense")
    status, out, err = run_cli(capsys, *refresh)
    assert status == 0, err
    said = out + err
    for name, cause in causes.items():
        assert f"skipped zf: {src / name}: {cause}: not read" in said, said
    row = next(line for line in said.splitlines() if line.startswith("│ zf"))
    assert [cell.strip() for cell in row.split("│")][2:7] == ["ok", "1", "0", "0", "3"], row
    (src / "a.jsonl").unlink()
    status, _, err = run_cli(capsys, *refresh)
    assert status == 2 and "3 file(s) not read (b.jsonl: not a regular file (a FIFO))" in err, err
