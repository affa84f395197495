"""The task's values a filled call left out (fill/unused.py left_out): said beside the call, and nothing
said when the call holds a value in any form filling writes it."""

from __future__ import annotations

import pytest

from gorilla_tui.fill.unused import left_out


@pytest.mark.parametrize(
    ("task", "call", "unused"),
    [
        # a value no argument took: the file of "the sha256 of setup.py", the SQL after "run"
        ("whats the sha256 of setup.py", "hashlib.sha256()", ["setup.py"]),
        ('open notes.db, run "SELECT * FROM t"', "sqlite3.connect('notes.db')", ['"SELECT * FROM t"']),
        ("send hi to bob@example.com on port 25", "smtplib.SMTP('localhost')", ["bob@example.com", "25"]),
        ("sum 4, 5 and 6", "sum([4, 5])", ["6"]),
        # a file name the URL also holds is still its own value
        ("download https://example.com/data.csv to data.csv",
         "urllib.request.urlretrieve('https://example.com/data.csv')", ["data.csv"]),
    ],
)  # fmt: skip
def test_a_value_no_argument_holds_is_listed_as_the_task_writes_it(task: str, call: str, unused: list[str]):
    assert left_out(task, call) == unused


@pytest.mark.parametrize(
    ("task", "call"),
    [
        ("copy src to backup/src", "shutil.copyfile('src', 'backup/src')"),
        ("wait 2 minutes", "time.sleep(120)"),  # converted to seconds (fill/units.py)
        ("connect to example.com:8080", "socket.create_connection(('example.com', 8080))"),  # an address
        ("sum 4, 5 and 6", "sum([4, 5, 6])"),  # a list whole
        ("what day of the week was 2026-12-25", "datetime.date(2026, 12, 25).weekday()"),  # a date by parts
        ("apply a 5% discount to 200", "discount(200, 0.05)"),  # a percentage as its fraction
        ("roots of a quadratic with a=1, b=-3, c=2", "roots(a=1, b=-3, c=2)"),  # a negative number
        ("the derivative of 3x^2 + 2x - 1", "derivative(function='3*x**2 + 2*x - 1')"),  # a formula
        ("the air quality in London on 2022/08/16", "air_quality(city='London', date='16-08-2022')"),
        ("use the 'calculate_velocity' function with 'distance' 120", "calculate_velocity(distance=120)"),
        ("accelerating at 4 m/s^2 for 5 seconds, e.g. a car", "velocity(acceleration=4, time=5)"),  # units
        ("book a room for two adults", "book(adults=2)"),  # a number in words is no value said to be left
    ],
)  # fmt: skip
def test_a_value_the_call_holds_in_any_form_is_not_listed(task: str, call: str):
    assert left_out(task, call) == []


def test_no_python_source_says_nothing():
    assert left_out("wait 10 seconds", "time.sleep(") == []


def test_a_clock_time_is_no_two_numbers():
    """A time is one value (fill/colons.py, break-it round 25, R25-3): a call without it leaves out '14:00'
    whole, never 14 and 0."""
    assert left_out("add a meeting on 2024-06-03 at 14:00", "quick_add(date='2024-06-03')") == ["14:00"]
    assert (
        left_out("add a meeting on 2024-06-03 at 14:00", "quick_add(date='2024-06-03', time='14:00')") == []
    )


def test_a_variable_the_call_passes_is_in_the_call() -> None:
    """Break-it round 19, R19-2: "write the dict `scores` to data.json" filled as ``json.dump(scores, ...)``
    said `scores` was not in the call."""
    task = "write the dict `scores` to data.json"
    assert left_out(task, "json.dump(scores, open('data.json', 'w'))") == []
    assert left_out(task, "json.dump(obj=scores, fp=open('data.json', 'w'))") == []
    # a placeholder holds none
    assert left_out(task, "json.dump(obj, open('data.json', 'w'))") == ["`scores`"]
