"""A task that writes data out or reads it in, against API names that go the other way (retrieve/direction.py
io_direction, kept_in_io; issue 38): a BM25 index over the real standard library as python-env reads it."""

from __future__ import annotations

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve import direction
from gorilla_tui.retrieve.direction import io_against, io_direction, kept_in_io
from gorilla_tui.retrieve.index import ApiIndex


@pytest.fixture(scope="module")
def index(stdlib_docs: tuple[ApiDoc, ...]) -> ApiIndex:
    return ApiIndex.build(list(stdlib_docs))


def test_a_task_states_whether_it_writes_or_reads() -> None:
    assert io_direction("Write column 'sum' of the frame to a csv file") == "write"
    assert io_direction("save the figure as a png") == "write"
    assert io_direction("read an excel file") == "read"
    assert io_direction("load a json file into a dict") == "read"
    assert io_direction("read the config and save it as json") is None  # both
    assert io_direction("store the output of a command in a variable") is None
    assert io_direction("import a module by its name") is None
    assert io_direction("sort a list of tuples") is None


def test_readers_and_writers_by_the_last_part_of_their_name() -> None:
    assert io_against("write", "pandas.read_csv") and io_against("write", "json.load")
    assert io_against("write", "csv.reader") and io_against("write", "io.TextIOWrapper.readlines")
    assert io_against("write", "csv.DictReader") and io_against("read", "csv.DictWriter")
    assert io_against("read", "pandas.core.generic.NDFrame.to_csv") and io_against("read", "pickle.dump")
    assert io_against("read", "numpy.save") and io_against("read", "os.write")
    assert not io_against("read", "pandas.to_datetime")  # a to_ of no file format
    assert not io_against("write", "pandas.core.generic.NDFrame.to_csv")
    assert not io_against("write", "os.path.join") and not io_against(None, "json.load")
    assert kept_in_io(["json.load", "json.dump", "len"], "write", str) == ["json.dump", "len", "json.load"]
    assert kept_in_io(["json.load", "json.dump"], None, str) == ["json.load", "json.dump"]


@pytest.mark.parametrize(
    ("task", "reader"),
    [
        ("save a python object to a file with pickle", "pickle.load"),
        ("save the list as json text", "json.loads"),
        ("write rows to a csv file", "csv.reader"),
    ],
)
def test_a_reader_sharing_the_words_of_a_task_that_writes_ranks_after_the_writers(
    index: ApiIndex, task: str, reader: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    hits = [h.doc.api_name for h in index.search(task, k=5)]
    assert reader not in hits and any(io_against("read", name) for name in hits[:2])
    monkeypatch.setattr(direction, "io_direction", lambda _task: None)  # without the rule: the reader is in
    assert reader in [h.doc.api_name for h in index.search(task, k=5)]


def test_a_task_that_reads_keeps_its_readers_first(index: ApiIndex) -> None:
    hits = [h.doc.api_name for h in index.search("read a json file into a dict", k=5)]
    assert hits[:2] == ["json.load", "json.loads"] and "json.dump" not in hits
