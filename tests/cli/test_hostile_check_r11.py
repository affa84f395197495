"""Break-it round 11 (issue 42, kind 4 and kind 2) against `check`: a JSON tool call nested past Python's
limit, IPython lines check cannot read, coding lines CPython refuses, and untrusted text of any length in
a message. Each test runs the real CLI (gorilla_tui.cli.main) or the real Validator over tests/data/pool."""

from __future__ import annotations

import io
import json
import sys
from pathlib import Path

import pytest

from gorilla_tui.check.extract import json_error
from gorilla_tui.check.validator import Validator
from gorilla_tui.cli.run import file_code
from tests.hostile_cli import POOL, WRONG_HUB, notebook, run_cli


def _deep_call(depth: int) -> str:
    """A JSON tool call whose `src` argument nests `depth` objects (3 KB at 400: json.loads reads it)."""
    return (
        '{"name":"shutil.copytree","arguments":{"src":' + '{"a":' * depth + "1" + "}" * depth + ',"dst":"b"}}'
    )


@pytest.mark.parametrize("depth", [400, 900, 5000])
def test_a_json_tool_call_nested_past_pythons_limit_is_the_nesting_verdict(
    capsys, monkeypatch, small_pool, depth
):
    """R11-2: arguments nested 400-900 deep were "internal error: RecursionError" in `check "..."` and
    `check -` and a bare tool error in MCP check_api_call (a recursive renderer of JSON values). Every
    depth past Python's limit of 200 is now the `unparseable:nesting_limit` verdict (exit 1), the verdict
    Python code nested so gets, whether json.loads reads the text (400, 900) or not (5,000)."""
    code = _deep_call(depth)
    assert json_error(code) is None  # not refused as broken JSON either
    status, out, _ = run_cli(capsys, "check", code, "--pool", POOL)
    assert status == 1 and "unparseable:nesting_limit" in out
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(code.encode())))
    status, out, _ = run_cli(capsys, "check", "-", "--pool", POOL)
    assert status == 1 and "unparseable:nesting_limit" in out
    verdict = Validator(small_pool).check(code)  # what MCP check_api_call answers with
    assert (verdict.kind, verdict.reason) == ("unparseable", "unparseable:nesting_limit")
    shallow = Validator(small_pool).check(_deep_call(3))
    assert shallow.reason != "unparseable:nesting_limit"
    assert json.loads(json.dumps(verdict.diagnostics))  # plain strings


@pytest.mark.parametrize(
    "line",
    [
        f"%time %time {WRONG_HUB}",  # nested: %time runs transform_cell on its argument
        f"%time \\\n{WRONG_HUB}",  # a backslash continuation, assembled as IPython does
        f"%timeit -n1 -r1 {WRONG_HUB}",  # options read as parse_options reads them
        f"%prun -s cumtime -q {WRONG_HUB}",
        f"t = %timeit -o {WRONG_HUB}",  # MagicAssign: the magic runs the call, its result is bound
        "/torch.hub.load 'pytorch/vision' 'resnet-201'",  # autocall: torch.hub.load('pytorch/vision', ...)
    ],
)
def test_python_that_ipython_runs_through_a_magic_is_checked(capsys, tmp_path, line):
    """R11-8: these lines run the call in IPython 8, and `check` neither checked them nor said so (exit
    0); now the call is read out of them and checked (exit 1, the finding in cell 1, line 2)."""
    nb = notebook(tmp_path / "nb.ipynb", f"import torch\n{line}\n")
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert status == 1, (out, err)
    assert out.startswith(f"{nb}:cell 1:2:") and "wrong_args:unknown_model" in out


def test_python_lines_that_are_not_read_are_named_in_a_note(capsys, tmp_path):
    """R11-8: a line IPython runs as Python that is not turned into it here (an option %timeit does not
    take, %debug with a breakpoint, magics nested past MAX_NESTED_MAGICS) is never skipped in silence: one
    note names its cell and lines. Shell commands and other magics run no code of the cell: no note."""
    nb = notebook(
        tmp_path / "nb.ipynb",
        "import torch\n!ls\n%matplotlib inline\n",
        f"%timeit -Z {WRONG_HUB}\n%debug -b f.py:1 {WRONG_HUB}\n{'%time ' * 5000}{WRONG_HUB}\n",
    )
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert status == 0 and "finding" not in out
    notes = [ln for ln in err.splitlines() if "not checked" in ln]
    assert notes == [f"gorilla-tui: note: {nb}: cell 2: lines 1, 2, 3 not checked: Python that IPython runs "
                     "through a magic or an autocall in a form not read here"]  # fmt: skip


def test_run_says_which_shell_commands_of_a_notebook_it_does_not_run(capsys, tmp_path):
    """`run nb.ipynb` dropped ``!echo bang`` and made ``x = !echo hi`` ``[]`` with no word: the output
    differed from IPython's. The code `run` runs (cli/run.py file_code) comes with one note naming the
    cells and lines of the shell commands."""
    nb = notebook(tmp_path / "nb.ipynb", "x = !echo hi\nprint(x)\n", "!echo bang\n", "print('end')\n")
    code = file_code(nb, Path(nb).read_text())
    assert code.splitlines()[:2] == ["x = []", "print(x)"]
    assert capsys.readouterr().err == (
        f"gorilla-tui: note: {nb}: IPython lines not run as IPython runs them (`run` runs the Python): "
        "cell 1 line 1 `x = !echo hi` (x gets []); cell 2 line 1 `!echo bang` (not run)\n"
    )


@pytest.mark.parametrize("encoding", ["utf-16", "UTF-32-LE", "utf_32"])  # cp037: CPython runs it (R12-5)
def test_a_coding_line_python_refuses_is_refused(capsys, tmp_path, encoding):
    """R11-9: CPython refuses a coding line naming an encoding that is not ASCII compatible (running the
    file: "encoding problem: utf-16"; compile() of its bytes fails too); `check` decoded the file and said
    "skipped: not Python 3 syntax", exit 0. It is one line now, exit 2, as for any file Python refuses."""
    path = tmp_path / "u.py"
    path.write_bytes(f"# coding: {encoding}\nimport shutil\nshutil.copytree('x')\n".encode("ascii"))
    with pytest.raises(SyntaxError):
        compile(path.read_bytes(), str(path), "exec")
    status, out, err = run_cli(capsys, "check", "--file", str(path), "--pool", POOL)
    assert (status, out) == (2, "")
    assert err == (
        f"gorilla-tui: error: cannot read {path}: encoding problem: its coding line names {encoding} "
        "(Python refuses it)\n"
    )
    path.write_bytes(b"# coding: latin-1\nimport shutil\nshutil.copytree('x')\n")  # ASCII compatible: read
    assert run_cli(capsys, "check", "--file", str(path), "--pool", POOL)[0] == 0


def test_a_coding_name_of_9_mb_is_one_short_line(capsys, tmp_path):
    """R11-9: ``# coding: aaa...`` (9,000,000 characters) became one error line of 9 MB (CPython quotes the
    whole name as well). The name is cut in the message, with the count of characters left out."""
    path = tmp_path / "long.py"
    path.write_bytes(b"# coding: " + b"a" * 9_000_000 + b"\nx = 1\n")
    status, out, err = run_cli(capsys, "check", "--file", str(path), "--pool", POOL)
    assert (status, out) == (2, "")
    assert err.startswith(f"gorilla-tui: error: cannot read {path}: unknown encoding: aaa")
    assert err.endswith(" more characters)\n") and len(err) < 300 + len(str(path))


def test_a_long_file_name_stays_whole_in_a_finding(capsys, tmp_path):
    """The one-line cap (textsafe.MAX_LINE_CHARS) leaves what must be read back whole: a finding's file
    name (an editor jumps to path:line:col) and the JSON output."""
    folder = tmp_path
    for _ in range(12):  # a path of some 1,300 characters
        folder = folder / ("d" * 100)
    folder.mkdir(parents=True)
    path = folder / "wrong.py"
    path.write_text(f"import torch\nmodel = {WRONG_HUB}\n")
    status, out, _ = run_cli(capsys, "check", "--file", str(path), "--pool", POOL)
    assert status == 1 and out.startswith(f"{path}:2:9: wrong_args:unknown_model ")
    status, out, _ = run_cli(capsys, "check", "--file", str(path), "--pool", POOL, "--format", "json")
    assert status == 1 and str(path) in out


def test_a_markdown_ipython_fence_names_the_lines_it_does_not_read(capsys, tmp_path):
    """R11-8 in a Markdown fence tagged ipython: the same reading, and the same note, lines numbered in the
    file (as its findings are)."""
    md = tmp_path / "notes.md"
    md.write_text(f"text\n```ipython\nimport torch\n%timeit -Z f()\n%time {WRONG_HUB}\n```\n")
    status, out, err = run_cli(capsys, "check", str(md), "--pool", POOL)
    assert status == 1 and out.startswith(f"{md}:5:7: wrong_args:unknown_model ")
    assert f"gorilla-tui: note: {md}: line 4 not checked: Python that IPython runs" in err
