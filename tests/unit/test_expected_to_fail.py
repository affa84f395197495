"""check/expected.py (calls a file expects to fail) and the linter's rules for the rows all of the
interpreter's Lib/ gave (issue 39): with the real test pool and the running Python's standard-library
docs, the same wrong calls are findings outside an expected failure and none inside one."""

from __future__ import annotations

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.pyenv.binds import module_binds, source_names, stdlib_root

#: Wrong calls a test makes on purpose: each is a finding on its own.
WRONG = ("sorted(iterable=[])", "import json\njson.loads('x', 1, 2, 3)", "import os\nos.remove_all('x')")


@pytest.fixture(scope="module")
def v(small_pool, stdlib_docs) -> Validator:
    return Validator([*small_pool, *stdlib_docs])


def _found(v, code: str, name: str = "t.py", **kw) -> list[lint.Finding]:
    return [f for b in lint.blocks(name, code) for f in lint.check_block(v, name, b, **kw)]


def _indent(code: str, by: str) -> str:
    return "\n".join(by + ln for ln in code.split("\n"))


@pytest.mark.parametrize("call", WRONG)
def test_a_wrong_call_is_a_finding_unless_the_code_expects_it_to_fail(v, call):
    *imports, last = call.split("\n")
    head = "\n".join(["import unittest", "import pytest", *imports]) + "\n"
    assert len(_found(v, head + last)) == 1  # the same call, not expected to fail: a finding
    expecting = (
        f"class T(unittest.TestCase):\n    def test(self):\n        with self.assertRaises(TypeError):\n"
        f"            {last}\n",
        f"def test():\n    with pytest.raises(TypeError, match='x') as cm:\n        {last}\n",
        f"class T(unittest.TestCase):\n    def test(self):\n"
        f"        with self.assertRaisesRegex(TypeError, 'keyword'):\n            {last}\n",
        f"class T(unittest.TestCase):\n    def test(self):\n"
        f"        self.assertRaises(TypeError, lambda: {last})\n",
        f"try:\n    {last}\nexcept (TypeError, AttributeError):\n    pass\n",
        f"try:\n    {last}\nexcept ValueError as e:\n    print(e)\n",
        f"class T(unittest.TestCase):\n    def test(self):\n        def too_many():\n            {last}\n"
        f"        with self.assertRaises(TypeError):\n            too_many()\n",
    )
    for body in expecting:
        assert _found(v, head + body) == [], body
    kept = (  # not expected to fail: the handler catches something else, the with is no assertion, the
        # nested function is also used outside the assertion
        f"try:\n    {last}\nexcept OSError:\n    pass\n",
        f"with open('f') as fh:\n    {last}\n",
        f"def outer():\n    def helper():\n        {last}\n    helper()\n"
        f"    with pytest.raises(TypeError):\n        helper()\n",
    )
    for body in kept:
        assert len(_found(v, head + body)) == 1, body


def test_a_made_up_model_in_a_catch_all_try_is_still_a_finding(v):
    load = "torch.hub.load('pytorch/vision', 'resnet201')"
    code = f"import torch\ntry:\n    m = {load}\nexcept {{}}:\n    m = None\n"
    assert [f.reason for f in _found(v, code.format("Exception"))] == ["wrong_args:unknown_model"]
    assert _found(v, code.format("(TypeError, ValueError)")) == []  # the code expects this call to fail


def test_the_rows_of_cpythons_own_tests_are_not_findings(v):
    # the rows check gave on Lib/test before: a debug build's sys.gettotalrefcount behind a skip
    # decorator and an early SkipTest, Solaris' select.devpoll, os.lchmod probed with hasattr, a Windows
    # branch, positional-only misuse inside assertRaises
    for rel in ("test/test_devpoll.py", "test/test_tuple.py", "test/test_signal.py", "test/test_csv.py"):
        path = stdlib_root() / rel
        if path.is_file():
            assert _found(v, path.read_text(encoding="utf-8"), str(path)) == [], rel
    assert _found(v, "import sys\nsys.gettotalrefcount()\n")  # without the probe: judged
    code = "import os\nif handle_type == FileType.WINDOWS_HANDLE:\n    os.set_handle_inheritable(1, True)\n"
    assert _found(v, code) == []
    assert _found(v, code.replace("FileType.WINDOWS_HANDLE", "FileType.PIPE"))


def test_real_names_with_signatures_python_reads_from_docstrings_are_not_findings(v):
    for code in (
        "bool()",  # bool's docstring says bool(x); bool() is False
        "import http\nhttp.HTTPStatus(404)",  # an enum called with a value looks its member up
        "import os\nos.stat_result(range(10), {'st_atime': 1.0})",  # from posix: tuple's signature
        "import sqlite3\nsqlite3.Date(2004, 2, 14)",  # sqlite3.dbapi2's Date, through two star imports
        "import multiprocessing as mp\nmp.current_process()",  # multiprocessing's globals().update
    ):
        assert _found(v, code) == [], code
    assert module_binds("sqlite3", "Date") is True and module_binds("sqlite3", "Datee") is None
    assert source_names("multiprocessing").dynamic and not source_names("json").dynamic
    assert _found(v, "import json\njson.dumpz({})")  # a module whose source lists every name: judged


def test_a_file_python_refuses_is_a_note_and_a_snippet_keeps_its_verdict(v):
    code = "import os\nprint 'hello'\nos.remove_all('x')\n"
    notes: list[str] = []
    assert _found(v, code, "py2.py", notes=notes, syntax_note=True) == []
    assert len(notes) == 1 and notes[0].startswith("py2.py: skipped: not Python 3 syntax (2:1: ")
    assert [f.reason for f in _found(v, code)] == ["unparseable:python_syntax"]


def test_calls_in_a_long_chain_are_judged_each_by_its_own_place(v):
    """Break-it round 7: 2,000 calls in one ``and`` chain took 119 s (each call walked up tree-sitter's
    parents, and each parent is a walk down from the root). The file is now read once; the same chain is
    judged call by call: inside ``with self.assertRaises`` none is a finding, outside each one is."""
    chain = " and ".join(["sorted(iterable=[])"] * 300)
    inside = (
        "import unittest\nclass T(unittest.TestCase):\n    def test(self):\n"
        f"        with self.assertRaises(TypeError):\n            x = {chain}\n"
    )
    assert _found(v, inside) == []
    outside = f"import unittest\nx = {chain}\n"
    assert len(_found(v, outside)) == 300


def test_every_use_of_a_nested_helper_is_seen_by_rule_4(v):
    """Rule 4 as the one-pass reader keeps it: helper ``h`` used only inside the assertion makes its wrong
    call expected; one more use outside it makes the call a finding."""
    expected = (
        "import pytest\ndef outer():\n    def h():\n        sorted(iterable=[])\n"
        "    with pytest.raises(TypeError):\n        h()\n"
    )
    assert _found(v, expected) == []
    assert len(_found(v, expected + "    h()\n")) == 1
