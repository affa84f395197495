"""index/questions/python-env.toml: hand-written everyday questions for standard-library APIs (doc expansion).

Checked against the python-env pool of the running interpreter, loaded with the project's own loader: every
api_name is a doc (on Python 3.11, where the file was written, all must be; another version may lack a few,
e.g. tomllib before 3.11), 2 to 10 questions per API, no question twice in the file, and no question
repeating 8 or more consecutive words of its API's description (the questions must add people's words,
not copy the docstring's)."""

from __future__ import annotations

import re
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


#: Format names that read as a file name ("tar.gz": the literal rules read "tar.gz" as a .gz file named tar).
FORMAT_WORDS = frozenset({"tar"})


def test_no_question_holds_a_literal_value(entries):
    """Issue 38: a question holds no example value whose words retrieval masks out of a task (a file name,
    a path, an e-mail address, a host: retrieve/query/literals.py intent_text). Such a value's words are the
    doc's terms all the same, and only tasks that write them as words meet them: "last component of a
    path, e.g. report.pdf from /home/me/report.pdf" gave os.path.basename the words report and pdf, so
    "copy /home/me/report.pdf to /tmp/x" (searched as "copy pdf file to path") was answered with basename.
    Numbers, dates and a `variable` in backticks are no words of a task either way."""
    from gorilla_tui.retrieve.query.literals import intent_text
    from gorilla_tui.retrieve.tokenize import tokenize

    for entry in entries:
        for q in entry["questions"]:
            plain = re.sub(r"`\w+`", " ", q)
            kept = set(tokenize(intent_text(plain)))
            lost = {t for t in tokenize(plain) if t.isalpha() and len(t) > 1} - kept
            assert not lost - FORMAT_WORDS, f"{entry['api_name']}: {q!r} has a value with the words {lost}"
