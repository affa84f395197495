"""Break-it round 12, `check` reading files: a cell magic's line that IPython runs as Python (R12-3),
decoding and line ends as CPython reads a file (R12-5, R12-6), Markdown read as CommonMark (R12-7)."""

from __future__ import annotations

import encodings.aliases
import re
import subprocess
import sys
from pathlib import Path

import pytest

from tests.hostile_cli import POOL, WRONG_HUB, notebook, run_cli


def test_the_line_of_a_cell_magic_that_runs_python_is_checked_or_noted(capsys, tmp_path):
    """R12-3: IPython 8 runs ``%%timeit -n1 -r1 SETUP`` as run_cell_magic('timeit', '-n1 -r1 SETUP', body):
    SETUP is Python (so is ``%%debug STATEMENT``); `check` read neither nor said so (exit 0). Now they are
    checked at their line, and a line that runs Python in a form not read is named in the note. The line
    of ``%%time``/``%%prun``/``%%capture`` holds options only: nothing to check there."""
    nb = notebook(
        tmp_path / "nb.ipynb",
        f"%%timeit -n1 -r1 import torch; {WRONG_HUB}\npass\n",
        f"%%debug {WRONG_HUB}\npass\n",
        "%%prun -s cumtime -q\nimport torch\n",
        f"%%timeit -Z {WRONG_HUB}\npass\n",
    )
    status, out, err = run_cli(capsys, "check", nb, "--pool", POOL)
    assert status == 1, (out, err)
    found = [ln[len(nb) :].split(" wrong_args")[0] for ln in out.splitlines() if "unknown_model" in ln]
    assert found == [":cell 1:1:32:", ":cell 2:1:9:"]
    assert f"gorilla-tui: note: {nb}: cell 4: line 1 not checked: Python that IPython runs" in err


def _cpython_runs(path: Path) -> int | None:
    """The line of the torch.hub.load call in CPython's traceback when `python -I path` runs the file,
    else None (CPython refused it: a SyntaxError before anything ran)."""
    done = subprocess.run([sys.executable, "-I", "-S", str(path)], capture_output=True, text=True, timeout=60)
    lines = re.findall(r'File ".*", line (\d+), in <module>', done.stderr)
    return int(lines[-1]) if lines and "SyntaxError" not in done.stderr else None


CODECS = sorted(set(encodings.aliases.aliases.values()))


def test_a_file_is_read_as_cpython_reads_it_for_every_coding_and_line_end(capsys, tmp_path):
    """R12-5/R12-6: `check` decides what it reads the way CPython does, by CPython's own verdict: for every
    codec of this Python (encodings.aliases) named in a coding line, `check` refuses the file exactly when
    `python FILE` refuses it, and places the call at the line CPython's traceback names. cp037 and the other
    EBCDIC codings were refused ("not ASCII compatible") though CPython runs them; with CR-only line ends a
    latin-1 coding line was not seen ("not UTF-8 text") and a UTF-8 file's finding was at 1:21, not 3:1."""
    body = f"import os\n\n{WRONG_HUB}\n"  # NameError at the call: CPython names its line
    cases = {f"# coding: {c}\n".encode() + _encoded(body, c): c for c in CODECS}
    cases[b"# coding: latin-1\rimport os\rx = '\xe9'\r" + WRONG_HUB.encode() + b"\r"] = "latin-1 CR"
    cases[b"import os\r\r" + WRONG_HUB.encode() + b"\r"] = "utf-8 CR"
    cases[b"# coding: latin-1\r\nimport os\r\nx = '\xe9'\r\n" + WRONG_HUB.encode() + b"\r\n"] = "latin-1 CRLF"
    wrong = []
    for data, label in cases.items():
        path = tmp_path / "c.py"
        path.write_bytes(data)
        line = _cpython_runs(path)
        status, out, _ = run_cli(capsys, "check", "--file", str(path), "--pool", POOL)
        found = re.match(rf"{re.escape(str(path))}:(\d+):", out)
        seen = (status, int(found.group(1)) if found else None)
        if seen != ((2, None) if line is None else (1, line)):
            wrong.append((label, line, seen))
    assert wrong == [], wrong


def _encoded(text: str, codec: str) -> bytes:
    """`text` in `codec` when it is a text encoding that writes it, else in ASCII."""
    try:
        data = text.encode(codec)
    except (LookupError, UnicodeError, TypeError):
        return text.encode("ascii")
    return data if isinstance(data, bytes) else text.encode("ascii")


@pytest.mark.parametrize(
    "fence",
    [
        "- item\n\n  ```python\n  import torch\n  {call}\n  ```\n",  # under a list item: 2 spaces
        "  ```python\n  import torch\n  {call}\n  ```\n",  # indented 2 spaces, no list
        "> ```py\n> import torch\n> {call}\n> ```\n",  # in a block quote
        "1. step\n\n   ~~~~ {{.python}}\n   import torch\n   {call}\n   ~~~~\n",
    ],
)
def test_a_markdown_fence_is_read_as_commonmark_reads_it(capsys, tmp_path, fence):
    """R12-7: a fence indented under a list item kept its indentation ("skipped: not Python 3 syntax
    (unexpected indent)", exit 0, its call unchecked). Markdown is read by a CommonMark parser now: each
    fence's code dedented as CommonMark says, its finding at its line and column in the file."""
    md = tmp_path / "doc.md"
    text = "# title\n\n" + fence.format(call=WRONG_HUB)
    md.write_text(text)
    status, out, err = run_cli(capsys, "check", str(md), "--pool", POOL)
    assert status == 1, (out, err)
    line = next(k for k, ln in enumerate(text.splitlines(), 1) if "torch.hub" in ln)
    col = text.splitlines()[line - 1].index("torch.hub") + 1
    assert out.startswith(f"{md}:{line}:{col}: wrong_args:unknown_model "), out
