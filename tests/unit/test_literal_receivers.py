"""A method called on a literal of a builtin type (check/builtin_types.py): ``','.join(parts)`` is str's join,
checked against the python-env doc ``str().join(iterable)`` (exists, arguments), not "no call"; a method the
type lacks (``','.jion(x)``) is a hallucination with a did-you-mean. On the running Python's standard library
as python-env reads it (tests/conftest.py stdlib_docs) and real tree-sitter; the linter (`check PATH`) too."""

from __future__ import annotations

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.builtin_types import builtin_method, missing_method
from gorilla_tui.check.callsite import scan


@pytest.mark.parametrize(
    ("code", "callee"),
    [
        ("','.join(parts)", "str().join"),
        ("'{}'.format(x)", "str().format"),
        ("f'{x}'.upper()", "str().upper"),
        ("('a' 'b').join(y)", "str().join"),
        ("b'abc'.decode()", "bytes().decode"),
        ('rb"x".hex()', "bytes().hex"),
        ("[1, 2].append(3)", "list().append"),
        ("[x for x in y].pop()", "list().pop"),
        ("{}.get('k')", "dict().get"),
        ("{1}.add(2)", "set().add"),
        ("(1, 2).count(1)", "tuple().count"),
    ],
)
def test_a_literal_receiver_is_its_types_instance(code, callee):
    assert [c.callee for c in scan(code).calls] == [callee]


def test_a_literal_called_or_read_deeper_is_no_method_of_its_type():
    assert [c.callee for c in scan("'abc'()").calls] == [""]
    assert builtin_method("str().b.c") is None and builtin_method("str.join") is None
    assert builtin_method("str().join") == ("str", "join")


@pytest.mark.parametrize(
    ("code", "api_name"),
    [
        ("','.join(parts)", "str.join"),
        ("'{}'.format(x)", "str.format"),
        ("f'{x}'.upper()", "str.upper"),
        ("b'abc'.decode()", "bytes.decode"),
        ("[1, 2].index(2)", "list.index"),  # [1, 2].append(3) changes a list nothing holds: in_place_copy
        ("{}.get('k')", "dict.get"),
        ("{1}.union({2})", "set.union"),
    ],
)
def test_a_method_of_a_literal_is_checked_against_its_doc(validator, code, api_name):
    verdict = validator.check(code)
    assert verdict.kind == "valid", verdict
    assert verdict.matched is not None and verdict.matched.api_name == api_name


@pytest.mark.parametrize(
    ("code", "needed"), [("','.join()", "iterable"), ("[1].append()", "object"), ("{}.get()", "key")]
)
def test_a_literal_methods_arguments_are_checked(validator, code, needed):
    verdict = validator.check(code)
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:missing_argument")
    assert any(repr(needed) in d for d in verdict.diagnostics)


@pytest.mark.parametrize(
    ("code", "meant"),
    [("','.jion(x)", "str().join"), ("b'ab'.encode()", "bytes().decode"), ("str(x).jion(y)", "str().join")],
)
def test_a_misspelled_method_on_a_literal_is_a_hallucination(validator, code, meant):
    verdict = validator.check(code)
    assert (verdict.kind, verdict.reason) == ("hallucination", "hallucination:unknown_callee")
    assert verdict.suggestions[0] == meant
    assert "has no method" in verdict.diagnostics[0]


def test_a_method_the_type_has_but_the_docs_lack_is_valid(validator):
    assert "dict().fromkeys" not in validator.tables  # the python-env docs leave the classmethod out
    assert validator.check("{}.fromkeys('ab')").kind == "valid"
    assert "dict().fromkeys" in missing_method("dict", "fromkey")  # read from dict itself


def test_a_hallucination_inside_a_literals_method_is_still_found(validator):
    verdict = validator.check("import os\n','.join(os.lisdir(p))")
    assert verdict.kind == "hallucination" and verdict.api_call == "os.lisdir(p)"


def test_the_linter_reports_a_misspelled_method_on_a_literal(validator):
    text = (
        "import sys\n"
        "parts = ['a', 'b']\n"
        "print(','.join(parts))\n"
        "print(','.jion(parts))\n"
        "if sys.version_info < (3,):\n"
        "    x = 'abc'.decode('hex')\n"
        "try:\n"
        "    y = b'x'.encode()\n"
        "except AttributeError:\n"
        "    pass\n"
    )
    found = [f for b in lint.blocks("a.py", text) for f in lint.check_block(validator, "a.py", b)]
    assert [(f.line, f.reason) for f in found] == [(4, "hallucination:unknown_callee")]


def test_a_builtin_an_import_rebinds_is_not_that_import(validator):
    """sortedcontainers' ``if hexversion < 0x03000000: from itertools import imap as map``: the builtin map
    below it was judged as itertools.imap, 10 false alarms (break-it round 29, F7). A builtin's name an
    import rebinds is a compatibility shim: the name is ambiguous, not the import's."""
    text = (
        "from sys import hexversion\n"
        "if hexversion < 0x03000000:\n"
        "    from itertools import imap as map\n"
        "def f(lists, pos, indices):\n"
        "    return map(lists[pos].__getitem__, indices)\n"
    )
    assert [f for b in lint.blocks("a.py", text) for f in lint.check_block(validator, "a.py", b)] == []
