"""fill/values.py, fill/call_grammar.py and fill/biases.py: values people write in everyday words reach the
right parameter (issue 37, the dev tasks val-* of bench/data/literal_tasks.toml)."""

from __future__ import annotations

from gorilla_tui.fill.biases import beside_other
from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.values import lists, month_numbers, strings
from gorilla_tui.pool.params import Param


def _pos(name, type_="any", required=True, **kw):
    return Param(name, type_, required, kind="positional", **kw)


def _offered(params, task):
    return {s.param.name: list(s.values) for s in slots(params, TaskValues.of(task))}


def test_a_dict_the_task_writes_is_a_dict_not_its_text():
    task = "build a query string from {'q': 'python', 'page': 2}"
    assert "{'q': 'python', 'page': 2}" in [c.text for c in lists(task)]
    assert not any(c.value.startswith("{") for c in strings(task))
    # urllib.parse.urlencode(query): the dict, never the quoted text of it
    assert _offered([_pos("query")], task) == {"query": ["{'q': 'python', 'page': 2}"]}


def test_month_names_as_numbers_for_a_month_parameter():
    assert [c.value for c in month_numbers("how many days does february 2024 have")] == [2]
    assert [c.value for c in month_numbers("the calendar of May 2025")] == [5]
    # a path's folder, a quoted text and the verb "may" name no month
    assert month_numbers("create logs/2024/june") == [] and month_numbers("you may print 'march'") == []
    offered = _offered([_pos("year"), _pos("month")], "how many days does february 2024 have")
    assert offered == {"year": ["2024"], "month": ["2"]}  # calendar.monthrange(2024, 2)


def test_constant_names_and_named_programs_are_values():
    atomic = [c.value for c in strings("read the HOME_DIR environment variable") if c.atomic]
    assert atomic == ["HOME_DIR"]
    assert [c.value for c in strings("where is the ffmpeg program installed") if c.atomic] == ["ffmpeg"]
    assert _offered([_pos("cmd")], "where is the ffmpeg program installed") == {"cmd": ["'ffmpeg'"]}


def test_a_sequence_parameter_takes_the_bracketed_list_not_a_number_word():
    offered = _offered([_pos("seq")], "pick one random winner from ['ann', 'bob', 'cleo']")
    assert offered == {"seq": ["['ann', 'bob', 'cleo']"]}
    # another untyped parameter still takes the task's marked values
    assert "1" in _offered([_pos("x")], "pick one random winner from ['ann', 'bob', 'cleo']")["x"]


def test_everyday_words_for_flags_and_defaults():
    makedirs = [_pos("name"), _pos("mode", "integer", False), _pos("exist_ok", "boolean", False)]
    assert _offered(makedirs, "create logs/june and don't fail if it's already there")["exist_ok"] == ["True"]
    copytree = [_pos("src"), _pos("dst"), _pos("dirs_exist_ok", "boolean", False)]
    assert _offered(copytree, "copy a/b to c/d and overwrite what is there")["dirs_exist_ok"] == ["True"]
    assert _offered(copytree, "copy a/b to c/d but don't overwrite anything")["dirs_exist_ok"] == ["False"]
    assert "dirs_exist_ok" not in _offered(copytree, "copy a/b to c/d")
    getenv = [_pos("key"), _pos("default", required=False)]
    offered = _offered(getenv, "read the HOME_DIR environment variable, falling back to /home/guest")
    assert offered["default"] == ["'HOME_DIR'", "'/home/guest'"]
    assert "default" not in _offered(getenv, "read the HOME_DIR environment variable from /etc/env")
    # "a default of /root" names the parameter by its own word
    offered = _offered(getenv, "read the environment variable HOME with a default of /root")
    assert "'/root'" in offered["default"]


def test_a_value_beside_another_parameters_name_is_that_ones():
    task = "turn {'name': 'ann'} into JSON text indented by 4 spaces"
    offered = slots([_pos("obj"), Param("indent", kind="kwonly")], TaskValues.of(task))
    four = offered[0].values["4"]
    assert beside_other(0, offered, four, task)  # obj=4 is taken down: 4 stands beside "indented"
    assert not beside_other(1, offered, offered[1].values["4"], task)
    assert not beside_other(0, offered, offered[0].values["{'name': 'ann'}"], task)


def test_a_dict_in_quotes_is_the_string_it_writes():
    task = """parse the JSON string '{"name": "bob", "age": 3}'"""
    assert '{"name": "bob", "age": 3}' in [c.value for c in strings(task) if c.atomic]
