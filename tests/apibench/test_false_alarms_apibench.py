"""Issue 39: `check` does not cry wolf. On the default pool (APIBench hubs + APIZoo + python-env), the
linter (check/lint.py) reports nothing on the standard library's own code, judges only calls that resolve
into the pool through a file's own names, and still finds planted hallucinations."""

from __future__ import annotations

import pytest

from gorilla_tui.check import lint
from gorilla_tui.check.validator import Validator
from gorilla_tui.pool.doc import load_jsonl, load_paths
from gorilla_tui.pool.pyenv.binds import stdlib_root
from gorilla_tui.pool.pyenv.source import load_python_env

HUBS = ("torchhub", "tensorflowhub", "huggingface")
#: Real standard-library files whose calls were false alarms before issue 39 (methods called on their
#: class, names bound by assignment or re-exported from C, local names shadowing modules, guarded code).
STDLIB_FILES = (
    "logging/handlers.py",
    "asyncio/base_events.py",
    "email/utils.py",
    "uuid.py",
    "http/client.py",
    "encodings/utf_8_sig.py",
    "platform.py",
    "tracemalloc.py",
    "locale.py",
    "fnmatch.py",
)


@pytest.fixture(scope="module")
def v(apibench, apizoo):
    docs = [d for h in HUBS for d in load_jsonl(apibench / "api" / f"{h}_api.jsonl", h).docs]
    docs += load_paths([apizoo], "apizoo").docs
    docs += load_python_env("stdlib").docs
    return Validator(docs)


def _findings(v, name: str, text: str) -> list[lint.Finding]:
    return [f for b in lint.blocks(name, text) for f in lint.check_block(v, name, b)]


@pytest.mark.parametrize("rel", STDLIB_FILES)
def test_the_standard_librarys_own_code_has_no_finding(v, rel):
    path = stdlib_root() / rel
    assert _findings(v, str(path), path.read_text(encoding="utf-8")) == []


def test_a_hallucination_planted_in_real_code_is_still_found(v):
    text = (stdlib_root() / "logging" / "handlers.py").read_text(encoding="utf-8")
    planted = text + (
        "\n\nimport torch\nimport json\nfrom transformers import AutoModel\n"
        "m = torch.hub.load('pytorch/vision', 'resnet201')\n"
        "x = torch.load('pytorch/vision')\n"
        "a = AutoModel.from_pretrained('made-up-org/not-a-model-xyz')\n"
        "d = json.laods('{}')\n"
    )
    found = {(f.reason, f.message.split(" ", 1)[0]) for f in _findings(v, "handlers.py", planted)}
    assert ("wrong_args:unknown_model", "model='resnet201'") in found
    assert ("hallucination:wrong_loader", "torch.load") in found
    assert any(r == "wrong_args:unknown_model" and "made-up-org" in m for r, m in found)
    assert ("hallucination:unknown_callee", "json.laods") in found
    assert len(found) == 4


def test_names_python_binds_are_valid_and_judged_calls_keep_their_checks(v):
    for code in (
        "import random\nrandom.random()",
        "import random\nrandom.getrandbits(8)",
        "import threading\nthreading.get_ident()",
        "import logging\nclass H(logging.Handler):\n"
        "    def close(self):\n        logging.Handler.close(self)",
        "import os\nos.path.sep.join(['a', 'b'])",  # a method of a value the module binds (sep: a str)
        # aliases of builtins the stubs bind (break-it round 30: false alarms in pip's vendored urllib3)
        "import socket\nraise socket.error('x')",
        "import socket\nsocket.timeout('x')",
        "import os\nos.error(2, 'x')",
        "import select\nselect.error('x')",
    ):
        assert v.check(code).kind == "valid", code
        assert _findings(v, "x.py", code) == [], code
    assert v.check("import random\nrandom.randomm()").kind == "hallucination"
    assert v.check("import socket\nsocket.eror('x')").kind == "hallucination"  # not an alias
    assert v.check("import logging\nlogging.Handler.closee(1)").kind == "hallucination"  # a pool class
    assert (
        v.check("import shutil\nshutil.copytree('a', 'b', colour=1)").reason == "wrong_args:unknown_keyword"
    )


def test_what_does_not_resolve_into_the_pool_is_not_judged(v):
    code = (
        "from .utils import logging\n"  # huggingface_hub's own module, not the stdlib's
        "from .file_download import hf_hub_download\n"
        "logger = logging.get_logger(__name__)\n"
        "hf_hub_download(repo_id='some/repo')\n"
        "def f(statistics, torch):\n"
        "    statistics.append(1)\n"
        "    torch.load('pytorch/vision')\n"
    )
    skipped: list[str] = []
    assert lint.check_block(v, "pkg/mod.py", lint.Block(code), skipped=skipped) == []
    assert any("relative import" in s and "logging.get_logger" in s for s in skipped)
    assert any("binds itself" in s for s in skipped)
    import_torch = "import torch\ncheckpoint = torch.load(path, map_location='cpu')\n"
    assert _findings(v, "t.py", import_torch) == []  # torch.load is real; the pool covers torch.hub


def test_tool_calls_are_checked_as_calls(v):
    ok = '[{"name": "shutil.copytree", "arguments": {"src": "a", "dst": "b"}}]'
    assert v.check(ok).kind == "valid"
    bad = '{"type": "function", "function": {"name": "shutil.copytree", "arguments": "{\\"src\\": \\"a\\"}"}}'
    assert v.check(bad).reason == "wrong_args:missing_argument"


def test_a_typo_behind_an_alias_is_a_finding(v):
    """Break-it pass 2: `import shutil as sh; sh.copytreee(...)` was no finding (the alias resolved only for
    callees the pool knows), nor `from json import laods`."""
    code = (
        "import shutil as sh\nsh.copytreee('a', 'b')\n"
        "import json as j\nj.laods('x')\n"
        "from os import path as p\np.joinn('a')\n"
        "from json import laods\nlaods('x')\n"
        "sh.copytree('a', 'b')\np.join('a', 'b')\n"
    )
    found = sorted((f.reason, f.message.split(" ", 1)[0]) for f in _findings(v, "a.py", code))
    unknown = "hallucination:unknown_callee"
    assert found == [(unknown, "json.laods"), (unknown, "json.laods"), (unknown, "os.path.joinn"),
                     (unknown, "shutil.copytreee")]  # fmt: skip
