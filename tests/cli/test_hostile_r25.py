"""Break-it round 25 (issue 42), one test per class fixed:

- R25-1: generate mode knew code that runs code or a command only by a list of callee names, so an
  answer reaching it another way (``getattr(__builtins__, 'ex'+'ec')``, ``vars(__builtins__)['eval']``,
  ``sys.modules['os'].system``, ``breakpoint.__self__.exec``, pickle.loads, ctypes, a decorator
  ``@os.system``) was proposed with verdict valid, exit 0, and `ask --run --yes` ran it. Such a route in
  the proposed call makes the verdict wrong_args:runs_code; in the model's separate code it leaves the
  code out, with a warning.
- R25-2: `check --code "open('C:\\\\x\\\\notes.txt')"` was unparseable and ``'C:\\\\data'`` was judged as
  another string: any text holding ``\\n`` was unescaped. Code Python parses as given is judged as given.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.check.extract import clean_code
from gorilla_tui.check.runs_code import reaches_code
from gorilla_tui.cli import main
from tests.endpoint_helpers import CompletionsServer, ask_generate

RESNET = "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50', pretrained=True)"
#: A call of the standard library pool (its arguments free) whose argument reaches running code another
#: way than by a listed name (R25-1).
IN_CALL = {
    "getattr": "shutil.copy(getattr(__builtins__, 'ex'+'ec')('import os') or 'a.txt', 'b.txt')",
    "vars": "shutil.copy(vars(__builtins__)['eval']('1') or 'a.txt', 'b.txt')",
    "modules": "shutil.copy([sys.modules['os'].system('id') for _ in [0]] and 'a.txt', 'b.txt')",
    "self": "shutil.copy(breakpoint.__self__.exec('1') or 'a.txt', 'b.txt')",
}  # fmt: skip
#: The model's separate code with such a route beside the good call (R25-1).
IN_CODE = {
    "modules": "import sys\nsys.modules['os'].system('id')",
    "getattr": "getattr(__builtins__, 'ex'+'ec')('import os')",
    "dict": "__builtins__.__dict__['eval']('1')",
    "pickle": "import pickle\npickle.loads(b'cos\\nsystem\\n(S\"id\"\\ntR.')",
    "ctypes": "import ctypes\nctypes.CDLL(None).system(b'id')",
    "decorator": "import os\n@os.system\ndef f():\n    pass",
    "alias": "from pickle import loads as l\nl(b'')",
    "yaml": "import yaml\nyaml.load(open('a.yml'))",
}
ANSWERS = {f"call-{k}": f"<<<api_call>>>: {v}" for k, v in IN_CALL.items()} | {
    f"code-{k}": f"<<<api_call>>>: {RESNET} <<<code>>>: {v}\nmodel = {RESNET}" for k, v in IN_CODE.items()
}


def _ask(server: CompletionsServer, kind: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    task = "copy a.txt to b.txt" if kind.startswith("call-") else "load resnet50 from torch hub"
    return ask_generate(f"{server.url}/{kind}/v1", task, capsys)


@pytest.mark.parametrize("kind", sorted(IN_CALL))
def test_a_call_reaching_code_another_way_is_never_valid(
    completions_server: CompletionsServer, small_home: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R25-1 in the proposed call's arguments: verdict wrong_args:runs_code and exit 1 (was valid, 0)."""
    status, data = _ask(completions_server, f"call-{kind}", capsys)
    assert data["verdict"]["verdict"] == "wrong_args" and status == 1, data["verdict"]
    assert "runs code or a command" in " ".join(data["verdict"]["diagnostics"])


@pytest.mark.parametrize("kind", sorted(IN_CODE))
def test_code_reaching_code_another_way_is_left_out(
    completions_server: CompletionsServer, small_home: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R25-1 in the model's code field: the code shown and run is the judged call alone, with a warning
    (it was the model's code, verdict valid, and `ask --run --yes` ran it)."""
    status, data = _ask(completions_server, f"code-{kind}", capsys)
    assert data["api_call"] == RESNET and data["code"] == f"import torch\n{RESNET}", data  # with its import
    assert any("code was left out" in w for w in data["warnings"]), data["warnings"]
    assert data["verdict"]["verdict"] == "valid" and status == 0


def test_everyday_code_reaches_nothing() -> None:
    """Calls of a call's result, subscripts of data, a safe yaml loader and a variable named code are not
    routes to running code: a good answer keeps its code (tests/cli/test_hostile_r24.py, the good answer)."""
    for code in (f"import torch\nmodel = {RESNET}\nmodel.eval()", "pathlib.Path('a.txt').read_text()",
                 "pipeline('sentiment-analysis')('I love it')", "df['a'].mean()", "out[0].shape",
                 "model.signatures['serving_default'](audio)",
                 "yaml.load(f, Loader=yaml.SafeLoader)", "code = 'x'\ncode.strip()",
                 "if __name__ == '__main__':\n    print(open('a.txt').read())"):  # fmt: skip
        assert reaches_code(code) == [], code
    assert reaches_code("subprocess.run(['ls'])", skip_outer=True) == []  # the judged callee: the pool's
    assert reaches_code("subprocess.run([getattr(os, 'getcwd')()])", skip_outer=True) == ["getattr"]


# ---------------------------------------------------------------------------------------------------------
# R25-2: a backslash in a string of valid code


WINDOWS = [r"open('C:\\x\\notes.txt')", r"open('C:\\data\\notes.txt')", r"print('a\\nb')"]


@pytest.mark.parametrize("code", WINDOWS)
def test_check_judges_valid_code_as_given(
    small_home: Path, code: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check --code` judges the code given (was unparseable, or another string)."""
    status = main(["check", "--json", "--code", code])
    data = json.loads(capsys.readouterr().out)
    assert data["api_call"] == code and data["verdict"] == "valid" and status == 0, data


def test_escaped_pastes_are_still_unescaped() -> None:
    """Text Python does not parse as given and does once unescaped (a JSON-escaped paste) is unescaped."""
    assert clean_code("import os\\nos.remove('a.txt')") == "import os\nos.remove('a.txt')"
    assert clean_code("open(\\'a.txt\\')") == "open('a.txt')"
    assert clean_code("sys.stdout.write('hello\\n')") == "sys.stdout.write('hello\\n')"


def test_ask_verdict_matches_the_windows_path_it_shows(
    small_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status = main(["ask", "--json", "read the text file C:\\x\\notes.txt"])
    data = json.loads(capsys.readouterr().out)
    assert "C:\\\\x\\\\notes.txt" in data["code"], data["code"]
    assert data["verdict"]["verdict"] != "unparseable" and status in (0, 1), data["verdict"]
