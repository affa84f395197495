"""Fixtures over the running Python's standard-library pool (tests/conftest.py stdlib_docs) shared by the
filling and file-object tests (tests/unit/test_fill_chains.py, test_fill_kinds.py, test_file_objects.py); a
plugin of tests/conftest.py. A test module's own fixture of the same name wins in that module."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator


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
