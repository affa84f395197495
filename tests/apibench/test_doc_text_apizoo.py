"""APIZoo description sentences repeated across a source are left out of what BM25 indexes (issue 18), on
the real APIZoo files."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui.pool.doc import ApiDoc, load_apizoo
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.tokenize import (
    BOILERPLATE_MIN_DOCS,
    boilerplate_sentences,
    doc_terms,
    doc_text,
    sentences,
    tokenize,
)


@pytest.fixture(scope="module")
def zoo_docs(apizoo: Path) -> list[ApiDoc]:
    docs: list[ApiDoc] = []
    for path in sorted(apizoo.iterdir()):
        if path.suffix.lower() == ".json":
            docs += load_apizoo(path, "apizoo").docs
    return docs


def test_apizoo_boilerplate_is_left_out(zoo_docs: list[ApiDoc]) -> None:
    boiler = boilerplate_sentences(zoo_docs)["apizoo"]
    yf = [d for d in zoo_docs if d.api_name.startswith("yfinance - ")]
    shared = "yfinance is a Python library that allows you to download historical market data"
    assert len(yf) >= BOILERPLATE_MIN_DOCS and any(s.startswith(shared) for s in boiler)
    terms = dict(zip((d.id for d in zoo_docs), doc_terms(zoo_docs), strict=True))
    balance = next(d for d in yf if "Balance Sheet" in d.api_name)
    # the sentence of this endpoint only stays: "It also provides access to balance sheet data ..."
    assert [x for x in sentences(balance.description) if x not in boiler] == [
        sentences(balance.description)[-1]
    ]
    assert "download" in tokenize(doc_text(balance)) and "download" not in terms[balance.id]
    index = ApiIndex.build(zoo_docs)
    hits = index.search("download the price history of several stocks at once from yahoo finance", 5)
    assert "Mass Download" in hits[0].doc.api_name
