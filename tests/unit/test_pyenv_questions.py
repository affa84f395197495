"""index/questions/python-env.toml: hand-written everyday questions for standard-library APIs (doc expansion).

Checked against the python-env pool of the running interpreter, loaded with the project's own loader: every
api_name is a doc (on Python 3.11, where the file was written, all must be; another version may lack a few,
e.g. tomllib before 3.11), 2 to 10 questions per API, no question twice in the file, and no question
repeating 8 or more consecutive words of its API's description (the questions must add people's words,
not copy the docstring's)."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.expansion import MAX_QUESTIONS_PER_DOC
from tests.word_runs import api_tables, word_runs, words

QUESTIONS = Path(__file__).resolve().parents[2] / "index" / "questions" / "python-env.toml"
#: The interpreter the file was written for: there every api_name must be a doc.
WRITTEN_FOR = (3, 11)
#: A question may not share this many consecutive words with its API's description.
COPIED_RUN = 8


@pytest.fixture(scope="module")
def entries() -> list[dict]:
    return api_tables(QUESTIONS)


@pytest.fixture(scope="module")
def stdlib(stdlib_docs: tuple[ApiDoc, ...]) -> dict[str, ApiDoc]:
    return {d.api_name: d for d in stdlib_docs}


def test_file_parses_into_api_tables(entries):
    assert len(entries) >= 200
    for entry in entries:
        assert set(entry) == {"api_name", "questions"}, entry
        assert isinstance(entry["api_name"], str) and entry["api_name"].strip() == entry["api_name"]
        assert all(isinstance(q, str) and q.strip() == q and q for q in entry["questions"])


def test_each_api_once_with_2_to_10_questions(entries):
    names = [e["api_name"] for e in entries]
    assert len(names) == len(set(names)), "an api_name appears twice"
    for entry in entries:
        assert 2 <= len(entry["questions"]) <= min(10, MAX_QUESTIONS_PER_DOC), entry["api_name"]


def test_no_question_twice_in_the_file(entries):
    seen: dict[str, str] = {}
    for entry in entries:
        for q in entry["questions"]:
            key = " ".join(words(q))
            assert key not in seen, f"{q!r} of {entry['api_name']} repeats one of {seen.get(key)}"
            seen[key] = entry["api_name"]


def test_every_api_name_is_a_doc_of_the_pool(entries, stdlib):
    missing = [e["api_name"] for e in entries if e["api_name"] not in stdlib]
    if missing and sys.version_info[:2] != WRITTEN_FOR:
        pytest.skip(f"not docs on Python {sys.version_info[0]}.{sys.version_info[1]}: {missing}")
    assert not missing


def test_no_question_copies_its_description(entries, stdlib):
    for entry in entries:
        doc = stdlib.get(entry["api_name"])
        if doc is None:  # a name this Python lacks: test_every_api_name_is_a_doc_of_the_pool reports it
            continue
        copied = word_runs(doc.description, COPIED_RUN)
        for q in entry["questions"]:
            shared = word_runs(q, COPIED_RUN) & copied
            assert not shared, f"{entry['api_name']}: {q!r} copies {' '.join(min(shared))!r}"
