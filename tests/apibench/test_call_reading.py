"""The doc that stands for a call several hits share (model/choice.py call_reading): the domain most of that
call's docs give, on APIBench's real TensorFlow Hub pool (universal-sentence-encoder/4 is described under
"Text preprocessing" once and "Text embedding" many times)."""

from __future__ import annotations

from pathlib import Path

import pytest

from gorilla_tui import services
from gorilla_tui.config import Settings
from gorilla_tui.model.choice import call_reading
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pool.doc import ApiDoc, load_jsonl
from gorilla_tui.retrieve.index import ApiIndex

USE4 = "hub.load('https://tfhub.dev/google/universal-sentence-encoder/4')"


@pytest.fixture(scope="module")
def tf_docs(apibench: Path) -> list[ApiDoc]:
    """The real TensorFlow Hub API pool of APIBench (696 docs)."""
    return load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs


def use4(docs: list[ApiDoc], domain: str) -> list[ApiDoc]:
    return [d for d in docs if "".join(d.call.split()) == USE4 and d.domain == domain]


def test_the_majority_domain_of_a_shared_call_stands_for_it(tf_docs: list[ApiDoc]) -> None:
    pre, emb = use4(tf_docs, "Text preprocessing"), use4(tf_docs, "Text embedding")
    assert pre and len(emb) >= 3
    hits = [pre[0], *emb[:3]]
    assert call_reading(hits, 0) == 1  # 3 "Text embedding" docs of the same call outvote 1
    assert call_reading(hits, 2) == 2  # already of the majority: stays
    # a tie keeps the picked doc, and another call's docs never count
    assert call_reading([pre[0], emb[0]], 0) == 0
    other = next(d for d in tf_docs if "".join(d.call.split()) != USE4 and d.domain == "Text preprocessing")
    assert call_reading([pre[0], other, other, emb[0]], 0) == 0
    with pytest.raises(IndexError):
        call_reading(hits, 9)


def test_ask_explains_the_call_with_its_majority_reading(tf_docs: list[ApiDoc]) -> None:
    # five hits of one call: nothing to choose (no model call), the doc is the call's majority reading
    pre, emb = use4(tf_docs, "Text preprocessing"), use4(tf_docs, "Text embedding")
    index = ApiIndex.build([*pre[:2], *emb[:3]])
    task = "text preprocessing with the universal sentence encoder"
    hits = index.search(task, k=5)
    assert hits[0].doc.domain == "Text preprocessing"  # the case itself: a minority reading at hit 1
    pipeline = services.build_pipeline(Settings(mode="select", k=5), index, ScriptedBackend([USE4]))
    proposal = pipeline.ask(task)
    doc = next(h.doc for h in hits if h.doc.domain == "Text embedding")
    assert proposal.api_call == USE4
    assert proposal.explanation == " ".join(x for x in (doc.functionality, doc.description) if x).strip()
    assert proposal.explanation != " ".join(x for x in (pre[0].functionality, pre[0].description) if x)
