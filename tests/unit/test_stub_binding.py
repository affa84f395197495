"""A standard-library call no overload of its type stub takes is wrong_args (break-it round 30, F-H5;
pool/stub_bind.py, check/stub_types.py stub_call_errors): too few or too many arguments where the pool's
doc reads its signature from a docstring (``datetime.date(year)``), and a literal of a class the stub's
annotation cannot take (a str where it says ReadableBuffer). Real code of the same shape stays valid. Real
typeshed stubs through typeshed_client, the running Python's pool (tests/conftest.py stdlib_docs), real
tree-sitter."""

from __future__ import annotations

import sys

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.stub_bind import call_problem, literal_arg

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="typeshed read as Python 3.11's")

#: (code, reason) of calls that raise TypeError at once (breakit30 09.sh; and others of the same class
#: not in the report: set(1, 2, 3) and dict(keys, vals) of F-H2, int.from_bytes on a str, fromisocalendar).
RAISE = [
    ("import datetime\ndatetime.date(2025)", "wrong_args:missing_argument"),
    ("import datetime\ndatetime.datetime(1700000000)", "wrong_args:missing_argument"),
    ("int('42', 10, 3)", "wrong_args:too_many_arguments"),
    ("dict('a', 1, 'b', 2)", "wrong_args:too_many_arguments"),
    ("import hashlib\nhashlib.sha256('abc')", "wrong_args:wrong_type"),
    ("import urllib.parse\nurllib.parse.urlencode('a b&c=d')", "wrong_args:wrong_type"),
    ("import time\ntime.mktime('12:30:45')", "wrong_args:wrong_type"),
    ("import time\ntime.mktime(1700000000)", "wrong_args:wrong_type"),
    ("set(1, 2, 3)", "wrong_args:too_many_arguments"),
    ("dict(keys, vals)", "wrong_args:too_many_arguments"),
    ("int.from_bytes('x00')", "wrong_args:wrong_type"),
    ("import datetime\ndatetime.date.fromisocalendar(3, 2026)", "wrong_args:missing_argument"),
    ("import math\nmath.sqrt('4')", "wrong_args:wrong_type"),
    # break-it round 31, F12: a builtin type's method on a literal or a constructor's result, held to its
    # stub with the instance as self; round's one-argument overload refuses a str (its other wants ndigits)
    ("','.split(1)", "wrong_args:wrong_type"),
    ("'abc'.encode(1)", "wrong_args:wrong_type"),
    ("b'abc'.decode(1)", "wrong_args:wrong_type"),
    ("str(3).split(1)", "wrong_args:wrong_type"),
    ("round('2.5')", "wrong_args:wrong_type"),
]
#: Calls of RAISE without an import or a name: run here to show they raise TypeError at once.
RUNNABLE = [code for code, _ in RAISE if "\n" not in code and "keys" not in code]
#: The same functions called as real code calls them: valid.
REAL = [
    # break-it round 31, F12: the same methods and round with literals they take
    "','.split(',')",
    "'a b'.split(None, 1)",
    "'a'.encode('utf-8')",
    "b'a'.decode('ascii', 'ignore')",
    "round(2.5)",
    "round(2.567, 2)",
    "'abc'.replace('a', 'b', 1)",
    "b'a,b'.split(b',')",
    "'x'.center(5, '*')",
    # break-it round 31: a generator expression read as a tuple, a bool where the stub says float
    "next((v for k, v in items), None)",
    "next(v for k, v in items)",
    "import datetime\ndatetime.timedelta(days=True)",
    "import datetime\ndatetime.datetime.fromtimestamp(True)",
    "import datetime\ndatetime.date(2025, 1, 2)",
    "import datetime\ndatetime.datetime(2025, 1, 2, 10, tzinfo=None)",
    "int('42', 16)",
    "int(x)",
    "dict(a=1, b=2)",
    "dict([('a', 1)], b=2)",
    "import hashlib\nhashlib.sha256(b'abc')",
    "import hashlib\nhashlib.sha256(data)",
    "import urllib.parse\nurllib.parse.urlencode({'q': 'a b'})",
    "import urllib.parse\nurllib.parse.urlencode([('q', 'a b')], doseq=True)",
    "import time\ntime.mktime((2020, 1, 1, 0, 0, 0, 0, 1, -1))",
    "import time\ntime.mktime(time.localtime())",
    "set([1, 2, 3])",
    "int.from_bytes(b'\\x00\\x01', 'big')",
    "import subprocess\nsubprocess.check_output(['ls'], text=True)",
    "open('a', 'rb', 0)",
    "import os\nos.makedirs('a', exist_ok=True)",
    "print(1, 'a', sep='', end='')",
    "import collections\ncollections.Counter('abc')",
    "import re\nre.compile('a', 0)",
    "float('1.5')",
    "bytes('a', 'utf-8')",
    # CPython's own calls whose stub is narrower than the runtime (bench/false_alarms.py over Lib/): a
    # flag given 1, a str where a C function's stub says bytes, a Python class keeping what it is given, a
    # keyword the stub names otherwise or lacks, a NamedTuple's and an ast node's fields, a positional-only
    # name that goes into **kwargs, a compiled function whose text signature the doc already has
    "import inspect\ninspect.getclasstree([int], 1)",
    "import xmlrpc.client\nxmlrpc.client.dumps((1,), allow_none=1)",
    "import fcntl\nfcntl.ioctl(fd, 1, 'ptem')",
    "import calendar\ncalendar.LocaleTextCalendar(locale='en_US')",
    "import logging\nlogging.disable('WARN')",
    "memoryview(object=b'x')",
    "str(errors='strict')",
    "import sqlite3\nsqlite3.adapt(42)",
    "import tkinter.messagebox\ntkinter.messagebox.showerror('t', 'm', master=root)",
    "import tokenize\ntokenize.TokenInfo(type=1, string='a', start=(1, 0), end=(1, 1), line='a')",
    "import collections\ncollections.Counter(iterable='abc')",
    "import ast\nast.ImportFrom(module='m', names=[])",
    "import symtable\nsymtable.symtable('x = 1', b'x.py', 'exec')",
]


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


@pytest.mark.parametrize(("code", "reason"), RAISE)
def test_a_call_no_overload_takes_is_wrong_args(validator, code, reason):
    verdict = validator.check(code)
    assert verdict.kind == "wrong_args" and verdict.reason == reason, verdict
    assert "(its type stub, every overload)" in " ".join(verdict.diagnostics)


@pytest.mark.parametrize("code", RUNNABLE)
def test_those_calls_raise_type_error_when_run(code):
    with pytest.raises(TypeError):
        eval(code)  # noqa: S307 - the test's own literal code, run to show Python refuses it


@pytest.mark.parametrize("code", REAL)
def test_real_calls_of_the_same_functions_stay_valid(validator, code):
    verdict = validator.check(code)
    assert verdict.kind == "valid", (code, verdict)


def test_the_linter_reports_them_where_the_docstring_signature_is_unsure(validator):
    """`check FILE` reports them too: a compiled class whose doc's signature is its docstring's
    (datetime.date) is no longer left unjudged when its stub states the count (check/judged.py)."""
    code = "import datetime, hashlib\ndatetime.date(2025)\nhashlib.sha256('abc')\ndatetime.date(2025, 1, 2)\n"
    found = lint.check_block(validator, "f.py", lint.Block(code))
    assert [(f.line, f.reason) for f in found] == [
        (2, "wrong_args:missing_argument"),
        (3, "wrong_args:wrong_type"),
    ], found


def _args(*texts: str):
    return tuple(literal_arg(t[1:-1], True) if t[:1] == "'" else literal_arg(t, False) for t in texts)


def test_binding_reads_every_overload_and_only_sure_types():
    """int's two __new__ overloads: ('42', 16) binds the second; a variable is never refused; a TypeVar,
    a protocol the literal has (SupportsIndex for an int) and Any take anything."""
    assert call_problem("int", _args("'42'", "16"), ()) is None
    assert call_problem("int", _args("'42'", "16", "3"), ())[0] == "wrong_args:too_many_arguments"
    assert call_problem("hashlib.sha256", _args("data"), ()) is None
    assert call_problem("hashlib.sha256", _args("'abc'"), ())[0] == "wrong_args:wrong_type"
    assert call_problem("operator.index", _args("3"), ()) is None
    assert call_problem("copy.copy", _args("'a'"), ()) is None  # a TypeVar
    assert call_problem("json.dumps", _args("1"), (("indnet", literal_arg("2", False)),)) is None  # **kwds


def test_a_class_whose_new_makes_another_class_is_read_by_its_new(validator):
    """ast.Ellipsis() (deprecated, 3.8-3.13) runs: its ``__new__`` returns a Constant, so Constant's
    ``__init__(value, ...)`` never runs on it; typeshed says so (``-> Constant``). It was
    "argument 'value' is required" (stdlib test_ast.py, once a `for ast in ...` in another method no longer
    hid the module: check/scopes.py)."""
    import ast

    ast.Ellipsis()  # runs
    assert validator.check("import ast\nast.Ellipsis()").kind == "valid"
    assert validator.check("import ast\nast.Num()").kind == "valid"
