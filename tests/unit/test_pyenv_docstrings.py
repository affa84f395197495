"""Descriptions of python-env docs whose own def has no docstring (issue 38), on the running Python's real
standard library: the text is found as inspect.getdoc finds it, statically (pool/pyenv/names.py, resolve.py,
compiled.py), and checked against what the interpreter itself says."""

from __future__ import annotations

import inspect
import pickle

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.module_api import first_paragraph
from gorilla_tui.pool.pyenv.source import load_python_env


@pytest.fixture(scope="module")
def stdlib() -> dict[str, ApiDoc]:
    return {d.api_name: d for d in load_python_env("stdlib").docs}


def test_a_python_fallback_def_reads_its_compiled_twins_docstring(stdlib) -> None:
    """pickle.py binds ``load = _load`` (a def without a docstring) only when ``from _pickle import load``
    fails; CPython runs _pickle.load, whose docstring is the description now (it was empty)."""
    for name in ("load", "loads", "dump", "dumps"):
        d = stdlib[f"pickle.{name}"]
        assert d.description == first_paragraph(inspect.getdoc(getattr(pickle, name))), name
    assert stdlib["pickle.load"].description.startswith("Read and return an object from the pickle data")
    assert stdlib["pickle.load"].api_arguments["file"] == "required"  # the Python def's signature kept
    assert stdlib["pickle.Unpickler.find_class"].description.startswith("Return an object from")
    assert stdlib["datetime.datetime.astimezone"].description  # _datetime.datetime's


def test_methods_the_compiled_twin_lacks_are_no_docs(stdlib) -> None:
    """pickle.Pickler is _pickle.Pickler in CPython: the fallback class's save_tuple / load_tuple1 are
    attributes of no class the interpreter binds; persistent_id (a getset of the C class) stays."""
    assert "pickle.Pickler.save_tuple" not in stdlib and not hasattr(pickle.Pickler, "save_tuple")
    assert "pickle.Unpickler.load_tuple1" not in stdlib and not hasattr(pickle.Unpickler, "load_tuple1")
    for name in ("Pickler.dump", "Pickler.clear_memo", "Pickler.persistent_id", "Unpickler.load"):
        assert f"pickle.{name}" in stdlib, name


def test_a_method_without_a_docstring_inherits_its_bases(stdlib) -> None:
    """inspect.getdoc's rule, read statically along the bases: a Python override
    (NodeTransformer.generic_visit <- NodeVisitor's), a base named through a submodule
    (``events.AbstractServer``) or an alias (``futures._PyFuture``), a builtin base (Counter <- dict), and
    a compiled class's method (io.BufferedRWPair.close <- _io._IOBase.close)."""
    import ast
    import collections
    import io

    cases = {
        "ast.NodeTransformer.generic_visit": ast.NodeTransformer.generic_visit,
        "collections.Counter.fromkeys": collections.Counter.fromkeys,
        "io.BufferedRWPair.close": io.BufferedRWPair.close,
    }
    for name, obj in cases.items():
        assert stdlib[name].description == first_paragraph(inspect.getdoc(obj)), name
    assert stdlib["asyncio.BaseEventLoop.connect_read_pipe"].description.startswith("Register read pipe")
    assert stdlib["asyncio.Task.set_result"].description.startswith("Mark the future done")
    assert stdlib["sys.stdout.write"].description.startswith("Write string to stream")


def test_a_class_without_a_docstring_reads_its_bases_but_not_a_builtins(stdlib) -> None:
    """asyncio.Server's docstring is AbstractServer's; zipfile.BadZipFile(Exception) gets no
    "Common base class for all non-exit exceptions." (the builtin's text says nothing of it)."""
    assert stdlib["asyncio.Server"].description == "Abstract server returned by create_server()."
    assert stdlib["zipfile.BadZipFile"].description == ""


def test_a_borrowed_docstring_loses_its_c_signature_line_only_when_more_follows(stdlib) -> None:
    """ssl.SSLSocket.send takes _socket.socket.send's text without "send(data[, flags]) -> count";
    ChainMap.get keeps Mapping.get's one line, which is all it says."""
    assert stdlib["ssl.SSLSocket.send"].description.startswith("Send a data string to the socket.")
    assert stdlib["collections.ChainMap.get"].description.startswith("D.get(k[,d]) -> D[k] if k in D")


def test_turtle_functions_made_from_methods_at_import(stdlib) -> None:
    """turtle.py execs ``def forward(distance): ...`` for each name of _tg_turtle_functions and
    _tg_screen_functions from Turtle's and _Screen's methods: each is a function with the method's
    parameters and docstring (they were bare "compiled callable" docs with neither)."""
    import turtle

    d = stdlib["turtle.forward"]
    assert d.functionality == "function in turtle" and d.api_call == "turtle.forward(distance)"
    assert d.description.startswith("Move the turtle forward by the specified distance")
    assert list(inspect.signature(turtle.forward).parameters) == ["distance"]
    assert stdlib["turtle.bgcolor"].description.startswith("Set or return backgroundcolor")
    assert stdlib["turtle.done"].description.startswith("Starts event loop")  # done = mainloop


def test_a_one_line_c_docstring_keeps_its_text_after_the_signature(stdlib) -> None:
    """faulthandler.enable's whole docstring is "enable(file=sys.stderr, all_threads=True): enable the
    fault handler"; the part after the colon is its description."""
    assert stdlib["faulthandler.enable"].description == "enable the fault handler"
    assert stdlib["faulthandler.is_enabled"].description == "check if the handler is enabled"
    assert stdlib["cmath.log"].description.startswith("If the base is not specified")  # unchanged


def test_a_base_named_through_a_submodule_gives_its_constructor(stdlib) -> None:
    """A base written ``module.Class`` where the module is bound by ``from PACKAGE import module``
    (email/mime/base.py: ``from email import message`` and ``class MIMEBase(message.Message)``; asyncio's
    ``events.AbstractEventLoop``): the __init__ a class inherits is found through it, so
    MIMENonMultipart's parameters are its runtime signature's (they were unknown: {})."""
    import email.mime.nonmultipart
    import inspect as _inspect

    d = stdlib["email.mime.nonmultipart.MIMENonMultipart"]
    runtime = _inspect.signature(email.mime.nonmultipart.MIMENonMultipart).parameters
    assert [k for k in d.api_arguments if k not in ("*",)] == [
        ("**" if p.kind == p.VAR_KEYWORD else "") + p.name for p in runtime.values()
    ]
    assert stdlib["asyncio.SelectorEventLoop"].api_arguments == {"selector": "None"}
