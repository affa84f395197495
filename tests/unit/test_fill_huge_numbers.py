"""Numbers beyond what Python converts (break-it round 15): a 400-digit integer before a time unit, a "%"
or a scale word was made a float (OverflowError), and a digit run of 5,000 characters in a call's string
went through int() (ValueError, sys.get_int_max_str_digits): `ask` said "internal error". Filling keeps
such a number as written, and the judgment of unused values compares digit runs as text."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.units import in_seconds
from gorilla_tui.fill.unused import left_out
from gorilla_tui.fill.values import numbers
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex

HUGE = "9" * 400


@pytest.mark.parametrize(
    ("task", "value"),
    [
        (f"wait {HUGE} hours before retrying", int(HUGE) * 3600),
        (f"wait {HUGE} ms before retrying", int(HUGE)),  # times 0.001 is beyond float: as written
        (f"increase the price by {HUGE} %", int(HUGE)),  # no fraction beyond float
        (f"add up {HUGE} million items", int(HUGE) * 1_000_000),
    ],
)
def test_a_number_beyond_floats_range_is_kept_exact(task, value):
    found = in_seconds(numbers(task), task)
    assert [c.value for c in found] == [value]
    assert HUGE in left_out(task, "time.sleep(1)")[0]


def test_digit_runs_longer_than_int_converts_are_compared_as_text():
    task = "fetch the ledger record for account 12/31/2026"
    assert left_out(task, "get('" + "1" * 5000 + "')") == ["12/31/2026"]
    assert left_out(task, "get('0012/31/2026')") == []  # the same numbers, leading zeros aside
    assert left_out("book it for 2026-12-25", "book('" + "7" * 5000 + " 2026/12/25')") == []


@pytest.mark.model
def test_ask_answers_a_task_with_a_huge_number(stdlib_docs, gemma_backend):
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("time.sleep", "asyncio.sleep", "time.time")])
    pipeline = Pipeline(Settings(mode="select", k=3), index, gemma_backend)
    proposal = pipeline.ask(f"sleep for {HUGE} hours before retrying")
    assert proposal.api_call == f"time.sleep({int(HUGE) * 3600})"  # an int times 3,600 stays exact
    # times 0.001: beyond float, kept as written
    proposal = pipeline.ask(f"sleep for {HUGE} ms before retrying")
    assert proposal.api_call.startswith("time.sleep(")
    assert HUGE in proposal.api_call or any(HUGE in v for v in proposal.unused)
