"""A keyword the running Python's typeshed stub takes is never unknown (break-it round 31, F6): locale's
python-env doc is read from locale.py's first def, the ``setlocale(category, value=None)`` of its
``except ImportError`` fallback, while the def that runs (and typeshed) names it ``locale``. Real stubs,
the real Validator over the running Python's standard library."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.stub_members import stub_takes_keyword


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


def test_the_stub_names_the_keyword_the_doc_lacks(stdlib_docs):
    doc = next(d for d in stdlib_docs if d.api_name == "locale.setlocale")
    assert "locale" not in doc.api_arguments  # the fallback def's `value`: why the net is needed
    assert stub_takes_keyword("locale.setlocale", "locale")
    assert not stub_takes_keyword("locale.setlocale", "loc")


def test_a_keyword_the_stub_takes_is_valid_and_a_made_up_one_is_not(validator):
    ok = validator.check("import locale\nlocale.setlocale(locale.LC_NUMERIC, locale='C')")
    assert ok.kind == "valid", ok
    bad = validator.check("import locale\nlocale.setlocale(locale.LC_NUMERIC, loc='C')")
    assert bad.reason == "wrong_args:unknown_keyword", bad


_SPEC = importlib.util.find_spec("numpy")
LOCALES = Path(_SPEC.origin).parent / "_core" / "tests" / "_locales.py" if _SPEC and _SPEC.origin else None


@pytest.mark.skipif(LOCALES is None or not LOCALES.is_file(), reason="numpy's test helper is not installed")
def test_numpys_locale_helper_is_clean(validator):
    text = LOCALES.read_text(encoding="utf-8")
    assert "locale=" in text
    found = [f for b in lint.blocks(str(LOCALES), text) for f in lint.check_block(validator, "l.py", b)]
    assert found == []
