"""The AST validator on the real APIBench pools and APIZoo files: verdicts, binding, did-you-mean."""

from __future__ import annotations

import pytest

from gorilla_tui.check.validator import Validator, validate
from gorilla_tui.pool.doc import load_jsonl, load_paths

HUBS = ("torchhub", "tensorflowhub", "huggingface")


@pytest.fixture(scope="module")
def pools(apibench, apizoo):
    out = {h: load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs for h in HUBS}
    out["apizoo"] = load_paths([apizoo], "apizoo").docs
    return out


@pytest.fixture(scope="module")
def th(pools):
    return Validator(pools["torchhub"])


@pytest.mark.parametrize("hub", [*HUBS, "apizoo"])
def test_every_pool_entry_validates_as_itself(pools, hub):
    docs = pools[hub]
    v = Validator(docs)
    flagged = [d for d in docs if d.flagged]
    for doc in docs:
        if doc.flagged:
            continue
        verdict = v.check(doc.api_call)
        assert verdict.kind == "valid", (doc.id, doc.api_call, verdict)
        assert verdict.matched.api_call == doc.api_call, (doc.id, verdict.matched.api_call)
    # flagged entries are reported (skipped with a reason) or indexed after repair; never a crash
    for doc in flagged:
        v.check(doc.api_call)
    assert all(": " in s for s in v.skipped)
    assert len(v.skipped) <= len(flagged)


def test_flagged_unparseable_entries_are_reported(pools):
    v = Validator(pools["huggingface"])
    assert any("./run.sh" not in s and "not valid Python" in s for s in v.skipped)
    assert any(s.startswith("huggingface:") for s in v.skipped)


def test_positional_and_keyword_forms_bind(th):
    a = th.check("torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)")
    b = th.check('torch.hub.load(repo_or_dir="pytorch/vision", model="resnet50")')
    assert a.kind == b.kind == "valid"
    assert a.matched.api_call == b.matched.api_call
    assert "'resnet50'" in a.matched.api_call


def test_invented_model_suggests_nearest_of_same_repo(th):
    v = th.check("torch.hub.load('pytorch/vision', 'resnet-201', pretrained=True)")
    assert v.kind == "wrong_args"
    assert "model='resnet101'" in v.suggestions[0]
    assert all("pytorch/vision" in s for s in v.suggestions)
    assert any("resnet-201" in d for d in v.diagnostics)


def test_unknown_callee_is_hallucination_with_nearest(th):
    v = th.check("import torch\nmodel = torch.load('resnet50.pt')")
    assert v.kind == "hallucination"
    assert v.suggestions[0] == "torch.hub.load"
    assert v.api_call == "torch.load('resnet50.pt')"


def test_incidental_calls_do_not_decide(th):
    code = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50')\nmodel.eval()\nprint(model)"
    assert th.check(code).kind == "valid"
    assert th.check("x = 1\nprint(x)").kind == "no_call"


def test_pipeline_task_and_model(pools):
    v = Validator(pools["huggingface"])
    ok = v.check(
        "from transformers import pipeline\nner = pipeline('ner', model='dslim/bert-base-NER-uncased')"
    )
    assert ok.kind == "valid", ok
    bad = v.check("pipeline('ner', model='dslim/bert-base-NER-uncasedd')")
    assert bad.kind == "wrong_args" and "dslim/bert-base-NER-uncased" in bad.suggestions[0]
    # a pool model id loaded there by a class (AutoModelForTokenClassification): the same repo, valid
    assert v.check("pipeline('ner', model='dslim/bert-base-NER')").kind == "valid"


def test_from_pretrained_and_keras_layer(pools):
    hf = Validator(pools["huggingface"])
    assert hf.check("AutoModel.from_pretrained('DeepPavlov/rubert-base-cased')").kind == "valid"
    assert hf.check("transformers.AutoModel.from_pretrained('DeepPavlov/rubert-base-cased')").kind == "valid"
    assert hf.check("AutoModel.from_pretrained('nobody/nothing')").kind == "wrong_args"
    # another class loading a pool repo (a tokenizer) matches by the model id; a receiver that is no class
    # name (a break-it pass: a generate-mode answer wrote it, "valid", and it would raise NameError) does not
    assert hf.check("AutoTokenizer.from_pretrained('af1tang/personaGPT')").kind == "valid"
    assert hf.check("transformers.AutoTokenizer.from_pretrained('af1tang/personaGPT')").kind == "valid"
    assert hf.check("totally_made_up_thing.from_pretrained('af1tang/personaGPT')").kind == "hallucination"
    assert hf.check("auto_model_for_causal_lm.from_pretrained('af1tang/personaGPT')").kind == "hallucination"
    tf = Validator(pools["tensorflowhub"])
    url = "https://tfhub.dev/google/imagenet/mobilenet_v2_100_224/feature_vector/4"
    code = (
        f"import tensorflow_hub as hub\nm = tf.keras.Sequential([\n  hub.KerasLayer(\n    '{url}',\n  )\n])"
    )
    assert tf.check(code).kind == "valid"
    assert tf.check(f"tensorflow_hub.KerasLayer(handle='{url}')").kind == "valid"


def test_rest_entries_match_method_and_template(pools):
    v = Validator(pools["apizoo"])
    assert v.check("GET /api/v1/namespaces/default/services").kind == "valid"
    assert (
        v.check("curl -X GET https://k8s.local:6443/api/v1/namespaces/kube/deployments?limit=5").kind
        == "valid"
    )
    wrong = v.check("PATCH /api/v1/namespaces/default/services")
    assert wrong.kind == "wrong_args" and any(s.startswith("GET ") for s in wrong.suggestions)
    assert v.check("GET /api/v9/unicorns").kind == "hallucination"


def test_apizoo_placeholder_calls_match_by_callee_and_names(pools):
    v = Validator(pools["apizoo"])
    assert v.check("yfinance.Ticker('AAPL').dividends").kind == "valid"
    assert (
        v.check("yfinance.Ticker('AAPL').dividends").matched.api_call == "yfinance.Ticker({ticker}).dividends"
    )
    assert v.check("youtube.videos().delete(id='abc').execute()").kind == "valid"


@pytest.mark.parametrize(
    ("text", "kinds"),
    [
        ("```python\nimport torch\nm = torch.hub.load('pytorch/vision', 'resnet50')\n```", {"valid"}),
        ("I cannot help with that", {"no_call"}),
        ("f(a=-x)", {"hallucination"}),
        ('requests.post("https://x", headers={"k": "v"})', {"hallucination"}),
        ("torch.hub.load('pytorch/vision', 'resnet50')", {"valid"}),
        ("torch.hub.load(\n    'pytorch/vision',\n    'resnet50',\n)", {"valid"}),
        (
            '[{"name": "torch.hub.load", "arguments": {"repo_or_dir": "pytorch/vision", "model": "resnet50"}}]',  # noqa: E501
            {"valid"},
        ),  # fmt: skip
        ("m = torch.hub.load('pytorch/vision', 'resnet50'", {"unparseable"}),
        ("(" * 5000 + "torch.hub.load('pytorch/vision', 'resnet50')" + ")" * 5000, {"unparseable"}),
        ("a." * 20000 + "b()", {"unparseable"}),  # too deep for Python's AST construction
        ("x" * 1_000_000, {"no_call"}),
        ("print('hi')\n" * 60_000, {"no_call"}),
        ("\x00torch.hub.load('a')\ud800", {"unparseable", "no_call", "wrong_args"}),
    ],
    ids=lambda value: repr(value)[:40] if isinstance(value, str) else None,
)
def test_bad_input_gets_a_verdict(th, text, kinds):
    verdict = th.check(text)
    assert verdict.kind in kinds, verdict


def test_unparseable_reports_line_and_column(th):
    v = th.check("import torch\nm = torch.hub.load('pytorch/vision', 'resnet50'")
    assert v.kind == "unparseable"
    assert any(d.startswith("syntax error at 2:") for d in v.diagnostics)


def test_validate_function_and_empty_pool():
    assert validate("torch.hub.load('a/b', 'c')", []).kind == "hallucination"
    assert validate("", []).kind == "no_call"


def test_nesting_deeper_than_python_allows_is_unparseable(th):
    """CPython's tokenizer stops at 200 nested brackets (MAXLEVEL, "too many nested parentheses")."""
    call = "torch.hub.load('pytorch/vision', 'resnet50')"
    deep = th.check("(" * 100_000 + call + ")" * 100_000)
    assert deep.kind == "unparseable"
    assert deep.diagnostics == ["syntax error at 1:201: nesting deeper than Python's limit of 200"]
    assert th.check("(" * 199 + call + ")" * 199).kind == "valid"  # 199 + the call = 200, as CPython
    assert th.check("(" * 200 + call + ")" * 200).kind == "unparseable"  # 201: ast.parse refuses it too
    line3 = th.check(f"x = 1\n# {'(' * 300}\ny = {'[' * 201}{call}{']' * 201}\n")
    assert line3.kind == "unparseable" and "3:205: nesting deeper" in line3.diagnostics[0]
    quoted = th.check(f"s = '{'(' * 300}'\nm = {call}\n")  # brackets inside strings do not count
    assert quoted.kind == "valid"


@pytest.mark.parametrize(
    ("call", "helper", "model"),
    [
        ("torch.hub.load('NVIDIA/DeepLearningExamples:torchhub', 'nvidia_convnets_processing_utils')",
         "nvidia_convnets_processing_utils", "nvidia_resnet50"),
        ('torch.hub.load("intel-isl/MiDaS", model="transforms")', "transforms", "DPT_Large"),
    ],
)  # fmt: skip
def test_helper_returned_instead_of_model(th, call, helper, model):
    """Gorilla's "helper instead of the model" error: named, and the models whose example uses it first."""
    verdict = th.check(call)
    assert verdict.kind == "wrong_args"
    assert verdict.diagnostics[0].startswith(f"{helper!r} is a pre-processing helper used with ")
    assert verdict.diagnostics[0].endswith(", not a model") and model in verdict.diagnostics[0]
    assert f"model='{model}'" in verdict.matched.api_call
    assert len(verdict.suggestions) == 3
    for suggestion in verdict.suggestions:  # every suggestion is a model whose example_code loads the helper
        doc = next(d for d in th.entries if d.doc.api_call == suggestion).doc
        assert helper in doc.example_code and "tacotron" not in suggestion


def test_invented_model_gets_no_helper_note(th):
    verdict = th.check("torch.hub.load('pytorch/vision', 'resnet-201')")
    assert not any("helper" in d for d in verdict.diagnostics)
