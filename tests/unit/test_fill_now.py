"""The present moment as a method's receiver (fill/chains.py now_receiver) and a parameter's documented
valid values (fill/documented.py): on the real standard library as python-env reads it."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.documented import docstring, documented_values
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.receivers import Receiver
from gorilla_tui.fill.render import render_target
from gorilla_tui.pool.apidoc import ApiDoc


def _target(stdlib_docs: tuple[ApiDoc, ...], name: str, task: str) -> tuple[object, dict[str, Receiver]]:
    by_name = {d.api_name: d for d in stdlib_docs}
    receivers: dict[str, Receiver] = {}
    target = target_of(by_name[name], TaskValues.of(task), by_name.get, receivers)
    return target, receivers


def test_the_current_moment_is_made_by_the_classes_own_factory(stdlib_docs) -> None:
    target, receivers = _target(
        stdlib_docs, "datetime.datetime.isoformat", "show the current time in ISO 8601"
    )
    assert target.callee == "datetime.datetime.now().isoformat"
    call, _args, _calls = render_target(target, {}, receivers[target.callee])
    assert call == "datetime.datetime.now().isoformat()"
    # a method without parameters of its own still gets its receiver: date.today().weekday()
    target, receivers = _target(stdlib_docs, "datetime.date.weekday", "what day of the week is it today")
    assert render_target(target, {}, receivers[target.callee])[0] == "datetime.date.today().weekday()"
    # a date the task writes makes the receiver, "today" or not
    target, _ = _target(stdlib_docs, "datetime.date.weekday", "is 2026-12-07 a monday, as today is?")
    assert target.callee == "datetime.date().weekday"
    # no present moment asked for: the constructor, as before
    target, _ = _target(stdlib_docs, "datetime.date.weekday", "what day of the week was my birthday")
    assert target.callee == "datetime.date().weekday"


def test_a_parameters_valid_values_are_read_and_no_other_word_is_one(stdlib_docs) -> None:
    # Lib/datetime.py: "The optional argument timespec specifies ... Valid options are 'auto', 'hours', ..."
    listed = documented_values(docstring("datetime.datetime.isoformat"), "timespec")
    assert listed == ("auto", "hours", "minutes", "seconds", "milliseconds", "microseconds")
    target, _ = _target(
        stdlib_docs, "datetime.datetime.isoformat", "print the current date and time in ISO format"
    )
    assert "timespec" not in {s.param.name for s in target.offered}  # was timespec='ISO', a ValueError
    target, _ = _target(
        stdlib_docs, "datetime.datetime.isoformat", "the current time in ISO format to the minutes"
    )
    assert [list(s.values) for s in target.offered if s.param.name == "timespec"] == [["'minutes'"]]
