"""Python's scopes for a file's imported names (check/scopes.py, break-it round 31 F5): a parameter or
local of one function, or a class attribute, does not shadow a module import in another function or a
method. Real tree-sitter, the real Validator over the running Python's standard library (python-env), and
the real pip/_vendor/urllib3/contrib/pyopenssl.py where it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.callsite import scan
from gorilla_tui.check.imports import resolve_calls
from gorilla_tui.check.validator import Validator

ALIAS_AND_PARAMETER = """\
from socket import error as SocketError


class C:
    def __init__(self, socket):
        self.socket = socket

    def recv(self):
        raise SocketError("x")
"""

CLASS_ATTRIBUTE = """\
import socket


class C:
    socket = None

    def f(self):
        raise socket.eror("x")
"""

OTHER_FUNCTION = """\
import socket


def f(socket):
    return socket.eror()


def g():
    return socket.eror()


def h():
    def inner():
        return socket.eror()

    socket = None
    return inner


def k():
    global socket
    socket = None


class D:
    socket = None
    x = socket.eror()
"""


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


def _findings(validator, code):
    return [(f.line, f.reason) for f in lint.check_block(validator, "f.py", lint.Block(code))]


def test_an_import_alias_is_the_module_beside_a_parameter_of_the_modules_name(validator):
    assert _findings(validator, ALIAS_AND_PARAMETER) == []  # SocketError is socket.error (OSError)


def test_a_class_attribute_does_not_hide_the_module_from_a_method(validator):
    assert _findings(validator, CLASS_ATTRIBUTE) == [(8, "hallucination:unknown_callee")]


def test_each_call_sees_the_names_of_its_own_scopes():
    """f's parameter, h's local (seen by inner, a closure) and D's class attribute (seen in the class body)
    shadow the import; g sees it; k's `global socket` rebinds the module's name, so no call sees it."""
    code = OTHER_FUNCTION.replace("def k():\n    global socket\n    socket = None\n", "")
    found = scan(code)
    calls = resolve_calls(code, found.calls, found)
    assert [(c.line, c.callee) for c in calls] == [
        (5, "socket.eror"),
        (9, "socket.eror"),
        (14, "socket.eror"),
        (24, "socket.eror"),
    ]
    free = [("socket" in found.free.get(c.span, ())) for c in calls]
    assert free == [False, True, False, False]
    assert ["socket" in found.bound_at(c) for c in calls] == [True, False, True, True]
    rebound = scan(OTHER_FUNCTION)
    assert rebound.free == {}  # `global socket` in k: the module's own name, in every call


def test_only_the_unshadowed_call_is_a_finding(validator):
    assert _findings(
        validator, OTHER_FUNCTION.replace("def k():\n    global socket\n    socket = None\n", "")
    ) == [(9, "hallucination:unknown_callee")]
    assert _findings(validator, OTHER_FUNCTION) == []


PYOPENSSL = Path(__import__("pip").__file__).parent / "_vendor" / "urllib3" / "contrib" / "pyopenssl.py"


@pytest.mark.skipif(not PYOPENSSL.is_file(), reason="pip's vendored urllib3 is not installed here")
def test_pips_vendored_urllib3_pyopenssl_is_clean(validator):
    text = PYOPENSSL.read_text(encoding="utf-8")
    assert "from socket import error as SocketError" in text
    found = [f for b in lint.blocks(str(PYOPENSSL), text) for f in lint.check_block(validator, "p.py", b)]
    assert found == []
