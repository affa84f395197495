"""The test tiers (issue 14): tests/unit, tests/cli and tests/tui need nothing outside the repository; every
test that reads ../shared lives in tests/apibench/. tests/conftest.py fails collection on a test outside
tests/apibench/ that uses the `apibench` or `apizoo` fixture; this checks what a fixture cannot see: the
SHARED/APIBENCH/APIZOO paths and $GORILLA_TUI_SHARED named in the source of a test file of the small tier."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

from tests.conftest import REPO

SMALL_TIER = ("unit", "cli", "tui")
SHARED_NAMES = {"SHARED", "APIBENCH", "APIZOO", "BFCL", "apibench", "apizoo", "bfcl_data"}


def _shared_uses(path: Path) -> list[str]:
    """Where `path` names ../shared: the conftest paths, the fixtures as parameters, the env variable."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    found = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Name) and node.id in SHARED_NAMES:
            found.append(f"{path.name}:{node.lineno}: {node.id}")
        elif isinstance(node, ast.alias) and node.name in SHARED_NAMES:
            found.append(f"{path.name}:{node.lineno}: import {node.name}")
        elif isinstance(node, ast.arg) and node.arg in SHARED_NAMES:
            found.append(f"{path.name}:{node.lineno}: fixture {node.arg}")
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            shared = any(f"shared/{folder}" in node.value for folder in ("apibench", "bfcl"))
            if "GORILLA_TUI_SHARED" in node.value or shared:
                found.append(f"{path.name}:{node.lineno}: {node.value[:40]!r}")
    return found


def test_no_test_of_the_small_tier_names_shared() -> None:
    files = [p for tier in SMALL_TIER for p in sorted((REPO / "tests" / tier).glob("*.py"))]
    files = [p for p in files if p != Path(__file__).resolve()]  # this file names them to find them
    assert len(files) > 40  # the three folders were found
    assert [use for p in files for use in _shared_uses(p)] == []


def test_the_scan_finds_each_way_of_reaching_shared(tmp_path: Path) -> None:
    src = tmp_path / "test_x.py"
    src.write_text(
        "from tests.conftest import APIBENCH\n"
        "def test_a(apizoo):\n    pass\n"
        "def test_b(monkeypatch):\n    monkeypatch.setenv('GORILLA_TUI_SHARED', '/x')\n"
    )
    assert [u.split(": ", 1)[1] for u in _shared_uses(src)] == [
        "import APIBENCH",
        "fixture apizoo",
        "'GORILLA_TUI_SHARED'",
    ]


def test_collection_refuses_a_test_that_needs_shared_outside_tests_apibench(tmp_path: Path) -> None:
    # a scratch test file in tests/unit that uses the apibench fixture: the conftest of this repository
    # must stop the collection with a usage error (exit 4) that names it
    scratch = REPO / "tests" / "unit" / f"test_scratch_tier_{tmp_path.name}.py"
    scratch.write_text("def test_reads_shared(apibench):\n    pass\n")
    try:
        run = subprocess.run(
            [sys.executable, "-m", "pytest", "--collect-only", "-q", "-p", "no:cacheprovider", str(scratch)],
            cwd=REPO, capture_output=True, text=True, timeout=120,
        )  # fmt: skip
    finally:
        scratch.unlink()
    assert run.returncode == 4, run.stdout + run.stderr
    assert "need ../shared" in run.stderr and "test_reads_shared (apibench)" in run.stderr
