"""Issue 37, the series a task enumerates (fill/series.py) read on real BFCL questions (../shared/bfcl, dev
ids): which values a task lists side by side, how many calls they ask of the question's function, and
which item each call takes; and the calls the embedded model writes with them (marked `model`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui import services
from gorilla_tui.config import Settings
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate.bfcl_checker import check_calls
from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.series import plan, series
from gorilla_tui.fill.values import lists, strings


@pytest.fixture(scope="module")
def questions(bfcl_data: Path) -> dict[str, bfcl.BfclQuestion]:
    """The questions of the four categories with calls, by id."""
    names = ("simple_python", "multiple", "parallel", "parallel_multiple")
    return {q.id: q for name in names for q in bfcl.load_questions(bfcl_data, name)}


def _items(q: bfcl.BfclQuestion) -> list[list[str]]:
    return [[q.text[s:e] for s, e in found.items] for found in series(TaskValues.of(q.text))]


def _plan_calls(q: bfcl.BfclQuestion, name: str) -> int:
    values = TaskValues.of(q.text)
    doc = next(d for d in bfcl.question_docs(q.functions) if d.call.startswith(name + "("))
    target = target_of(doc, values)
    assert target is not None
    return plan(series(values), slots(target.params, values)).calls


def test_a_series_is_values_side_by_side_in_one_frame_of_words(questions) -> None:
    # names joined by "and"; numbers each with its unit ("20 minutes and 15 minutes")
    assert _items(questions["parallel_0"]) == [["Taylor Swift", "Maroon 5"], ["20", "15"]]
    # words before each item: "the factorial of 5, the factorial of 7, and the factorial of 9"
    assert _items(questions["parallel_60"]) == [["5", "7", "9"]]
    # a name of several words after an article ("Amazon Rainforest and the Boreal Forests of Canada")
    assert _items(questions["parallel_120"])[0] == ["Amazon Rainforest", "Boreal Forests of Canada"]
    # quoted items with an Oxford comma, then two names whose run stops at lower-case words
    assert _items(questions["parallel_180"]) == [
        ["'Open'", "'Close'", "'High'", "'Low'"],
        ["Microsoft", "Apple"],
    ]
    # numbers inside a list the task writes are that list's, no series of their own
    assert _items(questions["parallel_150"]) == []


def test_a_series_asks_one_call_per_group_of_the_functions_parameters(questions) -> None:
    # a, b: "3 and 4, 5 and 12" are two calls of two numbers
    assert _plan_calls(questions["parallel_10"], "math.pythagoras") == 2
    # one number parameter: three calls; a unit frames each ("first 2 years, first 3 years and ...")
    assert _plan_calls(questions["parallel_60"], "math.factorial") == 3
    assert _plan_calls(questions["parallel_170"], "calculate_compound_interest") == 3
    # num1, num2: "36 and 48" is one call (the second pair is its own series)
    assert _plan_calls(questions["parallel_80"], "math.gcd") == 1
    # a list parameter takes "vegan and gluten-free" whole: no call of its own
    assert _plan_calls(questions["parallel_130"], "find_restaurants") == 1
    # "multiples of 3 and 5 between 1 and 1000": a list and a range
    assert _plan_calls(questions["parallel_multiple_0"], "math_toolkit.sum_of_multiples") == 1


def test_values_of_one_call_side_by_side_ask_for_no_more_calls(questions) -> None:
    # "its base and height as 6cm and 10cm": base, height have no other number
    assert _plan_calls(questions["simple_python_10"], "calculate_area") == 1
    # "two cities, New York and Los Angeles": start_city, end_city share a word of their names
    assert _plan_calls(questions["simple_python_86"], "city_distance.find_shortest") == 1
    # "player having A and 10, dealer having 10 and 9": list parameters take the cards
    assert _plan_calls(questions["simple_python_334"], "blackjack.check_winner") == 1
    # "the distance between New York City and Los Angeles": a range
    assert _items(questions["multiple_65"]) == []
    # "coordinates 46.603354,1.8883340": a comma without a space joins one value's parts
    assert all(len(items) < 2 or "46.603354" not in items for items in _items(questions["multiple_5"]))
    # common nouns the task joins are one value's parts: "wind speed and temperature"
    assert _items(questions["multiple_60"]) == []


def _offered(q: bfcl.BfclQuestion) -> list[str]:
    values = TaskValues.of(q.text)
    target = target_of(bfcl.question_docs(q.functions)[0], values)
    assert target is not None
    return [sl.param.name for sl in target.offered]


def test_an_optional_parameter_the_task_gives_by_its_description_is_offered(questions) -> None:
    # "(e.g. Drama, Comedy, etc)" in category's description; "the Drama and Comedy movies"
    assert "category" in _offered(questions["parallel_140"])
    # p, "The probability of success": "a 0.3 probability of winning"
    assert "p" in _offered(questions["parallel_160"])
    # n, "The number of times that interest is compounded": "compounded 4 times in a year"
    assert "n" in _offered(questions["parallel_170"])
    # units, "Units for the output circumference": "the output in meters" is a string, no number: left
    assert _offered(questions["parallel_70"]) == ["radius"]


def test_the_task_values_read_right_in_parallel_questions(questions) -> None:
    # "coordinates 37.7749 and -122.4194": "and -122.4194" is no formula
    assert "[37.7749, -122.4194]" in [c.text for c in lists(questions["parallel_multiple_70"].text)]
    # a task in quotes as a whole with 5'11" inside: its opening quote pairs with nothing inside it
    assert "Higgs Boson" in [c.value for c in strings(questions["parallel_multiple_180"].text)]


def _ask(q: bfcl.BfclQuestion, backend) -> list[dict]:
    pipeline = services.build_pipeline(Settings(), bfcl.question_index(q), backend)
    return pipeline.ask(q.text, mode="select").calls


@pytest.mark.model
def test_the_model_writes_one_call_per_item_and_every_combination(questions, gemma_backend) -> None:
    # "the Amazon Rainforest and the Boreal Forests of Canada over the next 10 years and 20 years,
    # respectively": before, location='Canada' with 10 and 'Boreal Forests' with 20
    q = questions["parallel_120"]
    calls = _ask(q, gemma_backend)
    assert [
        (c["forest_growth_forecast"]["location"], c["forest_growth_forecast"]["years"]) for c in calls
    ] == [
        ("Amazon Rainforest", 10),
        ("Boreal Forests of Canada", 20),
    ]
    assert check_calls(q.category, q.functions, calls, q.truth).valid
    # four price types for two companies: eight calls (before: two, data_type left out)
    q = questions["parallel_180"]
    calls = _ask(q, gemma_backend)
    pairs = {(c["stock_price"]["company"], c["stock_price"]["data_type"]) for c in calls}
    assert len(calls) == 8
    assert pairs == {(co, t) for co in ("Microsoft", "Apple") for t in ("Open", "Close", "High", "Low")}
    assert check_calls(q.category, q.functions, calls, q.truth).valid
