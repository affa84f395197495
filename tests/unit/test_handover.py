"""The input a task hands over after a colon (query/handover.py), read on tasks as people type them."""

from __future__ import annotations

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.fill.call_grammar import TaskValues, values_for
from gorilla_tui.fill.candidate import literal
from gorilla_tui.fill.filler import target_of
from gorilla_tui.fill.values import strings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pool.params import Param
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.query.handover import handed_input, request_text, without_input


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


@pytest.mark.parametrize(
    ("task", "handed"),
    [
        ('parse this JSON: {"a": 1, "b": [2, 3]}', '{"a": 1, "b": [2, 3]}'),
        ("base64 encode this: hello world", "hello world"),
        ("summarize this paragraph: The council met on Tuesday.", "The council met on Tuesday"),
        ("is this review positive or negative: it was fine...", "it was fine..."),  # an ellipsis stays
    ],
)
def test_the_input_a_colon_hands_over_is_one_string_value(task: str, handed: str) -> None:
    start, end = handed_input(task)
    assert task[start:end] == handed
    assert literal(handed) in [c.text for c in strings(task)]  # filling offers it whole


def test_the_handed_input_is_no_file_name() -> None:
    """bench/payload.py, pl-speak-this: "read this out loud for me: the next train ..." became
    ``open('the next train to the airport leaves from platform four')``."""
    task = "read this out loud for me: the next train to the airport leaves from platform four"
    assert values_for(Param("file"), TaskValues.of(task)) == {}
    assert "'the next train to the airport leaves from platform four'" in values_for(
        Param("text", "string"), TaskValues.of(task)
    )
    shaped = "open this file for me: notes.txt"  # a handed input shaped like a path stays a path
    assert list(values_for(Param("file"), TaskValues.of(shaped))) == ["'notes.txt'"]


@pytest.mark.parametrize(
    ("task", "said"),
    [
        ("split this line on commas: a,b,c", "split this line on commas"),
        ("join these words with dashes: a b c", "join these words with dashes"),
        ("count the words in this sentence: the quick brown fox", "count the words in this sentence"),
        ("run the following on this string: reverse it", "run the following on this string: reverse it"),
    ],
)
def test_a_pronoun_and_a_word_for_text_name_the_input(task: str, said: str) -> None:
    """Session 13: "split this line on commas: a,b,c" searched its input as the request; a request that
    only points ("run the following on this string:") still brings the request after its colon."""
    assert without_input(task) == said


def test_the_handed_text_is_a_string_methods_receiver(stdlib_docs) -> None:
    """``'a,b,c'.split(',')``: the receiver is offered the handed text alone, the separator the comma."""
    by_name = {d.api_name: d for d in stdlib_docs}
    target = target_of(by_name["str.split"], TaskValues.of("split this line on commas: a,b,c"), by_name.get)
    offered = {s.param.name: list(s.values) for s in target.offered}
    assert offered["object"] == ["'a,b,c'"] and offered["sep"] == ["','"]


def test_a_bytes_parameter_is_offered_the_handed_input(stdlib_docs) -> None:
    """hashlib.md5(string=b'') is optional: offered, and the handed text as its UTF-8 bytes (breakit30 04)."""
    by_name = {d.api_name: d for d in stdlib_docs}
    target = target_of(by_name["hashlib.md5"], TaskValues.of("md5 hash this text: abc"), by_name.get)
    offered = {s.param.name: list(s.values) for s in target.offered}
    assert [v for values in offered.values() for v in values] == ["b'abc'"], offered


def test_no_colon_that_hands_over_gives_no_input() -> None:
    assert handed_input("I need to do the following: zip the logs") is None
    assert handed_input("wait 10 seconds") is None


@pytest.mark.model
def test_the_handed_input_is_the_value_filling_puts_in_the_call(stdlib_docs, gemma_backend) -> None:
    """Session 13: "parse this JSON: {...}" was ``json.loads(s)`` with the JSON listed as unused, "base64
    encode this: hello world" ``base64.b64encode(s)``: the input after the colon was only runs of words."""
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("json.loads", "base64.b64encode")])
    pipeline = Pipeline(Settings(mode="select", k=1), index, gemma_backend)
    parsed = pipeline.ask('parse this JSON: {"a": 1, "b": [2, 3]}')
    assert parsed.api_call == """json.loads('{"a": 1, "b": [2, 3]}')""" and parsed.unused == []
    encoded = pipeline.ask("base64 encode this: hello world")
    assert encoded.api_call == "base64.b64encode(b'hello world')" and encoded.unused == []


def test_the_request_leaves_out_single_quoted_text() -> None:
    """A single-quoted review or sentence is input, not request (break-it round 31, finding 9); a short
    quoted value stays; an apostrophe opens no quote."""
    assert (
        request_text(
            "find the sentiment of the review 'great value, would buy again' with the smallest model"
        )
        == "find the sentiment of the review with the smallest model"
    )
    assert request_text("classify 'this phone is terrible' without a GPU") == "classify without a GPU"
    emotion = "detect the emotion in 'I can't believe we won it!' on a cpu"
    assert request_text(emotion) == "detect the emotion in on a cpu"  # an apostrophe inside the quote
    # a short quoted value is named by the request, not handed over (its fit moved on the dev tasks)
    warning = "log a warning that says 'disk almost full'"
    assert request_text(warning) == warning
    assert request_text("write the text 'done' into status.txt") == "write the text 'done' into status.txt"
    assert (
        request_text("what's in today's log and the users' files")
        == "what's in today's log and the users' files"
    )
    assert request_text("'only a quote'") == "'only a quote'"  # nothing else: the task itself


@pytest.mark.model
def test_the_fit_is_judged_on_the_request_without_its_quoted_review(stdlib_docs, gemma_backend,
                                                                     monkeypatch) -> None:  # fmt: skip
    """The wiring in Pipeline.judge_fit on real docs and the real model: the text judged holds no word of the
    quoted review (its words pulled the dense cosine and the retrieval rule to "nothing fits")."""
    from gorilla_tui import pipeline as pipeline_module

    judged: list[str] = []

    def spy(backend, task, *args, **kwargs):
        judged.append(task)
        return "fits", {"cov": 1.0}

    monkeypatch.setattr(pipeline_module, "judge", spy)
    by_name = {d.api_name: d for d in stdlib_docs}
    index = ApiIndex.build([by_name[n] for n in ("str.lower", "time.sleep")])
    pipeline = Pipeline(Settings(mode="select", k=2), index, gemma_backend)
    pipeline.ask("make the review 'Great Value, would buy again' lower case")
    assert judged == ["make the review lower case"]
