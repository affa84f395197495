"""A filled call that takes none of the task's values is not a sure fit (pipeline_fit_rules.values_unplaced,
session 13): "how many days between 2024-01-01 and 2024-03-15" answered ``datetime.timedelta()`` with both
dates left out and read "fits"."""

from __future__ import annotations

import pytest

from gorilla_tui import pipeline as pipeline_module
from gorilla_tui.config import Settings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pipeline_fit_rules import values_unplaced
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.types import Argument


def test_only_a_fits_with_values_and_none_placed_is_lowered():
    placed = [Argument("seconds", "10", "task")]
    default = [Argument("days", "0", "default")]
    signals: dict = {"cov": 1.0}
    assert values_unplaced("fits", default, ["2024-01-01"], signals) == "unsure"
    assert signals["values_unplaced"] is True
    assert values_unplaced("fits", placed, ["2024-01-01"], signals) == "fits"  # one value placed
    assert signals["values_unplaced"] is False
    assert values_unplaced("fits", [], [], {}) == "fits"  # a task without values
    assert values_unplaced("nothing", [], ["5"]) == "nothing"  # only "fits" moves
    assert values_unplaced("unsure", [], ["5"]) == "unsure"


@pytest.mark.model
def test_ask_lowers_a_fits_when_the_filled_call_takes_none_of_the_tasks_values(stdlib_docs, gemma_backend,
                                                                               monkeypatch):  # fmt: skip
    """The wiring in Pipeline.ask, on real docs, the real model and the real filling: the judgment itself is
    held at "fits" (the default index said so for this task; a two-doc index lacks its retrieval signals)."""
    monkeypatch.setattr(pipeline_module, "judge", lambda *a, **k: ("fits", {"cov": 1.0}))
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("datetime.timedelta", "time.sleep")])
    pipeline = Pipeline(Settings(mode="select", k=1), index, gemma_backend)
    dates = pipeline.ask("how many days between 2024-01-01 and 2024-03-15")
    assert dates.api_call == "datetime.timedelta()" and dates.unused == ["2024-01-01", "2024-03-15"]
    assert dates.fit == "unsure" and dates.fit_signals["values_unplaced"] is True
    wait = pipeline.ask("wait 10 seconds before retrying")
    assert wait.api_call == "time.sleep(10)" and wait.unused == []
    assert wait.fit == "fits" and wait.fit_signals["values_unplaced"] is False


def test_a_call_the_check_finds_unbindable_is_not_a_sure_fit(stdlib_docs):
    """pipeline_fit_rules.answer_fit on the real stdlib docs and the real check: asyncio.run('main()')
    (a string where a coroutine goes: it raises at once) read "fits" (break-it round 31, finding 8)."""
    from gorilla_tui.check.validator import Validator
    from gorilla_tui.pipeline_fit_rules import answer_fit
    from gorilla_tui.types import Proposal

    by_name = {d.api_name: d for d in stdlib_docs}
    run, sleep = by_name["asyncio.run"], by_name["time.sleep"]
    validator = Validator([run, sleep])
    task_value = [Argument("main", "'main()'", "task")]
    wrong = Proposal(task="run the coroutine `main()` until it finishes", api_call="asyncio.run('main()')",
                     code="", verdict=validator.check("asyncio.run('main()')"), fit="fits",
                     fit_signals={"cov": 1.0}, arguments=task_value)  # fmt: skip
    assert wrong.verdict.reason == "wrong_args:wrong_type"
    assert answer_fit(wrong, run) == "unsure" and wrong.fit_signals["unbound"] is True
    right = Proposal(task="wait 2 seconds", api_call="time.sleep(2)", code="",
                     verdict=validator.check("time.sleep(2)"), fit="fits", fit_signals={"cov": 1.0},
                     arguments=[Argument("secs", "2", "task")])  # fmt: skip
    assert answer_fit(right, sleep) == "fits" and right.fit_signals["unbound"] is False
