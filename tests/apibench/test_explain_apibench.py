"""APIBench tier of tests/tui/test_explain.py: tui/explain.py on the real Torch Hub pool: constraints in words
and the hits set aside, with reasons."""

from __future__ import annotations

from gorilla_tui.tui.explain import aside_words, constraint_words, constraints_sentence, set_aside
from tests.tui.test_explain import _proposal


def test_a_device_budget_is_said_in_words_and_models_over_it_are_ranked_last(torchhub_index):
    task = "classify the actions in short video clips on a Raspberry Pi"
    proposal = _proposal(torchhub_index, task)
    words = [constraint_words(c) for c in proposal.constraints]
    assert words == [
        f"params ≤ 64 M for a Raspberry Pi: {proposal.constraints[0]['actual']:g} ✔",
        f"FLOPs ≤ 13.5 G for a Raspberry Pi: {proposal.constraints[1]['actual']:g} ✔",
    ]
    last = [a for a in set_aside(proposal) if a.why.startswith("ranked last: fails ")]
    assert [a.rank for a in last] == [2, 3]  # the two PyTorchVideo models over the FLOPs budget
    for a in last:
        assert "FLOPs ≤ 13.5 G for a Raspberry Pi (" in a.why
        flops = float(a.why.split("(")[-1].rstrip(")"))
        assert flops > 13.5
    assert aside_words(last).startswith("#2")


def test_an_accuracy_bound_is_checked_against_the_doc(torchhub_index):
    task = "an ImageNet classifier with at least 84 % top-1 accuracy"
    proposal = _proposal(torchhub_index, task)
    (c,) = proposal.constraints
    assert c["status"] == "satisfied"  # reranking put a doc that meets it first
    sentence = constraints_sentence(proposal.constraints)
    assert sentence == f"top-1 ≥ 84 % on ImageNet: {c['actual']:g} ✔" and c["actual"] >= 84
    assert constraint_words(c, with_note=True) == sentence  # notes are for unknown outcomes only
