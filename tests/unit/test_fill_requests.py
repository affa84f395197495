"""fill/requests.py and the values a parameter cannot take (fill/call_grammar.py _may_be): where a task's
requests stand, a call's values kept to its request, an optional value stated once for several calls, and
words that name a parameter rather than give its value."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.naming import named_again, named_at
from gorilla_tui.fill.requests import (
    CLAUSE_BIAS,
    clause_bias,
    request_of,
    request_starts,
    share_optionals,
)
from gorilla_tui.fill.series import series
from gorilla_tui.fill.target import Target
from gorilla_tui.fill.values import numbers, strings
from gorilla_tui.fill.writer import _next_request
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param

LAW = (
    "Find all law cases where Charles Dickens is a party and it happened in Boston. Also, get cases where "
    "University of California was a party and happened in Los Angeles."
)


def test_a_task_of_several_requests_starts_each_after_its_separator():
    starts = request_starts(LAW)
    assert len(starts) == 2 and LAW[starts[1] :].startswith("Also, get cases")
    assert request_starts("What is the weather in Oslo?") == [0]
    assert request_of(starts, LAW.index("Boston")) == 0
    assert request_of(starts, LAW.index("Los Angeles")) == 1
    assert request_of(starts, -1) == -1  # a value the task does not write


def test_a_calls_next_value_is_favoured_in_the_request_of_its_first():
    values = {c.value: c for c in strings(LAW)}
    dickens = values["Charles Dickens"]
    cands = [values["Boston"], values["Los Angeles"], None]
    starts = request_starts(LAW)
    assert clause_bias(starts, [(dickens.start, dickens.end)], cands) == [CLAUSE_BIAS, 0.0, 0.0]
    assert clause_bias(starts, [], cands) == [0.0, 0.0, 0.0]  # nothing used yet: no request to keep to
    assert clause_bias([0], [(dickens.start, dickens.end)], cands) == [0.0, 0.0, 0.0]  # one request


def _target(name: str, params: list[Param], task: str) -> Target:
    doc = ApiDoc(id=f"t:{name}", source="t", api_call=f"{name}()", api_name=name)
    return Target(doc, name, params, slots(params, TaskValues.of(task)))


def test_an_optional_value_stated_once_goes_to_every_call_that_offers_it():
    task = (
        "What was the Real GDP of California in 1980 and 1990 with the adjustment set to 'Real'? And the "
        "population in 1980 and 1990?"
    )
    params = [Param("year", "integer", required=True), Param("adjustment", "string", required=False)]
    gdp = _target("gdp", params, task)
    calls = [
        (gdp, {"year": ("1980", "task")}),
        (gdp, {"year": ("1990", "task"), "adjustment": ("'Real'", "task")}),
    ]
    share_optionals(calls)
    assert calls[0][1]["adjustment"] == ("'Real'", "task")
    # two values given for it: each call keeps its own, none is added
    calls = [(gdp, {"year": ("1980", "task")}), (gdp, {"adjustment": ("'Real'", "task")}),
             (gdp, {"adjustment": ("'GDP'", "task")})]  # fmt: skip
    share_optionals(calls)
    assert "adjustment" not in calls[0][1]


def test_a_word_of_a_parameters_own_name_is_no_value_of_it():
    task = "What's the name of a type of cell that has multiple nuclei?"
    (shape,) = slots([Param("cell_shape", "string", required=True)], TaskValues.of(task))
    assert "'cell'" not in shape.values and "'multiple nuclei'" in shape.values
    task = "I want a homemade healthy spaghetti recipe, how long will it take to prepare?"
    (recipe,) = slots([Param("recipe", "string", required=True)], TaskValues.of(task))
    assert "'recipe'" not in recipe.values and "'spaghetti'" in recipe.values


def test_a_date_parameter_takes_no_words_without_a_date():
    task = "How frequent do members at the Museum of Modern Art visit last year?"
    (start,) = slots([Param("start_date", "string", required=True)], TaskValues.of(task))
    assert "'year'" not in start.values and "'last'" not in start.values
    assert "'Museum of Modern Art'" not in start.values
    task = "Find flights from New York to London on the date 'next friday' or tomorrow"
    (date,) = slots([Param("date", "string", required=True)], TaskValues.of(task))
    assert {"'next friday'", "'tomorrow'"} <= set(date.values)


def test_a_calls_first_value_is_favoured_in_the_request_that_names_its_function():
    task = (
        "Can you tell me who discovered the Higgs Boson? Also, I am a 180 lbs individual, can you predict my "
        "likelihood of having diabetes?"
    )
    discover = _target("get_discoverer", [Param("discovery", "string", required=True)], task)
    diabetes = _target("diabetes_prediction", [Param("weight", "integer", required=True)], task)
    at = named_at("get_discoverer", [discover, diabetes], task, -1)
    assert task[at:].startswith("discovered")
    values = {c.value: c for c in strings(task)}
    cands = [values["Higgs Boson"], values["180 lbs"]]
    assert clause_bias(request_starts(task), [], cands, at) == [CLAUSE_BIAS, 0.0]
    assert named_at("get_discoverer", [discover, diabetes], task, at + 12) == -1  # not named again


def test_a_run_of_words_ends_with_its_sentence_and_a_contraction_is_no_value():
    task = "Find law cases in Boston. Also, I'm told St. Louis had some in 2010. I've heard so."
    texts = {c.value for c in strings(task)}
    assert "Boston" in texts and "Boston. Also" not in texts
    assert "St. Louis" in texts  # an abbreviation's full stop ends no sentence
    assert not any(t.startswith(("I'm", "I've")) for t in texts)


def test_a_count_in_words_after_first_or_top_is_a_number_beside_digits():
    task = (
        "Find the sum of the multiples of 3 and 5 below 1000. Also find the product of the first five primes."
    )
    assert [c.value for c in numbers(task)] == [3, 5, 1000, 5]
    assert [c.value for c in numbers("two charged bodies of 1e-9 and 2e-9")] == [1e-9, 2e-9]  # no count


def test_a_called_function_named_again_beside_new_values_is_called_again():
    task = (
        "A substance has a mass of 10 kilograms and a volume of 2 cubic meters: calculate the density. Then "
        "mix red and blue with a lightness level of 70%. Later, another substance has a mass of 5 kilograms "
        "and a volume of 1 cubic meter. Calculate the density of this one too. What is the mix?"
    )
    density = _target("calculate_density", [Param("mass", "integer", required=True)], task)
    mix = _target("mix_paint_color", [Param("color1", "string", required=True)], task)
    starts = request_starts(task)
    after_70 = task.index("70%") + 3

    def new_number(t: Target, lo: int, hi: int) -> bool:
        return any(lo <= c.start < hi and c.start > after_70 for sl in t.offered for c in sl.values.values()
                   if c.kind == "number")  # fmt: skip

    called = {"calculate_density", "mix_paint_color"}
    again, at = named_again([density, mix], called, task, after_70, starts, new_number)
    assert again == "calculate_density" and task[at:].startswith("Calculate the density of this")
    # right after the second density's values nothing new stands beside the next name
    after_1 = task.index("1 cubic") + 1
    assert named_again([density, mix], called, task, after_1, starts, lambda t, lo, hi: False) == ("", -1)
    # not called yet: named_after's, not this
    assert named_again([density, mix], {"mix_paint_color"}, task, after_70, starts, new_number)[0] == ""
    # a name and the values after it in its request: "then the stock forecast for Microsoft for 45 days"
    task = "The stock forecast for Apple for 30 days, and then the stock forecast for Microsoft for 45 days."
    stock = _target("stock_forecast", [Param("days", "integer", required=True)], task)
    weather = _target("weather_forecast", [Param("days", "integer", required=True)], task)
    after_30 = task.index("30") + 2

    def new_45(t: Target, lo: int, hi: int) -> bool:
        return lo <= task.index("45") < hi

    again, at = named_again(
        [stock, weather], {"stock_forecast"}, task, after_30, request_starts(task), new_45
    )
    assert again == "stock_forecast" and task[at:].startswith("stock forecast for Microsoft")
    # "company" is no word of compound_interest ("comp" alone is too short a match)
    assert (
        named_at("compound_interest", [stock, _target("compound_interest", [], "")], "a company", -1, True)
        == -1
    )


def test_a_further_calls_function_is_looked_for_from_the_next_request():
    task = (
        "What is the function of ATP in the mitochondria and does it have a specific function? Also, the "
        "function of DNA in the nucleus?"
    )
    starts = request_starts(task)
    used = [(task.index("ATP"), task.index("ATP") + 3), (task.index("mito"), task.index("mito") + 12)]
    assert _next_request(starts, used) == task.index("Also")
    assert _next_request(starts, []) == -1  # the first call: the whole task


def test_a_number_written_elsewhere_is_no_item_of_a_series():
    task = (
        "Find the sum of the multiples of 3 and 5 below 1000. Also find the product of the first five primes."
    )
    (found,) = [s for s in series(TaskValues.of(task)) if s.kind == "number"]
    five = next(c for c in numbers(task) if c.start == task.index("five"))
    assert found.item_of(five) == -1
    three = next(c for c in numbers(task) if c.value == 3)
    assert found.item_of(three) == 0


def test_a_number_whose_unit_measures_another_thing_is_no_value():
    task = "I weigh 70 kg and I am 180 cm tall, with a 5 m rope"
    offered = {
        s.param.name: set(s.values)
        for s in slots(
            [Param("weight", "number", required=True), Param("height", "number", required=True),
             Param("n", "integer", required=True)],
            TaskValues.of(task),
        )
    }  # fmt: skip
    assert offered == {"weight": {"70"}, "height": {"180", "5"}, "n": {"70", "180", "5"}}
