"""Fixtures over the running Python's standard-library pool (tests/conftest.py stdlib_docs) shared by the
filling and file-object tests (tests/unit/test_fill_chains.py, test_fill_kinds.py, test_file_objects.py); a
plugin of tests/conftest.py. A test module's own fixture of the same name wins in that module."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.filler import target_of


def offered_values(docs, name: str, task: str) -> dict[str, list[str]]:
    """Parameter name -> the value sources filling offers doc `name` of `docs` (the `docs` fixture) for
    `task`."""
    target = target_of(docs[name], TaskValues.of(task), docs.get, {})
    assert target is not None
    return {s.param.name: list(s.values) for s in target.offered}


@pytest.fixture(scope="module")
def docs(stdlib_docs):
    """api_name -> its doc."""
    return {d.api_name: d for d in stdlib_docs}


@pytest.fixture(scope="module")
def methods(stdlib_docs):
    """Class name -> its methods' docs, as Pipeline._methods finds them."""
    table: dict[str, list] = {}
    for d in stdlib_docs:
        owner = d.api_name.rpartition(".")[0]
        if owner and d.call.startswith(owner + "("):
            table.setdefault(owner, []).append(d)
    return lambda cls: table.get(cls, [])


@pytest.fixture(scope="module")
def validator(stdlib_docs) -> Validator:
    """The checker over the standard-library pool."""
    return Validator(list(stdlib_docs))
