"""check/scope.py (what a callee of a file is, through its own names) and pool/pyenv/binds.py (what a
standard-library module binds, read from the running interpreter's own source) on real code (issue 39)."""

from __future__ import annotations

import logging
import random
import threading

import pytest

from gorilla_tui.check.callsite import scan
from gorilla_tui.check.scope import bindings, resolve
from gorilla_tui.pool.pyenv.binds import module_binds, module_file, split_callee, stdlib_root

HF_STYLE = """\
from .utils import logging
from . import constants
import numpy as np
from transformers import pipeline
from json import loads as parse
try:
    from typing import TypeVar
except ImportError:
    from typing_extensions import TypeVar

logger = logging.get_logger(__name__)
T = TypeVar("T", default=int)

def fetch(queue, url):
    queue.put(url)
    return np.array(parse(url))

class Api:
    def load(self):
        return self.hf_hub_download()
"""


def _resolved(code: str) -> dict[str, str | None]:
    found = scan(code)
    names = bindings(code, found.assigned)
    return {c.callee: resolve(c.callee, names)[0] for c in found.calls}


def test_a_packages_own_modules_locals_and_methods_do_not_resolve_into_the_pool():
    got = _resolved(HF_STYLE)
    assert got["logging.get_logger"] is None  # huggingface_hub's own utils.logging, not the stdlib's
    assert got["queue.put"] is None  # a parameter named like the stdlib module
    assert got["self.hf_hub_download"] is None  # a method
    assert got["TypeVar"] is None  # imported from two places: which one runs is not known
    assert got["np.array"] == "numpy.array"
    assert got["parse"] == "json.loads"


def test_a_snippet_without_imports_keeps_its_callees_and_a_star_import_hides_free_names():
    assert _resolved("torch.hub.load('pytorch/vision', 'resnet50')") == {"torch.hub.load": "torch.hub.load"}
    assert _resolved("from tkinter import *\nTk()") == {"Tk": None}
    assert _resolved("print(1)") == {"print": "print"}


@pytest.mark.parametrize(
    ("module", "name"),
    [
        ("random", "random"),  # random = _inst.random
        ("random", "getrandbits"),
        ("threading", "get_ident"),  # from _thread
        ("linecache", "getlines"),  # public, not in __all__
        ("os.path", "join"),  # posixpath, names from genericpath's star import too
        ("os.path", "exists"),
        ("tkinter", "TclError"),
        ("email.message", "Message"),
    ],
)
def test_module_binds_what_the_running_interpreter_has(module, name):
    assert module_binds(module, name) is True
    mod = {"random": random, "threading": threading}.get(module)
    if mod is not None:  # the interpreter agrees
        assert callable(getattr(mod, name))


@pytest.mark.parametrize(
    ("module", "name"), [("json", "laods"), ("os.path", "joinn"), ("asyncio", "gatherr")]
)
def test_module_binds_refuses_made_up_names(module, name):
    assert module_binds(module, name) is False


def test_compiled_modules_and_compiled_star_imports_are_unknown():
    assert module_file("math") is None and module_binds("math", "sqrt") is None
    assert module_binds("codecs", "utf_8_decode") is None  # from _codecs import *


def test_split_callee_takes_the_longest_module_with_source():
    assert split_callee("logging.Handler.close") == ("logging", ["Handler", "close"])
    assert split_callee("os.path.join") == ("os.path", ["join"])
    assert split_callee("email.message.Message") == ("email.message", ["Message"])
    assert split_callee("torch.hub.load") is None
    assert str(module_file("logging")).startswith(str(stdlib_root()))
    assert logging.Handler.close  # the method exists: a call on its class is real code
