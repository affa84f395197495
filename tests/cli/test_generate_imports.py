"""Generate mode's code carries its imports (issue 42, left from break-it round 25).

A model (or an endpoint) answers with a bare call, ``json.loads('[1, 2]')``: the check judged it valid, the
proposal's code was the call alone, and `ask --run` ended in ``NameError: name 'json' is not defined``,
told as "the example needs values filled in: json". The proposal's code now starts with the imports the
call needs (sandbox/undefined.py with_imports: the matched doc's example imports, or the module the code
uses as one), so what is copied or run is what runs.
"""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.sandbox.undefined import with_imports
from tests.endpoint_helpers import CompletionsServer

ANSWERS = {
    "loads": "<<<api_call>>>: json.loads('[1, 2]')",
    "copy": "<<<api_call>>>: shutil.copyfile('a.txt', 'b.txt')",
    "own": "<<<api_call>>>: json.loads('[1, 2]') <<<code>>>: import json as j\nprint(j.loads('[1, 2]'))",
    "hallucinated": "<<<api_call>>>: python.time.fromtimestamp(t)",
    "variable": "<<<api_call>>>: email.split('@')",
}


@pytest.fixture
def server() -> Iterator[CompletionsServer]:
    s = CompletionsServer(ANSWERS)
    yield s
    s.close()


def _ask(server: CompletionsServer, kind: str, task: str, capsys, *extra: str) -> tuple[int, dict]:
    argv = ["ask", task, "--mode", "generate", "--endpoint", f"{server.url}/{kind}/v1", "--json", *extra]
    status = main(argv)
    return status, json.loads(capsys.readouterr().out)


def test_a_bare_generated_call_gets_the_import_it_needs(small_home, server, capsys) -> None:
    status, out = _ask(server, "copy", "copy a.txt to b.txt", capsys)
    assert status == 0 and out["verdict"]["verdict"] == "valid"
    assert out["api_call"] == "shutil.copyfile('a.txt', 'b.txt')"
    assert out["code"] == "import shutil\nshutil.copyfile('a.txt', 'b.txt')"


def test_ask_run_of_a_bare_generated_call_runs_without_a_name_error(small_home, server, capsys) -> None:
    status, out = _ask(
        server, "loads", "parse the json text [1, 2]", capsys, "--run", "--yes", "--timeout", "30"
    )
    assert out["proposal"]["code"] == "import json\njson.loads('[1, 2]')"
    assert "NameError" not in out["run"]["output"] and out["run"]["exit_status"] == 0 and status == 0


def test_the_models_own_code_that_imports_keeps_its_import(small_home, server, capsys) -> None:
    status, out = _ask(server, "own", "parse the json text [1, 2]", capsys)
    assert out["code"] == "import json as j\nprint(j.loads('[1, 2]'))"  # j is bound: nothing added


def test_a_hallucinated_call_gets_no_invented_import(small_home, server, capsys) -> None:
    status, out = _ask(server, "hallucinated", "wait 2 seconds", capsys)
    assert out["verdict"]["verdict"] == "hallucination" and status == 1
    assert out["code"] == "python.time.fromtimestamp(t)"  # `python` is no module here: nothing to import


def test_code_no_pool_api_matched_gets_no_import(small_home, server, capsys) -> None:
    """Break-it R27: `email.split('@')` (a variable named like a module) got `import email`."""
    status, out = _ask(server, "variable", "split the address at the @", capsys)
    assert out["verdict"]["matched"] is None and out["code"] == "email.split('@')"


def _doc(example: str, requirements: list[str] | None = None) -> ApiDoc:
    return ApiDoc(id="tensorflowhub:1", source="tensorflowhub", api_call="x()", example_code=example,
                  env_requirements=requirements or [])  # fmt: skip


def test_with_imports_takes_the_docs_own_import_line_and_alias() -> None:
    doc = _doc("import tensorflow_hub as hub\nmodel = hub.load('https://tfhub.dev/x/1')")
    assert with_imports("hub.load('https://tfhub.dev/x/1')", doc).splitlines() == [
        "import tensorflow_hub as hub",
        "hub.load('https://tfhub.dev/x/1')",
    ]
    doc = _doc("", ["transformers from transformers import pipeline"])
    assert with_imports("pipeline('ner')", doc) == "from transformers import pipeline\npipeline('ner')"


def test_with_imports_leaves_placeholders_star_imports_and_bad_text_alone() -> None:
    assert with_imports("shutil.copyfile(src, dst)") == "import shutil\nshutil.copyfile(src, dst)"
    assert with_imports("from os import *\ngetcwd()") == "from os import *\ngetcwd()"
    assert with_imports("copy(src, dst)") == "copy(src, dst)"  # values to fill in, not modules
    for text in ("shutil.copy(", "-" * 100_000 + "x", ""):
        assert with_imports(text) == text


def test_with_imports_puts_them_after_a_docstring_and_future_imports() -> None:
    """Break-it R27-1: `import os` before `from __future__ import annotations` is a SyntaxError."""
    code = "from __future__ import annotations\nprint(os.getcwd())"
    assert with_imports(code) == "from __future__ import annotations\nimport os\nprint(os.getcwd())"
    code = '"""Say where."""\nfrom __future__ import annotations\nx = json.loads(s)'
    assert (
        with_imports(code)
        == '"""Say where."""\nfrom __future__ import annotations\nimport json\nx = json.loads(s)'
    )
    code = "from __future__ import annotations; os.getcwd()"
    assert with_imports(code) == code  # no line to put them on
    for code in ('"""Doc."""\nos.getcwd()', "from __future__ import annotations\nos.getcwd()"):
        compile(with_imports(code), "<test>", "exec")
