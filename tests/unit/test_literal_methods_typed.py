"""Compiled methods on literals and builtins with a literal of a class their stub refuses (break-it round
31, F12): each raises TypeError at once and was valid. A builtin type's method on an instance is held to
its stub with the instance as self (check/stub_types.py); round's one-argument overload refuses a str
while its two-argument one wants ndigits (pool/stub_bind.py); a LiteralString parameter takes no int
(pool/stub_accepts.py). Real typeshed stubs, the real Validator over the running standard library; each
call is run to show what Python does."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator

RAISE = ["','.split(1)", "'abc'.encode(1)", "b'abc'.decode(1)", "round('2.5')", "str(3).split(1)"]
RUN = [
    "','.split(',')",
    "'a b'.split(None, 1)",
    "'a'.encode('utf-8')",
    "b'a'.decode('ascii', 'ignore')",
    "round(2.5)",
    "round(2.567, 2)",
    "'x'.join(['a'])",
    "'abc'.replace('a', 'b', 1)",
    "b'a,b'.split(b',')",
    "'x'.center(5, '*')",
]


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


@pytest.mark.parametrize("code", RAISE)
def test_a_literal_the_stub_refuses_is_wrong_type(validator, code):
    with pytest.raises(TypeError):
        eval(code)  # noqa: S307 - our own test literal: Python raises at once
    verdict = validator.check(code)
    assert verdict.reason == "wrong_args:wrong_type", verdict
    assert "(its type stub, every overload)" in " ".join(verdict.diagnostics)


@pytest.mark.parametrize("code", RUN)
def test_the_same_methods_with_literals_they_take_stay_valid(validator, code):
    eval(code)  # noqa: S307 - our own test literal: it runs
    assert validator.check(code).kind == "valid", code
