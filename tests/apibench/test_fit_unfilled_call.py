"""A complete call filling does not fill, which takes none of the task's values, is not a sure fit either
(pipeline_fit_rules.values_unplaced; break-it round 31, finding 8): 'post the json {"name": "test"} to
https://httpbin.org/post' answered APIZoo's ``youtube.tests().insert(part=part).execute()`` with both values
unused and read "fits". A model hub's call keeps its fit: its unused values are inputs its example code has
no slot for."""

from __future__ import annotations

import dataclasses

import pytest

from gorilla_tui import pipeline as pipeline_module
from gorilla_tui.config import Settings
from gorilla_tui.pipeline import Pipeline
from gorilla_tui.pipeline_fit_rules import values_unplaced
from gorilla_tui.pool.doc import load_paths
from gorilla_tui.retrieve.index import ApiIndex


@pytest.fixture(scope="module")
def zoo(apizoo):
    return {d.api_name: d for d in load_paths([apizoo], "apizoo").docs}


def test_a_model_hubs_call_keeps_its_fit(zoo) -> None:
    insert = zoo["Youtube API - tests.insert"]
    assert values_unplaced("fits", [], ["https://httpbin.org/post"], None, insert) == "unsure"
    hub = dataclasses.replace(insert, source="huggingface")
    signals: dict = {"cov": 1.0}
    assert values_unplaced("fits", [], ["meeting.wav"], signals, hub) == "fits"
    assert signals["values_unplaced"] is False


@pytest.mark.model
def test_ask_lowers_a_fits_when_an_unfilled_call_takes_none_of_the_tasks_values(zoo, gemma_backend,
                                                                                monkeypatch):  # fmt: skip
    """The wiring in Pipeline.ask on the real APIZoo doc and the real model: the judgment itself is held at
    "fits" (the default index said so for this task; a one-doc index lacks its retrieval signals)."""
    monkeypatch.setattr(pipeline_module, "judge", lambda *a, **k: ("fits", {"cov": 1.0}))
    index = ApiIndex.build([zoo["Youtube API - tests.insert"]])
    pipeline = Pipeline(Settings(mode="select", k=1), index, gemma_backend)
    post = pipeline.ask('post the json {"name": "test"} to https://httpbin.org/post')
    assert post.api_call == "youtube.tests().insert(part=part).execute()"
    assert post.unused == ['{"name": "test"}', "https://httpbin.org/post"]
    assert post.fit == "unsure" and post.fit_signals["values_unplaced"] is True
    plain = pipeline.ask("insert a youtube test")  # no values: nothing to leave out
    assert plain.fit == "fits" and plain.fit_signals["values_unplaced"] is False
