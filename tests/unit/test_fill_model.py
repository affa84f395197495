"""Filling with the real embedded model: the task's values reach the call, and nothing is invented."""

from __future__ import annotations

import ast

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.filler import fill
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pool.functions import function_doc

pytestmark = pytest.mark.model

WEATHER = {
    "name": "get_forecast",
    "description": "Get the weather forecast for a city.",
    "parameters": {
        "type": "object",
        "properties": {
            "city": {"type": "string", "description": "The city."},
            "days": {"type": "integer", "description": "How many days ahead."},
            "units": {"type": "string", "enum": ["metric", "imperial"], "description": "Units."},
        },
        "required": ["city", "days"],
    },
}


def test_fill_puts_the_tasks_values_in_the_call(gemma_backend):
    doc = function_doc(WEATHER, source="fn", index=1)
    filled = fill(gemma_backend, "What will the weather be in Lisbon over the next 3 days?", doc)
    assert filled is not None
    assert filled.calls == [{"get_forecast": {"city": "Lisbon", "days": 3}}]
    assert [(a.name, a.origin) for a in filled.arguments] == [("city", "task"), ("days", "task")]
    ast.parse(filled.call)


def test_fill_leaves_a_named_placeholder_for_a_value_the_task_lacks(gemma_backend):
    doc = function_doc(WEATHER, source="fn", index=1)
    filled = fill(gemma_backend, "What will the weather be in Lisbon?", doc)
    assert filled.call == "get_forecast(city='Lisbon', days=days)"
    assert [a.origin for a in filled.arguments] == ["task", "missing"]
    assert filled.calls == [{"get_forecast": {"city": "Lisbon"}}]


def test_the_grammar_path_fills_the_same_language(gemma_backend):
    class GrammarOnly:  # a backend without the KV-cache chooser (a server): the GBNF grammar path
        name, family, last_stats = gemma_backend.name, gemma_backend.family, {}
        n_ctx, count_tokens, complete = (
            gemma_backend.n_ctx,
            gemma_backend.count_tokens,
            gemma_backend.complete,
        )

    doc = function_doc(WEATHER, source="fn", index=1)
    filled = fill(GrammarOnly(), "What will the weather be in Lisbon over the next 3 days?", doc)
    assert filled.calls[0]["get_forecast"]["city"] == "Lisbon"
    assert filled.calls[0]["get_forecast"].get("days") in (3, None)


def test_pipeline_proposes_the_filled_call_of_a_standard_library_api(gemma_backend, small_index):
    pipe = Pipeline(Settings(k=5), small_index, gemma_backend)
    proposal = pipe.ask("copy the file notes.txt to notes.bak")
    assert proposal.api_call.startswith("shutil.copyfile(")
    values = [a.value for a in proposal.arguments if a.origin == "task"]
    assert set(values) <= {"'notes.txt'", "'notes.bak'"} and values
    assert proposal.code_source == "filled" and proposal.code.startswith("import shutil")
    assert proposal.verdict.kind in ("valid", "incomplete")
    assert "fill" in proposal.timings
    off = Pipeline(Settings(k=5, fill=False), small_index, gemma_backend).ask(
        "copy the file notes.txt to notes.bak"
    )
    assert off.api_call == "shutil.copyfile(src, dst)" and off.arguments == []


def test_the_kept_prefix_gives_the_same_calls_as_evaluating_it_again(gemma_backend):
    doc = function_doc(WEATHER, source="fn", index=1)
    task = "Forecast for Porto, 4 days, in imperial units"
    warm = fill(gemma_backend, task, doc)  # the few-shot prefix's KV cache is kept from the earlier tests
    assert gemma_backend._prefix_states
    gemma_backend._prefix_states.clear()
    cold = fill(gemma_backend, task, doc)
    assert warm.call == cold.call and warm.calls == cold.calls


def test_a_parameter_named_like_a_python_keyword_is_passed_by_a_dict():
    from gorilla_tui.fill.render import render
    from gorilla_tui.pool.params import Param

    call, args = render("set_temperature", [Param("class", required=True), Param("level", required=True)],
                        {"class": ("3", "task"), "level": ("'hot'", "task")})  # fmt: skip
    assert call == "set_temperature(level='hot', **{'class': 3})"
    ast.parse(call)
    assert [a.name for a in args] == ["class", "level"]


def _geo(name: str, what: str) -> dict:
    return {
        "name": f"geo.{name}",
        "description": f"The {what} of a country.",
        "parameters": {
            "type": "object",
            "properties": {"country": {"type": "string", "description": "The country."}},
            "required": ["country"],
        },
    }


def test_the_proposal_describes_the_doc_whose_call_comes_first(gemma_backend):
    from gorilla_tui.retrieve.index import ApiIndex

    peak = function_doc(_geo("highest_peak", "highest mountain peak"), source="fn", index=1)
    river = function_doc(_geo("longest_river", "longest river"), source="fn", index=2)
    pipe = Pipeline(Settings(k=2), ApiIndex.build([peak, river]), gemma_backend)
    real_choose = pipe.chooser.choose

    def choose_the_peak(task, hits, usable, select_by, emit, cancel):  # the model's choice, made the peak's
        picked, how = real_choose(task, hits, usable, select_by, emit, cancel)
        return type(picked)(peak.call.strip(), picked.docs, picked.options, doc=peak), how

    pipe.chooser.choose = choose_the_peak
    proposal = pipe.ask("What is the longest river of Chile, and what is the highest peak of Peru?")
    # filling writes the river's call first (the task names it first: fill/naming.py first_named) ...
    assert proposal.api_call.splitlines()[0].startswith("geo.longest_river(")
    # ... and the explanation, the matched entry and the choice's note are the river's, not the peak's
    assert "longest river" in proposal.explanation
    assert proposal.verdict.matched is not None and proposal.verdict.matched.id == river.id
    assert any("names geo.longest_river's first" in w for w in proposal.warnings)
