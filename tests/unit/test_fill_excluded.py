"""Values a task says not to use are no values of the call (fill/excluded.py; break-it round 30: the call
acted on the file the task said to keep). Real filling on the running Python's standard-library pool and
the real embedded model."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.excluded import excluded
from gorilla_tui.fill.unused import left_out
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.retrieve.index import ApiIndex


def _texts(task: str) -> list[str]:
    values = TaskValues.of(task)
    return [c.text for c in values.numbers + values.strings if c.kind == "number" or c.atomic]


@pytest.mark.parametrize(
    ("task", "kept", "dropped"),
    [
        ("delete old.log, not new.log", ["'old.log'"], "'new.log'"),
        ('remove the file named "old report.txt" but keep backup.txt', ["'old report.txt'"], "'backup.txt'"),
        ("kill the process with pid 4242, not 1", ["4242"], "1"),
        ("delete every .tmp file in /tmp/work except keep.tmp", ["'.tmp'", "'/tmp/work'"], "'keep.tmp'"),
        (
            "copy config.yaml to config.bak instead of config.old",
            ["'config.yaml'", "'config.bak'"],
            "'config.old'",
        ),
    ],
)
def test_a_value_the_task_says_not_to_use_is_none_of_its_values(task: str, kept: list[str], dropped: str):
    assert _texts(task) == kept and dropped not in _texts(task)


@pytest.mark.parametrize(
    "task",
    [
        "return not more than 10 results",  # a bound keeps its number
        "the dishes should not be more than 500 calories",  # BFCL parallel_multiple_124
        "you are not sure if the 'King of Hearts' is in the deck",  # a doubt (BFCL parallel_multiple_191)
        'book a flight to Lisbon leaving on "2026-12-20"',  # "leaving" is a departure
        "wait 10 seconds, then not again",  # the cue after the value
    ],
)
def test_bounds_doubts_and_cues_after_the_value_exclude_nothing(task: str):
    values = TaskValues.of(task)
    assert not any(excluded(task, c.start) for c in values.numbers + values.strings if c.start >= 0)
    assert values.numbers + values.strings


def test_an_excluded_value_is_not_said_to_be_left_out():
    assert left_out("delete old.log, not new.log", "os.remove('old.log')") == []


@pytest.mark.model
def test_ask_never_acts_on_the_value_the_task_says_to_keep(stdlib_docs, gemma_backend):
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("os.remove", "os.replace", "os.kill")])
    pipeline = Pipeline(Settings(mode="select", k=3), index, gemma_backend)
    kept = pipeline.ask('remove the file named "old report.txt" but keep backup.txt')
    assert "backup.txt" not in kept.api_call and "'old report.txt'" in kept.api_call, kept.api_call
    killed = pipeline.ask("kill the process with pid 4242, not 1")
    assert "4242" in killed.api_call and "1)" not in killed.api_call.replace("4242", ""), killed.api_call
