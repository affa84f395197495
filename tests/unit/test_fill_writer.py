"""fill/writer.py and fill/biases.py: where a value stands in the task (written twice, list items joined)."""

from __future__ import annotations

from gorilla_tui.fill.biases import joined, located, named, near, reads_on
from gorilla_tui.fill.call_grammar import TaskValues, slots
from gorilla_tui.fill.naming import first_named, mentioned_functions, named_after
from gorilla_tui.fill.target import Target
from gorilla_tui.fill.values import numbers, strings
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.params import Param


def test_a_value_written_twice_is_offered_at_its_unused_place():
    task = "Book a flight from San Francisco to Tokyo and another flight from Tokyo to Sydney."
    tokyo = next(c for c in strings(task) if c.value == "Tokyo")
    first = (tokyo.start, tokyo.end)
    moved = located(tokyo, [first], task)
    assert moved.start == task.rindex("Tokyo") and moved.value == "Tokyo"
    assert located(tokyo, [], task) is tokyo  # unused: where it first stands
    sydney = next(c for c in strings(task) if c.value == "Sydney")
    assert located(sydney, [(sydney.start, sydney.end)], task) is sydney  # written once: nowhere else
    task = "copy notes.txt to /mnt/usb/notes.txt"
    notes = next(c for c in strings(task) if c.value == "notes.txt")
    assert located(notes, [(notes.start, notes.end)], task) is notes  # inside a path is no place of its own


def test_list_items_joined_in_the_task_and_enum_members_it_names():
    task = "Retrieve Personal Info and Job History data, and the salary"
    values = {c.value: c for c in strings(task)}
    end = values["Personal Info"].end
    assert joined(task, end, values["Job History"])
    assert not joined(task, end, values["salary"])  # further on: not joined to it
    (unit,) = slots([Param("unit", "string", required=True, enum=("meter", "feet"))],
                    TaskValues.of("the height in feet"))  # fmt: skip
    assert named(unit.values["'feet'"], "the height in feet")
    assert not named(unit.values["'meter'"], "the height in feet")


def test_a_value_beside_its_parameters_name_is_near_it():
    task = "Check a car loan of $25,000 at Chase for a yearly salary of $80,000"
    amount, salary = (c for c in numbers(task) if c.value in (25000, 80000))
    assert near("loan_amount", amount, task) and not near("loan_amount", salary, task)
    assert near("yearly_salary", salary, task)
    task = "Rent a cabin for 12 nights near Lake Tahoe"
    (nights,) = numbers(task)
    assert near("nights", nights, task)  # the word after the value names it
    assert not near("guests", nights, task)


def test_a_further_call_reads_on_after_the_previous_calls_value():
    task = "Ship a parcel from Denver to Boise and then one from Boise to Reno"
    values = {c.value: c for c in strings(task)}
    denver, boise, reno = values["Denver"], values["Boise"], values["Reno"]
    second_boise = located(boise, [(boise.start, boise.end)], task)
    options = [(0, denver), (1, second_boise), (2, reno), (3, values["parcel"])]
    assert reads_on(denver, options) == 1  # the origin after Denver: the second Boise
    assert reads_on(boise, [(0, denver), (2, reno)]) == 2  # the destination after Boise: Reno
    assert reads_on(None, options) is None  # a first call reads on from nothing


def test_functions_the_task_names_by_their_own_words():
    def target(callee: str) -> Target:
        doc = ApiDoc(id=f"t:{callee}", source="t", api_call=f"{callee}()", api_name=callee)
        return Target(doc, callee, [], [])

    targets = [target("stats.mean"), target("stats.range"), target("stats.stdev")]
    assert mentioned_functions(targets, "Give the mean of 4, 8 and 9. Also their range.") == {
        "stats.mean", "stats.range"}  # fmt: skip
    targets = [target("weather.hourly_forecast"), target("tides.hourly_forecast")]
    assert mentioned_functions(targets, "hourly forecast for Brest") == set()  # shared words name neither


def test_the_function_the_task_names_first_writes_the_first_call():
    def target(callee: str) -> Target:
        doc = ApiDoc(id=f"t:{callee}", source="t", api_call=f"{callee}()", api_name=callee)
        return Target(doc, callee, [], [])

    hit, other = target("geo.highest_peak"), target("geo.longest_river")
    task = "What is the longest river of Chile, and what is the highest peak of Peru?"
    assert [t.callee for t in first_named([hit, other], task)] == ["geo.longest_river", "geo.highest_peak"]
    one = "What is the longest river of Chile and the highest peak of Peru"  # one request: the hit first
    assert first_named([hit, other], one)[0] is hit


def test_a_further_call_goes_to_the_function_the_task_names_next():
    def target(callee: str) -> Target:
        doc = ApiDoc(id=f"t:{callee}", source="t", api_call=f"{callee}()", api_name=callee)
        return Target(doc, callee, [], [])

    interest, lawsuits = target("compound_interest"), target("lawsuits_search")
    task = "I invested $5000 for 7 years. Secondly, find lawsuits against 'Tech Corp' in 2018."
    end = task.index("7 years") + len("7 years")
    assert named_after([lawsuits], [interest, lawsuits], task, end) == "lawsuits_search"
    assert named_after([lawsuits], [interest, lawsuits], task, len(task) - 5) == ""  # named before only
    assert named_after([interest], [interest], task, 0) == ""  # one function offered: nothing to choose
