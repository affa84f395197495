"""bench/: the shared harness (bench/_report.py) writes sections and the summary table of docs/benchmarks.md,
and every bench script starts (`--help`: its imports resolve after modules move)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(ROOT / "bench"))

from _report import Figure, parser, publish, write_summary  # noqa: E402

SCRIPTS = sorted(p for p in (ROOT / "bench").glob("*.py") if not p.name.startswith("_"))


def test_sections_and_summary_rows_are_rewritten_in_place(tmp_path: Path, capsys) -> None:
    report = tmp_path / "benchmarks.md"
    report.write_text(
        "# Benchmarks\n\nIntro.\n\n<!-- begin: Other -->\n## Other\n\nkept\n<!-- end: Other -->\n"
    )
    publish("BFCL end to end", "| a | b |\n|---|---|\n| 1 | 2 |", True, report,
            summary=[Figure("BFCL simple", "48.8 %", ">= 65 %", "FunctionGemma 61.6 %")])  # fmt: skip
    figures = [Figure("BFCL simple", "52.5 %", ">= 65 %"), Figure("BFCL multiple", "60 %")]
    publish("BFCL end to end", "| a | b |\n|---|---|\n| 3 | 4 |", True, report, summary=figures)
    write_summary("Other", [Figure("other | piped", "1 s")], report)
    text = report.read_text()
    assert text.index("## Summary") < text.index("Intro.") or text.index("## Summary") < text.index(
        "## Other"
    )
    assert (
        text.count("<!-- begin: BFCL end to end -->") == 1 and "| 3 | 4 |" in text and "| 1 | 2 |" not in text
    )
    assert "| BFCL simple | 52.5 % | >= 65 % |  | [BFCL end to end](#bfcl-end-to-end) |" in text
    assert "48.8 %" not in text and text.count("| BFCL simple |") == 1
    assert "| other \\| piped | 1 s |" in text and "kept" in text
    rows = [ln for ln in text.splitlines() if ln.startswith("| BFCL") or ln.startswith("| other")]
    assert [r.split(" | ")[0] for r in rows] == ["| BFCL simple", "| BFCL multiple", "| other \\| piped"]
    assert "BFCL simple: 52.5 % (target >= 65 %)" in capsys.readouterr().out


def test_parser_has_the_common_options(tmp_path: Path) -> None:
    args = parser("A bench.\n\nMore.").parse_args(["--no-write", "--shared", str(tmp_path)])
    assert args.no_write and args.shared == tmp_path
    assert parser("A bench.").description == "A bench."


@pytest.mark.slow
def test_every_bench_script_starts() -> None:
    assert len(SCRIPTS) >= 20
    broken = []
    for script in SCRIPTS:
        text = script.read_text(encoding="utf-8")
        if "parser(__doc__)" in text or "ArgumentParser(" in text:
            cmd, expect = [sys.executable, str(script), "--help"], "usage:"
        else:  # a module the scripts share (a dev split's tasks): it must import
            cmd, expect = [sys.executable, "-c", f"import {script.stem}"], ""
        r = subprocess.run(cmd, capture_output=True, text=True, timeout=120, cwd=ROOT / "bench")
        if r.returncode != 0 or expect not in r.stdout:
            broken.append(f"{script.name}: {(r.stderr.strip().splitlines() or ['?'])[-1]}")
    assert not broken, broken
