"""index/questions/python-libraries.toml: hand-written questions in search-box and StackOverflow words for
the builtins and builtin types python-env.toml leaves out, and for numpy, pandas and matplotlib (doc
expansion of the python-env source, issue 38).

Checked against the python-env pool loaded with the project's own loader: every standard-library api_name
is a doc (on Python 3.11, where the file was written), every numpy, pandas or matplotlib api_name is a doc
when that library is installed, 2 to 10 questions per API (with python-env.toml's for an API in both), no
question of python-env.toml again, and
no question repeating 8 or more consecutive words of its doc's description."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.expansion import MAX_QUESTIONS_PER_DOC
from gorilla_tui.pool.pyenv.source import load_python_env
from tests.word_runs import api_tables, word_runs, words

FOLDER = Path(__file__).resolve().parents[2] / "index" / "questions"
QUESTIONS = FOLDER / "python-libraries.toml"
WRITTEN_FOR = (3, 11)
LIBRARIES = ("numpy", "pandas", "matplotlib")
COPIED_RUN = 8


def _library(api_name: str) -> str | None:
    top = api_name.split(".", 1)[0]
    return top if top in LIBRARIES else None


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    return api_tables(QUESTIONS)


@pytest.fixture(scope="module")
def pool() -> dict[str, ApiDoc]:
    """The python-env docs of the standard library and of each of LIBRARIES that is installed."""
    installed = [lib for lib in LIBRARIES if importlib.util.find_spec(lib) is not None]
    return {d.api_name: d for d in load_python_env(",".join(["stdlib", *installed])).docs}


def test_file_parses_into_api_tables_of_2_to_10_questions(entries):
    assert len(entries) >= 250
    names = [e["api_name"] for e in entries]
    assert len(names) == len(set(names)), "an api_name appears twice"
    for entry in entries:
        assert set(entry) == {"api_name", "questions"}, entry
        assert all(isinstance(q, str) and q.strip() == q and q for q in entry["questions"])
        assert 2 <= len(entry["questions"]) <= min(10, MAX_QUESTIONS_PER_DOC), entry["api_name"]
    assert {_library(n) for n in names} == {None, *LIBRARIES}


def test_no_question_of_python_env_toml_again(entries):
    other = api_tables(FOLDER / "python-env.toml")
    both = {e["api_name"]: len(e["questions"]) for e in other}
    for entry in entries:  # an API of both files: its questions together still fit a doc
        assert both.get(entry["api_name"], 0) + len(entry["questions"]) <= MAX_QUESTIONS_PER_DOC
    seen = {" ".join(words(q)) for e in other for q in e["questions"]}
    for entry in entries:
        for q in entry["questions"]:
            key = " ".join(words(q))
            assert key not in seen, f"{q!r} of {entry['api_name']} is there already"
            seen.add(key)


def test_every_api_name_is_a_doc_of_the_pool(entries, pool):
    missing = [
        e["api_name"]
        for e in entries
        if e["api_name"] not in pool
        and (_library(e["api_name"]) is None or importlib.util.find_spec(_library(e["api_name"])))
    ]
    if missing and sys.version_info[:2] != WRITTEN_FOR:
        pytest.skip(f"not docs on Python {sys.version_info[0]}.{sys.version_info[1]}: {missing}")
    assert not missing


def test_no_question_copies_its_description(entries, pool):
    for entry in entries:
        doc = pool.get(entry["api_name"])
        if doc is None:  # a library not installed, or a name this Python lacks
            continue
        copied = word_runs(doc.description, COPIED_RUN)
        for q in entry["questions"]:
            shared = word_runs(q, COPIED_RUN) & copied
            assert not shared, f"{entry['api_name']}: {q!r} copies {' '.join(min(shared))!r}"
