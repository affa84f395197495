"""A method called on a standard-library call's result is judged by the class the stubs say the call returns
(break-it round 29, F5; check/stub_chain.py result_verdict, pool/stub_results.py): a misspelt one is a
hallucination with did-you-mean in `check CODE` and `check FILE` alike, a real one valid, and a chain the
stubs cannot follow is left alone. Real typeshed stubs through typeshed_client, the running Python's pool
(tests/conftest.py stdlib_docs), real tree-sitter."""

from __future__ import annotations

import sys

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.stub_results import result_chain

pytestmark = pytest.mark.skipif(sys.version_info[:2] != (3, 11), reason="Path.walk is new in 3.12")

#: (code, the did-you-mean expected first) of misspelt methods on a call's result (breakit29 05.sh).
MISSPELT = [
    ("import sqlite3\nsqlite3.connect('a.db').exeucte('x')", "sqlite3.connect().execute"),
    ("import pathlib\npathlib.Path('x').read_txt()", "pathlib.Path().read_text"),
    ("import zipfile\nzipfile.ZipFile('a.zip').extractal('o')", "zipfile.ZipFile().extractall"),
    ("open('a').raed()", "open().read"),
    (
        "import sqlite3\nsqlite3.connect('a.db').execute('x').fetchal()",
        "sqlite3.connect().execute().fetchall",
    ),
    ("import datetime\ndatetime.datetime.now().strftme('%Y')", "datetime.datetime.now().strftime"),
    # break-it round 30, F-M1: each call of the chain picks the overloads its arguments bind, an alias or
    # a name imported from the module is followed, a type alias, a constrained TypeVar (AnyStr: str or
    # bytes), a module's annotated value (os.environ) and a class's method bound to a module name
    # (tarfile.open = TarFile.open) are read
    ("import subprocess\nsubprocess.check_output(['ls']).decod()", "subprocess.check_output().decode"),
    (
        "import subprocess\nsubprocess.check_output(['ls']).decode().splitlnes()",
        "subprocess.check_output().decode().splitlines",
    ),
    (
        "import subprocess\nsubprocess.check_output(['ls'], text=True).splitlnes()",
        "subprocess.check_output().splitlines",
    ),
    (
        "import sqlite3\nsqlite3.connect('a.db').cursor().exeucte('x')",
        "sqlite3.connect().cursor().execute",
    ),
    ("import tarfile\ntarfile.open('a.tgz').extractal()", "tarfile.open().extractall"),
    ("import pathlib\npathlib.Path('a').open().raed()", "pathlib.Path().open().read"),
    ("import pathlib\npathlib.Path('a').open('rb').peke()", "pathlib.Path().open().peek"),
    (
        "import datetime\ndatetime.datetime.now().date().isofrmat()",
        "datetime.datetime.now().date().isoformat",
    ),
    ("import os\nos.path.basename('a').uper()", "os.path.basename().upper"),
    ("import os\nos.environ.copy().updte({})", "os.environ.copy().update"),
    ("import sqlite3 as sq\nsq.connect('a').exeucte('x')", "sqlite3.connect().execute"),
    ("from subprocess import run\nrun(['ls']).check_returncod()", "subprocess.run().check_returncode"),
    # the same class, not in the report
    ("import zipfile as z\nz.ZipFile('a.zip').namelst()", "zipfile.ZipFile().namelist"),
    ("import os\nos.path.splitext('a.txt')[0]\nos.getcwd().uper()", "os.getcwd().upper"),
    ("import shlex\nshlex.quote('a b').uper()", "shlex.quote().upper"),
]
#: Real methods on a call's result, and chains the stubs cannot follow: never a finding.
REAL = [
    # break-it round 31: the stubs say typing.IO, the real objects (ZipExtFile, ExFileObject) have more
    "import zipfile\nzipfile.ZipFile('a.zip').open('x').read1()",
    "import tarfile\ntarfile.open('a.tar').extractfile('x').peek()",
    "import sqlite3\nsqlite3.connect('a.db').execute('x').fetchall()",
    "import pathlib\npathlib.Path('x').read_text()",
    "open('a', 'rb').peek(1)",  # BufferedReader's: one of the classes open(name, mode) may return
    "open('a', mode).peek(1)",
    "import re\nre.compile('a').scanner('b')",  # not in the stubs, but re.Pattern has it
    "import threading\nthreading.local().anything()",  # __getattribute__: any name
    "class A(B):\n    def f(self):\n        super().whatever()",
    "type(x).some_classmethod()",
    # the result of a call that runs a command is no call that runs one (session 13: a hallucination)
    "import subprocess\nsubprocess.check_output(['ls']).decode()",
    "import subprocess\nsubprocess.Popen(['ls']).communicate()",
    "import importlib\nimportlib.import_module('m').f()",  # ModuleType.__getattr__
    "import typing\ntyping.NamedTuple('P', [('x', int)]).mro()",  # makes a class, not an instance
    "import enum\nenum.Enum('Color', 'RED').RED.value.bit_length()",  # a metaclass's call
    "import email, email.policy\nemail.message_from_bytes(b, policy=email.policy.default).get_body()",
    # break-it round 30, F-M1: the real methods of the same chains, and chains whose arguments leave the
    # overload open (a variable where text=True / False decides: check_output's last overload is Any)
    "import subprocess\nsubprocess.check_output(['ls']).decode().splitlines()",
    "import subprocess\nsubprocess.check_output(['ls'], text=True).splitlines()",
    "import subprocess\nsubprocess.check_output(cmd, text=flag).decod()",
    "import sqlite3\nsqlite3.connect('a.db').cursor().execute('x')",
    "import tarfile\ntarfile.open('a.tgz').extractall()",
    "import pathlib\npathlib.Path('a').open().read()",
    "import pathlib\npathlib.Path('a').open(mode).peek()",
    "import datetime\ndatetime.datetime.now().date().isoformat()",
    "import os\nos.path.basename('a').upper()",
    "import os\nos.environ.copy().update({})",
    "import sqlite3 as sq\nsq.connect('a').execute('x')",
    "from subprocess import run\nrun(['ls']).check_returncode()",
    "import urllib.request\nurllib.request.urlopen(u).info().get_params()",  # _UrlopenRet = Any: unknown
]


@pytest.fixture(scope="module")
def validator(stdlib_docs):
    return Validator(list(stdlib_docs))


@pytest.mark.parametrize(("code", "near"), MISSPELT)
def test_a_misspelt_method_on_a_calls_result_is_a_hallucination(validator, code, near):
    verdict = validator.check(code)
    assert verdict.kind == "hallucination" and verdict.reason == "hallucination:unknown_callee", verdict
    assert verdict.suggestions[0] == near, verdict.suggestions
    assert "has no attribute" in " ".join(verdict.diagnostics)


@pytest.mark.parametrize("code", REAL)
def test_real_methods_and_unknown_chains_are_not_flagged(validator, code):
    verdict = validator.check(code)
    assert verdict.kind != "hallucination", (code, verdict)


def test_the_overloads_that_take_the_arguments_decide():
    """open('a') binds only the overload returning TextIOWrapper (peek is a BufferedReader's); with a mode
    every overload binds, and a name one of their classes has is real. sqlite3.connect('a.db') leaves out
    the overloads with a factory (a type variable: unknown)."""
    assert result_chain("open().peek", lambda fn: len(fn.args.args) >= 1 and _binds(fn, 1)).state == "missing"
    assert result_chain("open().peek").state == "found"
    assert result_chain("open().raed").state == "missing"
    assert result_chain("sqlite3.connect().exeucte").state == "unknown"  # all overloads: a type variable
    assert result_chain("sqlite3.connect().exeucte", lambda fn: _binds(fn, 1)).state == "missing"
    assert result_chain("f()()").state == "unknown" and result_chain("os.getcwd").state == "unknown"


def _binds(fn, given: int) -> bool:
    """Whether `given` positional arguments bind module-level stub function `fn` (required ones given)."""
    from gorilla_tui.check.stub_chain import _problem

    return _problem(fn, given, [], method=False) is None


def test_a_name_a_later_python_added_on_a_result_says_so(validator):
    verdict = validator.check("import pathlib\npathlib.Path('x').walk()")
    assert verdict.kind == "hallucination"
    assert "(added in Python 3.12; the pool is Python 3.11's)" in " ".join(verdict.diagnostics)


def test_the_linter_reports_them_and_leaves_real_code_alone(validator):
    """`check FILE` reports the same calls (check/judged.py: a hallucination on a call's result is no
    "attribute of a bound name" left unjudged) and nothing on the real ones."""
    code = "\n".join(
        [
            "import sqlite3, pathlib, zipfile, datetime, re, threading, importlib",
            *(c.split("\n", 1)[-1] for c, _ in MISSPELT[:6]),
            *(c.split("\n", 1)[-1] for c in REAL[:6]),
        ]
    )
    found = lint.check_block(validator, "f5.py", lint.Block(code))
    assert [f.line for f in found] == list(range(2, 2 + 6)), found
    assert all(f.reason == "hallucination:unknown_callee" for f in found)


def test_the_linter_reports_the_chains_of_break_it_30(validator):
    """`check FILE` reports F-M1's chains as `check CODE` does, aliases included, and not their real
    forms (REAL's break-it 30 rows)."""
    bad = [c for c, _ in MISSPELT[6:18]]
    code = "\n".join(
        [
            "import subprocess, sqlite3, tarfile, pathlib, datetime, os",
            "import sqlite3 as sq",
            "from subprocess import run",
            *(c.split("\n")[-1] for c in bad),
            *(c.split("\n")[-1] for c in REAL[-12:]),
        ]
    )
    found = lint.check_block(validator, "m1.py", lint.Block(code))
    assert [f.line for f in found] == list(range(4, 4 + len(bad))), found
    assert all(f.reason == "hallucination:unknown_callee" for f in found)
