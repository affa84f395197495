"""Break-it round 16, P3: `check PATH...` on files it could not analyse says so in every format.

A Python file Python refuses (Python 2, a 5,000-digit literal past CPython's int limit) was a note: exit 0,
and a SARIF log whose invocation said executionSuccessful true with a warning. It is now what a file that
cannot be read or decoded was already: an error, in text (an "error:" line), JSON (a not_checked entry) and
SARIF 2.1.0 (an error toolExecutionNotification at the file's artifactLocation, executionSuccessful false,
section 3.20.14), exit 2 whatever else was found; the other files' findings are still reported. A fence of a
Markdown file (or a notebook cell) Python refuses stays a note: the rest of that file is checked.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
import sarif_pydantic

from gorilla_tui.cli import main

POOL = str(Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl")
WRONG = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet-201')\n"
#: The files not analysed, each with what its one line says.
REFUSED = {
    "py2.py": "not Python 3 syntax (2:1: Missing parentheses",
    "digits.py": "not Python 3 syntax (1:1: Exceeds the limit (4300 digits)",
    "latin.py": "not UTF-8 text",
    "loop.py": "cannot read",
}


@pytest.fixture
def tree(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A folder with a file holding a wrong call, a Markdown file with a wrong call and a Python 2 fence,
    and the REFUSED files: Python 2, a 5,000-digit literal, a byte that is not UTF-8, a link loop."""
    monkeypatch.chdir(tmp_path)
    Path("wrong.py").write_text(WRONG)
    Path("doc.md").write_text(f"# doc\n\n```python\nprint 'old'\n```\n\n```python\n{WRONG}```\n")
    Path("py2.py").write_text("import torch\nprint 'hub'\n")
    Path("digits.py").write_text("x = " + "9" * 5000 + "\n")
    Path("latin.py").write_bytes(b"import torch\nname = '\xe9'\n")
    os.symlink("loop.py", "loop.py")
    return tmp_path


def _check(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    status = main(["check", "--file", "--pool", POOL, *args])
    out, err = capsys.readouterr()
    assert "internal error" not in err and "Traceback" not in err, err
    return status, out, err


def test_files_not_analysed_are_errors_in_sarif_json_and_text(tree: Path, capsys) -> None:
    files = ["wrong.py", "doc.md", *REFUSED]
    status, out, err = _check(capsys, *files, "--format", "sarif")
    assert status == 2
    log = json.loads(out)
    sarif_pydantic.Sarif.model_validate(log)  # the SARIF 2.1.0 object model
    run = log["runs"][0]
    [invocation] = run["invocations"]
    assert invocation["executionSuccessful"] is False
    told = {
        n["locations"][0]["physicalLocation"]["artifactLocation"]["uri"]: (n["level"], n["message"]["text"])
        for n in invocation["toolExecutionNotifications"]
    }
    assert set(told) == {"doc.md", *REFUSED}
    assert told["doc.md"][0] == "warning" and "not Python 3 syntax (4:1: " in told["doc.md"][1]
    for name, why in REFUSED.items():
        level, text = told[name]
        assert level == "error" and why in text and "\n" not in text and len(text) < 300, (name, text)
    results = sorted(
        (r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"], r["ruleId"])
        for r in run["results"]
    )
    assert results == [("doc.md", "wrong_args:unknown_model"), ("wrong.py", "wrong_args:unknown_model")]

    status, out, _ = _check(capsys, *files, "--format", "json")  # JSON says the same
    assert status == 2
    entries = json.loads(out)
    assert {e["path"] for e in entries if e["reason"] == "not_checked"} == set(told)
    assert sorted((e["path"], e["reason"]) for e in entries if e["reason"] != "not_checked") == results

    status, out, err = _check(capsys, *files)  # and the text form
    assert status == 2
    assert sorted(line.split(":", 1)[0] for line in out.splitlines()) == ["doc.md", "wrong.py"]
    errors = [line for line in err.splitlines() if line.startswith("gorilla-tui: error: ")]
    assert len(errors) == len(REFUSED) and all(
        any(name in line and why in line for line in errors) for name, why in REFUSED.items()
    ), err
    assert "gorilla-tui: note: doc.md: skipped: not Python 3 syntax (4:1: " in err
    assert "2 findings in 2 file(s)" in err  # the files analysed


@pytest.mark.parametrize("name", ["py2.py", "digits.py"])
def test_a_python_file_python_refuses_alone_is_no_successful_run(tree: Path, capsys, name: str) -> None:
    """The round-16 case: a file that does not parse was exit 0 with executionSuccessful true."""
    status, out, err = _check(capsys, name, "--format", "sarif")
    assert status == 2
    [invocation] = json.loads(out)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is False
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["error"]
    status, out, err = _check(capsys, name)
    assert (status, out) == (2, "") and err.startswith(f"gorilla-tui: error: {name}: not Python 3 syntax (")
    assert err.count("\n") == 1 and err.endswith(": not checked\n")


def test_a_markdown_file_with_a_python_2_fence_alone_is_checked(tree: Path, capsys) -> None:
    """A fence Python refuses is part of a document: a note (warning), the run successful, exit 0."""
    Path("old.md").write_text("# doc\n\n```python\nprint 'old'\n```\n")
    status, out, _ = _check(capsys, "old.md", "--format", "sarif")
    assert status == 0
    [invocation] = json.loads(out)["runs"][0]["invocations"]
    assert invocation["executionSuccessful"] is True
    assert [n["level"] for n in invocation["toolExecutionNotifications"]] == ["warning"]
