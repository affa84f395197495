"""A framework named in the task ("with pytorch") routes the search to that framework's hub, and a close
second source shares the hits (constraints/parse.py FRAMEWORKS, retrieve/routing.py ROUTING_MARGIN),
on the small pool of tests/data/pool."""

from __future__ import annotations

import pytest

from gorilla_tui.constraints.check import check_doc
from gorilla_tui.constraints.parse import parse_constraints
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.constraints.vocab import framework_matches
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.routing import ROUTING_MARGIN
from gorilla_tui.tui.explain import constraint_words


@pytest.mark.parametrize(
    ("task", "framework"),
    [
        ("find the cars in a photo using pytorch", "pytorch"),
        ("estimate depth with torch hub", "pytorch"),
        ("label every pixel with a torchvision model", "pytorch"),
        ("recognise actions in a video using pytorchvideo", "pytorch"),
        ("a keras image classifier from tf hub", "tensorflow"),
        ("turn messages into vectors, tensorflow hub", "tensorflow"),
        ("translate a paragraph with hugging face", "hugging face"),
        ("find similar sentences with sentence-transformers embeddings", "hugging face"),
    ],
)
def test_framework_words_are_a_constraint(task: str, framework: str) -> None:
    [c] = [c for c in parse_constraints(task) if c.metric == "framework"]
    assert (c.op, c.value) == ("=", framework)


@pytest.mark.parametrize(
    "task",
    ["rank documents by tf-idf", "a resnet from pytorch/vision", "light my torchlight", "transform a matrix"],
)
def test_no_framework_constraint(task: str) -> None:
    assert [c for c in parse_constraints(task) if c.metric == "framework"] == []


def test_framework_matches_source_or_field() -> None:
    assert framework_matches("pytorch", "torchhub", "PyTorch")
    assert framework_matches("pytorch", "huggingface", "PyTorch Transformers")  # the field names it
    assert framework_matches("hugging face", "huggingface", "ESPnet")  # on the Hugging Face hub
    assert not framework_matches("tensorflow", "huggingface", "Keras")
    assert not framework_matches("pytorch", "python-env", "python")
    assert not framework_matches("no such framework", "torchhub", "PyTorch")


@pytest.mark.parametrize(("word", "source"), [("pytorch", "torchhub"), ("tensorflow", "tensorflowhub")])
def test_named_framework_routes_to_its_hub(small_index: ApiIndex, word: str, source: str) -> None:
    task = f"classify images with {word}"
    result = search_with_constraints(small_index, task, k=3)
    assert [h.doc.source for h in result.hits] == [source] * 3
    assert [h.rank for h in result.hits] == [1, 2, 3]
    [check] = check_doc(result.constraints, result.hits[0].doc)
    assert check.status == "satisfied"
    # the same task without the word mixes the hubs: the routing above is the constraint's doing
    plain = search_with_constraints(small_index, "classify images", k=3)
    assert len({h.doc.source for h in plain.hits}) > 1


def test_framework_check_is_never_unknown(small_pool) -> None:
    [c] = parse_constraints("do it with tensorflow")
    statuses = {d.source: check_doc([c], d)[0].status for d in small_pool}
    assert statuses["tensorflowhub"] == "satisfied"
    assert {statuses[s] for s in ("torchhub", "huggingface", "apizoo", "python-env")} == {"violated"}


def test_close_second_source_shares_the_hits(small_index: ApiIndex) -> None:
    task = "load a model from json text"
    scores = small_index.source_scores(task)
    first, second = sorted(scores.values(), reverse=True)[:2]
    assert second >= ROUTING_MARGIN * first  # python-env and the hub group are close for this task
    hits = small_index.search(task, 3)
    assert hits[0].doc.api_name == "json.loads"
    assert hits[1].doc.source in ("torchhub", "tensorflowhub", "huggingface")
    # a task only one source matches keeps its hits to that source
    assert {h.doc.source for h in small_index.search("copy a file", 3)} == {"python-env"}


def test_provider_and_framework_in_words() -> None:
    provider = {"metric": "provider", "op": "=", "value": "nvidia", "unit": "", "status": "satisfied",
                "actual": "nvidia/deeplearningexamples", "source_text": "an NVIDIA model"}  # fmt: skip
    framework = {"metric": "framework", "op": "=", "value": "pytorch", "unit": "", "status": "violated",
                 "actual": "TensorFlow Hub", "source_text": "pytorch"}  # fmt: skip
    assert constraint_words(provider) == "provider nvidia: nvidia/deeplearningexamples ✔"
    assert constraint_words(framework) == "a PyTorch API: TensorFlow Hub ✘"


def test_two_frameworks_allow_either(small_index: ApiIndex) -> None:
    """Issue 19: "convert a pytorch model to tensorflow" made two framework constraints no doc could both
    meet; it is one constraint allowing either, routed to both hubs, and the card says so in words."""
    task = "convert a pytorch image classifier to tensorflow"
    [c] = parse_constraints(task)
    assert (c.metric, c.value, c.describe()) == (
        "framework",
        "pytorch|tensorflow",
        "framework = pytorch or tensorflow",
    )
    result = search_with_constraints(small_index, task, k=4)
    assert result.satisfied_any
    assert result.message.endswith("candidates meet every constraint (framework = pytorch or tensorflow).")
    assert {h.doc.source for h in result.hits[:2]} == {"torchhub", "tensorflowhub"}  # both hubs, taking turns
    assert all(r["status"] == "satisfied" for r in result.report)
    [words] = [constraint_words(d) for d in result.for_doc(result.hits[0].doc)]
    assert words.startswith("a PyTorch or TensorFlow API: ") and words.endswith("✔")
    hf = next(d for d in small_index.pool() if d.source == "huggingface")
    assert check_doc(result.constraints, hf)[0].status == "violated"  # a third framework is still not allowed
    assert framework_matches("pytorch|tensorflow", "tensorflowhub", "TensorFlow Hub")
