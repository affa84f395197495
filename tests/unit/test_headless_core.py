"""The core is headless: importing every gorilla_tui.core module never imports textual (DESIGN.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

CORE = Path(__file__).resolve().parents[2] / "gorilla_tui" / "core"


def test_core_modules_never_import_textual() -> None:
    modules = sorted(p.stem for p in CORE.glob("*.py") if p.stem != "__init__")
    assert len(modules) > 20  # the core really is what is imported below
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module('gorilla_tui.core.' + m)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith('textual.'))\n"
        "print('textual modules:', bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "textual modules: []" in r.stdout
