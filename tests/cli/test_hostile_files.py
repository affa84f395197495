"""Issue 42, kind 4: hostile files for `check PATH...` and `--source` folders (real files in tmp_path).

Each class: a symbolic link loop (a --source folder, a checked tree, a ``**`` glob), a notebook nested
100,000 levels deep, a file name that is not UTF-8 (in JSON and SARIF), SARIF uris and files not checked
in SARIF, a latin-1 file with its PEP 263 coding line, a newline in a file name, and more code than
check/lint.py MAX_CODE_BYTES. Exit status: 0 clean, 1 findings, 2 a file not checked; never internal error.
"""

from __future__ import annotations

import codecs
import io
import json
import os
import shutil
from pathlib import Path

import pytest
import sarif_pydantic

from gorilla_tui.check.lint import MAX_CODE_BYTES
from gorilla_tui.cli import main
from gorilla_tui.errors import UsageError
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.sources import user_source

POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
WRONG = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet-201')\n"


@pytest.fixture
def pool() -> str:
    """The small pool's Torch Hub docs (tests/data/pool, APIBench JSONL)."""
    return str(POOL / "torchhub_api.jsonl")


def _check(capsys, *args: str) -> tuple[int, str, str]:
    status = main(["check", "--file", *args])
    captured = capsys.readouterr()
    assert "internal error" not in captured.err and "Traceback" not in captured.err, captured.err
    return status, captured.out, captured.err


def test_a_link_loop_in_a_source_folder_is_a_skipped_file(tmp_path):
    """`--source FOLDER` with a.jsonl -> b.jsonl -> a.jsonl beside a real doc file: Path.resolve raised
    RuntimeError ("internal error"), and a chain of 1,200 links RecursionError in os.path.realpath; the
    folder's docs are read and each link named as skipped."""
    folder = tmp_path / "docs"
    folder.mkdir()
    shutil.copy(POOL / "torchhub_api.jsonl", folder / "torchhub.jsonl")
    os.symlink("b.jsonl", folder / "a.jsonl")
    os.symlink("a.jsonl", folder / "b.jsonl")
    os.symlink("self.json", folder / "self.json")
    # break-it round 9: a chain of 1,200 links was RecursionError in os.path.realpath ("internal error")
    os.symlink("c1", folder / "chain.jsonl")
    for i in range(1, 1200):
        os.symlink(f"c{i + 1}", folder / f"c{i}")
    os.symlink("torchhub.jsonl", folder / "c1200")
    loaded = user_source(folder)
    assert loaded.status == "ok" and loaded.result.docs
    loop = "cannot read (Too many levels of symbolic links): not read"  # as `check` says (R14-12)
    skipped = sorted(Path(d.file).name for d in loaded.result.diagnostics if d.message == loop)
    assert skipped == ["a.jsonl", "b.jsonl", "chain.jsonl", "self.json"]
    with pytest.raises(UsageError, match="a symbolic link that leads to no file"):  # named alone
        user_source(folder / "self.json")


def test_a_link_loop_in_a_checked_tree_or_glob_checks_each_file_once(pool, capsys, tmp_path, monkeypatch):
    """A folder link back up (sub/up -> ..) made ``**`` list each file once per level (40 times, to the
    kernel's ELOOP limit), and a file linked to itself named on the command line was "no such file". Each
    file is checked once; the looping file is one line, not checked (exit 2)."""
    monkeypatch.chdir(tmp_path)
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "wrong.py").write_text(WRONG)
    os.symlink("..", tmp_path / "sub" / "up")
    os.symlink("loop.py", tmp_path / "loop.py")
    for target in (".", "**/*.py", str(tmp_path / "**" / "*.py"), "./**"):
        status, out, err = _check(capsys, target, "--pool", pool, "--format", "json")
        assert status == 2, (target, err)
        entries = json.loads(out)
        assert [e["reason"] for e in entries] == ["wrong_args:unknown_model", "not_checked"], target
        assert "Too many levels of symbolic links" in entries[1]["message"]
    assert main(["check", "loop.py", "--pool", pool]) == 2  # alone, without --file: a path, not code
    assert (
        capsys.readouterr().err
        == "gorilla-tui: error: loop.py: cannot read (Too many levels of symbolic links)\n"
    )


def test_a_notebook_nested_100000_deep_is_not_checked_exit_2(pool, capsys, tmp_path):
    """json.loads raised RecursionError: "internal error", exit 1 (a pre-commit hook read findings)."""
    deep = tmp_path / "deep.ipynb"
    deep.write_text('{"cells": ' + "[" * 100_000 + "]" * 100_000 + "}")
    status, out, err = _check(capsys, str(deep), "--pool", pool)
    assert status == 2 and out == ""
    assert (
        err
        == f"gorilla-tui: error: {deep}: not a notebook (JSON nested deeper than Python's recursion limit)\n"
    )


@pytest.mark.parametrize("fmt", ["json", "sarif"])
def test_a_file_name_that_is_not_utf8_gives_utf8_output(pool, capsys, tmp_path, monkeypatch, fmt):
    """A name with the byte 0xFF (Python holds it as the lone surrogate U+DCFF, PEP 383) was written back
    raw: the JSON and SARIF were not UTF-8. JSON shows it as \\xff, SARIF's uri percent-encodes it."""
    monkeypatch.chdir(tmp_path)
    raw = b"caf\xff.py"
    with open(raw, "wb") as fh:  # os.fsencode bytes: the name is made as bytes
        fh.write(WRONG.encode())
    status, out, _ = _check(capsys, os.fsdecode(raw), "--pool", pool, "--format", fmt)
    assert status == 1
    doc = json.loads(out.encode("utf-8"))  # strict UTF-8: a lone surrogate raises here
    if fmt == "json":
        assert [e["path"] for e in doc] == ["caf\\xff.py"]
    else:
        location = doc["runs"][0]["results"][0]["locations"][0]["physicalLocation"]
        assert location["artifactLocation"]["uri"] == "caf%FF.py"


def test_sarif_uris_are_percent_encoded_and_unreadable_files_are_listed(pool, capsys, tmp_path, monkeypatch):
    """SARIF 2.1.0 section 3.4.4: a uri is a URI reference, so "a b#1%.py" is a%20b%231%25.py (it was
    written as is); a file not checked (a link loop: unreadable even as root) was missing from a log whose
    invocation said executionSuccessful true. It is an error notification now, and the run not successful."""
    monkeypatch.chdir(tmp_path)
    Path("a b#1%.py").write_text(WRONG)
    os.symlink("loop.py", "loop.py")
    status, out, err = _check(capsys, "a b#1%.py", "loop.py", "--pool", pool, "--format", "sarif")
    assert status == 2 and "loop.py: cannot read" in err
    log = json.loads(out)
    sarif_pydantic.Sarif.model_validate(log)  # the SARIF 2.1.0 object model
    run = log["runs"][0]
    assert [r["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] for r in run["results"]] == [
        "a%20b%231%25.py"
    ]
    invocation = run["invocations"][0]
    assert invocation["executionSuccessful"] is False
    [note] = invocation["toolExecutionNotifications"]
    assert note["level"] == "error" and note["message"]["text"].startswith("loop.py: cannot read")
    assert note["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "loop.py"
    status, out, _ = _check(capsys, str(tmp_path / "a b#1%.py"), "--pool", pool, "--format", "sarif")
    uri = json.loads(out)["runs"][0]["results"][0]["locations"][0]["physicalLocation"]["artifactLocation"]
    assert uri["uri"] == (tmp_path / "a b#1%.py").as_uri()  # an absolute path: a file:// URI


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root reads a mode-000 file")
def test_a_file_without_read_permission_is_listed_not_checked(pool, capsys, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    Path("secret.py").write_text(WRONG)
    os.chmod("secret.py", 0)
    status, out, _ = _check(capsys, "secret.py", "--pool", pool, "--format", "sarif")
    assert status == 2
    invocation = json.loads(out)["runs"][0]["invocations"][0]
    assert invocation["executionSuccessful"] is False
    assert "Permission denied" in invocation["toolExecutionNotifications"][0]["message"]["text"]


def test_a_latin1_file_with_its_coding_line_is_checked(pool, capsys, tmp_path):
    """PEP 263: Python reads ``# -*- coding: latin-1 -*-`` files in latin-1; `check` refused this one as
    "not UTF-8 text" (exit 2). Its wrong call is found (exit 1); without the coding line it is refused."""
    text = "# -*- coding: latin-1 -*-\nname = 'café'\n" + WRONG
    path = tmp_path / "latin.py"
    path.write_bytes(text.encode("latin-1"))
    status, out, err = _check(capsys, str(path), "--pool", pool)
    assert status == 1, err
    assert out.startswith(f"{path}:4:9: wrong_args:unknown_model ")
    path.write_bytes(text.split("\n", 1)[1].encode("latin-1"))
    status, out, err = _check(capsys, str(path), "--pool", pool)
    assert status == 2 and "not UTF-8 text (bad byte at offset 11)" in err


def test_a_bom_with_a_latin1_coding_line_is_refused_as_python_refuses_it(pool, capsys, tmp_path, monkeypatch):
    """Break-it round 9: CPython refuses a UTF-8 BOM followed by ``# coding: latin-1`` ("encoding problem:
    iso-8859-1 with BOM"); `check` read the file as UTF-8 and reported its finding (exit 1). It is one line
    now, exit 2, for a file, for stdin and for `run`; a BOM with a UTF-8 coding line is still checked."""
    bom = codecs.BOM_UTF8 + b"# coding: latin-1\n" + WRONG.encode()
    path = tmp_path / "bom.py"
    path.write_bytes(bom)
    why = "encoding problem: a UTF-8 BOM and a coding line naming another encoding (Python refuses it)"
    status, out, err = _check(capsys, str(path), "--pool", pool)
    assert (status, out, err) == (2, "", f"gorilla-tui: error: cannot read {path}: {why}\n")
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(bom)))
    assert main(["check", "-", "--pool", pool]) == 2
    assert capsys.readouterr().err == f"gorilla-tui: error: cannot read stdin: {why}\n"
    assert main(["run", str(path), "--yes"]) == 2
    assert capsys.readouterr().err == f"gorilla-tui: error: cannot read {path}: {why}\n"
    path.write_bytes(codecs.BOM_UTF8 + b"# coding: utf-8\n" + WRONG.encode())
    status, out, _ = _check(capsys, str(path), "--pool", pool)
    assert status == 1 and out.startswith(f"{path}:3:9: wrong_args:unknown_model ")


def test_a_newline_in_a_file_name_keeps_a_finding_on_one_line(pool, capsys, tmp_path, monkeypatch):
    """`new\\nline.py` split its text finding over two lines (a reader of path:line:col lines saw two
    broken ones); the name is shown with the newline escaped, in text, JSON notes and stderr lines."""
    monkeypatch.chdir(tmp_path)
    Path("new\nline.py").write_text(WRONG)
    status, out, _ = _check(capsys, "new\nline.py", "--pool", pool)
    assert status == 1
    assert out.splitlines() == [out.rstrip("\n")]
    assert out.startswith("new\\x0aline.py:2:9: wrong_args:unknown_model ")


def test_more_code_than_the_cap_is_skipped_with_its_size(pool, capsys, tmp_path):
    """A 9 MB file took 24 s and 1.3 GB; a file with more than MAX_CODE_BYTES (1 MiB) of code is one line,
    not checked, exit 2, without being parsed (a Markdown file counts its fences' code only)."""
    big = tmp_path / "big.py"
    line = "x = 1  # a line of generated code\n"
    big.write_text(line * (MAX_CODE_BYTES // len(line) + 10))
    status, out, err = _check(capsys, str(big), "--pool", pool)
    assert status == 2 and out == ""
    assert err == f"gorilla-tui: error: {big}: too large (1.0 MiB of code > 1 MiB): not checked\n"
    prose = tmp_path / "notes.md"  # over 1 MiB of text, a few lines of it code: checked
    prose.write_text(line * (MAX_CODE_BYTES // len(line) + 10) + "```python\n" + WRONG + "```\n")
    status, out, _ = _check(capsys, str(prose), "--pool", pool)
    assert status == 1 and "wrong_args:unknown_model" in out


@pytest.mark.parametrize("codec", ["hex", "rot13", "undefined", "punycode"])
def test_a_coding_line_naming_no_text_encoding_is_one_line(pool, capsys, tmp_path, codec):
    """Break-it round 7: ``# -*- coding: hex -*-`` (a codec of bytes to bytes, or one that always fails)
    was "internal error: LookupError" / "UnicodeError" and stopped `check FOLDER` at that file. Python
    says "encoding problem"; here it is one line for that file (exit 2) and the other files are checked."""
    folder = tmp_path / "tree"
    folder.mkdir()
    (folder / "bad.py").write_bytes(f"# -*- coding: {codec} -*-\n{WRONG}".encode())
    (folder / "good.py").write_text(WRONG)
    status, out, err = _check(capsys, str(folder), "--pool", pool)
    assert status == 2
    assert f"encoding problem: its coding line names {codec}, not a text encoding" in err
    assert "internal error" not in err
    assert [line for line in err.splitlines() if "error" in line] == [
        f"gorilla-tui: error: cannot read {folder / 'bad.py'}: encoding problem: its coding line names "
        f"{codec}, not a text encoding"
    ]
    assert out.startswith(f"{folder / 'good.py'}:2:9: wrong_args:unknown_model ")


def test_code_on_stdin_has_the_limit_a_file_has(pool, capsys, monkeypatch):
    """Break-it round 7: `check -` read standard input whole and checked it (3 MB of ``print(1)`` took
    29 s and 1.5 GB; 30 MB over 5 GB), where a file that size is refused. Now stdin has the file limit."""
    import io
    import sys

    class Stdin:
        buffer = io.BytesIO(b"print(1)\n" * (MAX_CODE_BYTES // 9 + 1))

    monkeypatch.setattr(sys, "stdin", Stdin())
    status, out, err = _check(capsys, "-", "--pool", pool)
    assert (status, out) == (2, "")
    assert f"cannot read stdin: more than {MAX_CODE_BYTES // 2**20} MiB of code: not checked" in err
    assert Stdin.buffer.tell() == MAX_CODE_BYTES + 1  # read no further than the limit


def test_a_number_longer_than_python_converts_is_invalid_json_in_every_source_format(tmp_path):
    """Break-it round 7: a JSON integer of 5,000 digits (Python converts at most 4,300) raised a plain
    ValueError that loaders catching json.JSONDecodeError let through: "internal error" for a tools list,
    an OpenAPI document and a JSON Lines pool. Now it is invalid JSON: that line is not a doc (JSON Lines),
    or the file is refused in one line (SourceRejected), and nothing raises past the loader."""
    big = "9" * 5000
    pool_lines = (POOL / "torchhub_api.jsonl").read_text().splitlines()[:2]
    jsonl = tmp_path / "pool.jsonl"
    jsonl.write_text("\n".join([*pool_lines, f'{{"n": {big}}}']) + "\n")
    loaded = user_source(jsonl)
    assert len(loaded.result.docs) == 2
    assert any("a number of more than 4300 digits" in d.message for d in loaded.result.diagnostics)
    schema = f'{{"type": "object", "properties": {{"a": {{"type": "integer", "maximum": {big}}}}}}}'
    tools = tmp_path / "tools.json"
    tools.write_text(f'{{"tools": [{{"name": "t", "description": "d", "inputSchema": {schema}}}]}}')
    openapi = tmp_path / "api.json"
    openapi.write_text(
        '{"openapi": "3.0.0", "info": {"title": "t", "version": "1"}, "paths": {"/x": {"get": '
        f'{{"operationId": "getX", "parameters": [{{"name": "a", "in": "query", "schema": {schema}}}]}}}}}}}}'
    )
    for path in (tools, openapi):
        with pytest.raises(SourceRejected) as refused:  # what `index --refresh --source` says, exit 2
            user_source(path)
        assert len(str(refused.value).splitlines()) == 1 and path.name in str(refused.value)


def test_a_function_schema_nested_too_deep_is_one_line_not_a_recursion_error(tmp_path):
    """Break-it round 8: parameters nested 250 levels (valid JSON) were "internal error: RecursionError" in
    `index --refresh --source`, `check --pool` and `eval bfcl --data` (the schema's deepcopy). Such a
    function is not a doc, named in one diagnostic; its neighbours load."""
    from gorilla_tui.pool.functions import MAX_SCHEMA_NESTING

    deep: dict = {"type": "integer"}
    for _ in range(250):
        deep = {"type": "object", "properties": {"b": deep}}

    def tool(name: str, schema: dict) -> dict:
        parameters = {"type": "object", "properties": {"a": schema}}
        return {"type": "function", "function": {"name": name, "description": name, "parameters": parameters}}

    tools = [tool("deep_tool", deep), tool("flat_tool", {"type": "string"})]
    path = tmp_path / "tools.json"
    path.write_text(json.dumps({"tools": tools}))
    loaded = user_source(path)
    assert [d.api_name for d in loaded.result.docs] == ["flat_tool"]
    assert any(
        f"nested deeper than {MAX_SCHEMA_NESTING} levels" in d.message for d in loaded.result.diagnostics
    )


def test_a_lone_surrogate_escape_in_a_doc_is_read_as_a_replacement_character(tmp_path):
    """Break-it round 8: a doc whose JSON holds "\\ud800" (valid JSON; Python reads a lone surrogate) was
    "internal error: UnicodeEncodeError" when the index wrote it, and when `check --pool --json` printed
    it. Every JSON reader (jsontext.decode) reads a lone surrogate as U+FFFD; a proper pair is one
    character as before."""
    line = json.loads((POOL / "torchhub_api.jsonl").read_text().splitlines()[0])
    line["functionality"] = "evil\\ud800 and \\ud83d\\ude00"
    path = tmp_path / "docs.jsonl"
    path.write_text(json.dumps(line).replace("\\\\ud", "\\ud") + "\n")
    assert "\\ud800" in path.read_text()  # the escape, as a hostile file writes it
    doc = user_source(path).result.docs[0]
    assert doc.functionality == "evil\ufffd and \U0001f600"
    doc.functionality.encode("utf-8")  # writable: no lone surrogate left


def _nested(top: Path, depth: int) -> Path:
    """`top` with `depth` folders "d" nested below it (made from inside: the whole path may pass PATH_MAX)."""
    here = os.getcwd()
    top.mkdir()
    os.chdir(top)
    try:
        for _ in range(depth):
            os.mkdir("d")
            os.chdir("d")
        Path("deep.py").write_text(WRONG)
    finally:
        os.chdir(here)
    return top


@pytest.fixture
def deep_tree(tmp_path):
    """tmp_path/tree with "d" folders nested 1,500 deep, deep.py at the bottom; removed bottom-up after the
    test (shutil.rmtree, pytest's own clean-up, recurses once per level too)."""
    top = _nested(tmp_path / "tree", 1500)
    yield top
    os.chdir(top)
    for _ in range(1500):
        os.chdir("d")
    Path("deep.py").unlink()
    for _ in range(1500):
        os.chdir("..")
        os.rmdir("d")
    os.chdir(tmp_path)


def test_folders_nested_1500_deep_are_an_error_and_the_rest_is_checked(pool, capsys, deep_tree, monkeypatch):
    """Break-it round 9, R2: os.walk and glob's ``**`` recurse once per folder level (Python 3.11), so a
    tree 1,500 folders deep (a legal 3,000-character path) was "internal error: RecursionError", exit 1,
    with an empty SARIF log. The folder below check/walk.py MAX_DEPTH levels is one error line, as a file
    that cannot be read is (exit 2, SARIF executionSuccessful false: its files were asked for and not
    checked; it was a note, exit 0 when it held the only file, issue 42); the rest of the tree is checked
    (its finding printed), by a folder, a ``**`` glob and in SARIF."""
    from gorilla_tui.check.walk import MAX_DEPTH, TOO_DEEP

    monkeypatch.chdir(deep_tree.parent)
    deepest = os.sep.join(["tree", *["d"] * MAX_DEPTH])
    for target in ("tree", "tree/**/*.py", "tree/**"):  # the only file is too deep: never "ok"
        status, out, err = _check(capsys, target, "--pool", pool)
        assert (status, out) == (2, ""), (target, err)
        assert err.splitlines() == [f"gorilla-tui: error: {deepest}: {TOO_DEEP}"], (target, err)
    status, out, _ = _check(capsys, "tree", "--pool", pool, "--format", "json")
    assert status == 2 and [e["reason"] for e in json.loads(out)] == ["not_checked"]
    Path("tree", "top.py").write_text(WRONG)
    for target in ("tree", "tree/**/*.py", "tree/**"):
        status, out, err = _check(capsys, target, "--pool", pool)
        assert status == 2, (target, err)
        assert out.startswith("tree/top.py:2:9: wrong_args:unknown_model "), target
        assert err.splitlines()[1:] == [f"gorilla-tui: error: {deepest}: {TOO_DEEP}"], (target, err)
    status, out, _ = _check(capsys, "tree", "--pool", pool, "--format", "sarif")
    log = json.loads(out)
    sarif_pydantic.Sarif.model_validate(log)
    [invocation] = log["runs"][0]["invocations"]
    [note] = invocation["toolExecutionNotifications"]
    assert status == 2 and invocation["executionSuccessful"] is False
    assert note["message"]["text"] == f"{deepest}: {TOO_DEEP}" and note["level"] == "error"
    assert len(log["runs"][0]["results"]) == 1
    assert main(["check", "tree/*/*/*/nothing.py", "--pool", pool]) == 2  # a pattern naming nothing
    assert "no such file or folder" in capsys.readouterr().err


@pytest.mark.skipif(hasattr(os, "geteuid") and os.geteuid() == 0, reason="root lists a mode-000 folder")
def test_a_folder_that_cannot_be_listed_is_not_checked_exit_2(pool, capsys, tmp_path, monkeypatch):
    """os.walk passed a folder it cannot list over in silence (exit 0 for a tree partly checked)."""
    monkeypatch.chdir(tmp_path)
    Path("tree", "locked").mkdir(parents=True)
    Path("tree", "top.py").write_text(WRONG)
    os.chmod("tree/locked", 0)
    status, _, err = _check(capsys, "tree", "--pool", pool)
    assert status == 2 and "gorilla-tui: error: tree/locked: cannot read (Permission denied)" in err
