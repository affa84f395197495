"""Issue 37, how a task of several requests is read (fill/requests.py, fill/values.py, fill/call_grammar.py)
on real BFCL questions (../shared/bfcl, dev ids): where each request stands, the values a parameter cannot
take (a word of its own name, a date parameter's words without a date, a pronoun's contraction, a run of
words across a sentence's end), a year written beside a date; and the calls the embedded model writes with
them (marked `model`)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui import services
from gorilla_tui.config import Settings
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate.bfcl_checker import check_calls
from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.requests import request_of, request_starts


@pytest.fixture(scope="module")
def questions(bfcl_data: Path) -> dict[str, bfcl.BfclQuestion]:
    """The questions of the parallel_multiple and irrelevance categories, by id."""
    return {
        q.id: q for name in ("parallel_multiple", "irrelevance") for q in bfcl.load_questions(bfcl_data, name)
    }


def _offered(q: bfcl.BfclQuestion, function: str) -> dict[str, set[str]]:
    """parameter -> the literal sources its slot offers, for the question's function `function`."""
    values = TaskValues.of(q.text)
    doc = next(d for d in bfcl.question_docs(q.functions) if d.call.startswith(function + "("))
    target = target_of(doc, values)
    assert target is not None
    return {s.param.name: set(s.values) for s in slots(target.params, values)}


def test_each_request_of_a_task_has_its_own_values(questions) -> None:
    # "... Charles Dickens is a party and it happened in Boston. Also, get cases where University of
    # California was a party and happened in Los Angeles."
    text = questions["parallel_multiple_30"].text
    starts = request_starts(text)
    assert len(starts) == 2
    assert request_of(starts, text.index("Boston")) == request_of(starts, text.index("Charles Dickens")) == 0
    assert request_of(starts, text.index("Los Angeles")) == 1
    # a run of words ends with its sentence: no city 'Boston. Also'
    assert "'Boston'" in _offered(questions["parallel_multiple_30"], "legal_case.find_parties")["city"]
    assert (
        "'Boston. Also'" not in _offered(questions["parallel_multiple_30"], "legal_case.find_parties")["city"]
    )


def test_a_pronouns_contraction_is_no_value_and_a_year_beside_a_date_is_offered(questions) -> None:
    # "First, I'm interested in finding out all the movies that actor Leonardo DiCaprio starred in the year
    # 2010 ... on the date '2022-12-25'": before, actor_name="I'm interested" and year only 2022
    offered = _offered(questions["parallel_multiple_150"], "imdb.find_movies_by_actor")
    assert not any("I'm" in v for v in offered["actor_name"])
    assert "'Leonardo DiCaprio'" in offered["actor_name"]
    assert {"2010", "2022"} <= offered["year"]


def test_irrelevant_questions_words_are_no_values_of_the_parameters_they_name(questions) -> None:
    # "What's the name of a type of cell that has multiple nuclei?" -> bloodcell_classification: no
    # cell_shape='cell' (the task names the thing)
    offered = _offered(questions["irrelevance_30"], "bloodcell_classification")
    assert "'cell'" not in offered["cell_shape"] and "'cell'" not in offered["cell_size"]
    # "How frequent do members at the Museum of Modern Art visi last year?": no start_date='year' or 'last'
    offered = _offered(questions["irrelevance_160"], "most_frequent_visitor")
    assert not offered["start_date"] & {"'year'", "'last'", "'Museum of Modern Art'"}
    assert "'last year'" in offered["start_date"]
    # "the area of a triangle given the base is 10 meters and height is 5 meters" -> body mass index: a
    # length is no weight
    offered = _offered(questions["irrelevance_0"], "determine_body_mass_index")
    assert offered["weight"] == set() and offered["height"] == {"10", "5"}


@pytest.mark.model
def test_an_optional_value_stated_once_goes_to_each_call_that_takes_it(questions, gemma_backend) -> None:
    # "... the Real GDP of California in those same years according to the 'us_economy.gdp_by_state_year'
    # function with the adjustment set to 'Real'": both GDP calls (before: only one had it)
    q = questions["parallel_multiple_110"]
    calls = (
        services.build_pipeline(Settings(), bfcl.question_index(q), gemma_backend)
        .ask(q.text, mode="select")
        .calls
    )
    gdp = [c["us_economy.gdp_by_state_year"] for c in calls if "us_economy.gdp_by_state_year" in c]
    assert sorted(c["year"] for c in gdp) == [1980, 1990]
    assert all(c.get("adjustment") == "Real" for c in gdp)
    assert check_calls(q.category, q.functions, calls, q.truth).valid
