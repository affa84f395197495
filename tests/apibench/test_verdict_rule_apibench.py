"""APIBench tier of tests/unit/test_verdict_rule.py: Issue 15, `valid` must mean it: the verdict rule on the
default pool (APIBench hubs + APIZoo + python-env).

Every case of the issue with inputs of the same kinds: incidental calls never mask an invalid API call, calls
passed as values are checked, Python's parser is the last gate, calls inside sentences are found, repaired
pool entries match, every non-valid verdict has a reason code."""

from __future__ import annotations

import json

import pytest

from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main
from gorilla_tui.pool.doc import load_jsonl, load_paths
from gorilla_tui.types import REASONS, VERDICTS

HUBS = ("torchhub", "tensorflowhub", "huggingface")


@pytest.fixture(scope="module")
def pool(apibench, apizoo, stdlib_docs):
    docs = [d for h in HUBS for d in load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs]
    docs += load_paths([apizoo], "apizoo").docs
    docs += stdlib_docs
    return docs


@pytest.fixture(scope="module")
def v(pool):
    return Validator(pool)


BAD_TH = 'torch.hub.load("pytorch/vision", "resnet-152x")'


BAD_HF = "AutoModel.from_pretrained('bert-base-uncasedd')"


BAD_TF = "hub.KerasLayer('https://tfhub.dev/google/imagenet/mobilenet_v2_100_224/classification/9')"


@pytest.mark.parametrize("bad", [BAD_TH, BAD_HF, BAD_TF])
@pytest.mark.parametrize(
    "around",
    [
        "{x}\nprint(model)",
        "import json\n{x}\ndata = json.loads('{{}}')",
        "import os\nos.makedirs('cache', exist_ok=True)\n{x}",
        "import time\nt0 = time.time()\n{x}\nmodel.eval()",
        "import logging\nlogging.info('start')\n{x}\nprint(model)",
    ],
)
def test_incidental_and_python_env_calls_never_mask_an_invalid_call(v, bad, around):
    code = around.format(x=f"model = {bad}")
    verdict = v.check(code)
    assert verdict.kind == "wrong_args", verdict
    assert verdict.api_call == bad
    assert verdict.reason.startswith("wrong_args:")
    roles = {c.callee: c.role for c in verdict.calls}
    assert "python-env" in roles.values()  # print / json / os / time / logging matched python-env...
    assert any(c.kind == "valid" and c.role == "python-env" for c in verdict.calls)  # ...and stayed valid


def test_masking_case_of_the_issue_with_its_did_you_mean(v):
    verdict = v.check('import torch\nmodel = torch.hub.load("pytorch/vision", "resnet-201")\nprint(model)')
    assert verdict.kind == "wrong_args" and verdict.reason == "wrong_args:unknown_model"
    assert "model='resnet101'" in verdict.suggestions[0]


def test_valid_call_with_incidental_calls_stays_valid(v):
    code = (
        "import json, os, torch\nos.makedirs('out', exist_ok=True)\n"
        "model = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\nmodel.eval()\n"
        "x = torch.randn(1, 3, 224, 224)\nprint(json.dumps({'ok': True}))"
    )
    verdict = v.check(code)
    assert verdict.kind == "valid" and verdict.matched.source == "torchhub", verdict
    assert verdict.reason == ""
    roles = {c.callee: c.role for c in verdict.calls}
    assert roles["torch.hub.load"] == "pool" and roles["model.eval"] == "incidental"
    assert roles["json.dumps"] == "python-env" and roles["torch.randn"] == "other"


@pytest.mark.parametrize(
    "code",
    [
        "import functools\nload = functools.partial(torch.hub.load, 'pytorch/vision', 'resnet-201')",
        "from functools import partial\nload = partial(torch.hub.load, 'pytorch/vision', model='resnet-201')",
        "from concurrent.futures import ThreadPoolExecutor\nwith ThreadPoolExecutor() as ex:\n"
        "    fut = ex.submit(torch.hub.load, 'pytorch/vision', 'resnet-201')\n    print(fut.result())",
        "import asyncio\nasync def main():\n"
        "    return await asyncio.to_thread(torch.hub.load, 'pytorch/vision', 'resnet-201')",
        "models = list(map(AutoModel.from_pretrained, ['bert-base-uncasedd']))",
        "import threading\n"
        "t = threading.Thread(target=torch.hub.load, args=('pytorch/vision', 'resnet-201'))",
    ],
)
def test_calls_passed_as_values_are_checked_as_calls_of_f(v, code):
    verdict = v.check(code)
    assert verdict.kind == "wrong_args", verdict
    via = [c for c in verdict.calls if c.via]
    assert via and via[0].kind == "wrong_args" and via[0].role == "pool"


def test_wrapper_with_valid_arguments_is_valid(v):
    code = "import functools\nload = functools.partial(torch.hub.load, 'pytorch/vision', 'resnet50')"
    assert v.check(code).kind == "valid"


@pytest.mark.parametrize(
    ("call", "reason"),
    [
        ("torch.load('pytorch/vision', 'resnet50')", "hallucination:wrong_loader"),
        ("torch.load('yolov5s.pt')", "hallucination:unknown_callee"),
        ("torch.hub.lod('checkpoint.pt')", "hallucination:unknown_callee"),
    ],
)
def test_wrong_loader_beside_print_is_a_hallucination(v, call, reason):
    verdict = v.check(f"import torch\nmodel = {call}\nprint(model)")
    assert verdict.kind == "hallucination" and verdict.reason == reason, verdict


def test_did_you_mean_comes_from_the_same_module_first(v):
    verdict = v.check("import torch\nmodel = torch.load('checkpoint.pt')")
    assert verdict.suggestions[0] == "torch.hub.load"
    assert "ast.Load" not in verdict.suggestions


@pytest.mark.parametrize(
    ("code", "where", "message"),
    [
        ("def load():\nreturn torch.hub.load('pytorch/vision', 'resnet50')", "2:1", "expected an indented"),
        ("model = torch.hub.load('pytorch/vision', 'resnet50')\nprint 'loaded', model", "2:1", "parentheses"),
        ("exec 'x = 1'\nmodel = torch.hub.load('pytorch/vision', 'resnet50')", "1:1", "parentheses"),
        ("import torch\nm = torch.hub.load('pytorch/vision', 'resnet50'\nm.eval()", "2:19", "never closed"),
        ("pipeline('text-to-image', model=acme/vision-v1.4)", "1:", "invalid"),
    ],
)
def test_python_refuses_what_tree_sitter_accepts(v, code, where, message):
    verdict = v.check(code)
    assert verdict.kind == "unparseable", verdict
    assert verdict.reason == "unparseable:python_syntax"
    assert verdict.diagnostics[0].startswith(f"syntax error at {where}")
    assert message in verdict.diagnostics[0]


def test_unquoted_model_id_that_python_reads_as_arithmetic_is_not_valid(v):
    verdict = v.check("pipe = StableDiffusionPipeline.from_pretrained(runwayml/stable-diffusion-v1-5)")
    assert verdict.kind == "wrong_args" and verdict.reason == "wrong_args:unquoted_id", verdict
    assert "not quoted" in verdict.diagnostics[0]
    quoted = v.check("pipe = StableDiffusionPipeline.from_pretrained('runwayml/stable-diffusion-v1-5')")
    assert quoted.kind == "valid"


def test_broken_code_is_not_valid_through_its_parseable_lines(v):
    text = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50')\nif model:\nmodel.eval()"
    verdict = v.check(text)
    assert verdict.kind == "unparseable" and "expected an indented block" in verdict.diagnostics[0]


def test_unparseable_position_is_pythons_for_a_missing_parenthesis(v):
    verdict = v.check('m = torch.hub.load("pytorch/vision", "resnet50"')
    assert verdict.diagnostics == ["syntax error at 1:19: '(' was never closed"]


@pytest.mark.parametrize(
    ("text", "kind"),
    [
        (
            "Sure! Load it with model = torch.hub.load('pytorch/vision', 'resnet50') and then call "
            "model.eval().",
            "valid",
        ),
        ("You can use pipeline('ner', model='dslim/bert-base-NER-uncased') for that.", "no_call"),
        ("Try ner = pipeline('ner', model='dslim/bert-base-NER-uncased'), it works well.", "valid"),
        ("I'd call AutoModel.from_pretrained('bert-base-uncasedd') (note the quotes).", "wrong_args"),
    ],
)
def test_calls_inside_sentences_are_found(v, text, kind):
    assert v.check(text).kind == kind


def test_repaired_pool_entries_match_and_keep_their_original(pool, v):
    meal = [d for d in pool if "MEAL-V2" in d.api_call]
    assert len(meal) == 7 and all(d.flagged and d.repaired for d in meal)
    variants = set()
    for doc in meal:
        assert "repo_or_dir=" in doc.api_call  # the original stays as it was (doc view, --metric gorilla)
        verdict = v.check(f"import torch\nmodel = {doc.repaired}\nmodel.eval()")
        assert verdict.kind == "valid" and verdict.matched.id == doc.id, (doc.id, verdict)
        variants.add(doc.repaired)
    assert len(variants) == 7  # each keeps its own variant, not the example's mealv2_resnest50_cutmix
    assert v.check(meal[0].api_call).kind == "unparseable"  # positional after keyword: Python refuses it


def test_every_non_valid_verdict_has_a_reason_code(v):
    texts = [
        BAD_TH,
        "torch.load('pytorch/vision', 'resnet50')",
        "torch.hub.load('NVIDIA/DeepLearningExamples:torchhub', 'nvidia_convnets_processing_utils')",
        "def f(:\n  pass",
        "(" * 300 + ")" * 300,
        "no code here at all",
        "x = 1\nmodel.eval()",
        "GET /api/v9/unicorns",
        "PATCH /api/v1/namespaces/default/services",
        "foo.bar.baz(1)",
    ]
    seen = set()
    for text in texts:
        verdict = v.check(text)
        assert verdict.kind in VERDICTS
        assert verdict.reason in REASONS, (text, verdict)
        assert verdict.reason.split(":")[0] == verdict.kind
        seen.add(verdict.reason)
    assert {"wrong_args:helper_as_model", "hallucination:wrong_loader", "unparseable:python_syntax"} <= seen


def test_check_json_lists_each_call_with_its_verdict(pool, tmp_path, capsys):
    path = tmp_path / "pool.jsonl"
    path.write_text("\n".join(json.dumps({"api_call": d.api_call, "domain": d.domain}) for d in pool[:94]))
    code = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet-201')\nmodel.eval()"
    status = main(["check", "--json", "--pool", str(path), code])
    out = json.loads(capsys.readouterr().out)
    assert status == 1
    assert out["verdict"] == "wrong_args" and out["reason"] == "wrong_args:unknown_model"
    calls = {c["callee"]: c for c in out["calls"]}
    assert calls["torch.hub.load"]["verdict"] == "wrong_args" and calls["torch.hub.load"]["line"] == 2
    assert calls["model.eval"]["role"] == "incidental"


@pytest.mark.parametrize(
    "code",
    [
        "import json, functools\ndump = functools.partial(json.dumps, indent=2)",  # the rest comes later
        "lines = ['a ']\nclean = list(map(str.strip, lines))",
        "import threading\ndef worker():\n    pass\nt = threading.Thread(target=worker)\nt.start()",
        "import os\nfor root, dirs, files in os.walk('.'):\n    print(root)",
    ],
)
def test_python_env_code_with_wrappers_and_local_functions_is_valid(v, code):
    verdict = v.check(code)
    assert verdict.kind == "valid", verdict


def test_a_near_miss_of_a_python_env_function_is_a_hallucination(v):
    verdict = v.check("import json\nx = json.loadz('{}')\nprint(x)")
    assert verdict.kind == "hallucination" and verdict.api_call == "json.loadz('{}')"
    assert verdict.suggestions[:2] == ["json.load", "json.loads"]


# Hostile-input pass after issue 15 (breakit1): ordinary correct code that was not valid, and indirect
# calls of a pool API that hid an invented model.
@pytest.mark.parametrize(
    "code",
    [
        # the pipeline object called by the name the code gave it (the HF pool has a bare `classifier(...)`)
        "from transformers import pipeline\nclassifier = pipeline('sentiment-analysis')\n"
        "print(classifier('I love this'))",
        # methods of names bound by with/for/except/parameters are methods of local objects
        "with open('notes.txt', encoding='utf-8') as f:\n    text = f.read()\nprint(len(text.split()))",
        "import zipfile\nwith zipfile.ZipFile('a.zip') as z:\n    z.extractall('out')",
        "import os\nfor entry in os.scandir('.'):\n    print(entry.name, entry.is_file())",
        "import json\ntry:\n    json.loads('{')\nexcept ValueError as err:\n    print(err.args)",
        "import torch\ndef predict(model, x):\n    return model.forward(x)\n"
        "net = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\nprint(predict(net, 1))",
    ],
)
def test_methods_of_local_names_and_called_local_objects_are_incidental(v, code):
    verdict = v.check(code)
    assert verdict.kind == "valid", verdict


@pytest.mark.parametrize(
    "code",
    [
        "import torch\nload = torch.hub.load\nmodel = load('pytorch/vision', 'resnet-152x')",
        "import torch\nf = torch.hub.load\nok = torch.hub.load('pytorch/vision', 'resnet50')\n"
        "model = f('pytorch/vision', 'resnet-152x')",
        "import torch\nhub = torch.hub\nmodel = hub.load('pytorch/vision', 'resnet-152x')",
        "import torch\nmodel = getattr(torch.hub, 'load')('pytorch/vision', 'resnet-152x')",
    ],
)
def test_aliases_and_getattr_of_a_pool_api_are_checked_as_that_api(v, code):
    verdict = v.check(code)
    assert verdict.kind == "wrong_args", verdict
    assert verdict.reason == "wrong_args:unknown_model"
    assert any(c.callee == "torch.hub.load" and c.kind == "wrong_args" for c in verdict.calls)


def test_alias_of_a_pool_api_with_a_pool_model_is_valid(v):
    verdict = v.check("import torch\nload = torch.hub.load\nmodel = load('pytorch/vision', 'resnet50')")
    assert verdict.kind == "valid", verdict
    assert verdict.matched is not None and "resnet50" in verdict.matched.api_call


def test_a_local_function_named_like_a_bare_pool_callee_is_still_checked(v):
    # bench/false_valid's wrapper snippet: `load` is not made by a pool API, so load(...) is checked
    code = "import functools\nload = functools.partial(lambda: None)\nm = load('path_to_folderx/m.joblib')"
    assert v.check(code).kind != "valid"


def test_bytes_never_equal_the_string_a_pool_api_takes(v):
    verdict = v.check("import torch\nmodel = torch.hub.load(b'pytorch/vision', b'resnet50', pretrained=True)")
    assert verdict.kind == "wrong_args", verdict


@pytest.mark.parametrize(
    "code, where",
    [
        ('print("x")\n\x1b[2Jfoo(', "2:1"),
        (
            "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50')\n"
            "\x1b[8mimport os; os.system('rm -rf ~')",
            "3:1",
        ),
        ("import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50')\n\x07x = 1", "3:1"),
    ],
)
def test_a_line_with_a_control_character_is_never_dropped_as_prose(v, code, where):
    verdict = v.check(code)
    assert verdict.kind == "unparseable", verdict
    assert verdict.reason == "unparseable:python_syntax"
    assert f"at {where}: invalid non-printable character" in verdict.diagnostics[0]


def test_a_line_of_only_brackets_is_code_not_prose(v):
    code = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\n}}}"
    verdict = v.check(code)
    assert verdict.kind == "unparseable", verdict
