"""check/lint.py without an index: file discovery, Markdown / notebook blocks, reason-code filters and
inline ignores (real tree-sitter, real APIBench Torch Hub pool)."""

from __future__ import annotations

import json
import os

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.ipython_syntax import python_lines
from gorilla_tui.check.notebook import notebook_lines


def test_discover_folders_globs_and_missing(tmp_path):
    (tmp_path / "pkg" / "__pycache__").mkdir(parents=True)
    (tmp_path / ".venv").mkdir()
    for name in ("pkg/a.py", "pkg/b.md", "pkg/c.txt", "pkg/__pycache__/d.py", ".venv/e.py", "f.ipynb"):
        (tmp_path / name).write_text("x = 1\n")
    found = lint.discover([str(tmp_path)])
    assert [p.removeprefix(str(tmp_path) + "/") for p in found] == ["f.ipynb", "pkg/a.py", "pkg/b.md"]
    assert lint.discover([str(tmp_path / "pkg" / "*.py"), str(tmp_path / "pkg" / "a.py"), "-"]) == [
        str(tmp_path / "pkg" / "a.py"),
        "-",
    ]
    with pytest.raises(FileNotFoundError, match="no such file"):
        lint.discover([str(tmp_path / "nope.py")])
    with pytest.raises(FileNotFoundError, match="no file matches"):
        lint.discover([str(tmp_path / "*.nothing")])


def test_markdown_fences_keep_file_lines():
    text = (
        "# t\n\n```python\nimport torch\nx = 1\n```\n\n```bash\npip install x\n```\n\n```\nimport os\n```\n"
    )
    blocks = lint.markdown_blocks(text)
    assert [(b.code, b.line_offset) for b in blocks] == [("import torch\nx = 1", 3), ("import os", 12)]


def test_notebook_cells_are_one_block_with_cell_positions():
    nb = {"cells": [{"cell_type": "code", "source": ["import torch\n", "%time x = 1"]},
                    {"cell_type": "markdown", "source": "text"},
                    {"cell_type": "code", "source": "!ls\nm = torch.hub.load('a/b', 'c')"}]}  # fmt: skip
    (block,) = lint.blocks("n.ipynb", json.dumps(nb))
    # IPython's syntax made Python line for line: %time runs its statement, !ls is a command
    assert block.code.split("\n") == ["import torch", "if 1: x = 1", "pass", "m = torch.hub.load('a/b', 'c')"]
    assert block.cells == [(1, 1), (1, 2), (3, 1), (3, 2)]
    with pytest.raises(ValueError, match="not a notebook"):
        lint.blocks("n.ipynb", "[]")


def test_ipython_syntax_is_made_python_only_at_the_start_of_a_logical_line():
    """check/ipython_syntax.py: IPython finds its commands at the start of a logical line, so a ``%`` or
    ``!`` continuing a bracket, a triple-quoted string or a backslash line is Python (or text) and kept;
    lines and columns are kept (one line out per line in). A Markdown fence is read the same way."""
    cell = [
        "x = (1",
        "     % 2)",
        's = """',
        "!not a command",
        '"""',
        "y = 1 + \\",
        "    2",
        "  %ls \\",
        "  more of the magic",
        "a, b = !ls",
        "os.path.join??",
        "%prun -s cumulative f()",
        "    %time  r = f(1)",
    ]
    assert python_lines("\n".join(cell)) == [
        *cell[:7],
        "  pass",
        "",
        "a, b = []",
        "pass",
        "if 1:" + " " * 15 + "f()",  # %prun's options read as IPython reads them (-s takes a value)
        "    if 1:  r = f(1)",
    ]
    (block,) = lint.markdown_blocks("text\n```python\n!pip install torch\nimport torch\n```\n")
    assert (block.code, block.line_offset) == ("pass\nimport torch", 2)


def test_a_notebook_over_the_code_cap_is_not_read_before_it_is_refused():
    """More code than max_bytes is given as it is (the caller refuses it, lint.too_much_code): reading it
    (IPython's syntax, a compile per cell) cost a 2.5 MB notebook 9 s and 0.9 GB before its refusal."""
    nb = json.dumps({"cells": [{"cell_type": "code", "source": "!ls\nprint 'x'\n"}]})
    assert notebook_lines(nb, max_bytes=10) == (["!ls", "print 'x'"], [(1, 1), (1, 2)], [], [])
    lines, _, notes, _ = notebook_lines(nb, max_bytes=1000)
    assert lines == ["", ""] and notes == [
        "cell 1: skipped: not Python 3 syntax (2:1: Missing parentheses in call to 'print'. Did you mean "
        "print(...)?)"
    ]


def test_reason_codes_and_prefixes():
    assert lint.parse_codes(["wrong_args,hallucination:unknown_callee", " all "]) == [
        "wrong_args",
        "hallucination:unknown_callee",
        "all",
    ]
    with pytest.raises(ValueError, match="unknown reason code 'wrong'"):
        lint.parse_codes(["wrong"])
    assert lint.matches("wrong_args:unknown_model", ["wrong_args"])
    assert not lint.matches("wrong_args:unknown_model", ["wrong_args:unknown_repo", "hallucination"])


def test_unreadable_refuses_fifo_and_oversized_file_before_opening(tmp_path):
    """A FIFO would block open() until a writer comes; a file over MAX_FILE_BYTES (sparse here, so the test
    writes nothing) is not read at all. A regular file under the limit passes."""
    fifo = tmp_path / "pipe.py"
    os.mkfifo(fifo)
    big = tmp_path / "big.py"
    with open(big, "wb") as fh:
        fh.truncate(lint.MAX_FILE_BYTES + 1)
    small = tmp_path / "ok.py"
    small.write_text("import os\n")
    assert lint.unreadable(str(fifo)) == "not a regular file (a FIFO): not checked"
    assert lint.unreadable(str(big)).startswith("too large (10.0 MiB > 10 MiB)")
    assert lint.unreadable(str(small)) is None
    assert lint.unreadable(str(tmp_path / "gone.py")).startswith("cannot read (No such file")
    assert lint.discover([str(fifo)]) == [str(fifo)]  # named, so refused by run_lint, not "no such file"
    assert lint.discover([str(tmp_path)]) == [str(big), str(small), str(fifo)]
