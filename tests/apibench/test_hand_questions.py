"""The hand-written TensorFlow Hub training questions (index/questions/tensorflowhub.toml, doc expansion): one
table per (domain, api_call) pair of the real APIBench pool, every pair covered, 3 to 10 distinct questions
each, and no question copied from a pool description. It lives in tests/apibench/ because it reads the pool
of ../shared."""

from __future__ import annotations

from collections import Counter
from functools import partial
from pathlib import Path

import pytest
import tomllib

from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.doc import load_jsonl
from tests.conftest import REPO
from tests.word_runs import word_runs

FILE = REPO / "index" / "questions" / "tensorflowhub.toml"
#: The longest run of consecutive words a question may share with a doc description (8 or more is a copy).
MAX_SHARED_RUN = 7
MIN_QUESTIONS, MAX_QUESTIONS = 3, 10


def _tables() -> list[dict]:
    return tomllib.loads(FILE.read_text(encoding="utf-8"))["api"]


@pytest.fixture(scope="module")
def pool(apibench: Path) -> list[ApiDoc]:
    """The TensorFlow Hub API pool, read by the real APIBench loader."""
    return load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs


#: Every run of MAX_SHARED_RUN + 1 consecutive words of a text (tests/word_runs.py).
_runs = partial(word_runs, n=MAX_SHARED_RUN + 1)


def test_the_file_parses_into_tables_of_domain_call_and_questions() -> None:
    data = tomllib.loads(FILE.read_text(encoding="utf-8"))
    assert set(data) == {"api"}
    for t in data["api"]:
        assert set(t) == {"domain", "api_call", "questions"}, t
        assert isinstance(t["domain"], str) and isinstance(t["api_call"], str), t
        assert all(isinstance(q, str) and q.strip() == q and q for q in t["questions"]), t["api_call"]


def test_every_pair_is_a_pool_pair_and_every_pool_pair_is_covered_once(pool: list[ApiDoc]) -> None:
    pairs = [(t["domain"], t["api_call"]) for t in _tables()]
    assert [p for p, n in Counter(pairs).items() if n > 1] == []  # one table per pair
    in_pool = {(d.domain, d.api_call) for d in pool}
    assert sorted(set(pairs) - in_pool) == []  # no pair the pool does not have
    assert sorted(in_pool - set(pairs)) == []  # no pool pair left without questions


def test_tables_are_grouped_by_domain() -> None:
    domains = [t["domain"] for t in _tables()]
    runs = [d for i, d in enumerate(domains) if i == 0 or domains[i - 1] != d]
    assert len(runs) == len(set(runs)), runs


def test_each_pair_has_3_to_10_questions_and_none_is_asked_twice() -> None:
    tables = _tables()
    for t in tables:
        n = len(t["questions"])
        assert MIN_QUESTIONS <= n <= MAX_QUESTIONS, (t["domain"], t["api_call"], n)
        assert len(set(t["questions"])) == n, t["api_call"]
    every = [q.casefold() for t in tables for q in t["questions"]]
    assert [q for q, n in Counter(every).items() if n > 1] == []  # not even for another pair


def test_no_question_shares_8_consecutive_words_with_a_pool_description(pool: list[ApiDoc]) -> None:
    described = set().union(*(_runs(d.description) for d in pool))
    probe = next(d.description for d in pool if len(_runs(d.description)) > 3)
    assert _runs(f"Please help: {probe} Thanks.") & described  # the check does see a pasted description
    copied = {q: sorted(_runs(q) & described)[:1] for t in _tables() for q in t["questions"]}
    assert {q: run for q, run in copied.items() if run} == {}
