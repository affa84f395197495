"""Sources and backends through entry points (gorilla_tui/plugins.py), the way a third-party package adds
them: a real distribution's metadata (a .dist-info folder with entry_points.txt) on sys.path, read by
importlib.metadata."""

from __future__ import annotations

import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path

import pytest

from gorilla_tui import plugins
from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.model.backend import ScriptedBackend, open_backend
from gorilla_tui.pool.manifest import FetchContext, SourceKind, load_manifests, plugin_errors
from gorilla_tui.pool.sources import fetch, source_fingerprint

ACME_SOURCE = '''
from gorilla_tui.pool.apidoc import ApiDoc
from gorilla_tui.pool.doc import LoadResult
from gorilla_tui.pool.manifest import SourceKind

MANIFEST = """
name = "acme"
title = "Acme APIs"
kind = "acme"
"""

def load(manifest, ctx):
    doc = ApiDoc(id="acme:acme.launch", source=manifest.name, api_call="acme.launch(rocket)",
                 api_name="acme.launch", description="Launch a rocket.")
    return "acme plugin", [], LoadResult(docs=[doc])

def fingerprint(manifest, ctx):
    return "acme-1"

ACME = SourceKind(load=load, fingerprint=fingerprint, manifests=(MANIFEST,))
NOT_A_KIND = 42
'''

ACME_BACKEND = """
from gorilla_tui.model.scripted import ScriptedBackend

def open_acme(settings, cancel=None):
    return ScriptedBackend(["acme.launch('X-1')"], name="acme:" + (settings.model or "default"))
"""


@pytest.fixture
def acme(tmp_path: Path) -> Iterator[Path]:
    """A third-party distribution `acme-gorilla` installed on sys.path: one source kind, one backend."""
    (tmp_path / "acme_source.py").write_text(ACME_SOURCE, encoding="utf-8")
    (tmp_path / "acme_backend.py").write_text(ACME_BACKEND, encoding="utf-8")
    (tmp_path / "acme_broken.py").write_text("raise RuntimeError('acme is broken')\n", encoding="utf-8")
    info = tmp_path / "acme_gorilla-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-gorilla\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        textwrap.dedent("""\
            [gorilla_tui.sources]
            acme = acme_source:ACME

            [gorilla_tui.backends]
            acme = acme_backend:open_acme
            """),
        encoding="utf-8",
    )
    sys.path.insert(0, str(tmp_path))
    plugins.forget()
    try:
        yield tmp_path
    finally:
        sys.path.remove(str(tmp_path))
        for name in ("acme_source", "acme_backend", "acme_broken"):
            sys.modules.pop(name, None)
        plugins.forget()


def test_built_in_sources_and_backends_are_entry_points() -> None:
    assert {"docs", "python-env"} <= set(plugins.names(plugins.SOURCES))
    assert {"llama", "remote"} <= set(plugins.names(plugins.BACKENDS))
    docs = plugins.load(plugins.SOURCES, "docs")
    assert isinstance(docs, SourceKind) and docs.fingerprint is not None
    # every shipped manifest's kind is a declared plugin
    assert {m.kind for m in load_manifests()} <= set(plugins.names(plugins.SOURCES))


def test_a_third_party_source_kind_adds_its_source(acme: Path) -> None:
    manifests = {m.name: m for m in load_manifests()}
    assert "acme" in manifests and "apizoo" in manifests  # beside the shipped ones
    load = fetch(manifests["acme"], FetchContext())
    assert load.status == "ok" and load.origin == "acme plugin"
    assert [d.api_call for d in load.result.docs] == ["acme.launch(rocket)"]
    assert source_fingerprint(manifests["acme"], FetchContext()) == "acme-1"


def test_a_broken_source_plugin_is_one_line(acme: Path) -> None:
    m = next(m for m in load_manifests() if m.name == "acme")
    info = acme / "acme_broken-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text("Metadata-Version: 2.1\nName: acme-broken\nVersion: 1.0\n")
    (info / "entry_points.txt").write_text(
        "[gorilla_tui.sources]\nacme-broken = acme_broken:KIND\nacme-wrong = acme_source:NOT_A_KIND\n"
    )
    plugins.forget()
    broken = fetch(m.__class__(**{**m.__dict__, "kind": "acme-broken"}), FetchContext())
    assert broken.status == "unsupported"
    assert "acme_broken:KIND" in broken.message and "acme-broken" in broken.message
    assert "RuntimeError: acme is broken" in broken.message and "\n" not in broken.message
    wrong = fetch(m.__class__(**{**m.__dict__, "kind": "acme-wrong"}), FetchContext())
    assert wrong.status == "unsupported" and "not a SourceKind" in wrong.message
    nothing = fetch(m.__class__(**{**m.__dict__, "kind": "nobody"}), FetchContext())
    assert nothing.status == "unsupported" and "declared: acme, acme-broken, acme-wrong" in nothing.message
    # a broken plugin does not stop every build: its manifests are left out, doctor names it
    assert "acme" in {m.name for m in load_manifests()}
    errors = plugin_errors()
    assert len(errors) == 2 and "'acme-broken'" in errors[0] and "RuntimeError: acme is broken" in errors[0]
    assert "'acme-wrong' is a int, not a SourceKind" in errors[1]


def test_a_third_party_backend_by_name(acme: Path) -> None:
    backend = open_backend(Settings(backend="acme", model="m1"))
    assert isinstance(backend, ScriptedBackend) and backend.name == "acme:m1"
    assert "".join(backend.complete("task", max_tokens=20)) == "acme.launch('X-1')"
    declared = r"no gorilla_tui.backends plugin named .nope. \(declared: acme, llama"
    with pytest.raises(UsageError, match=declared):
        open_backend(Settings(backend="nope"))


def test_remote_backend_needs_an_endpoint() -> None:
    with pytest.raises(UsageError, match="needs an endpoint"):
        open_backend(Settings(backend="remote"))
    with pytest.raises(UsageError, match="backend must be a plugin name"):
        Settings(backend="../x").validate()


def test_the_backend_setting_is_checked_before_anything_is_built() -> None:
    """Break-it pass: `backend = "nope"` built the whole index first and failed after; `backend = "llama"`
    silently ignored --endpoint."""
    with pytest.raises(
        UsageError, match=r"backend 'nope' is not installed \(gorilla_tui.backends plugins: llama"
    ):
        Settings(backend="nope").validate()
    with pytest.raises(UsageError, match="backend 'llama' runs a local model, but an endpoint is set"):
        Settings(backend="llama", endpoint="http://127.0.0.1:9").validate()
    assert Settings(backend="remote", endpoint="http://127.0.0.1:9").validate().backend == "remote"
