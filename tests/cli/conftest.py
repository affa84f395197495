"""Fixtures shared by the CLI tests."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.conftest import SMALL_POOL, clone_home


@pytest.fixture
def small_home(home_template, gorilla_home: Path) -> Path:
    """gorilla_home with a BM25 index of the small pool (tests/data/pool: Torch Hub, python-env's shutil and
    json, and the rest), built once per session by home_template and cloned for each test."""
    return clone_home(home_template(["index", "--refresh", "--from", str(SMALL_POOL)]), gorilla_home)
