"""Shared fixtures: every test gets its own GORILLA_TUI_HOME; real data comes from ../shared."""

from __future__ import annotations

import os
import shutil
import sys
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
    """Point every path of the app at a fresh temporary folder (paths.HOME_ENV)."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    return home


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


@pytest.fixture(scope="session")
def gorilla_cmd() -> list[str]:
    """The installed `gorilla-tui` console script of the Python running the tests (the script beside
    sys.executable, found without PATH), or `python -m gorilla_tui` when that environment has no script."""
    exe = Path(sys.executable).with_name("gorilla-tui")
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    found = shutil.which("gorilla-tui", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "gorilla_tui"]
