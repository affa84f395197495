"""Break-it round 19, R19-1: a case-insensitive pattern with Unicode case folding matched "ſpanish",
"englısh", "TURKİSH", "nvıdia", "lıst" and "bıllion" as English words, and the vocabulary looked the match up
lower-cased, which is no key: "internal error: KeyError" from `search`, `ask`, the TUI and MCP. The
patterns that key a vocabulary fold ASCII case only; such a word is then just not that word."""

from __future__ import annotations

import pytest

from gorilla_tui.constraints.parse import parse_constraints
from gorilla_tui.fill.call_grammar import TaskValues
from gorilla_tui.fill.kinds import variables

TASKS = [
    "translate this text into ſpanish",  # long s
    "TURKİSH to english translation",  # dotted capital I
    "englısh to french",  # dotless i
    "an nvıdia model for images",
    "a microſoft model",
    "sort the lıst `scores`",
    "create a list of 5 bıllion zeros",
    "the \u212aelvin sign in a dict \u212aeys",  # KELVIN SIGN folds to k
]


@pytest.mark.parametrize("task", TASKS)
def test_a_word_unicode_folds_to_a_vocabulary_word_is_no_error(task: str) -> None:
    parse_constraints(task)
    variables(task)
    TaskValues.of(task)


def test_the_ascii_spellings_still_read() -> None:
    assert [c.describe() for c in parse_constraints("translate this text into Spanish")] == [
        "translation any -> es"
    ]
    assert [c.value for c in parse_constraints("an NVIDIA model for images")] == ["nvidia"]
    assert [c.text for c in variables("sort the list `scores`")] == ["scores"]
    assert [c.value for c in TaskValues.of("create a list of 5 billion zeros").numbers] == [5_000_000_000]
    # the Unicode spellings are simply not those words
    assert parse_constraints("translate this text into ſpanish") == []
    assert [c.value for c in TaskValues.of("create a list of 5 bıllion zeros").numbers] == [5]
