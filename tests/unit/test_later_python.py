"""A callee a later Python defines (``itertools.batched``, Python 3.12) is still flagged when the pool is an
older Python's standard library, but the finding says so (check/validator.py later_python, pool/typeshed.py
added_in): a tester's `check` over tqdm read it as an invented name. Real typeshed stubs through
typeshed_client, the running Python's pool (tests/conftest.py stdlib_docs), real tree-sitter."""

from __future__ import annotations

import sys

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.typeshed import added_in

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="the names are new in 3.12 and 3.13")


def test_names_of_later_pythons_are_told_by_the_version_that_added_them():
    assert added_in("itertools.batched") == "3.12"
    assert added_in("copy.replace") == "3.13"
    assert added_in("itertools.chain") == ""  # in this Python
    assert added_in("itertools.no_such_name") == "" and added_in("no_such_module.x") == ""
    assert added_in("batched") == ""


def test_check_flags_a_later_pythons_name_and_says_when_it_was_added(stdlib_docs):
    validator = Validator(list(stdlib_docs))
    later = validator.check("import itertools\nfor b in itertools.batched(rows, 2):\n    print(b)")
    assert later.kind == "hallucination"
    said = " ".join(later.diagnostics)
    assert (
        "itertools.batched is not a callee of the API pool (added in Python 3.12; the pool is Python 3.11's)"
        in said
    )
    invented = validator.check("import itertools\nitertools.batchify(rows, 2)")
    assert invented.kind == "hallucination" and not any("added in" in n for n in invented.diagnostics)


def test_keywords_of_later_pythons_are_told_by_the_version_that_added_them(stdlib_docs):
    """Break-it round 29 (F8): a keyword a later Python added (a module-level function's, a class's
    ``__new__``, a callable object's ``__call__``: ``rmtree: _RmtreeType``) says so, as a name does."""
    from gorilla_tui.pool.stub_members import keyword_added_in

    assert keyword_added_in("shutil.rmtree", "onexc") == "3.12"  # _RmtreeType.__call__ under a version gate
    assert keyword_added_in("typing.TypeVar", "default") == "3.13"  # TypeVar.__new__ per version
    assert keyword_added_in("shutil.rmtree", "onerror") == ""  # in this Python
    assert keyword_added_in("shutil.rmtree", "onexcc") == "" and keyword_added_in("no_such.f", "x") == ""
    validator = Validator(list(stdlib_docs))
    for code, version in [
        ("import shutil\nshutil.rmtree('x', onexc=print)", "3.12"),
        ("import typing\nT = typing.TypeVar('T', default=int)", "3.13"),
    ]:
        verdict = validator.check(code)
        assert verdict.reason == "wrong_args:unknown_keyword", (code, verdict)
        assert f"(added in Python {version}; the pool is Python 3.11's)" in " ".join(verdict.diagnostics)
    typo = validator.check("import shutil\nshutil.rmtree('x', onexcc=print)")
    assert typo.reason == "wrong_args:unknown_keyword" and "added in" not in " ".join(typo.diagnostics)
