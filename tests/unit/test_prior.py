"""python-env's prior (store/prior.py, issue 18): read from each doc's kind and module on the real
standard library (read with tree-sitter) and from how many of its files use each API (pool/pyenv/usage.py),
weighing BM25's ranking of python-env, stored by a refresh."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest

from gorilla_tui.build.publish import write_and_publish
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.usage import UsageCounts, interpreter_usage
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import TOKENIZER_VERSION
from gorilla_tui.store import prior
from gorilla_tui.store import versions as store


@pytest.fixture(scope="module")
def stdlib(stdlib_docs: tuple[ApiDoc, ...]) -> list[ApiDoc]:
    return list(stdlib_docs)


@pytest.fixture(scope="module")
def stdlib_index(stdlib: list[ApiDoc]) -> ApiIndex:
    return ApiIndex.build(stdlib)


def test_prior_reads_kind_and_module_depth(stdlib: list[ApiDoc], small_pool: list[ApiDoc]) -> None:
    by_name = {d.api_name: d for d in stdlib}
    assert prior.kind_prior(by_name["os.getenv"]) == 1.0  # a function of a top-level module
    method = prior.kind_prior(by_name["zipfile.ZipFile.extractall"])
    klass = prior.kind_prior(by_name["numbers.Number"])
    nested = prior.kind_prior(by_name["wsgiref.handlers.read_environ"])
    assert method == pytest.approx(np.exp(-prior.METHOD_WEIGHT))
    assert klass == pytest.approx(np.exp(-prior.CLASS_WEIGHT))
    assert nested == pytest.approx(np.exp(-prior.MODULE_DEPTH_WEIGHT))  # wsgiref.handlers: one dot
    assert prior.kind_prior(by_name["os.environ.get"]) == method  # a method of a module-level object
    assert prior.kind_prior(by_name["list.sort"]) == 1.0  # the builtin types' methods are everyone's
    # every other source is left as BM25 ranks it, usage and all
    others = [d for d in small_pool if d.source != "python-env"]
    assert not prior.needs_usage(others)
    assert others and {prior.doc_prior(d, UsageCounts()) for d in others} == {1.0}
    assert set(prior.prior_array(others, UsageCounts()).tolist()) == {1.0}


@pytest.mark.parametrize(
    ("task", "by_bm25", "expected"),
    [
        ("read rows from a CSV file", "csv.DictWriter.writerows", "csv.reader"),  # a method
        ("read a TOML configuration file", "tomllib.TOMLDecodeError", "tomllib.load"),  # a class
        ("list the names of the entries in a directory", "tkinter.tix.TList", "os.listdir"),  # a class
    ],
)
def test_prior_puts_the_module_function_first(
    stdlib_index: ApiIndex, task: str, by_bm25: str, expected: str
) -> None:
    rows, bm25 = stdlib_index.scores(task)
    assert stdlib_index.docs[int(rows[int(np.argmax(bm25))])].api_name == by_bm25  # BM25 alone
    hits = stdlib_index.search(task, 5)
    assert hits[0].doc.api_name == expected
    # Hit.score stays the doc's plain BM25 score; only the order is weighed
    plain = dict(zip((stdlib_index.docs[int(r)].id for r in rows), bm25, strict=True))
    assert [h.score for h in hits] == pytest.approx([plain[h.doc.id] for h in hits])


def test_refresh_stores_the_prior(small_pool: list[ApiDoc], stdlib: list[ApiDoc], gorilla_home) -> None:
    docs = small_pool + [d for d in stdlib if d.api_name == "zipfile.ZipFile.extractall"]  # and a method
    built = ApiIndex.build(docs)
    built.meta = {"tokenizer_version": TOKENIZER_VERSION, "params": {"bm25": built.params.to_dict()}}
    final = write_and_publish(built, store.index_root())
    assert (final / prior.FILE).is_file()
    loaded = ApiIndex.load(final)
    counts = interpreter_usage()
    assert prior.needs_usage(docs)
    assert np.array_equal(loaded.prior(), prior.prior_array(docs, counts))
    extractall = docs[-1]
    assert loaded.prior()[-1] == pytest.approx(prior.doc_prior(extractall, counts))
    assert loaded.prior()[-1] == pytest.approx(
        np.exp(-prior.METHOD_WEIGHT) * (1 + prior.usage_files(extractall, counts)) ** prior.USAGE_WEIGHT
    )
    task = "copy a file"
    assert [h.doc.id for h in loaded.search(task, 3)] == [h.doc.id for h in built.search(task, 3)]


def test_prior_favours_the_docs_hand_written_questions_expand(stdlib: list[ApiDoc]) -> None:
    doc = next(d for d in stdlib if d.api_name == "sum")
    counts = UsageCounts()
    bare = prior.doc_prior(dataclasses.replace(doc, questions=[]), counts)
    asked = prior.doc_prior(dataclasses.replace(doc, questions=["add up the numbers in a list"]), counts)
    assert asked == pytest.approx(bare * prior.HAND_QUESTIONS_FACTOR)
    assert prior.HAND_QUESTIONS_FACTOR > 1
