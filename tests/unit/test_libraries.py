"""A task that names no word of numpy, pandas or matplotlib against those libraries' docs
(retrieve/direction.py; issue 38): a BM25 index over the real standard library and numpy as python-env
reads them."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import pytest

from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.retrieve import direction
from gorilla_tui.retrieve.direction import indexed, named_first
from gorilla_tui.retrieve.direction import unnamed_libraries as unnamed
from gorilla_tui.retrieve.index import ApiIndex

ALL = frozenset(direction.LIBRARY_WORDS)


def test_a_task_names_a_library_by_its_name_alias_or_objects() -> None:
    assert unnamed("remove adjacent duplicate elements from a list") == ALL
    assert unnamed("sum the columns of dataframe `df`") == ALL - {"pandas"}
    assert unnamed("Unpack column 'stats' in `df` into columns") == ALL - {"pandas"}  # StackOverflow's df
    assert unnamed("create an empty data  frame with an index") == ALL - {"pandas"}
    assert unnamed("reverse y-axis in pyplot") == ALL - {"matplotlib"}
    assert unnamed("convert a string to a numpy array of integers") == ALL - {"numpy"}
    assert unnamed("plot a histogram of the values in array `a`") == ALL - {"numpy", "matplotlib"}
    assert unnamed("ndarrays") == ALL - {"numpy"} and unnamed("npm install") == ALL  # whole words only


def test_named_first_ranks_an_unnamed_library_lower() -> None:
    ranked = ["numpy.unique", "itertools.groupby", "numpy.isin", "set"]
    score = {"numpy.unique": 4.0, "itertools.groupby": 3.0, "numpy.isin": 2.5, "set": 1.0}.__getitem__
    lib = lambda name: name.split(".")[0] if name.startswith("numpy.") else ""  # noqa: E731
    assert named_first(ranked, score, lib, frozenset({"numpy"})) == [
        "itertools.groupby",
        "numpy.unique",
        "numpy.isin",
        "set",
    ]
    assert named_first(ranked, score, lib, frozenset()) == ranked
    assert named_first(ranked, score, lib, frozenset({"pandas"})) == ranked


def test_only_an_index_that_read_a_library_reads_its_docs_domains() -> None:
    stdlib = {"name": "python-env", "files": ["/usr/lib/python3.11"]}
    assert not indexed({"sources": [stdlib]}, in_memory=False)  # the default index
    assert indexed({"sources": [{**stdlib, "files": [*stdlib["files"], "numpy"]}]}, in_memory=False)
    assert not indexed({"sources": [{"name": "torchhub", "files": ["x.jsonl"]}]}, in_memory=False)
    assert indexed({}, in_memory=True) and not indexed({}, in_memory=False)


def test_the_default_index_meta_records_no_library(tmp_path: Path) -> None:
    """The refresh's record of python-env as the default index writes it: its files are the standard
    library's folder alone, so no search of it reads a doc for this rule."""
    meta = {"sources": [{"name": "python-env", "files": [str(Path(json.__file__).parent.parent)]}]}
    assert not indexed(meta, in_memory=False)


@pytest.fixture(scope="module")
def index() -> ApiIndex:
    if importlib.util.find_spec("numpy") is None:
        pytest.skip("numpy is not installed (the bench extra)")
    return ApiIndex.build(load_python_env("stdlib,numpy").docs)


def _rank(hits: list[str], name: str) -> int:
    return hits.index(name) + 1 if name in hits else len(hits) + 1


#: Tasks about plain lists and numbers, and the standard-library API each wants, that numpy's docs share
#: words with: without the rule 4 or more of their 5 hits are numpy's and the API ranks below 3.
LIST_TASKS = {
    "cartesian product of two lists": "itertools.product",
    "round a number to 2 decimal places": "round",
}


def test_a_list_task_finds_the_standard_library_before_numpy(
    index: ApiIndex, monkeypatch: pytest.MonkeyPatch
) -> None:
    numpy_docs = lambda names: sum(n.startswith("numpy.") for n in names)  # noqa: E731
    with_rule = {task: [h.doc.api_name for h in index.search(task, k=5)] for task in LIST_TASKS}
    monkeypatch.setattr(direction, "unnamed_libraries", lambda _task: frozenset())  # without the rule
    for task, wanted in LIST_TASKS.items():
        hits, before = with_rule[task], [h.doc.api_name for h in index.search(task, k=5)]
        assert _rank(hits, wanted) <= 3 < _rank(before, wanted), (task, hits, before)
        assert numpy_docs(hits) < numpy_docs(before) and numpy_docs(before) >= 4, (task, hits, before)


def test_a_task_that_names_numpy_keeps_its_docs_first(index: ApiIndex) -> None:
    hits = [h.doc.api_name for h in index.search("remove duplicate elements from a numpy array", k=5)]
    assert "numpy.unique" in hits and all(name.startswith("numpy.") for name in hits)
