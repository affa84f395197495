"""`gorilla-tui search` through cli.main, and a real run of the installed console script."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.cli.options import task_text
from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS
from tests.conftest import clone_home

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
    long_task = head * (MAX_TASK_CHARS // len(head) + 1) + "semantic segmentation " * 300  # 8,600: accepted
    assert main(["search", long_task, "-k", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    assert err.count("\n") == 1 and f"task truncated from {len(long_task.strip())} to" in err
    cut = long_task[:MAX_TASK_CHARS].rsplit(" ", 1)[0]
    assert main(["search", cut, "-k", "3", "--json"]) == 0
    same, err_cut = capsys.readouterr()
    assert err_cut == ""
    assert [h["id"] for h in json.loads(out)["hits"]] == [h["id"] for h in json.loads(same)["hits"]]
    assert json.loads(out)["task"] == json.loads(same)["task"] == cut.strip()  # the task searched, cut


def test_the_md5_of_a_file_finds_hashlib_md5_first(
    gorilla_home, home_template, capsys: pytest.CaptureFixture[str]
) -> None:
    """`search "compute the md5 of a file"` (and ask) gave uuid.uuid3 first: hashlib.md5 is made at import
    time (``globals()[name] = __get_hash(name)``, from OpenSSL or _md5), so its python-env doc had no
    description and no parameters. It now has those of _md5.md5, the compiled constructor of its name."""
    clone_home(home_template(["index", "--refresh", "--only", "python-env", "--no-dense"]), gorilla_home)
    for task, first in (
        ("compute the md5 of a file", "hashlib.md5"),
        ("sha256 checksum of a file", "hashlib.sha256"),
    ):
        assert main(["search", task, "-k", "3", "--json"]) == 0
        hits = json.loads(capsys.readouterr().out)["hits"]
        assert hits[0]["api_name"] == first, (task, [h["api_name"] for h in hits])


def test_the_hits_table_names_its_scores_and_what_ranks(
    capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch, dense
) -> None:
    """The table's "score" column was the plain BM25 score while the order is the fused one (RRF of BM25
    and dense ranks; BM25 x prior for python-env), so the numbers could look out of order. The columns are
    now rank, BM25 and (hybrid index) dense cosine, with a caption saying what the rank is; --json keeps
    "score" and adds "bm25" and "dense"."""
    monkeypatch.setenv("COLUMNS", "250")
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    task = "classify sports activities in videos"
    assert main(["search", task, "-k", "5", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert [h["rank"] for h in hits] == list(range(1, len(hits) + 1)) and len(hits) == 5
    assert all(h["bm25"] == h["score"] for h in hits)
    assert all(isinstance(h["dense"], float) and -1.0 <= h["dense"] <= 1.0 for h in hits)
    assert main(["search", task, "-k", "5"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "rank" in line and "api_call" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")][:3] == ["rank", "BM25", "dense"]
    assert "score" not in header
    assert "rank is the order" in out and "BM25 and dense are each hit's own scores" in " ".join(out.split())
    for h in hits:
        assert f"{h['dense']:.3f}" in out


def test_without_a_dense_side_the_table_shows_bm25_alone(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    assert main(["search", "detect objects in an image", "-k", "3", "--json"]) == 0
    hits = json.loads(capsys.readouterr().out)["hits"]
    assert hits and all(h["dense"] is None and h["bm25"] == h["score"] for h in hits)
    assert main(["search", "detect objects in an image", "-k", "3"]) == 0
    out = capsys.readouterr().out
    header = next(line for line in out.splitlines() if "api_call" in line)
    assert [c.strip() for c in header.strip("┃ ").split("┃")][:3] == ["rank", "BM25", "api_call"]
    # the caption spoke of "BM25 and dense ranks fused" and "dense ... scores" with no dense side
    assert "rank is the order" in out and "dense" not in out


def test_search_help_does_not_call_the_hybrid_retriever_bm25(capsys: pytest.CaptureFixture[str]) -> None:
    """`gorilla-tui --help` and `search --help` said "(BM25)" / "the ranked BM25 hits" though a hybrid
    index ranks by BM25 and the dense embedder fused (README, Hybrid retrieval)."""
    with pytest.raises(SystemExit):
        main(["search", "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "ranked BM25 hits" not in text and "dense" in text
    with pytest.raises(SystemExit):
        main(["--help"])
    assert "(BM25)" not in capsys.readouterr().out


def test_bytes_that_are_not_utf8_in_the_task_never_reach_the_terminal_or_the_encoders() -> None:
    """A task with bytes that are not UTF-8 (argv decodes them to lone surrogates, PEP 383): `ask` died with
    "internal error: UnicodeEncodeError ... surrogates not allowed" in the model's tokenizer, and `search`
    wrote the raw bytes (0x9B is the 8-bit CSI) into its title and searched without its dense side. They are
    dropped like control characters: the installed console script, a real index of the small pool."""
    import os
    import subprocess
    import sys

    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    run = {"capture_output": True, "timeout": 300, "stdin": subprocess.DEVNULL}
    refresh = [exe, "index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]
    built = subprocess.run(refresh, **run)
    assert built.returncode == 0, built.stderr
    task = b"\xff\xfe detect \x9b2J objects in an image \x1b[31m"
    r = subprocess.run([exe, "search", task, "-k", "3"], **run)
    assert r.returncode == 0 and b"Traceback" not in r.stderr, r.stderr
    for raw in (b"\xff", b"\xfe", b"\x9b", b"\x1b"):
        assert raw not in r.stdout and raw not in r.stderr
    assert b"detect objects in an image" in r.stdout
    j = subprocess.run([exe, "search", task, "-k", "3", "--json"], **run)
    data = json.loads(j.stdout)
    assert data["task"] == "detect objects in an image"
    clean = json.loads(subprocess.run([exe, "search", data["task"], "-k", "3", "--json"], **run).stdout)
    assert data["hits"] == clean["hits"]  # the same hits, dense side included, as the clean task's


NO_WORDS = (
    "gorilla-tui: note: the task has no searchable words (emoji, symbols and stop words are not searched)"
)


@pytest.mark.parametrize("task", ["🚀🔥", "?!… ★", "what is this"])
def test_a_task_without_searchable_words_says_so(capsys: pytest.CaptureFixture[str], task: str) -> None:
    """Break-it finding: a task of emoji or symbols alone (no BM25 term) got no hit in silence, as if no doc
    shared a word with it. Search says why in one line (stderr), in the table and in --json's notes."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    assert main(["search", task]) == 1
    out, err = capsys.readouterr()
    assert err.splitlines() == [NO_WORDS]
    assert "no hit: the task has no searchable words" in out and "shares a word" not in out
    assert main(["search", task, "--json"]) == 1
    out, err = capsys.readouterr()
    assert (
        json.loads(out)["notes"] == [NO_WORDS.removeprefix("gorilla-tui: note: ")] and err == NO_WORDS + "\n"
    )
    assert json.loads(out)["hits"] == []
    assert main(["search", f"{task} detect objects", "--json"]) == 0  # a word: no note
    out, err = capsys.readouterr()
    assert json.loads(out)["notes"] == [] and json.loads(out)["hits"] and err == ""
    assert main(["search", "zzqx frobnicate", "--json"]) == 1  # words the pool lacks: no hit, no such note
    out, err = capsys.readouterr()
    assert json.loads(out)["notes"] == [] and err == ""


def test_the_dense_side_still_answers_a_task_without_words(capsys: pytest.CaptureFixture[str], dense) -> None:
    """With a dense side the emoji task still gets the embedder's hits (BM25 0), and the note says BM25 had
    no word to search."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    assert main(["search", "🚀🔥", "-k", "3", "--json"]) == 0
    out, err = capsys.readouterr()
    hits = json.loads(out)["hits"]
    assert len(hits) == 3 and all(h["bm25"] == 0 and isinstance(h["dense"], float) for h in hits)
    assert err == NO_WORDS + "\n"


def test_a_dash_reads_the_task_from_stdin(monkeypatch, capsys: pytest.CaptureFixture[str]) -> None:
    """`search -` searched for the task "-" while `check -` and `run -` read stdin: "-" reads the task from
    standard input (the line end `echo` adds dropped). `ask -`: tests/cli/test_ask_cli.py."""
    import io

    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"detect objects in an image\n")))
    assert main(["search", "-", "-k", "3", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["task"] == "detect objects in an image"


@pytest.mark.parametrize("command", ["search", "ask"])
@pytest.mark.parametrize("where", ["argument", "stdin", "huge stdin"])
def test_a_task_over_the_mcp_bound_is_refused(command, where, monkeypatch, capsys) -> None:
    """A 120,000-character task took `ask` 15 s and 1.5 GB before it was cut: over MAX_TASK_INPUT_CHARS
    (the MCP server's bound) it is refused in one line, exit 2, as an argument or on stdin; a huge stdin
    is not read whole. One at the bound is taken."""
    import io

    task = "word " * (MAX_TASK_INPUT_CHARS // 5) + "x"  # 10,001 characters
    size = {"argument": len(task), "stdin": len(task), "huge stdin": 50_000_000}[where]
    data = task.encode() if where != "huge stdin" else b"a" * size
    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(data)))
    assert main([command, task if where == "argument" else "-"]) == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("gorilla-tui: error: the task"), err
    assert f"at most {MAX_TASK_INPUT_CHARS} are accepted" in err
    if where != "huge stdin":
        assert f"is {MAX_TASK_INPUT_CHARS + 1} characters" in err
    else:
        assert sys.stdin.buffer.tell() < 100_000  # read up to the bound, not all 50 MB
    assert task_text(task[:-1]) == task[:-1]  # one at the bound is taken
