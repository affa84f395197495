"""Methods a public class inherits from a base that has no doc of its own (pool/pyenv/resolve.py
Resolver.private_methods, pool/pyenv/names.py _Builder.klass; issue 38): argparse's ``ArgumentParser``
inherits ``add_argument`` from ``_ActionsContainer`` and matplotlib's ``Axes`` ``invert_yaxis`` from
``_AxesBase``; neither was a doc, so "add a command line option" could not find add_argument and the CoNaLa
intent "reverse y-axis in pyplot" had no doc of its answer. Checked on the real standard library and on the
real matplotlib (when installed) through the project's own loader, and on small modules through the real
module reader."""

from __future__ import annotations

import importlib.util

import pytest

from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.pool.pyenv.module_api import read_module
from gorilla_tui.pool.pyenv.resolve import Resolver
from gorilla_tui.pool.pyenv.source import load_python_env


@pytest.fixture(scope="module")
def stdlib(stdlib_docs) -> dict[str, ApiDoc]:
    return {d.api_name: d for d in stdlib_docs}


def test_argparse_add_argument_is_a_doc_of_argument_parser(stdlib):
    doc = stdlib["argparse.ArgumentParser.add_argument"]
    # called on an instance, as the class's own methods are
    assert doc.call.startswith("argparse.ArgumentParser(")
    assert ".add_argument(" in doc.call
    assert "argparse.ArgumentParser.add_mutually_exclusive_group" in stdlib
    # the private base itself stays out of the pool
    assert not any("_ActionsContainer" in name for name in stdlib)


def test_a_public_bases_methods_are_not_copied_onto_its_subclasses(stdlib):
    # io.IOBase's methods (read from _pyio's private _IOBase... or the C twin) are IOBase's docs; the public
    # subclass io.RawIOBase does not get a second doc of each
    assert "io.IOBase.readlines" in stdlib
    assert "io.RawIOBase.readlines" not in stdlib
    assert "io.TextIOBase.readlines" not in stdlib


def test_email_message_attachments_are_docs(stdlib):
    # EmailMessage(MIMEPart): MIMEPart is not in email.message's __all__, so it has no doc of its own
    assert "email.message.EmailMessage.add_attachment" in stdlib
    assert "email.message.EmailMessage.get_body" in stdlib
    assert "email.message.MIMEPart.add_attachment" not in stdlib


SOURCE = """
__all__ = ["Shown", "Child", "Grandchild"]

class _Hidden:
    def hidden_method(self):
        "Does the hidden thing."
    def overridden(self):
        "The base's."
    def _private(self):
        pass

class Shown(_Hidden):
    def overridden(self):
        pass

class Child(Shown):
    pass

class Grandchild(_Hidden, Child):
    pass
"""


def test_private_methods_on_a_small_module():
    info = read_module(SOURCE.encode(), "m")
    resolver = Resolver({"m": info})
    shown = {("m", "Shown"), ("m", "Child"), ("m", "Grandchild")}
    got = [m.name for _, _, m in resolver.private_methods("m", info.defs["Shown"], shown)]
    assert got == ["hidden_method"]  # the override and the underscore name stay out
    assert resolver.private_methods("m", info.defs["Child"], shown) == []  # Shown's already
    # a base a shown base also inherits from is that base's, whatever order the bases are written in
    assert resolver.private_methods("m", info.defs["Grandchild"], shown) == []
    # a class that is not shown is no owner: its subclass takes the methods
    assert [m.name for _, _, m in resolver.private_methods("m", info.defs["Child"], {("m", "Child")})] == [
        "overridden",
        "hidden_method",
    ]


@pytest.mark.skipif(importlib.util.find_spec("matplotlib") is None, reason="matplotlib not installed")
def test_matplotlib_axes_gets_axes_base_methods_once():
    docs = {d.api_name: d for d in load_python_env("matplotlib").docs}
    for name in ("invert_yaxis", "invert_xaxis", "set_xlim", "grid"):
        assert f"matplotlib.axes.Axes.{name}" in docs
    assert "nvert" in docs["matplotlib.axes.Axes.invert_yaxis"].description
    # PolarAxes(Axes): _AxesBase's methods are Axes's docs, not copied again
    assert "matplotlib.projections.polar.PolarAxes.invert_yaxis" not in docs
