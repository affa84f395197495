"""fill/unused.py on BFCL's ground truth (../shared/bfcl): a call that holds every value the question asks
for is rarely said to leave one out. Each question's first acceptable value per parameter is written as a
call, as a right answer would be, and left_out reads the question beside it."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui.evaluate import bfcl
from gorilla_tui.fill.candidate import literal
from gorilla_tui.fill.unused import left_out

#: Most questions whose right answer may be said to leave a value out (measured: 41 of 1,000, 4.1 %: unit
#: conversions such as 50mH as 0.05, counts such as "type 2 diabetes", an equation's "= 0").
MOST_FLAGGED = 0.05


def _right_call(truth: list[dict]) -> str:
    """The ground truth as call source, one call per line, each parameter's first acceptable value."""
    lines = []
    for call in truth:
        for name, params in call.items():
            args = []
            for param, values in params.items():
                given = [v for v in values if v != ""]
                if given:
                    args.append(f"{param}={literal(given[0])}")
            lines.append(f"{name}({', '.join(args)})")
    return "\n".join(lines)


def test_a_right_answer_is_rarely_said_to_leave_a_value_out(bfcl_data: Path) -> None:
    questions = [
        q
        for category in ("simple_python", "multiple", "parallel", "parallel_multiple")
        for q in bfcl.load_questions(bfcl_data, category)
    ]
    flagged = [q.id for q in questions if left_out(q.text, _right_call(q.truth or []))]
    assert len(questions) == 1000
    assert len(flagged) / len(questions) <= MOST_FLAGGED, flagged


def test_a_value_left_out_of_a_bfcl_answer_is_said(bfcl_data: Path) -> None:
    # simple_python_1, "Calculate the factorial of 5 using math functions.": math.factorial(number=5)
    q = next(q for q in bfcl.load_questions(bfcl_data, "simple_python") if q.id == "simple_python_1")
    assert left_out(q.text, "math.factorial(number=5)") == []
    assert left_out(q.text, "math.factorial()") == ["5"]
