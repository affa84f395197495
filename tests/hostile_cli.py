"""Helpers of the CLI's hostile-input tests (tests/cli/test_hostile_check_r*.py and the notebook ones): the
small Torch Hub pool, a hallucinated call of it, the CLI run in-process with no traceback allowed, and a
notebook written from code cells."""

from __future__ import annotations

import json
from pathlib import Path

from gorilla_tui.cli import main

#: tests/data/pool/torchhub_api.jsonl: a pool `check --pool` reads.
POOL = str(Path(__file__).resolve().parent / "data" / "pool" / "torchhub_api.jsonl")
#: A call of a model the pool does not have (the paper's resnet-201): a finding wherever it is read.
WRONG_HUB = "torch.hub.load('pytorch/vision', 'resnet-201')"


def run_cli(capsys, *args: str) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of `gorilla-tui ARGS` run in this process; fails on a traceback or an
    "internal error" (input never reaches one)."""
    status = main(list(args))
    captured = capsys.readouterr()
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err[-2000:]
    return status, captured.out, captured.err


def notebook(path: Path, *cells: str) -> str:
    """Write an nbformat 4.5 notebook of code `cells` (each a source string) to `path`; returns the path."""
    cell = {"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": None}
    path.write_text(json.dumps({"nbformat": 4, "nbformat_minor": 5, "metadata": {}, "cells": [
        {**cell, "source": src} for src in cells]}))  # fmt: skip
    return str(path)
