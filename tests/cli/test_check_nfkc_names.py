"""Break-it round 18, P4: identifiers Python folds by NFKC (PEP 3131) get the findings of their ASCII
spelling. ``import ｓｈｕｔｉｌ; ｓｈｕｔｉｌ.copy()`` is shutil.copy() when it runs, but `check` reported
nothing (exit 0): a pre-commit hook passed it. The real CLI over the python-env index."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from tests.conftest import clone_home
from tests.hostile_cli import run_cli

#: ASCII code with a finding, and the same code with its names spelled as Python folds them.
PAIRS = {
    "module and call fullwidth": (
        "import shutil\nshutil.copy()\n",
        "import ｓｈｕｔｉｌ\nｓｈｕｔｉｌ.copy()\n",
    ),
    "attribute fullwidth": ("import shutil\nshutil.copy()\n", "import shutil\nshutil.ｃｏｐｙ()\n"),
    "alias in fraktur": ("import csv as c\nc.writer()\n", "import csv as 𝔠𝔰𝔳\n𝔠𝔰𝔳.writer()\n"),
    "from-import fullwidth": (
        "from shutil import copy\ncopy()\n",
        "from ｓｈｕｔｉｌ import ｃｏｐｙ\nｃｏｐｙ()\n",
    ),
    "keyword fullwidth": (
        "import shutil\nshutil.copy('a', 'b', overwrite=True)\n",
        "import shutil\nshutil.copy('a', 'b', ｏｖｅｒｗｒｉｔｅ=True)\n",
    ),
    "file-object rule": (
        'import pickle\npickle.load("x.pkl")\n',
        'import ｐｉｃｋｌｅ\nｐｉｃｋｌｅ.load("x.pkl")\n',
    ),
}


def _findings(out: str) -> list[str]:
    """Each finding line without its "path:line:col: " prefix."""
    return [
        re.sub(r"^.*?:\d+:\d+: ", "", line) for line in out.splitlines() if re.search(r":\d+:\d+: ", line)
    ]


@pytest.fixture
def indexed(home_template, gorilla_home: Path) -> Path:
    return clone_home(
        home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home
    )


@pytest.mark.parametrize("case", PAIRS)
def test_a_name_python_folds_gets_the_findings_of_its_ascii_spelling(
    indexed: Path, capsys: pytest.CaptureFixture[str], tmp_path: Path, case: str
) -> None:
    plain, folded = PAIRS[case]
    assert ast.dump(ast.parse(plain)).replace("'c'", "'csv'") == ast.dump(ast.parse(folded)), (
        case
    )  # the premise
    seen = []
    for name, code in (("plain.py", plain), ("folded.py", folded)):
        path = tmp_path / name
        path.write_text(code, encoding="utf-8")
        status, out, _ = run_cli(capsys, "check", str(path))
        seen.append((status, _findings(out)))
    assert seen[0][0] == 1 and seen[0][1], seen  # the ASCII spelling is a finding
    assert seen[1] == seen[0], seen  # main: (0, [])
