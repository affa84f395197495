"""The small pool of tests/data/pool through the real stages: loaders, BM25 retriever, AST sub-tree match, and
the pipeline services builds. Needs nothing outside the repository (the unit tier)."""

from __future__ import annotations

from collections import Counter

import pytest

from gorilla_tui import services
from gorilla_tui.check.validator import Validator
from gorilla_tui.config import Settings
from gorilla_tui.model.grammar import unique_options
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.pipeline import shared_prefix
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.index import ApiIndex

SPORTS = "I want to classify sports activities in videos"


def test_every_format_loads_with_its_loader(small_pool: list[ApiDoc]):
    assert Counter(d.source for d in small_pool) == {
        "torchhub": 8, "tensorflowhub": 4, "huggingface": 5, "apizoo": 2, "python-env": 2,
    }  # fmt: skip
    assert len({d.id for d in small_pool}) == len(small_pool) == 21
    flagged = sorted(d.id for d in small_pool if d.flagged)
    assert flagged == ["apizoo:2", "torchhub:8"]  # a call without ")" and an APIZoo typed signature
    assert [d.kind for d in small_pool if d.source == "apizoo"] == ["rest", "python"]
    slow = next(d for d in small_pool if d.api_name == "slow_r50")
    assert slow.example_code.startswith("import torch\n")  # a list of lines, joined
    assert slow.env_requirements == ["torch", "pytorchvideo"]


@pytest.mark.parametrize(
    ("task", "hub", "expected"),
    [
        (SPORTS, "torchhub", "pytorchvideo"),
        ("detect cars and people in a street photo", "torchhub", "yolov5"),
        ("embed sentences into vectors to compare them", "tensorflowhub", "universal-sentence-encoder"),
        ("is this movie review positive or negative", "huggingface", "sentiment-analysis"),
        ("translate English text to French", None, "t5-small"),
        ("copy a file to another path", None, "shutil.copyfile"),
    ],
)
def test_bm25_top_hit(small_index: ApiIndex, task: str, hub: str | None, expected: str):
    hits = small_index.search(task, k=3, hub=hub)
    assert hits and expected in hits[0].doc.api_call
    assert [h.rank for h in hits] == list(range(1, len(hits) + 1))
    assert all(a.score >= b.score for a, b in zip(hits, hits[1:], strict=False))
    assert hub is None or {h.doc.source for h in hits} == {hub}


def test_verdicts_across_the_hubs(small_pool: list[ApiDoc]):
    v = Validator(small_pool)
    assert v.check("torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)").kind == "valid"
    wrong = v.check("torch.hub.load('pytorch/vision', 'resnet-201')")
    assert wrong.kind == "wrong_args" and any("resnet101" in s for s in wrong.suggestions)
    assert v.check("torch.hub.lod('pytorch/vision', 'resnet50')").kind == "hallucination"
    url = "https://tfhub.dev/google/universal-sentence-encoder/4"
    assert v.check(f"import tensorflow_hub as hub\nembed = hub.load('{url}')").kind == "valid"
    assert v.check("pipeline('translation_en_to_fr', model='t5-small')").kind == "valid"
    assert v.check("pipeline('translation_en_to_fr', model='t5-smol')").kind == "wrong_args"
    assert v.check("AutoModel.from_pretrained('bert-base-uncased')").kind == "valid"
    assert v.check("GET /v1/weather/Paris").kind == "valid"
    assert v.check("DELETE /v1/weather/Paris").kind == "wrong_args"
    assert v.check("youtube.search().list(part='snippet', q='cats').execute()").kind == "valid"
    assert v.check("import shutil\nshutil.copyfile('a.txt', 'b.txt')").kind == "valid"
    assert v.check("import shutil\nshutil.copyfile('a.txt')").kind == "wrong_args"  # dst is required
    assert v.check("this is not code (").kind in ("unparseable", "no_call")


def test_the_pipeline_services_builds_answers_on_the_small_pool(small_index: ApiIndex):
    """Select mode by grammar (ScriptedBackend cannot score text): the text the hits' calls share goes into
    the prompt, the model writes the rest of one call under the GBNF grammar; the verdict is valid and the
    code is the matched doc's example code."""
    settings = Settings(mode="select", select_by="likelihood", k=3, hub="torchhub")
    hits = small_index.search(SPORTS, k=3, hub="torchhub")
    call = next(h.doc.api_call for h in hits if "slowfast_r50" in h.doc.api_call)
    shared = shared_prefix(unique_options(h.doc.api_call for h in hits))
    assert shared.startswith("torch.hub.load(")
    backend = ScriptedBackend([call[len(shared) :]])
    pipeline = services.build_pipeline(settings, small_index, backend)
    assert pipeline.select_by() == "grammar"
    proposal = pipeline.ask(SPORTS)
    assert proposal.verdict.kind == "valid" and proposal.api_call == call
    assert proposal.code_source == "example_code" and "slowfast_r50" in proposal.code
    assert proposal.select_by == "grammar" and backend.calls and backend.calls[0]["grammar"]


def test_prose_and_assignments_in_python_are_no_rest_requests(small_pool: list[ApiDoc]):
    """Break-it round 29, F6: in a file with no call, a docstring line starting with a method's word ("head
    unless it is the root") and an enum member (``DELETE = "DELETE"``) were read as REST requests and
    flagged; a request's path starts with "/", a URL's scheme or a template's "{"."""
    from gorilla_tui.check import lint

    v = Validator(small_pool)
    prose = (
        'def split(path):\n    """Trailing slashes are stripped from\n    head unless it is the root."""\n'
    )
    members = 'import enum\nclass Method(enum.Enum):\n    DELETE = "DELETE"\n    GET = "GET"\n'
    for text in (prose, members):
        assert [f for b in lint.blocks("a.py", text) for f in lint.check_block(v, "a.py", b)] == []
    found = [
        f for b in lint.blocks("r.txt", "GET /v1/wether/Paris\n") for f in lint.check_block(v, "r.txt", b)
    ]
    assert [f.reason for f in found] == ["hallucination:unknown_path"]


def test_a_url_no_rest_source_serves_is_no_request_of_theirs(small_pool: list[ApiDoc]):
    """Break-it round 30, F-M2: ``requests.get('http://x')`` was read as the REST request ``GET /`` and
    called a hallucination of the pool's REST sources (did you mean GET /v1/weather/{city}). A URL whose
    host no REST doc names and whose path no template matches is no request of theirs: the call is judged
    as any other (here ``requests.get`` is no pool callee: rule 5). The host a doc names
    (api.example.com), a host-less path and a path a template matches (a host-less source is served by
    the user's own host) are matched as before."""
    v = Validator(small_pool)
    other = v.check("requests.get('http://x')")
    assert other.reason == "hallucination:unknown_callee" and "GET /" not in " ".join(other.diagnostics)
    assert not any(s.startswith("GET ") for s in other.suggestions), other
    assert v.check("requests.get('https://api.example.com/v1/wether/Paris')").reason == (
        "hallucination:unknown_path"
    )
    assert v.check("requests.get('/v1/wether/Paris')").reason == "hallucination:unknown_path"
    assert v.check("requests.get('https://api.example.com/v1/weather/Paris')").kind == "valid"
    assert v.check("requests.get('https://my.host:8080/v1/weather/Paris')").kind == "valid"
    assert (
        v.check("requests.delete('https://other.host/v1/weather/Paris')").reason == "wrong_args:wrong_method"
    )


def test_a_bare_word_given_to_a_get_is_a_key_not_a_request(small_pool: list[ApiDoc]):
    """Break-it round 33: ``config.get('port', 8080)`` (a dict's get, the person's `config`) was read as
    the REST request ``GET /port`` and called a hallucination of the pool's REST sources, in `ask` and in
    ``check --code``. A host-less argument is a request only as a path ("/v1/..."); a bare word is a key."""
    v = Validator(small_pool)
    for code in ("config.get('port', 8080)", "settings = {'a': 1}\nsettings.get('a')", "d.delete('k')"):
        verdict = v.check(code)
        assert not (verdict.reason or "").startswith(
            ("hallucination:unknown_path", "wrong_args:wrong_method")
        )
        assert not any(s.startswith(("GET ", "DELETE ")) for s in verdict.suggestions), (code, verdict)
    assert v.check("session.get('/v1/wether/Paris')").reason == "hallucination:unknown_path"
