"""The choice across sources (model/across.py): another source's hit replaces the chosen one only when the
model reads the task more than CROSS_SOURCE_MARGIN nats likelier after it, and only after the rules that
follow the retrieval rank or vote within hit 1's routing unit (vote_within). Scores as bench/everyday.py
recorded them on the everyday dev half."""

from __future__ import annotations

import pytest

from gorilla_tui.model import across, choice

#: pw-hf-summary, "shorten a long news article into a couple of sentences": yfinance's News API at hit 1
#: (APIZoo won routing on "news"), the summarisation model at hit 2 (a close second source), 6 nats likelier.
SUMMARY_LM = [-59.94, -53.96, -67.77, -67.77, -67.77]
SUMMARY_SOURCES = ["apizoo", "huggingface", "apizoo", "apizoo", "apizoo"]


def test_a_clearly_likelier_hit_of_another_source_is_chosen_after_the_retrieval_rank() -> None:
    for rule in ("margin", "first", "rrf"):
        assert across.across_sources(SUMMARY_LM, SUMMARY_SOURCES, 0, rule) == 1


def test_the_margin_is_strict_and_hits_of_the_same_source_never_count() -> None:
    # 6 nats is not more than 6; a hit of the chosen source 8 nats likelier is the within-source rule's job
    assert across.across_sources(SUMMARY_LM, SUMMARY_SOURCES, 0, "margin", margin=5.98) == 0
    same = ["apizoo"] * 5
    assert across.across_sources([-60.0, -52.0, -70.0, -70.0, -70.0], same, 0, "margin") == 0
    # a small lead (s6-zoo-subscribe: imaplib's subscribe 4.5 nats above a YouTube endpoint) below the margin
    lm = [-55.63, -51.12, -53.52]
    assert across.across_sources(lm, ["apizoo", "python-env", "apizoo"], 0, "margin", margin=4.6) == 0


def test_unscored_hits_are_left_alone() -> None:
    assert across.across_sources([None, -1.0], ["apizoo", "huggingface"], 0, "margin") == 0
    assert across.across_sources([-60.0, None], ["apizoo", "huggingface"], 0, "margin") == 0
    assert across.across_sources([-60.0], ["apizoo"], 0, "margin") == 0


def test_the_likeliest_other_hit_wins_and_ties_go_to_the_better_rank() -> None:
    lm = [-60.0, -50.0, -50.0, -45.0]
    assert across.across_sources(lm, ["apizoo", "huggingface", "huggingface", "python-env"], 0, "margin") == 3
    assert across.across_sources(lm[:3], ["apizoo", "huggingface", "torchhub"], 0, "margin") == 1
    # the rule's own pick is the reference, not hit 1, and hits of its own source stay out
    assert across.across_sources([-40.0, -60.0, -50.0], ["apizoo", "apizoo", "huggingface"], 1, "margin") == 2
    assert across.across_sources([-40.0, -60.0, -57.0], ["apizoo", "apizoo", "huggingface"], 1, "margin") == 1


def test_bad_input_is_refused() -> None:
    with pytest.raises(ValueError):
        across.across_sources([-1.0, -2.0], ["apizoo"], 0, "margin")
    with pytest.raises(ValueError):
        across.across_sources([-1.0], ["apizoo"], 1, "margin")


def test_the_rules_it_follows_are_the_rank_rules_first_and_the_votes() -> None:
    assert across.ACROSS_RULES == choice.RANK_RULES | {"first"} | choice.VOTE_RULES
    assert not across.ACROSS_RULES - set(choice.CHOICE_RULES)
    assert across.CROSS_SOURCE_MARGIN < choice.LM_MARGIN


#: pl-summary of bench/data/payload_tasks.toml (dev), as recorded: three summarisers of Hugging Face (the
#: routed model hubs), textwrap.fill of python-env at hit 2 (a close second unit), a sentence-embedding model.
PAYLOAD_LM = [-27.78, -29.18, -28.67, -27.78, -26.95]
PAYLOAD_FREE = [-20.0, -30.0, -20.5, -20.2, -19.0]
PAYLOAD_UNITS = ["hubs", "python-env", "hubs", "hubs", "hubs"]
PAYLOAD_GROUPS = ["hf/Summarization", "python-env/stdlib", "hf/Summarization", "hf/Summarization", "hf/Sim"]


def test_a_vote_never_takes_another_units_hit_on_its_calibrated_score() -> None:
    rule = "domain-vote-calibrated"
    # calibrated, python-env's hit leads (the lowest content-free score): the vote over every hit took it
    assert choice.choose(PAYLOAD_LM, PAYLOAD_FREE, rule, PAYLOAD_GROUPS) == 1
    picked = across.vote_within(PAYLOAD_LM, PAYLOAD_FREE, rule, PAYLOAD_GROUPS, None, PAYLOAD_UNITS)
    assert PAYLOAD_UNITS[picked] == "hubs"
    # and the across margin on the raw likelihood does not bring it back (1.4 nats below, not 5 above)
    assert across.across_sources(PAYLOAD_LM, PAYLOAD_UNITS, picked, rule) == picked
    # a hit of another unit clearly likelier on the raw likelihood is taken after a vote
    lm = [-60.0, -50.0, -61.0]
    units, groups = ["hubs", "python-env", "hubs"], ["a", "b", "a"]
    assert across.across_sources(lm, units, across.vote_within(lm, None, "domain-vote", groups, None, units),
                                 "domain-vote") == 1  # fmt: skip
    with pytest.raises(ValueError):
        across.vote_within(lm, None, "domain-vote", groups, None, units[:2])
