"""`check FILE` on code gated on the Python version and on type stubs (break-it round 31, F13): an early
exit on a version test and a flag assigned such a test gate the code after them, and a line's ``# type:
ignore[attr-defined]`` says the name may be missing (packaging/tags.py's 3.13 ``platform.ios_ver()``,
check/guards.py); a
.pyi stub is never run, so it is noted, not checked (check/blocks.py). Real tree-sitter, the real
Validator over the running Python's standard library, numpy's installed stub where present."""

from __future__ import annotations

import importlib.util
from pathlib import Path

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.blocks import STUB_SKIPPED
from gorilla_tui.check.validator import Validator

GATED = """\
import itertools
import sys

PY312 = sys.version_info >= (3, 12)


def flag(it):
    if not PY312:
        return it
    return itertools.batched(it, 2)


def early(it):
    if sys.version_info < (3, 12):
        raise RuntimeError("needs 3.12")
    return itertools.batched(it, 2)


def ignored(it):
    return itertools.batched(it, 2)  # type: ignore[attr-defined]


def ungated(it):
    if sys.version_info < (3, 12):
        print("old")
    return itertools.batched(it, 2)
"""


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


def test_code_after_an_early_exit_or_under_a_version_flag_is_not_judged(validator):
    found = lint.check_block(validator, "g.py", lint.Block(GATED))
    assert [(f.line, f.reason) for f in found] == [(26, "hallucination:unknown_callee")]  # ungated only


_SPEC = importlib.util.find_spec("numpy")
PEP440 = Path(_SPEC.origin).parent / "_utils" / "_pep440.pyi" if _SPEC and _SPEC.origin else None


@pytest.mark.skipif(PEP440 is None or not PEP440.is_file(), reason="numpy's stub is not installed")
def test_a_type_stub_is_noted_not_checked(validator, tmp_path):
    text = PEP440.read_text(encoding="utf-8")
    assert "TypeVar(" in text and "default=" in text  # PEP 696: a 3.13 keyword, fine in any stub
    notes: list[str] = []
    found = [
        f
        for b in lint.blocks(str(PEP440), text)
        for f in lint.check_block(validator, "s.pyi", b, notes=notes)
    ]
    assert found == [] and notes == [f"s.pyi: {STUB_SKIPPED}"]
    copy = tmp_path / "same.py"  # the same text as a module is checked (and reports the 3.13 keyword)
    found = [f for b in lint.blocks(str(copy), text) for f in lint.check_block(validator, str(copy), b)]
    assert [f.reason for f in found] == ["wrong_args:unknown_keyword"]
    (tmp_path / "stub.pyi").write_text(text, encoding="utf-8")
    assert lint.discover([str(tmp_path)]) == []  # a folder is searched for .py, not .pyi
