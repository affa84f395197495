"""Issue 19, the first answer: an ask checks through the lookup saved with the index (LookupChecker), with
the verdicts of a Validator over the whole pool; a cold CLI `ask` ends as soon as its answer is printed and
saved (cli.EXIT_NOW), with its history row written."""

from __future__ import annotations

import json
import shutil
import subprocess

import pytest

from gorilla_tui import services
from gorilla_tui.check.lookup import LOOKUP_DIR, LookupChecker
from gorilla_tui.check.validator import Validator
from gorilla_tui.config import Settings
from gorilla_tui.history import History
from gorilla_tui.model.scripted import ScriptedBackend
from gorilla_tui.retrieve.index import ApiIndex

#: Texts an ask checks: a pool call as the model writes it, the doc's example code, a model the repo does
#: not have, a callee the pool does not have, prose without a call, and a call outside the Torch Hub pool.
TEXTS = [
    "torch.hub.load(repo_or_dir='facebookresearch/pytorchvideo', model='slowfast_r50', pretrained=True)",
    "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\nmodel.eval()",
    "torch.hub.load('pytorch/vision', 'resnet999', pretrained=True)",
    "torch.hub.fetch_model('pytorch/vision', 'resnet50')",
    "I would use a video classifier for that.",
    "import json\njson.loads('{}')",
]


@pytest.fixture
def indexed(home_with_index) -> ApiIndex:
    return ApiIndex.load()


@pytest.mark.model
def test_lookup_checker_gives_the_verdicts_of_the_whole_pool(indexed):
    checker = services.build_checker(indexed)
    assert isinstance(checker, LookupChecker)
    whole = Validator(indexed.pool())
    kinds = set()
    for text in TEXTS:
        got, want = checker.check(text), whole.check(text)
        assert got.to_dict() == want.to_dict(), text
        assert checker.check_code(text).to_dict() == whole.check_code(text).to_dict(), text
        kinds.add(got.kind)
    assert {"valid", "wrong_args", "hallucination", "no_call"} <= kinds  # the texts cover the verdicts
    assert checker._whole is None  # every verdict came from the lookup, none from a whole-pool build


@pytest.mark.model
def test_lookup_checker_falls_back_to_the_whole_pool_without_a_lookup(indexed):
    shutil.rmtree(indexed.path / LOOKUP_DIR)  # an index refreshed before the lookup existed
    checker = LookupChecker(indexed.path, None, lambda: Validator(indexed.pool()))
    assert checker.check(TEXTS[2]).to_dict() == Validator(indexed.pool()).check(TEXTS[2]).to_dict()
    assert checker._whole is not None
    hub = LookupChecker(indexed.path, "torchhub", lambda: Validator(indexed.pool("torchhub")))
    assert hub.check(TEXTS[0]).kind == "valid"


@pytest.mark.model
def test_an_ask_through_the_lookup_has_the_proposal_of_the_whole_pool(indexed):
    settings = Settings(mode="generate", k=5)
    task = "classify the sports activities in a video"
    kinds = []
    for answer in (f" <<<api_call>>>: {TEXTS[0]}\n<<<code>>>: {TEXTS[1]}", f" <<<api_call>>>: {TEXTS[2]}"):
        fast = services.build_pipeline(
            settings, indexed, ScriptedBackend([answer]), validator=services.build_checker(indexed)
        ).ask(task)
        slow = services.build_pipeline(
            settings, indexed, ScriptedBackend([answer]), validator=Validator(indexed.pool())
        ).ask(task)
        assert fast.verdict.to_dict() == slow.verdict.to_dict()
        assert (fast.api_call, fast.code) == (slow.api_call, slow.code)
        kinds.append(fast.verdict.kind)
    assert kinds == ["valid", "wrong_args"]


@pytest.mark.model
def test_cold_ask_exits_at_once_with_its_answer_and_history_saved(home_with_index, gorilla_cmd):
    task = "classify the sports activities in a video"
    done = subprocess.run([*gorilla_cmd, "ask", task, "--json"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr
    answer = json.loads(done.stdout)  # the whole JSON document is out before os._exit
    assert answer["verdict"]["verdict"] == "valid" and answer["startup"]["validator_build"] < 0.5
    saved = History().search(task)
    assert [e.task for e in saved] == [task]
    assert saved[0].proposal["api_call"] == answer["api_call"]
