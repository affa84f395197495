"""Break-it round 26 (issue 42) through `ask --json` on the standard library's index (BM25) and the real
tiny model, one test per class of filling fixed; whichever API the task is answered with, the rule holds:

- R26-1: a value of the wrong kind never fills a parameter its type stub types (``fromisoformat(99999)``:
  a number for a str; ``threading.Thread('14:00')``: a time as the group, which must be None).
- R26-2: a file the task names is never a bytes parameter's content (``hashlib.sha256(b'/etc/passwd')``).
- R26-3: the words an unquoted path leaves behind at a space are said ("unused"), never dropped.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from tests.conftest import clone_home

pytestmark = pytest.mark.model


@pytest.fixture
def stdlib_home(home_template, gorilla_home: Path) -> Path:
    """gorilla_home with a BM25 index of the python-env pool (the standard library)."""
    return clone_home(
        home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home
    )


def _ask(task: str, capsys: pytest.CaptureFixture[str]) -> dict:
    main(["ask", "--json", task])
    return json.loads(capsys.readouterr().out)


@pytest.mark.parametrize(
    ("task", "wrong"),
    [
        ("parse the date 99999-12-31", "fromisoformat(99999"),
        ("wait until 14:00 then print done", "Thread('14:00')"),
    ],
)
def test_ask_fills_no_value_of_the_wrong_kind(
    stdlib_home: Path, capsys: pytest.CaptureFixture[str], task: str, wrong: str
) -> None:
    data = _ask(task, capsys)
    assert wrong not in data["api_call"], data["api_call"]


def test_ask_never_hashes_a_files_name(stdlib_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _ask("compute sha256 of the file '/etc/passwd'", capsys)
    assert "b'/etc/passwd'" not in data["api_call"], data["api_call"]


def test_ask_says_what_a_path_left_behind(stdlib_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _ask("list the files in /tmp/a b c", capsys)
    assert "/tmp/a b c" in data["api_call"] or "b c" in (data.get("unused") or []), data
