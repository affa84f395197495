"""Values whose place the task's words or the doc's give, on the standard library as python-env reads it: a
count's part and whole (fill/roles.py doc_roles, count_role: "3 out of 10" is ``math.comb(10, 3)``), a socket
address's host and port as one pair (fill/addresses.py), a time for a parameter that takes seconds
(fill/units.py in_seconds: "2 minutes" is 120), a time in words ("half a second"), and the items of a list
the task writes whole (no value of their own); the slots offered, and the real tiny model writing the calls
(bench/data/literal_tasks.toml's dev misses lit-comb and lit-port-open among them)."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.fill.addresses import addresses, url_addresses, with_addresses
from gorilla_tui.fill.call_grammar import TaskValues, slots, values_for
from gorilla_tui.fill.filler import fill, target_of
from gorilla_tui.fill.roles import count_role, doc_roles
from gorilla_tui.fill.units import in_seconds, takes_seconds
from gorilla_tui.fill.values import lists, numbers
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param, params_of


@pytest.fixture(scope="module")
def named(stdlib_docs: tuple[ApiDoc, ...]):
    by_name = {d.api_name: d for d in stdlib_docs}
    return by_name.__getitem__


def _roles(task: str) -> list[tuple[object, str]]:
    return [(c.value, count_role(c, task)) for c in numbers(task) + lists(task) if count_role(c, task)]


def test_the_task_s_words_say_which_value_is_the_part_and_which_the_whole():
    assert _roles("how many ways can i pick 3 poeple out of 10") == [(3, "part"), (10, "whole")]
    assert _roles("choose 2 from 5") == [(2, "part"), (5, "whole")]
    assert _roles("pick 3 out of a total of 12") == [(3, "part"), (12, "whole")]
    assert _roles("10 choose 3") == [(10, "whole"), (3, "part")]
    assert _roles("combinations of 10 things taken 3 at a time") == [(3, "part")]
    assert _roles("sample 2 items from [1, 2, 3, 4]")[0] == (2, "part")
    assert ([1, 2, 3, 4], "whole") in _roles("sample 2 items from [1, 2, 3, 4]")
    # no value before "of": no part, no whole
    assert _roles("the factorial of 5") == [] and _roles("the square root of 16") == []


def test_the_doc_s_words_say_which_parameter_is_the_part_and_which_the_whole(named):
    task = TaskValues.of("how many ways can i pick 3 poeple out of 10")
    comb = named("math.comb")  # "Number of ways to choose k items from n items ..."
    params = params_of(comb)
    roles = {s.param.name: s.role for s in doc_roles(comb.description, slots(params, task), params, task)}
    assert roles == {"n": "whole", "k": "part"}
    sample = named("random.sample")  # "Chooses k unique random elements from a population sequence."
    task = TaskValues.of("pick 2 of [1, 2, 3]")
    params = params_of(sample)
    roles = {s.param.name: s.role for s in doc_roles(sample.description, slots(params, task), params, task)}
    assert roles == {"population": "whole", "k": "part"}
    # math.perm's k is optional: offered, as required, when the task gives a value of its role
    perm = named("math.perm")
    params = params_of(perm)
    task = TaskValues.of("how many ordered arrangements of 4 out of 12 books")
    assert [s.param.name for s in slots(params, task)] == ["n"]
    offered = doc_roles(perm.description, slots(params, task), params, task)
    assert [(s.param.name, s.role, s.param.required) for s in offered] == [
        ("n", "whole", True),
        ("k", "part", True),
    ]
    # a doc that names no part and whole gives no roles
    sleep = named("time.sleep")
    task = TaskValues.of("wait 3 out of 10 seconds")
    assert all(not s.role for s in doc_roles(sleep.description, slots(params_of(sleep), task), (), task))


def test_a_host_and_a_port_are_one_address():
    task = "check whether 8.8.8.8 accepts connections on port 53"
    assert [c.value for c in addresses(task)] == [("8.8.8.8", 53)]
    assert [c.value for c in addresses("connect to localhost:8080")] == [("localhost", 8080)]
    assert [c.value for c in addresses("connect to mail.example.com on port 587")] == [
        ("mail.example.com", 587)
    ]
    assert [c.value for c in url_addresses("is http://localhost:8000/x up")] == [("localhost", 8000)]
    # no port, a file's name, or a port out of range: no address
    assert addresses("look up the ip address of python.org") == []
    assert addresses("send report.csv to port 22") == []
    assert addresses("connect to 10.0.0.1 on port 70000") == []
    (pair,) = addresses(task)
    assert pair.text == "('8.8.8.8', 53)" and ast.literal_eval(pair.text) == ("8.8.8.8", 53)


def test_an_address_parameter_takes_the_pair_and_host_and_port_parameters_its_parts(named):
    task = TaskValues.of("check whether 8.8.8.8 accepts connections on port 53")
    target = target_of(named("socket.create_connection"), task)
    assert target is not None
    assert list(target.offered[0].values) == ["('8.8.8.8', 53)"]  # not 53 and '8.8.8.8' on their own
    smtp = named("smtplib.SMTP")
    params = params_of(smtp)
    task = TaskValues.of("connect to smtp.gmail.com on port 587")
    offered = with_addresses(slots(params, task), task, params)
    assert [(s.param.name, list(s.values), s.param.required) for s in offered][:2] == [
        ("host", ["'smtp.gmail.com'"], True),
        ("port", ["587"], True),
    ]
    # a function-calling tool's typed keyword parameters keep their own values
    tool = [Param("host", type="string", kind="keyword"), Param("port", type="integer", kind="keyword")]
    assert with_addresses(slots(tool, task), task, tool) == slots(tool, task)


def test_a_parameter_that_takes_seconds_takes_a_time_in_seconds(named):
    assert takes_seconds("secs", "") and takes_seconds("timeout", "")
    assert takes_seconds("track_length", "Length of the mix track in seconds.")
    assert not takes_seconds("timeout", "The timeout in milliseconds.")
    assert not takes_seconds("duration", "The duration of the song in minutes.")
    assert not takes_seconds("second_note_frequency", "The frequency of the second note in Hz.")
    for text, seconds in [("wait 2 minutes", 120), ("pause for 250ms", 0.25), ("wait 1.5 hours", 5400),
                          ("wait 10 seconds", 10), ("wait half a second", 0.5), ("wait a minute", 60),
                          ("sleep for half an hour", 1800), ("wait one minute", 60)]:  # fmt: skip
        assert [c.value for c in in_seconds(numbers(text), text)] == [seconds], text
    # "a second car", "in a day" are no times; a count keeps its value
    assert numbers("consider a second car") == [] and numbers("how much water in a day") == []
    assert [c.value for c in in_seconds(numbers("keep 5 copies"), "keep 5 copies")] == [5]
    sleep = params_of(named("time.sleep"))[0]
    assert list(values_for(sleep, TaskValues.of("wait 2 minutes before retrying"))) == ["120"]
    # a number parameter in another unit keeps the task's number
    minutes = Param("duration", type="integer", description="The duration in minutes.")
    assert list(values_for(minutes, TaskValues.of("play it for 20 minutes"))) == ["20"]


def test_the_items_of_a_list_the_task_writes_whole_are_no_values_of_their_own(named):
    sample = params_of(named("random.sample"))[0]
    # population names a sequence (call_grammar._SEQUENCE): the list the task writes, not its count either
    values = values_for(sample, TaskValues.of("pick 5 random items from [1, 2, 3, 4, 5, 6, 7, 8]"))
    assert list(values) == ["[1, 2, 3, 4, 5, 6, 7, 8]"]
    values = values_for(sample, TaskValues.of("choose 3 of ['red', 'green', 'blue'] at random"))
    assert list(values) == ["['red', 'green', 'blue']"]


@pytest.mark.model
@pytest.mark.parametrize(
    ("task", "name", "call"),
    [
        ("how many ways can i pick 3 poeple out of 10", "math.comb", "math.comb(10, 3)"),
        ("how many ordered arrangements of 4 out of 12 books", "math.perm", "math.perm(12, 4)"),
        (
            "pick 5 random items from [1, 2, 3, 4, 5, 6, 7, 8]",
            "random.sample",
            "random.sample([1, 2, 3, 4, 5, 6, 7, 8], 5)",
        ),
        (
            "check whether 8.8.8.8 accepts connections on port 53",
            "socket.create_connection",
            "socket.create_connection(('8.8.8.8', 53))",
        ),
        ("connect to smtp.gmail.com on port 587", "smtplib.SMTP", "smtplib.SMTP('smtp.gmail.com', 587)"),
        ("wait 2 minutes before retrying", "time.sleep", "time.sleep(120)"),
        ("wait half a second", "time.sleep", "time.sleep(0.5)"),
        (
            "give up on https://example.org after 2 minutes",
            "urllib.request.urlopen",
            "urllib.request.urlopen('https://example.org', timeout=120)",
        ),
    ],
)
def test_the_model_writes_the_values_where_the_words_put_them(gemma_backend, named, task, name, call):
    filled = fill(gemma_backend, task, named(name))
    assert filled is not None
    assert filled.call == call
    ast.parse(filled.call)
