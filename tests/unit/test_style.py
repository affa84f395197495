"""The house style is checked where CI runs: `ruff check` and `ruff format --check` over the package, bench/
and tests/ (settings in pyproject.toml [tool.ruff]: line length 110, rules E F W I B UP).

Before this test, lines over 110 characters reached main twice: nothing but a person's habit ran ruff.
"""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
TARGETS = ["gorilla_tui", "bench", "tests"]


def _ruff(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "ruff", *args, *TARGETS], cwd=ROOT, capture_output=True, text=True, timeout=300
    )


def test_ruff_check_passes():
    out = _ruff("check", "--no-cache")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]


def test_ruff_format_check_passes():
    out = _ruff("format", "--check", "--no-cache")
    assert out.returncode == 0, out.stdout[-4000:] + out.stderr[-2000:]
