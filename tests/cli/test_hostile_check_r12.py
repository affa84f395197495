"""Break-it round 12, `check` reading files: a cell magic's line that IPython runs as Python (R12-3),
decoding and line ends as CPython reads a file (R12-5, R12-6), Markdown read as CommonMark (R12-7)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main

POOL = str(Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl")
WRONG_HUB = "torch.hub.load('pytorch/vision', 'resnet-201')"


def _run(capsys, *args: str) -> tuple[int, str, str]:
    status = main(list(args))
    captured = capsys.readouterr()
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err[-2000:]
    return status, captured.out, captured.err


def _notebook(path: Path, *cells: str) -> str:
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    path.write_text(json.dumps({"nbformat": 4, "cells": [{**cell, "source": src} for src in cells]}))
    return str(path)


def test_the_line_of_a_cell_magic_that_runs_python_is_checked_or_noted(capsys, tmp_path):
    """R12-3: IPython 8 runs ``%%timeit -n1 -r1 SETUP`` as run_cell_magic('timeit', '-n1 -r1 SETUP', body):
    SETUP is Python (so is ``%%debug STATEMENT``); `check` read neither nor said so (exit 0). Now they are
    checked at their line, and a line that runs Python in a form not read is named in the note. The line
    of ``%%time``/``%%prun``/``%%capture`` holds options only: nothing to check there."""
    nb = _notebook(
        tmp_path / "nb.ipynb",
        f"%%timeit -n1 -r1 import torch; {WRONG_HUB}\npass\n",
        f"%%debug {WRONG_HUB}\npass\n",
        "%%prun -s cumtime -q\nimport torch\n",
        f"%%timeit -Z {WRONG_HUB}\npass\n",
    )
    status, out, err = _run(capsys, "check", nb, "--pool", POOL)
    assert status == 1, (out, err)
    found = [ln[len(nb) :].split(" wrong_args")[0] for ln in out.splitlines() if "unknown_model" in ln]
    assert found == [":cell 1:1:32:", ":cell 2:1:9:"]
    assert f"gorilla-tui: note: {nb}: cell 4: line 1 not checked: Python that IPython runs" in err
