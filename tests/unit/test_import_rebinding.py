"""Import aliases of a name the code binds another way too (break-it pass): `import torch as t`, then
`t = something_else`, then `t.hub.load(...)` was judged as torch.hub.load. Such a name is ambiguous and
not resolved through the import (check/imports.py import_aliases); real tree-sitter, the real Validator
over the small pool (tests/data/pool)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.check.imports import import_aliases
from gorilla_tui.check.validator import Validator
from gorilla_tui.cli import main
from gorilla_tui.pool.doc import load_file

POOL = Path(__file__).resolve().parents[1] / "data" / "pool"
IMPORT = "import torch as t\nfrom json import loads\n"


@pytest.mark.parametrize(
    "rebinding",
    [
        "t = load_other()",
        "t: object = load_other()",
        "a = t = load_other()",
        "t, b = pair()",
        "t += 1",
        "for t in things:\n    pass",
        "with open(p) as t:\n    pass",
        "with open(p) as (a, t):\n    pass",
        "try:\n    pass\nexcept OSError as t:\n    pass",
        "def t():\n    pass",
        "@decorator\ndef t():\n    pass",
        "class t:\n    pass",
        "if ready:\n    t = load_other()",
    ],
)
def test_a_name_bound_another_way_is_not_resolved(rebinding):
    for code in (IMPORT + rebinding, rebinding + "\n" + IMPORT):  # before or after the import alike
        assert import_aliases(code) == {"loads": "json.loads"}, code


@pytest.mark.parametrize(
    "other",
    [
        "t.x = 1",  # an attribute of the module: no name bound
        "t.hub.cache[k] = 1",
        "x = t.hub.load('pytorch/vision', 'resnet50')",
        # class attributes and methods are no module names
        "class C:\n    t = 1\n    def loads(self):\n        pass",
        "import torch as t",  # imported again: still the import
        "def f(x):\n    return t.hub.load(x)",
        # a function's own names are local to it (check/scopes.py says which calls they shadow)
        "def f(t):\n    return t",
        "def f(a, t=1):\n    return t",
        "def f():\n    t = load_other()",
        "def f():\n    for t in things:\n        pass",
    ],
)
def test_other_statements_keep_the_import(other):
    assert import_aliases(IMPORT + other) == {"t": "torch", "loads": "json.loads"}


@pytest.fixture(scope="module")
def validator() -> Validator:
    docs = load_file(str(POOL / "torchhub_api.jsonl"), "torchhub").docs
    return Validator(docs + load_file(str(POOL / "python_env.jsonl"), "python-env").docs)


def test_a_call_through_a_rebound_alias_is_not_judged_as_the_library(validator):
    wrong = "t.hub.load('pytorch/vision', 'resnet-201')"
    imported = validator.check_code(f"import torch as t\n{wrong}\n")
    assert imported.reason == "wrong_args:unknown_model"  # the alias still resolves when not rebound
    assert [c.callee for c in imported.calls] == ["torch.hub.load"]
    rebound = validator.check_code(f"import torch as t\nt = load_other()\n{wrong}\n")
    assert [(c.callee, c.role) for c in rebound.calls] == [
        ("load_other", "other"),
        ("t.hub.load", "incidental"),
    ]
    assert rebound.kind != "wrong_args"
    loads = validator.check_code("from json import loads\nloads()\n")
    assert loads.reason == "wrong_args:missing_argument"
    own = validator.check_code("from json import loads\ndef loads(*a):\n    pass\nloads()\n")
    assert all(c.callee != "json.loads" for c in own.calls)


def test_the_linter_does_not_report_a_rebound_alias(tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    pool = str(POOL / "torchhub_api.jsonl")
    wrong = "m = t.hub.load('pytorch/vision', 'resnet-201')\n"
    Path("imported.py").write_text("import torch as t\n" + wrong)
    Path("rebound.py").write_text("import torch as t\nfor t in hubs():\n    " + wrong)
    assert main(["check", "imported.py", "rebound.py", "--pool", pool, "--format", "json"]) == 1
    found = json.loads(capsys.readouterr().out)
    assert [(f["path"], f["line"], f["reason"]) for f in found] == [
        ("imported.py", 2, "wrong_args:unknown_model")
    ]
