"""Issue 37, BFCL-shaped filling on real questions (../shared/bfcl, dev ids) through the real pipeline with
the embedded model, each question over its own functions as `eval bfcl` asks it: a further call goes to
the function the task names next rather than a called one again with the values left over
(fill/writer.py NEXT_NAMED_BIAS), and a required flag the task speaks of gets the value its words give
(fill/call_grammar.py slots)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui import services
from gorilla_tui.config import Settings
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate.bfcl_checker import check_calls

pytestmark = pytest.mark.model


@pytest.fixture(scope="module")
def questions(bfcl_data: Path) -> dict[str, bfcl.BfclQuestion]:
    """The parallel and parallel_multiple questions, by id."""
    return {
        q.id: q for name in ("parallel", "parallel_multiple") for q in bfcl.load_questions(bfcl_data, name)
    }


def _ask(q: bfcl.BfclQuestion, backend) -> list[dict]:
    pipeline = services.build_pipeline(Settings(), bfcl.question_index(q), backend)
    return pipeline.ask(q.text, mode="select").calls


def test_a_further_call_goes_to_the_function_the_task_names_next(questions, gemma_backend) -> None:
    # "... compounded quarterly ... for 7 years. Secondly, ... any lawsuits filed against them in
    # 'San Francisco' in the year 2018": before, compound_interest again with principal=2018
    q = questions["parallel_multiple_160"]
    calls = _ask(q, gemma_backend)
    assert [next(iter(c)) for c in calls] == ["compound_interest", "lawsuits_search"]
    assert calls[1]["lawsuits_search"] == {
        "company_name": "Tech Corp",
        "location": "San Francisco",
        "year": 2018,
    }
    assert check_calls(q.category, q.functions, calls, q.truth).valid


def test_a_required_flag_the_task_speaks_of_gets_the_value_its_words_give(questions, gemma_backend) -> None:
    # "does it have a specific function within this organelle?": specific_function=True (before: False)
    q = questions["parallel_110"]
    calls = _ask(q, gemma_backend)
    assert [c["cell_biology.function_lookup"]["specific_function"] for c in calls] == [True, True]
    assert check_calls(q.category, q.functions, calls, q.truth).valid
