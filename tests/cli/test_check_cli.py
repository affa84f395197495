"""`gorilla-tui check`: verdict panel / JSON and exit codes (0 valid, 1 other verdicts, 2 bad usage)."""

from __future__ import annotations

import io
import json
import os
import random
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from tests.conftest import clone_home


@pytest.fixture
def pool():
    """The small pool's Torch Hub docs (tests/data/pool, APIBench JSONL)."""
    return str(Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl")


def test_valid_call_json(pool, capsys):
    code = main(["check", "torch.hub.load('pytorch/vision', 'resnet50')", "--pool", pool, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0
    assert out["verdict"] == "valid"
    assert set(out) == {"verdict", "reason", "api_call", "matched", "suggestions", "diagnostics", "calls"}
    assert out["reason"] is None and [c["verdict"] for c in out["calls"]] == ["valid"]
    assert (
        out["matched"]["api_call"]
        == "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50', pretrained=True)"
    )


def test_wrong_args_panel_suggests(pool, capsys):
    code = main(["check", "torch.hub.load('pytorch/vision', 'resnet-201')", "--pool", pool])
    out = capsys.readouterr().out
    assert code == 1
    assert "wrong_args" in out and "resnet101" in out


def test_hallucination_from_stdin(pool, capsys, monkeypatch):
    monkeypatch.setattr("sys.stdin", io.StringIO("import torch\nm = torch.load('x.pt')\n"))
    code = main(["check", "-", "--pool", pool, "--json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 1 and out["verdict"] == "hallucination"
    assert out["suggestions"][0] == "torch.hub.load"


def test_bad_usage_exits_2(pool, capsys, tmp_path):
    assert main(["check", "  ", "--pool", pool]) == 2
    assert "empty" in capsys.readouterr().err
    assert main(["check", "f()", "--pool", str(tmp_path / "missing.jsonl")]) == 2
    err = capsys.readouterr().err
    assert "no API docs" in err and "Traceback" not in err


def test_no_index_gives_one_line_hint(capsys):
    assert main(["check", "f()"]) == 2
    err = capsys.readouterr().err
    assert "gorilla-tui index --refresh" in err and "Traceback" not in err


def test_installed_console_script(pool, gorilla_cmd):
    proc = subprocess.run(
        [*gorilla_cmd, "check", "hub.load('x')", "--pool", pool, "--json"],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert proc.returncode == 1, proc.stderr
    assert json.loads(proc.stdout)["verdict"] in ("hallucination", "wrong_args")


def test_pool_file_with_hub_is_rejected(pool, capsys):
    assert (
        main(
            ["check", "torch.hub.load('pytorch/vision', 'resnet50')", "--pool", pool, "--hub", "huggingface"]
        )
        == 2
    )
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "--hub filters the index; with --pool the file is the pool" in captured.err


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "", "--json"],
        ["check", "   \n", "--json", "--pool", "POOL"],
        ["check", "f()", "--json", "--pool", "POOL", "--hub", "torchhub"],
        ["check", "f()", "--json", "--pool", "/bin/ls"],
        ["check", "f()", "--json", "--pool", "/nonexistent/pool.jsonl"],
        ["check", "f()", "--json"],  # no index built yet
    ],
)
def test_json_errors_keep_stdout_empty(pool, capsys, argv):
    assert main([pool if a == "POOL" else a for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert len(captured.err.strip().splitlines()) <= 2 and captured.err.startswith("gorilla-tui: error: ")
    assert "Traceback" not in captured.err


def test_json_verdicts_of_hostile_input_stay_json(pool, capsys, monkeypatch):
    deep = "(" * 100_000 + "torch.hub.load('pytorch/vision', 'resnet50')" + ")" * 100_000
    assert main(["check", deep, "--pool", pool, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (
        out["verdict"] == "unparseable"
        and "nesting deeper than Python's limit of 200" in out["diagnostics"][0]
    )


def _bytes_stdin(data: bytes) -> io.TextIOWrapper:
    return io.TextIOWrapper(io.BytesIO(data), encoding="utf-8")


@pytest.mark.parametrize(
    "argv",
    [
        ["check", "-", "--pool", "POOL", "--json"],
        ["check", "-", "--pool", "POOL"],
        ["check", "-", "--pool", "POOL", "--format", "sarif"],
        ["check", "-", "FILE", "--pool", "POOL"],  # the linter form, '-' among the paths
        ["run", "-", "--yes"],
    ],
)
def test_check_stdin_refuses_invalid_utf8_as_run_does(pool, capsys, monkeypatch, tmp_path, argv):
    """`check -` with bytes that are not UTF-8 checked the code with U+FFFD in it (a verdict on code nobody
    wrote), while `run -` refused it: both now say so in one line and exit 2, with nothing on stdout."""
    good = tmp_path / "good.py"
    good.write_text("import torch\ntorch.hub.load('pytorch/vision', 'resnet50')\n")
    monkeypatch.setattr("sys.stdin", _bytes_stdin(b"torch.hub.load('pytorch/vision', '\xff')"))
    assert main([{"POOL": pool, "FILE": str(good)}.get(a, a) for a in argv]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert "cannot read stdin: not UTF-8 text (bad byte at offset 34)" in captured.err
    assert len(captured.err.strip().splitlines()) == 1 and "Traceback" not in captured.err


def test_check_stdin_reads_utf8_with_a_bom(pool, capsys, monkeypatch):
    code = "\ufeffimport torch\ntorch.hub.load('pytorch/vision', 'résnet50')".encode()
    monkeypatch.setattr("sys.stdin", _bytes_stdin(code))
    assert main(["check", "-", "--pool", pool, "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "wrong_args" and "résnet50" in out["api_call"]


def test_a_standard_library_call_with_too_many_arguments_is_wrong_args(
    gorilla_home, home_template, capsys, tmp_path
):
    """Issue 19: `gorilla-tui check 'import math\\nmath.sqrt(1, 2)'` (or a file with it) said valid."""
    clone_home(home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home)
    assert main(["check", "import math\\nmath.sqrt(1, 2)", "--json"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert (out["verdict"], out["reason"]) == ("wrong_args", "wrong_args:too_many_arguments")
    assert out["diagnostics"] == ["math.sqrt takes at most 1 positional argument, 2 given"]
    path = tmp_path / "calls.py"
    path.write_text("import math\nimport shutil\nmath.sqrt(4)\nshutil.copy('a', 'b', overwrite=True)\n")
    assert main(["check", str(path)]) == 1
    out = capsys.readouterr().out
    assert f"{path}:4:1: wrong_args:unknown_keyword shutil.copy has no parameter 'overwrite'" in out
    assert ":3:" not in out  # math.sqrt(4) binds


def test_a_json_tool_call_names_positional_only_parameters(gorilla_home, home_template, capsys):
    """Issue 39: a JSON tool call names every argument by its schema, so `{"name": "math.sqrt",
    "arguments": {"x": 4}}` is math.sqrt(4), not a positional-only parameter passed by keyword; the same
    call written as Python still is one, and a name the signature lacks is still wrong."""
    clone_home(home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home)
    call = '{"name": "math.sqrt", "arguments": {"x": 4}}'
    assert main(["check", call, "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["verdict"] == "valid"
    assert main(["check", f"[{call}]", "--format", "json"]) == 0  # the linter form
    assert json.loads(capsys.readouterr().out) == []
    assert main(["check", "import math\nmath.sqrt(x=4)", "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["reason"] == "wrong_args:unknown_keyword"
    assert main(["check", '{"name": "math.sqrt", "arguments": {"y": 4}}', "--json"]) == 1
    assert json.loads(capsys.readouterr().out)["verdict"] == "wrong_args"


@pytest.mark.parametrize("option", [[], ["--json"], ["--format", "json"]])
def test_json_cut_short_is_one_line_error(pool, capsys, option):
    """Issue 39: `check '[{"name": "math.sqrt"'` said no_call (exit 1); Python code that starts with a
    bracket is still code."""
    assert main(["check", '[{"name": "math.sqrt"', "--pool", pool, *option]) == 2
    out = capsys.readouterr()
    assert out.out == "" and out.err.strip().splitlines() == [
        "gorilla-tui: error: not valid JSON: Expecting ',' delimiter: line 1 column 22 (char 21)"
    ]
    assert main(["check", "[print(x) for x in range(3)]", "--pool", pool, "--json"]) == 1  # checked as code
    assert json.loads(capsys.readouterr().out)["reason"] == "no_call:only_incidental"


def test_a_large_json_tool_call_list_is_read_once_and_its_rest_counted(pool, capsys, monkeypatch):
    """Issue 39: a 5 MB JSON list of tool calls was read as Python (a list of dicts: no_call, 20-40 s);
    its first callsite.MAX_CALLS calls are checked and the rest counted in a note."""
    one = {"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet50"}}
    text = json.dumps([one] * 2500 + [{"name": "torch.hub.laod", "arguments": {}}])
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["check", "-", "--pool", pool, "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert (
        out["verdict"] == "valid"
        and out["diagnostics"][-1] == "501 calls after the first 2,000 were not checked"
    )
    monkeypatch.setattr("sys.stdin", io.StringIO(text))
    assert main(["check", "-", "--pool", pool, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == [
        {"path": "<stdin>", "line": None, "col": None, "cell": None, "reason": "not_checked",
         "message": "501 calls after the first 2,000 were not checked", "suggestions": []}
    ]  # fmt: skip


def test_an_output_option_does_not_turn_the_code_into_a_path(pool, capsys):
    """`check CODE --format json` read CODE as a path ("no such file or folder", exit 2). Code or path is
    decided by the arguments alone; --format / --select / --ignore print the code's findings as the linter
    prints a file's, and --json without them stays the verdict object."""
    wrong, right = (
        "torch.hub.load('pytorch/vision', 'resnet-201')",
        "torch.hub.load('pytorch/vision', 'resnet50')",
    )
    assert main(["check", wrong, "--pool", pool, "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["line"], f["col"], f["reason"]) for f in found] == [
        ("<code>", 1, 1, "wrong_args:unknown_model")
    ]
    assert "model='resnet101'" in found[0]["suggestions"][0]
    assert main(["check", right, "--pool", pool, "--format", "json"]) == 0
    assert json.loads(capsys.readouterr().out) == []
    assert main(["check", wrong, "--pool", pool, "--format", "sarif"]) == 1
    sarif = json.loads(capsys.readouterr().out)
    assert [r["ruleId"] for r in sarif["runs"][0]["results"]] == ["wrong_args:unknown_model"]
    assert main(["check", wrong, "--pool", pool, "--ignore", "wrong_args"]) == 0
    assert main(["check", wrong, "--pool", pool, "--json"]) == 1  # the verdict, as before
    assert json.loads(capsys.readouterr().out)["verdict"] == "wrong_args"


@pytest.mark.parametrize(
    "path",
    [
        "missing.py",
        "no_such_folder/",
        "/no_such_gorilla_path",
        "./missing",
        "../no_such_gorilla",
        "~no_such_user/x",
    ],
)
@pytest.mark.parametrize("option", [[], ["--format", "json"], ["--json"]])
def test_a_missing_path_is_one_line_error(pool, capsys, tmp_path, monkeypatch, path, option):
    monkeypatch.chdir(tmp_path)
    assert main(["check", path, "--pool", pool, *option]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert (
        captured.err == f"gorilla-tui: error: {path}: no such file or folder (to check it as code: --code)\n"
    )


def test_code_that_starts_like_a_path_is_still_code(pool, capsys):
    """A path is told by its start only when the argument holds no "(": inline code stays code."""
    assert main(["check", "torch.hub.load('pytorch/vision', 'resnet50')", "--pool", pool, "--json"]) == 0
    assert main(["check", "~torch.hub.load('pytorch/vision', 'resnet50')", "--pool", pool, "--json"]) == 0
    assert json.loads(capsys.readouterr().out.splitlines()[-1])["verdict"] == "valid"


def test_a_rest_request_gets_the_same_verdict_in_the_linter_form(capsys):
    """Break-it finding: `check "GET /v1/wether/{city}"` said hallucination (exit 1), but with --format
    json or text the request line was linted as Python (GET / v1 / ... divides: no call) and printed no
    finding, exit 0. The small pool's APIZoo file has GET /v1/weather/{city}."""
    zoo = str(Path(__file__).resolve().parents[1] / "data" / "pool" / "apizoo.json")
    wrong, right = "GET /v1/wether/{city}", "GET /v1/weather/{city}"
    assert main(["check", wrong, "--pool", zoo]) == 1
    capsys.readouterr()
    assert main(["check", wrong, "--pool", zoo, "--format", "json"]) == 1
    findings = json.loads(capsys.readouterr().out)
    assert [(f["line"], f["col"], f["reason"]) for f in findings] == [(1, 1, "hallucination:unknown_path")]
    assert findings[0]["message"] == "GET /v1/wether/{city} matches no path template"
    assert findings[0]["suggestions"][0] == right
    assert main(["check", right, "--pool", zoo, "--format", "text"]) == 0
    assert main(["check", f"  {wrong}  # gorilla: ignore", "--pool", zoo, "--format", "text"]) == 0


def _binary_files(folder: Path) -> dict[str, Path]:
    """An ELF binary (the start of the running interpreter), random bytes and UTF-8 text with a NUL byte."""
    files = {"elf": folder / "tool", "random": folder / "noise.py", "nul": folder / "nul.py"}
    with open(os.path.realpath(sys.executable), "rb") as fh:
        files["elf"].write_bytes(fh.read(65536))
    files["random"].write_bytes(random.Random(0).randbytes(4096))
    files["nul"].write_bytes(b"import torch\n\x00torch.hub.load('pytorch/vision', 'resnet50')\n")
    return files


@pytest.mark.parametrize("kind", ["elf", "random", "nul"])
@pytest.mark.parametrize("option", [[], ["--json"], ["--format", "sarif"]])
def test_a_binary_file_is_one_line_error_as_run_says(pool, capsys, tmp_path, monkeypatch, kind, option):
    """Tester's report: `check` of an ELF said "unparseable:nesting_limit ...", of random bytes "source code
    string cannot contain null bytes" (exit 1), where `run` said one line "not UTF-8 text" (exit 2). Both
    read a file with cli.lint.code_text now: one line naming the file, exit 2; nothing on stdout in text,
    and in JSON and SARIF the file as not checked, never an empty list or a SARIF run that succeeded
    (issue 42)."""
    monkeypatch.chdir(tmp_path)
    path = str(_binary_files(Path("."))[kind])
    assert main(["check", path, "--pool", pool, *option]) == 2
    captured = capsys.readouterr()
    if not option:
        assert captured.out == ""
    elif option == ["--json"]:
        assert [(e["path"], e["reason"]) for e in json.loads(captured.out)] == [(path, "not_checked")]
    else:
        invocation = json.loads(captured.out)["runs"][0]["invocations"][0]
        assert invocation["executionSuccessful"] is False
        assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["error"]
    why = "not text (NUL byte at offset 13)" if kind == "nul" else "not UTF-8 text (bad byte at offset "
    assert captured.err.startswith(f"gorilla-tui: error: cannot read {path}: {why}")
    assert len(captured.err.splitlines()) == 1
    assert main(["run", path, "--yes"]) == 2  # `run` refuses it in the same words
    assert capsys.readouterr().err == captured.err


def test_a_file_over_the_size_cap_prints_its_error_only(pool, capsys, tmp_path, monkeypatch):
    """Tester's report: `check huge.py` printed "0 findings in 0 file(s)" beside its one error line."""
    monkeypatch.chdir(tmp_path)
    with open("huge.py", "wb") as fh:
        fh.truncate(11 * 1024 * 1024)
    assert main(["check", "huge.py", "--pool", pool]) == 2
    captured = capsys.readouterr()
    assert captured.out == ""
    assert captured.err == "gorilla-tui: error: huge.py: too large (11.0 MiB > 10 MiB): not checked\n"
    Path("good.py").write_text("import torch\ntorch.hub.load('pytorch/vision', 'resnet50')\n")
    assert main(["check", "good.py", "huge.py", "--pool", pool, "--format", "json"]) == 2
    captured = capsys.readouterr()  # no finding; the file not checked is a note entry (issue 42)
    assert [e["reason"] for e in json.loads(captured.out)] == ["not_checked"]
    assert "huge.py: too large" in captured.err


def test_calls_past_the_cap_are_said_unchecked_in_json_and_sarif(pool, capsys, tmp_path, monkeypatch):
    """Break-it finding: a block with more than callsite.MAX_CALLS calls has only the first ones checked;
    the text output said so on stderr, but `--format json` printed [] and SARIF no result or note, so a CI
    job reading them saw a clean file. JSON lists a note entry (reason "not_checked", no line) and SARIF
    a run-level tool execution notification (level warning); the exit status stays that of the findings."""
    import sarif_pydantic

    from gorilla_tui.check.callsite import MAX_CALLS

    monkeypatch.chdir(tmp_path)
    good = [f"x{i} = torch.hub.load('pytorch/vision', 'resnet50')" for i in range(MAX_CALLS)]
    tail = [
        "y = torch.hub.load('pytorch/vision', 'resnet-201')",
        "z = torch.hub.load('pytorch/vision', 'resnet50')",
    ]
    Path("big.py").write_text("\n".join(["import torch", *good, *tail]) + "\n")
    Path("small.py").write_text("\n".join(["import torch", *tail]) + "\n")
    note = f"2 calls after the first {MAX_CALLS:,} were not checked"

    assert main(["check", "big.py", "--pool", pool]) == 0  # the wrong call on the last lines is not read
    assert capsys.readouterr().err.splitlines()[-1] == f"gorilla-tui: note: big.py: {note}"

    assert main(["check", "big.py", "small.py", "--pool", pool, "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["line"], f["col"], f["reason"]) for f in found] == [
        ("big.py", None, None, "not_checked"),
        ("small.py", 2, 5, "wrong_args:unknown_model"),
    ]
    assert found[0]["message"] == note and found[0]["suggestions"] == []
    assert main(["check", "small.py", "--pool", pool, "--format", "json"]) == 1
    assert [f["reason"] for f in json.loads(capsys.readouterr().out)] == ["wrong_args:unknown_model"]

    assert main(["check", "big.py", "--pool", pool, "--format", "sarif"]) == 0
    log = json.loads(capsys.readouterr().out)
    sarif_pydantic.Sarif.model_validate(log)  # the SARIF 2.1.0 object model
    (run,) = log["runs"]
    assert run["results"] == []
    (invocation,) = run["invocations"]
    assert invocation["executionSuccessful"] is True
    (notification,) = invocation["toolExecutionNotifications"]
    assert notification["level"] == "warning" and notification["message"]["text"] == note
    assert notification["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "big.py"
    assert main(["check", "small.py", "--pool", pool, "--format", "sarif"]) == 1
    (run,) = json.loads(capsys.readouterr().out)["runs"]
    assert "toolExecutionNotifications" not in run["invocations"][0]
    assert [r["ruleId"] for r in run["results"]] == ["wrong_args:unknown_model"]


TOOL_CALL_FORMS = [
    '[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet201"}}]',
    '{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet201"}}',
    '{"name": "torch.hub.load", "arguments": '
    '"{\\"repo_or_dir\\": \\"pytorch/vision\\", \\"model\\": \\"resnet201\\"}"}',
    '{"type": "function", "function": {"name": "torch.hub.load", "arguments": '
    '"{\\"repo_or_dir\\": \\"pytorch/vision\\", \\"model\\": \\"resnet201\\"}"}}',
    '[{"torch.hub.load": {"repo_or_dir": "pytorch/vision", "model": "resnet201"}}]',
]


@pytest.mark.parametrize("call", TOOL_CALL_FORMS)
@pytest.mark.parametrize("option", [["--json"], ["--format", "json"]])
def test_json_tool_calls_are_checked_as_calls(pool, capsys, call, option):
    """Issue 39: the JSON tool calls agents emit were taken for a glob ("no file matches", exit 2); each
    form is now the call torch.hub.load(repo_or_dir='pytorch/vision', model='resnet201'): wrong_args,
    in the verdict form and the linter form."""
    assert main(["check", call, "--pool", pool, *option]) == 1
    out = json.loads(capsys.readouterr().out)
    reason = out["reason"] if option == ["--json"] else out[0]["reason"]
    assert reason == "wrong_args:unknown_model"
    fixed = call.replace("resnet201", "resnet101")
    assert main(["check", fixed, "--pool", pool, *option]) == 0


GLOB_LIKE = [
    '[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "v", "model": "r"}}]',
    '{"name": "torch.hub.load", "arguments": {"repo_or_dir": "v"',
]


@pytest.mark.parametrize("call", GLOB_LIKE)
def test_a_json_tool_call_is_code_even_where_its_glob_would_match_a_file(
    pool, capsys, tmp_path, monkeypatch, call
):
    """Lead's hand trial: in a folder holding a one-letter file ("o", "y", as /tmp did), a JSON tool call
    without a slash read as a glob character class and matched it, and `check` linted that folder."""
    monkeypatch.chdir(tmp_path)
    for name in "nae":  # letters of the JSON text: its character class matches them
        (tmp_path / name).mkdir()
        (tmp_path / name / "x.py").write_text("import os\nos.remove_all('x')\n")
    code = main(["check", call, "--pool", pool, "--json"])
    out, err = capsys.readouterr()
    if call.endswith("}]"):
        assert code == 1 and json.loads(out)["verdict"] != "valid"  # the verdict form: one call, not files
    else:
        assert code == 2 and err.startswith("gorilla-tui: error: not valid JSON: ")


def test_code_forces_code_and_file_forces_paths(pool, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "x.py").write_text("import torch\ntorch.hub.load('pytorch/vision', 'resnet201')\n")
    assert main(["check", "x.py", "--pool", pool]) == 1  # an existing file: linted
    assert "x.py:2:1: wrong_args:unknown_model" in capsys.readouterr().out
    assert main(["check", "x.py", "--code", "--pool", pool, "--json"]) == 1  # the text "x.py" as code
    assert json.loads(capsys.readouterr().out)["verdict"] == "no_call"
    assert main(["check", "missing.py", "--file", "--pool", pool]) == 2
    assert "missing.py: no such file or folder" in capsys.readouterr().err


def test_explain_says_why_a_call_of_the_files_own_module_is_not_judged(pool, capsys, tmp_path):
    """Issue 39: `torch` bound by a relative import is the package's own module, not the pool's torch."""
    own = tmp_path / "own.py"
    own.write_text("from .vendored import torch\nm = torch.hub.load('pytorch/vision', 'resnet201')\n")
    assert main(["check", str(own), "--pool", pool, "--explain"]) == 0
    err = capsys.readouterr().err
    assert f"not judged: {own}:2:5: torch.hub.load: torch is the package's own module" in err
    real = tmp_path / "real.py"
    real.write_text("import torch\nm = torch.hub.load('pytorch/vision', 'resnet201')\n")
    assert main(["check", str(real), "--pool", pool, "--explain"]) == 1
    assert f"{real}:2:5: wrong_args:unknown_model" in capsys.readouterr().out
