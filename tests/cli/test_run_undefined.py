"""Break-it pass 10: a run of code with placeholders (a python-env api_call such as `shutil.copyfile(src,
dst)`) or a hub call without its import (`hub.load(...)`) ended in Python's bare NameError, which names one
name. The report now says in one line which names need values, or which import to add (from the matched
doc's example code). Real sandbox runs over the small pool's real docs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.sandbox.runner import run_code
from gorilla_tui.sandbox.undefined import undefined_names
from gorilla_tui.tui.screens.run import run_report
from tests.conftest import SMALL_POOL, clone_home

HUB_CALL = "hub.load('https://tfhub.dev/google/universal-sentence-encoder/4')\n"


@pytest.fixture()
def index(gorilla_home: Path, home_template) -> Path:
    """The small pool's TensorFlow Hub and python-env docs, indexed by `index --refresh --from` (once per
    session: a copy of home_template's)."""
    refreshes = [["index", "--refresh", "--only", only, "--from", str(SMALL_POOL)] for only in HUB_AND_ENV]
    return clone_home(home_template(*refreshes), gorilla_home)


HUB_AND_ENV = ("tensorflowhub", "python-env")


def _run_json(tmp_path: Path, code: str, capsys) -> dict:
    src = tmp_path / "prog.py"
    src.write_text(code)
    assert main(["run", str(src), "--yes", "--json"]) == 1
    return json.loads(capsys.readouterr().out)


def test_placeholders_of_a_stdlib_call_are_named_as_values_to_fill_in(index, tmp_path, capsys) -> None:
    out = _run_json(tmp_path, "import shutil\nshutil.copyfile(src, dst)\n", capsys)
    assert out["verdict"]["verdict"] == "valid"
    assert "NameError: name 'src' is not defined" in out["run"]["output"]
    assert out["undefined_names"] == {
        "names": ["src", "dst"],
        "imports": [],
        "to_fill": ["src", "dst"],
        "message": "the example needs values filled in: src, dst (used but never defined); "
        "set them before running it",
    }


def test_a_hub_call_without_its_import_names_the_import_from_the_doc(index, tmp_path, capsys) -> None:
    src = tmp_path / "prog.py"
    src.write_text(HUB_CALL)
    assert main(["run", str(src), "--yes"]) == 1
    err = capsys.readouterr().err
    assert "NameError: the code lacks its imports: add `import tensorflow_hub as hub`\n" in err


def test_code_that_defines_its_names_gets_no_such_line(index, tmp_path, capsys) -> None:
    out = _run_json(tmp_path, "import shutil\nx = undefined_later if False else 1\ndel x\nprint(x)\n", capsys)
    assert "NameError: name 'x' is not defined" in out["run"]["output"]
    assert out["undefined_names"] is None  # x is defined, then deleted: Python's own message says it


def test_the_tui_run_screen_report_says_it_too() -> None:
    docs = load_jsonl(SMALL_POOL / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    doc = next(d for d in docs if d.api_call.startswith("hub.load("))
    result = run_code(HUB_CALL)
    assert undefined_names(result, HUB_CALL, doc) is not None
    text = run_report(result, doc, HUB_CALL).plain
    assert "NameError: the code lacks its imports: add `import tensorflow_hub as hub`" in text


def test_with_a_star_import_only_the_name_python_gave_is_told(index, tmp_path, capsys) -> None:
    """Break-it pass 11: `from os import *` binds `path`, which no symbol table knows; the line said
    "values filled in: path, file" although the real run only lacked `file`."""
    out = _run_json(tmp_path, "from os import *\nprint(path.sep)\nfile\n", capsys)
    assert "NameError: name 'file' is not defined" in out["run"]["output"]
    assert out["undefined_names"]["names"] == ["file"]
    assert out["undefined_names"]["to_fill"] == ["file"]


@pytest.mark.parametrize(
    "deep",
    [
        "x = " + "-" * 100_000 + "1\n",
        "x = " + "+".join(["a"] * 200_000) + "\n",
        "f = " + "lambda: " * 5000 + "1\n",
    ],
    ids=["unary-100000", "sum-200000", "lambda-5000"],
)
def test_code_nested_too_deeply_to_read_gets_no_line_and_no_traceback(deep) -> None:
    """Break-it pass 11: the parser's MemoryError and the compiler's RecursionError of a too deeply nested
    text came out of undefined_names (a traceback in `run` and the TUI's run screen). A real sandbox run
    gives the NameError; the deep text follows it."""
    code = "file\n" + deep
    result = run_code("file\n")
    assert "NameError: name 'file' is not defined" in result.output
    assert undefined_names(result, code) is None
    assert "exit 1" in run_report(result, None, code).plain  # the TUI run screen: no traceback either


def test_the_line_names_at_most_twenty_and_counts_the_rest() -> None:
    """Break-it pass 11: code with 100,000 undefined names made a 789 KB line (and took 52 s: a list's
    `in` per name). The line names the first 20 in order of use and counts the rest; the JSON keeps all."""
    code = "".join(f"print(v{i})\n" for i in range(25))
    result = run_code(code)
    assert "NameError: name 'v0' is not defined" in result.output
    found = undefined_names(result, code)
    assert found is not None and found.to_fill == tuple(f"v{i}" for i in range(25))
    told = ", ".join(f"v{i}" for i in range(20))
    assert found.message() == (
        f"the example needs values filled in: {told} and 5 more (used but never defined); "
        "set them before running it"
    )


TORCH_CALL = "torch.hub.load(repo_or_dir='pytorch/vision', model='resnet50', pretrained=True)\n"


@pytest.mark.parametrize(
    "example, requirements",
    [
        ("import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50'\nmodel.eval(", ["torch"]),
        ("model = torch.hub.load('pytorch/vision', 'resnet50')", ["torch>=1.0", "torchvision"]),
        ("import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50'", []),
    ],
)
def test_a_module_the_doc_names_is_an_import_to_add_not_a_value(
    gorilla_home, tmp_path, capsys, example, requirements
) -> None:
    """Tester's report: `ask --run` of a doc whose example fails the check ran the bare api_call and said
    "the example needs values filled in: torch (used but never defined)": torch needs an import. The doc's
    import lines (its example need not parse) and its env requirements name the module."""
    rows = [json.loads(line) for line in (SMALL_POOL / "torchhub_api.jsonl").read_text().splitlines()]
    doc = next(r for r in rows if r["api_name"] == "resnet50")
    doc.update(example_code=example, python_environment_requirements=requirements)
    pool = tmp_path / "pool"
    pool.mkdir()
    (pool / "torchhub_api.jsonl").write_text(json.dumps(doc) + "\n")
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(pool)]) == 0
    capsys.readouterr()
    out = _run_json(tmp_path, TORCH_CALL, capsys)
    assert out["verdict"]["verdict"] == "valid" and "name 'torch' is not defined" in out["run"]["output"]
    assert out["undefined_names"]["imports"] == ["import torch"]
    assert out["undefined_names"]["to_fill"] == []
    assert out["undefined_names"]["message"] == "the code lacks its imports: add `import torch`"


def test_a_standard_library_module_used_as_one_is_an_import_a_bare_name_a_value() -> None:
    """`os.getcwd()` without `import os` lacks an import; `string` in `re.match(pattern, string)` is a value,
    although a module of that name exists (only a name whose attribute is read is taken for a module)."""
    code = "print(os.getcwd())\nre.match(pattern, string)\n"
    result = run_code(code)
    told = undefined_names(result, code, None)
    assert told is not None and told.imports == ("import os", "import re")
    assert told.to_fill == ("pattern", "string")
    assert told.message() == (
        "the code lacks its imports: add `import os`; `import re`; the example needs values filled in: "
        "pattern, string (used but never defined); set them before running it"
    )
