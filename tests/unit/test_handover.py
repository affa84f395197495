"""The input a task hands over after a colon (query/handover.py), read on tasks as people type them."""

from __future__ import annotations

import pytest

from gorilla_tui.retrieve.query.handover import request_text, without_input


@pytest.mark.parametrize(
    ("task", "said"),
    [
        # a pronoun points at the input the colon hands over: the request is searched for it as text
        ("summarize this: The council met on Tuesday and voted to fund the park.", "summarize this text"),
        ("what language is this: bonjour tout le monde", "what language is this text"),
        ("classify these: I love it. I hate it.", "classify these texts"),
        # a short list that is no question is input, not choices (R27-9)
        ("what language is this: bonjour, merci", "what language is this text"),
        # an input word or a language before the colon, as before
        ("summarize this paragraph: The council met.", "summarize this paragraph"),
        ("translate to French: where is the station", "translate to French"),
        # the pointing pair further back: the words after it say how (pl-speak-this)
        ("read this out loud for me: the next train leaves at ten", "read this out loud for me"),
        (
            "translate it into German for me please: where is the station",
            "translate it into German for me please",
        ),
    ],
)
def test_a_colon_after_a_word_naming_the_input_hands_it_over(task: str, said: str) -> None:
    assert without_input(task) == said
    assert request_text(task) == said


@pytest.mark.parametrize(
    "task",
    [
        # words that only point at the request: what follows the colon is the request itself
        "do this: delete the file old.log",
        "can you do it: rename a.txt to b.txt",
        "I need this: a function that sorts a list",
        "here is my request in plain text: delete the file old.log",
        # a pronoun alone is no request
        "this: delete the file old.log",
        # choices after the colon: "this" is what the task is about (a photo), not text it hands over
        "Which kind of vehicle is this: a truck, a bus, a sports car?",
        # a verb that does not act on a given text: the colon brings the request itself (R27-2)
        "automate this: zip the folder photos into photos.zip",
        "please solve this: list the files in /tmp",
        "try this: copy a.txt to b.txt",
        # a copula points at the input only right before the colon
        "there is this thing I need: zip the folder photos",
        "what is this called in python: a list of lists",
    ],
)
def test_a_colon_after_words_that_only_point_at_the_request_keeps_it(task: str) -> None:
    assert without_input(task) == task
