"""Break-it round 31, findings 10 and 11: a long value the request writes (not after a colon) is set aside
for a stand-in the search and the model read, and written back whole into the filled call; a number longer
than Python reads is one clear line, never a cut task. Shown on values of the same classes as the findings'
("add up the numbers [0, ..., 1499]", a 5,001-digit number), not on those tasks: other containers, quoted
text, numbers of other lengths and forms; the real values reader offers the stand-in, the real model fills
it."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.fill.filler import Filled
from gorilla_tui.fill.long_values import STAND_IN_CHARS, stand_ins
from gorilla_tui.fill.set_aside import restore, set_aside, shortened
from gorilla_tui.fill.unused import left_out
from gorilla_tui.fill.values import lists, numbers, strings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.textsafe import MAX_TASK_CHARS, MAX_TASK_INPUT_CHARS, clean_task
from gorilla_tui.types import Argument

_FLOATS = ", ".join(f"{i / 7:.4f}" for i in range(900))
_TAGS = [f"t{i % 9}" for i in range(400)]
_WORDS = " ".join(f"w{i}" for i in range(600))


def _task(text: str) -> str:
    return clean_task(text, MAX_TASK_INPUT_CHARS)[0]


def _round_trip(task: str, offered: str, call: str) -> tuple[str, str]:
    """(the filled call `call` % the stand-in's value as the values reader offers it, restored)."""
    short, aside = set_aside(_task(task))
    assert aside is not None and len(short) < MAX_TASK_CHARS
    reader = {"lists": lists, "numbers": numbers, "strings": strings}[offered]
    at = short.find(aside.parts[0].stand_in)
    inside = [c for c in reader(short) if at <= c.start and c.end <= at + len(aside.parts[0].stand_in)]
    assert inside, short
    source = max(inside, key=lambda c: c.end - c.start).text
    filled = Filled(call % source, [Argument("x", source, "task")], [])
    return filled.call, restore(filled, aside).call


@pytest.mark.parametrize(
    ("task", "whole"),
    [
        pytest.param(f"sort the tuple ({_FLOATS}) in place", f"[{_FLOATS}]", id="tuple"),
        pytest.param(f"find the largest of [{_FLOATS}] quickly", f"[{_FLOATS}]", id="list"),
        pytest.param("make a counter of " + str(_TAGS) + " now", str(_TAGS), id="strings"),
    ],
)
def test_a_long_literal_in_the_request_is_read_short_and_written_back_whole(task: str, whole: str) -> None:
    """Finding 10: the whole literal went to the search and the model, cut at 2,000 characters and 200
    words (the sum of its first 196 numbers)."""
    short, aside = set_aside(_task(task))
    assert aside is not None and [len(p.stand_in) <= STAND_IN_CHARS for p in aside.parts] == [True]
    assert len(short) < 3 * STAND_IN_CHARS and aside.task == _task(task)
    _short_call, restored = _round_trip(task, "lists", "f(%s)")
    assert ast.literal_eval(restored[2:-1]) == ast.literal_eval(whole)
    assert "is in the call whole; the search and the model read" in aside.notes(restored)[0]
    assert aside.notes("f(x)")[0].endswith("it was not taken")


def test_long_quoted_text_and_a_long_number_in_the_request_are_written_back_whole() -> None:
    text = f"count the words in '{_WORDS}' for me"
    _short, restored = _round_trip(text, "strings", "len(%s.split())")
    assert restored == f"len({_WORDS!r}.split())"
    digits = "7" * 2500
    _short, restored = _round_trip(f"is {digits} a prime number", "numbers", "isprime(%s)")
    assert restored == f"isprime({digits})"
    short, aside = set_aside(_task(f"is {digits} a prime number"))
    assert left_out(short, shortened(restored, aside)) == []  # the number is no unused value of the call
    assert left_out(short, restored) != []
    grouped = ",".join(["123"] * 700)  # thousands separators: the number without them
    _short, restored = _round_trip(f"factor {grouped} please", "numbers", "factor(%s)")
    assert restored == f"factor({grouped.replace(',', '')})"


def test_a_number_longer_than_python_reads_is_one_clear_line() -> None:
    """Finding 11: "convert 1000...0 (5,000 zeros) to hex" was cut to "convert"; Python's parser refuses an
    integer literal of more than 4,300 digits, so the answer is a line that says so."""
    with pytest.raises(UsageError) as raised:
        stand_ins(_task("what is 9" + "1" * 4400 + " modulo 7"))
    assert (
        "4,401 digits" in str(raised.value) and "4,300" in str(raised.value) and "\n" not in str(raised.value)
    )
    with pytest.raises(UsageError):
        stand_ins(_task("square " + ",".join(["100"] * 1500)))  # 4,500 digits with separators
    assert stand_ins(_task("square " + "3" * 4300))[1][0].whole == "3" * 4300  # at the limit: read


def test_a_short_task_or_short_values_set_nothing_aside() -> None:
    task = _task("add up the numbers [1, 2, 3] and " + "more words " * 100)
    assert stand_ins(task) == (task, [])


@pytest.mark.model
def test_the_model_fills_a_long_literal_whole(stdlib_docs, gemma_backend) -> None:
    """The pipeline with the real model: the long list and the long number reach the call whole; the number
    over Python's limit is a UsageError."""
    by_name = {d.api_name: d for d in stdlib_docs}

    def ask(name: str, task: str):
        return Pipeline(Settings(mode="select", k=1), ApiIndex.build([by_name[name]]), gemma_backend).ask(
            task
        )

    listed = ask("max", f"get the max of [{_FLOATS}]")
    assert ast.literal_eval(listed.api_call[4:-1]) == ast.literal_eval(f"[{_FLOATS}]") and listed.unused == []
    assert not any("truncated" in w or "shortened" in w for w in listed.warnings)
    number = "6" * 3000
    hexed = ask("hex", f"convert {number} to hex")
    assert hexed.api_call == f"hex({number})"
    with pytest.raises(UsageError):
        ask("hex", f"convert {'6' * 4400} to hex")


def test_a_task_in_quotes_as_a_whole_is_no_long_value_to_set_aside() -> None:
    # BFCL writes many questions in quotes; parallel_multiple_160 (453 characters) lost its second request
    task = (
        '"'
        + "First, compute the compound interest on $5000 at 5% for 7 years. " * 4
        + "Then find lawsuits in 'San Francisco'.\""
    )
    assert len(task) > 200 and stand_ins(task) == (task, [])
