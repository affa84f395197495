"""`gorilla-tui search` through cli.main, and a real run of the installed console script."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.textsafe import MAX_TASK_CHARS

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"


def test_search_without_index_says_how_to_build(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["search", "detect objects"]) == 2
    err = capsys.readouterr().err
    assert "no index" in err and "gorilla-tui index --refresh" in err and "Traceback" not in err


def test_search_a_task_of_control_characters_only_is_empty(capsys: pytest.CaptureFixture[str]) -> None:
    """Escape sequences are no words: such a task is refused as empty (like `ask`), before the index."""
    assert main(["search", "\x1b[31m\x1b]0;title\x07\x08"]) == 2
    err = capsys.readouterr().err
    assert "task is empty" in err and "no index" not in err


def test_search_cuts_a_very_long_task_as_ask_does(capsys: pytest.CaptureFixture[str]) -> None:
    """A task over MAX_TASK_CHARS is searched cut at a word boundary, as `ask` cuts it, with a one-line
    note: uncut, the dense embedder read all of it (a 120,000-character task took 2 minutes to search)."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    head = "detect objects in an image "
    long_task = head * (MAX_TASK_CHARS // len(head) + 1) + "semantic segmentation " * 2000
    assert main(["search", long_task, "-k", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"task truncated from {len(long_task.strip())} to" in err
    cut = long_task[:MAX_TASK_CHARS].rsplit(" ", 1)[0]
    assert main(["search", cut, "-k", "3", "--json"]) == 0
    same, err_cut = capsys.readouterr()
    assert err_cut == ""
    assert [h["id"] for h in json.loads(out)["hits"]] == [h["id"] for h in json.loads(same)["hits"]]
    assert json.loads(out)["task"] == json.loads(same)["task"] == cut.strip()  # the task searched, cut


def test_the_md5_of_a_file_finds_hashlib_md5_first(capsys: pytest.CaptureFixture[str]) -> None:
    """`search "compute the md5 of a file"` (and ask) gave uuid.uuid3 first: hashlib.md5 is made at import
    time (``globals()[name] = __get_hash(name)``, from OpenSSL or _md5), so its python-env doc had no
    description and no parameters. It now has those of _md5.md5, the compiled constructor of its name."""
    assert main(["index", "--refresh", "--only", "python-env", "--no-dense", "--json"]) == 0
    capsys.readouterr()
    for task, first in (
        ("compute the md5 of a file", "hashlib.md5"),
        ("sha256 checksum of a file", "hashlib.sha256"),
    ):
        assert main(["search", task, "-k", "3", "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)["hits"]
        assert hits[0]["api_name"] == first, (task, [h["api_name"] for h in hits])
