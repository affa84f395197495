"""Fixtures shared by the CLI tests."""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from tests.conftest import SMALL_POOL, clone_home
from tests.endpoint_helpers import CompletionsServer


@pytest.fixture
def small_home(home_template, gorilla_home: Path) -> Path:
    """gorilla_home with a BM25 index of the small pool (tests/data/pool: Torch Hub, python-env's shutil and
    json, and the rest), built once per session by home_template and cloned for each test."""
    return clone_home(home_template(["index", "--refresh", "--from", str(SMALL_POOL)]), gorilla_home)


@pytest.fixture
def completions_server(request: pytest.FixtureRequest) -> Iterator[CompletionsServer]:
    """A completions server on 127.0.0.1 (tests/endpoint_helpers.py CompletionsServer) answering the test
    module's ANSWERS: a POST to /KIND/v1/completions gets ANSWERS[KIND]; closed after the test."""
    with closing(CompletionsServer(request.module.ANSWERS)) as server:
        yield server
