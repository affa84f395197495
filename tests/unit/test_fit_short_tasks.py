"""The fit of short tasks and of calls that drop the task's object (pipeline_fit_rules.answer_fit, short_task,
object_dropped; retrieve/fit_request.py; break-it round 32, items 3 to 5): 'read `' (one word) fitted a
Kubernetes REST call on coverage 1.0; "read notes.txt" was "nothing fits" with open('notes.txt') the
nearest call; "add 90 days to 2026-12-07" fitted ``datetime.timedelta(90)`` with the date unused."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.pipeline_fit_rules import answer_fit
from gorilla_tui.retrieve.fit_request import plain_number, request_words
from gorilla_tui.types import Argument, Proposal


@pytest.mark.parametrize(
    ("task", "words"),
    [
        ("read `", ["read"]),
        ("read notes.txt", ["read"]),
        ('rename "old name.txt" to "new name.txt"', ["rename"]),
        ("encode 'héllo' as latin-1", ["encode"]),
        ("add 90 days to 2026-12-07", ["add", "days"]),
        ("book a flight from Berlin to Rome", ["book", "flight", "Berlin", "Rome"]),
    ],
)
def test_request_words_leave_out_values_and_stop_words(task: str, words: list[str]) -> None:
    assert request_words(task) == words


def test_plain_numbers_are_told_from_dates_paths_and_text() -> None:
    assert all(plain_number(v) for v in ("90", "-5", "2.5", "1e309", "15%", "1,000"))
    assert not any(plain_number(v) for v in ("2026-12-07", "notes.txt", "'héllo'", "10:30", "/tmp", "v2"))


@pytest.fixture(scope="module")
def docs(stdlib_docs):
    by_name = {d.api_name: d for d in stdlib_docs}
    return {n: by_name[n] for n in ("open", "datetime.timedelta", "os.rename", "time.sleep")}


def proposal(docs, task: str, call: str, fit: str, arguments: list[Argument], unused: list[str]) -> Proposal:
    verdict = Validator(list(docs.values())).check(call)
    return Proposal(task=task, api_call=call, code="", verdict=verdict, fit=fit, fit_signals={"cov": 1.0},
                    arguments=arguments, unused=unused)  # fmt: skip


def test_a_short_task_whose_values_the_call_takes_is_not_nothing(docs) -> None:
    p = proposal(
        docs, "read notes.txt", "open('notes.txt')", "nothing", [Argument("file", "'notes.txt'", "task")], []
    )
    assert answer_fit(p, docs["open"]) == "unsure" and p.fit_signals["short"] == "short_taken"
    args = [Argument("src", "'old name.txt'", "task"), Argument("dst", "'new name.txt'", "task")]
    call = "os.rename('old name.txt', 'new name.txt')"
    p = proposal(docs, 'rename "old name.txt" to "new name.txt"', call, "nothing", args, [])
    assert answer_fit(p, docs["os.rename"]) == "unsure"
    # a value left out, or a longer request: nothing fits stays
    p = proposal(docs, "read notes.txt and a.txt", "open('notes.txt')", "nothing",
                 [Argument("file", "'notes.txt'", "task")], ["a.txt"])  # fmt: skip
    assert answer_fit(p, docs["open"]) == "nothing"
    p = proposal(docs, "book a flight to Rome on 2026-12-24", "open('2026-12-24')", "nothing",
                 [Argument("file", "'2026-12-24'", "task")], [])  # fmt: skip
    assert answer_fit(p, docs["open"]) == "nothing"


def test_a_one_word_task_is_not_a_sure_fit_without_a_value_taken(docs) -> None:
    p = proposal(docs, "read `", "open(file)", "fits", [Argument("file", "file", "missing")], [])
    assert answer_fit(p, docs["open"]) == "unsure" and p.fit_signals["short"] == "one_word"
    p = proposal(docs, "sleep 2", "time.sleep(2)", "fits", [Argument("secs", "2", "task")], [])
    assert answer_fit(p, docs["time.sleep"]) == "fits"  # the call takes the value


def test_a_call_that_drops_the_tasks_date_is_not_a_sure_fit(docs) -> None:
    days = [Argument("days", "90", "task")]
    p = proposal(docs, "add 90 days to 2026-12-07", "datetime.timedelta(90)", "fits", days, ["2026-12-07"])
    assert answer_fit(p, docs["datetime.timedelta"]) == "unsure" and p.fit_signals["dropped"] is True
    p = proposal(docs, "a span of 90 days, 3 times", "datetime.timedelta(90)", "fits", days, ["3"])
    assert answer_fit(p, docs["datetime.timedelta"]) == "fits"  # only a number left out
