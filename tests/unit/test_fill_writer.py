"""fill/writer.py: where a value stands in the task (a value written twice, list items joined)."""

from __future__ import annotations

from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.values import strings
from gorilla_tui.fill.writer import _joined, _located, _named
from gorilla_tui.pool.params import Param


def test_a_value_written_twice_is_offered_at_its_unused_place():
    task = "Book a flight from San Francisco to Tokyo and another flight from Tokyo to Sydney."
    tokyo = next(c for c in strings(task) if c.value == "Tokyo")
    first = (tokyo.start, tokyo.end)
    moved = _located(tokyo, [first], task)
    assert moved.start == task.rindex("Tokyo") and moved.value == "Tokyo"
    assert _located(tokyo, [], task) is tokyo  # unused: where it first stands
    sydney = next(c for c in strings(task) if c.value == "Sydney")
    assert _located(sydney, [(sydney.start, sydney.end)], task) is sydney  # written once: nowhere else
    task = "copy notes.txt to /mnt/usb/notes.txt"
    notes = next(c for c in strings(task) if c.value == "notes.txt")
    assert _located(notes, [(notes.start, notes.end)], task) is notes  # inside a path is no place of its own


def test_list_items_joined_in_the_task_and_enum_members_it_names():
    task = "Retrieve Personal Info and Job History data, and the salary"
    values = {c.value: c for c in strings(task)}
    end = values["Personal Info"].end
    assert _joined(task, end, values["Job History"])
    assert not _joined(task, end, values["salary"])  # further on: not joined to it
    (unit,) = slots([Param("unit", "string", required=True, enum=("meter", "feet"))],
                    TaskValues.of("the height in feet"))  # fmt: skip
    assert _named(unit.values["'feet'"], "the height in feet")
    assert not _named(unit.values["'meter'"], "the height in feet")
