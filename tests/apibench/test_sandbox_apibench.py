"""APIBench tier of tests/unit/test_sandbox.py: Sandbox containment: each test runs hostile code and proves it
was contained and left nothing behind."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui.sandbox.requirements import missing_package
from tests.unit.test_sandbox import sandbox


def test_missing_package_reports_the_pip_line_from_the_doc(tmp_path: Path, apibench: Path) -> None:
    from gorilla_tui.pool.doc import load_jsonl

    docs = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    doc = next(d for d in docs if any("tensorflow_hub" in r for r in d.env_requirements))
    result, _ = sandbox("import gorilla_surely_missing_module_xyz\n", tmp_path)
    missing = missing_package(result, doc)
    assert missing is not None and missing.module == "gorilla_surely_missing_module_xyz" and missing.from_doc
    assert missing.pip_line.startswith("pip install ") and "tensorflow-hub" in missing.pip_line
    guessed = missing_package("ModuleNotFoundError: No module named 'cv2'", None)
    assert guessed is not None and guessed.pip_line == "pip install opencv-python" and not guessed.from_doc
    assert missing_package(result.output.replace("ModuleNotFound", "Value"), doc) is None
