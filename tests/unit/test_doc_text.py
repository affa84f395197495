"""What BM25 indexes of python-env docs (issue 18): per-source field weights and the words of concatenated
names, on the real standard library (read with tree-sitter); routing by both IDFs. APIZoo's boilerplate:
tests/apibench/test_doc_text_apizoo.py."""

from __future__ import annotations

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve import routing
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import (
    doc_text,
    name_words,
    tokenize,
)


@pytest.fixture(scope="module")
def stdlib(stdlib_docs: tuple[ApiDoc, ...]) -> list[ApiDoc]:
    return list(stdlib_docs)


def test_name_words_split_concatenated_names() -> None:
    assert name_words("zipfile.ZipFile.extractall").split() == ["zip", "file", "extract", "all"]
    assert name_words("smtplib.SMTP.sendmail").split()[-2:] == ["send", "mail"]
    assert name_words("heapq.nlargest") == "largest"  # "n" is shorter than NAME_PIECE_MIN_CHARS
    assert name_words("gzip.open") == "" and name_words("uuid.uuid4") == ""  # short or single words
    assert name_words("") == ""


def test_python_env_text_weighs_the_docstring_not_the_module(stdlib: list[ApiDoc]) -> None:
    by_name = {d.api_name: d for d in stdlib}
    number = doc_text(by_name["numbers.Number"])
    assert "Python standard library" not in number  # the same for every doc: weight 0
    assert number.count("class in numbers") == 1  # "<kind> in <module>" once, not twice
    extractall = tokenize(doc_text(by_name["zipfile.ZipFile.extractall"]))
    assert {"extract", "zip"} <= set(extractall)  # from the name's words, not only "extractall"
    # the module's name weighed 4 times in every doc of it: extractall was 5th, behind PyZipFile's docs
    index = ApiIndex.build(stdlib)
    hits = [h.doc.api_name for h in index.search("extract all files from a zip archive in python", 5)]
    assert "zipfile.ZipFile.extractall" in hits[:2]


def test_routing_weighs_words_by_both_idfs(small_index: ApiIndex, monkeypatch: pytest.MonkeyPatch) -> None:
    task = "parse json text"
    monkeypatch.setattr(routing, "ROUTING_IDF", "source")
    alone = small_index.source_scores(task)
    # the model hubs are scored as the one pool they are ranked in: "parse" (in one Torch Hub doc) is rare
    # in Torch Hub's 8 docs alone, and that made Torch Hub's own score win the routing before
    assert alone["torchhub"] == alone["tensorflowhub"] == alone["huggingface"]
    assert max(alone, key=alone.__getitem__) == "python-env"
    monkeypatch.setattr(routing, "ROUTING_IDF", "index")
    whole = small_index.source_scores(task)
    monkeypatch.setattr(routing, "ROUTING_IDF", "both")
    both = small_index.source_scores(task)
    assert both == pytest.approx({s: (alone[s] + whole[s]) / 2 for s in alone})
    assert max(both, key=both.__getitem__) == "python-env"
    assert small_index.search(task, 1)[0].doc.api_name == "json.loads"
