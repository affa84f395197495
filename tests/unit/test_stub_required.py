"""Break-it round 22, R22-4: a signature that takes its positional arguments as ``*args`` alone
(``subprocess.check_output(*popenargs, ...)``) required nothing, so ``subprocess.check_output()`` was valid;
Python raises "missing 1 required positional argument: 'args'". typeshed's stubs (pool/stub_cache.py
required) say what every overload requires, and the verdict holds the call to it. On the running Python's
standard library as python-env reads it, typeshed's real stubs and real tree-sitter."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.check import lint
from gorilla_tui.paths import get_paths
from gorilla_tui.pool import stub_cache

SUBPROCESS = ("subprocess.check_output", "subprocess.run", "subprocess.call", "subprocess.check_call")


@pytest.mark.parametrize("function", SUBPROCESS)
def test_the_stubs_require_args_of_subprocess(function):
    assert stub_cache.required(function) == ("args",)


def test_what_the_stubs_require_is_kept_in_the_cache_file(monkeypatch):
    monkeypatch.setattr(stub_cache, "_MEMORY", {})  # looked up in the stubs, then written to this home
    assert stub_cache.required("subprocess.run") == ("args",)
    (path,) = (get_paths().cache / stub_cache.FOLDER).glob("*/subprocess.json")
    assert json.loads(path.read_text(encoding="utf-8"))["subprocess.run"]["required"] == ["args"]
    stub_cache._MEMORY.clear()  # read back from the file
    assert stub_cache.required("subprocess.run") == ("args",)


def test_an_overload_that_requires_less_decides():
    assert stub_cache.required("print") == ()  # print(*values)
    assert len(stub_cache.required("max")) == 1  # max(arg1, arg2, *args) or max(iterable)
    assert stub_cache.required("no_such_module.f") == ()


@pytest.mark.parametrize("function", [*SUBPROCESS, "subprocess.Popen"])
def test_a_call_with_no_command_is_wrong_args(validator, function):
    verdict = validator.check(f"import subprocess\n{function}()")
    assert (verdict.kind, verdict.reason) == ("wrong_args", "wrong_args:missing_argument")
    assert any("'args'" in d for d in verdict.diagnostics)
    assert verdict.suggestions == [f"{function}(args)"]


@pytest.mark.parametrize(
    "call",
    [
        "subprocess.run(['ls', '-la'])",
        "subprocess.run(args=['ls'], check=True)",
        "subprocess.check_output('ls', shell=True)",
        "subprocess.call(*command)",
        "print()",
    ],
)
def test_a_call_that_gives_the_command_stays_valid(validator, call):
    assert validator.check(f"import subprocess\n{call}").kind == "valid"


def test_the_linter_reports_a_call_with_no_command(validator):
    text = (
        "import functools\nimport subprocess\n"
        "out = subprocess.check_output()\n"
        "run = functools.partial(subprocess.run, check=True)\n"  # its command comes later
        "subprocess.run(['ls'])\n"
    )
    found = [f for b in lint.blocks("a.py", text) for f in lint.check_block(validator, "a.py", b)]
    assert [(f.line, f.reason) for f in found] == [(3, "wrong_args:missing_argument")]
