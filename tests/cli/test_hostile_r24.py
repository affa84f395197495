"""Break-it round 24 (issue 42), one test per class fixed:

- R24-5: in generate mode an endpoint's answer ``__import__('os').system(...); shutil.copy('a.txt', 'b.txt')``
  came back as the proposal's api_call and code whole, verdict valid, exit 0, no warning: `ask --run` and
  the TUI offered to run the os.system. The proposal's call is now the judged call alone, code that runs
  code or a command outside it is left out (a warning says so), and such a call inside the proposed call's
  arguments is verdict wrong_args:runs_code. `check` reads ``__import__('os').system`` as os.system and
  never counts a call that runs code or a command as incidental.
- R24-7: a bidi control inside a path ("/tmp/x/<U+2066>a.txt") became a space before filling, so one path
  was two values and a read task got ``open('a.txt', 'w').write('/tmp/x/')``. A control inside a word is
  removed (the word kept whole), with a warning.
- R24-9: a currency, maths or modifier symbol, a middle dot or a private-use character cut a path
  ("report<U+20AC>2024.txt" was the file '2024.txt'). A path-shaped word is one value whatever it holds.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.textsafe import clean_task, strip_controls
from tests.conftest import SMALL_POOL
from tests.endpoint_helpers import CompletionsServer, ask_generate

RESNET = "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50', pretrained=True)"
#: What the endpoint answers on each path (generate mode, Gorilla's <<<field>>> format).
ANSWERS = {
    # the break-it answer, with a pool call after the command (os.system is a valid python-env call)
    "import": f"<<<api_call>>>: __import__('os').system('touch /tmp/pwned'); {RESNET}",
    "system": f"<<<api_call>>>: os.system('touch /tmp/pwned'); {RESNET}",
    "first": f"<<<api_call>>>: {RESNET}; os.system('touch /tmp/pwned')",
    "newline": f"<<<api_call>>>: {RESNET}\nimport subprocess; subprocess.run(['rm', '-rf', '/tmp/x'])",
    # the command inside the proposed call's arguments
    "argument": "<<<api_call>>>: torch.hub.load(repo_or_dir=__import__('os').system('id'), model='resnet50')",
    "os-argument": "<<<api_call>>>: torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50',"
    " pretrained=os.system('id') == 0)",
    # one good call, and code that runs a command besides it
    "code": f"<<<api_call>>>: {RESNET} <<<code>>>: import os\nos.system('id')\nmodel = {RESNET}",
    # a good answer stays as it was
    "good": f"<<<api_call>>>: {RESNET} <<<code>>>: import torch\nmodel = {RESNET}\nmodel.eval()",
}


def _ask(server: CompletionsServer, kind: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, dict]:
    return ask_generate(f"{server.url}/{kind}/v1", "load resnet50 from torch hub", capsys)


RUNS = ("__import__", "system(", "popen(", "subprocess")


@pytest.mark.parametrize("kind", ["import", "system", "first", "newline", "code"])
def test_generate_proposes_the_judged_call_alone(
    completions_server: CompletionsServer, small_home: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R24-5: the command beside the call is in neither the proposal's call nor its code (what `ask --run`
    and the TUI run), and a warning says the model's text held more. Each statement is judged alone: the
    call is the pool's (a valid call that runs no command), never os.system or ``__import__``."""
    status, data = _ask(completions_server, kind, capsys)
    assert not any(r in data["code"] + data["api_call"] for r in RUNS), data
    assert any("left out" in w for w in data["warnings"]), data["warnings"]
    assert data["api_call"] == RESNET and data["code"] == f"import torch\n{RESNET}", data  # with its import
    assert data["verdict"]["verdict"] == "valid" and status == 0


@pytest.mark.parametrize("kind", ["argument", "os-argument"])
def test_a_command_in_the_calls_arguments_is_never_valid(
    completions_server: CompletionsServer, small_home: Path, kind: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """R24-5: a call that runs a command inside the proposed call's arguments: the verdict is not valid and
    names it, the exit status is 1 (the run asks twice, the code shown)."""
    status, data = _ask(completions_server, kind, capsys)
    assert any(r in data["code"] for r in RUNS)  # the code is the call, shown as it is
    assert data["verdict"]["verdict"] != "valid" and status == 1, data["verdict"]
    said = " ".join(data["verdict"]["diagnostics"])
    assert "runs code or a command" in said, said


def test_a_good_generate_answer_keeps_its_code(
    completions_server: CompletionsServer, small_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    status, data = _ask(completions_server, "good", capsys)
    assert data["api_call"] == RESNET and data["code"].startswith("import torch\n") and status == 0
    assert not any("left out" in w for w in data["warnings"]) and data["verdict"]["verdict"] == "valid"


def test_check_reads_a_dynamic_import_as_the_module(validator: Validator) -> None:
    """R24-5 in `check` (`validator`: the standard library's python-env pool, os.system and shutil.copy in
    it): ``__import__('os').system`` is os.system (a row of its own, never "part" of the
    call whose argument it is); ``__import__`` is the builtin it is, real where the pool holds Python's
    builtins as python-env does (the standard library's pydoc.py and pickle.py call it: a false alarm of
    `check` on real code, found 2026-12-07); a pool without them still judges it
    (test_a_call_that_runs_code_is_never_incidental)."""
    for code in ("__import__('os').system('id')", "shutil.copy(__import__('os').system('id'), 'b.txt')"):
        verdict = validator.check_code(code)
        rows = [(c.callee, c.role) for c in verdict.calls]
        assert ("os.system", "python-env") in rows and ("__import__", "python-env") in rows, rows
        assert verdict.kind == "valid", verdict
    assert validator.check_code("__import__('os').sytem('id')").kind == "hallucination"  # os has no sytem
    # extra statements in code a person wrote are fine for `check`; each call is judged as what it is
    verdict = validator.check_code("import shutil, os\nshutil.copy(os.system('id'), 'b.txt')")
    assert ("os.system", "python-env") in [(c.callee, c.role) for c in verdict.calls]


def test_a_call_that_runs_code_is_never_incidental() -> None:
    """A pool without exec or os.system (a Torch Hub pool): such a call beside a valid pool call decided
    nothing (exec is a builtin: incidental) and the code was valid; it is a hallucination now."""
    validator = Validator(load_jsonl(SMALL_POOL / "torchhub_api.jsonl", "torchhub").docs)
    for extra in ("exec('import os')", "eval(x)", "os.system('id')", "__import__('os')"):
        verdict = validator.check_code(f"{RESNET}\n{extra}")
        assert verdict.kind == "hallucination", (extra, verdict)
        assert "runs code or a command" in verdict.diagnostics[0]
    assert validator.check_code(f"{RESNET}\nprint(len('x'))").kind == "valid"  # builtins stay incidental


# ---------------------------------------------------------------------------------------------------------
# R24-7: a control character inside a word


@pytest.mark.parametrize("control", ["\u2066", "\u202e", "\u200e", "\u061c", "\x00", "\x7f", "\ud800"])
def test_a_control_inside_a_path_keeps_the_path_whole(control: str) -> None:
    task, warnings = clean_task(f"read the text file /tmp/x/{control}a.txt")
    assert task == "read the text file /tmp/x/a.txt"
    assert len(warnings) == 1 and f"U+{ord(control):04X}" in warnings[0], warnings
    assert [c.value for c in TaskValues.of(task).strings if c.atomic] == ["/tmp/x/a.txt"]


def test_a_control_between_words_or_a_line_separator_is_a_space() -> None:
    assert clean_task("copy a.txt \u202e to b.txt") == ("copy a.txt to b.txt", [])
    assert strip_controls("copy\u2028a file") == "copy a file"
    assert strip_controls("a\x0bb\x1cc") == "a b c"  # str.split's blanks stay blanks


def test_ask_reads_a_path_with_a_bidi_control_as_one_file(
    small_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """R24-7 through the real pipeline: the read task's call names the whole path, and the JSON says
    the task held a control (it gave a write call with fit "fits")."""
    status = main(["ask", "--json", "read the text file /tmp/x/\u2066a.txt"])
    data = json.loads(capsys.readouterr().out)
    assert status in (0, 1) and data["task"] == "read the text file /tmp/x/a.txt"
    assert any("U+2066" in w for w in data["warnings"]), data["warnings"]
    assert "'w'" not in data["api_call"] and "write" not in data["api_call"], data["api_call"]


# ---------------------------------------------------------------------------------------------------------
# R24-9: symbol and private-use characters inside a path


@pytest.mark.parametrize(
    "name",
    ["report\u20ac2024.txt", "a\u00b1b.txt", "x^y.txt", "a\u00b4b.txt", "a\u00b7b.txt", "a\ue0b0b.txt",
     "\ue000\uf8ff.txt", "\ufdd0\uffff.txt", "a\u00a6b.txt", "report(1).txt", "a=b+c.csv", "caf\u00e9#2.md"],
)  # fmt: skip
def test_a_file_name_is_one_value_whatever_it_holds(name: str) -> None:
    for task, want in ((f"copy {name} to out.txt", [name, "out.txt"]),
                       (f"read the text file /tmp/x/{name}.", [f"/tmp/x/{name}"])):  # fmt: skip
        values = [c for c in TaskValues.of(task).strings if c.atomic]
        assert [c.value for c in values] == want, task
        assert values[0].text == repr(want[0])  # a string literal, escaped by Python's repr rules


def test_prices_and_formulas_outside_paths_are_read_as_before() -> None:
    assert [c.value for c in TaskValues.of("convert \u20ac50 to dollars").numbers] == [50]
    assert "x^2" in [c.value for c in TaskValues.of("solve x^2 = 4").strings]
    assert "https://x.org/a?b=c.html" in [
        c.value for c in TaskValues.of("see https://x.org/a?b=c.html").strings
    ]
