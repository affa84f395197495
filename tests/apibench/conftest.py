"""Fixtures of the APIBench tier (every test here is marked `apibench`, tests/conftest.py): the TUI tests'
app factory over the real Torch Hub pool of APIBench (`torchhub_index`, tests/fixtures_model.py) instead of
the small pool of tests/tui."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from tests.tui.conftest import make_app

__all__ = ["make_app", "torchhub_docs"]


@pytest.fixture(scope="session")
def torchhub_docs(apibench: Path) -> list[ApiDoc]:
    """The real Torch Hub API pool of APIBench (94 docs)."""
    return load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs
