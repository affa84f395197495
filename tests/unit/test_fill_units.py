"""A number's unit names an optional parameter the task does not name (fill/units.py): the slots offered, and
the real tiny model writing the calls of bench/data/literal_tasks.toml's dev tasks."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.filler import fill
from gorilla_tui.fill.units import named_by_unit, unit_names, unit_of
from gorilla_tui.fill.values import numbers
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import params_of


def _doc(name: str, call: str, arguments: dict[str, str]) -> ApiDoc:
    """A python-env doc as pool/pyenv/names.py writes it (api_arguments: name -> default or "required")."""
    return ApiDoc(id=f"python-env:{name}", source="python-env", api_call=call, api_name=name,
                  api_arguments=arguments)  # fmt: skip


# the standard library's docs as the default index holds them
ROUND = _doc("round", "round(number)", {"number": "required", "ndigits": "None"})
WRAP = _doc(
    "textwrap.wrap", "textwrap.wrap(text)", {"text": "required", "width": "70", "**kwargs": "optional"}
)
URLOPEN = _doc(
    "urllib.request.urlopen",
    "urllib.request.urlopen(url)",
    {
        "url": "required",
        "data": "None",
        "timeout": "socket._GLOBAL_DEFAULT_TIMEOUT",
        "*": "",
        "context": "None",
    },
)


def test_the_unit_after_a_number_names_the_parameters_that_take_it():
    task = "grab https://x.org/a but give up after 5 seconds"
    (five,) = numbers(task)
    assert "timeout" in unit_of(five, task)
    assert unit_names("timeout", five, task) and unit_names("read_timeout", five, task)
    assert not unit_names("data", five, task)
    (two,) = [c for c in numbers("round 3.14159 to 2 decimal places") if c.value == 2]
    assert unit_names("ndigits", two, "round 3.14159 to 2 decimal places")
    assert named_by_unit(
        "width", numbers("no line longer than 72 characters"), "no line longer than 72 characters"
    )
    # a time in minutes is a time too (a timeout takes it in seconds: call_grammar.values_for converts it)
    assert named_by_unit("timeout", numbers("give up after 5 minutes"), "give up after 5 minutes")
    # no unit, or one that names nothing here: nothing
    assert not named_by_unit("timeout", numbers("keep 5 copies"), "keep 5 copies")
    assert not named_by_unit("ndigits", numbers("round 3.14159"), "round 3.14159")


def test_an_optional_parameter_named_by_a_unit_is_offered_and_one_not_named_is_not():
    offered = slots(params_of(URLOPEN), TaskValues.of("grab https://x.org/a but give up after 5 seconds"))
    assert [s.param.name for s in offered] == ["url", "timeout"]
    assert "5" in offered[1].values
    offered = slots(params_of(URLOPEN), TaskValues.of("grab https://x.org/a and keep 5 copies"))
    assert [s.param.name for s in offered] == ["url"]  # "5 copies" names no parameter: the default applies


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "doc", "call"),
    [
        ("round 3.14159 to 2 decimal places", ROUND, "round(3.14159, 2)"),
        (
            "grab https://api.github.com/repos/python/cpython but give up after 5 seconds",
            URLOPEN,
            "urllib.request.urlopen('https://api.github.com/repos/python/cpython', timeout=5)",
        ),
        (
            "wrap the text of notes.txt so no line is longer than 72 characters",
            WRAP,
            "textwrap.wrap('notes.txt', 72)",
        ),
    ],
)
def test_the_model_gives_a_value_to_the_parameter_its_unit_names(gemma_backend, task, doc, call):
    filled = fill(gemma_backend, task, doc)
    assert filled is not None
    assert filled.call == call
    ast.parse(filled.call)
