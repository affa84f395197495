"""The core is headless: importing every module below the UI (all of gorilla_tui but cli/ and tui/) never
imports textual (DESIGN.md, ARCHITECTURE.md)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

PKG = Path(__file__).resolve().parents[2] / "gorilla_tui"


def _headless_modules() -> list[str]:
    mods = []
    for p in sorted(PKG.rglob("*.py")):
        rel = p.relative_to(PKG.parent).with_suffix("")
        parts = rel.parts
        if parts[1] in {"cli", "tui", "__main__.py", "__main__"} or p.name == "boot.py":
            continue
        mods.append(".".join(parts[:-1] if parts[-1] == "__init__" else parts))
    return mods


def test_core_modules_never_import_textual() -> None:
    modules = _headless_modules()
    assert len(modules) > 40  # the core really is what is imported below
    code = (
        "import importlib, sys\n"
        f"for m in {modules!r}:\n"
        "    importlib.import_module(m)\n"
        "bad = sorted(n for n in sys.modules if n == 'textual' or n.startswith('textual.'))\n"
        "print('textual modules:', bad)\n"
        "sys.exit(1 if bad else 0)\n"
    )
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "textual modules: []" in r.stdout
