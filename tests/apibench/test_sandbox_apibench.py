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


def test_an_import_given_in_a_docs_requirements_is_named_as_the_import_to_add(
    apibench: Path, tmp_path: Path
) -> None:
    """Break-it finding: `ask --run` of "classify sports activities in videos" said "the example needs
    values filled in: VideoMAEForVideoClassification (used but never defined)", while the doc's env
    requirements (APIBench's {distribution: import line}) say `from transformers import ...`. The real
    Hugging Face doc, its api_call run for real in the sandbox."""
    from gorilla_tui.pool.doc import load_jsonl
    from gorilla_tui.sandbox.undefined import undefined_names

    docs = load_jsonl(apibench / "api" / "huggingface_api.jsonl", "huggingface").docs
    doc = next(d for d in docs if d.api_name == "videomae-small-finetuned-ssv2")
    assert any("from transformers import" in r for r in doc.env_requirements)
    result, _lines = sandbox(doc.api_call, tmp_path)
    told = undefined_names(result, doc.api_call, doc)
    assert told is not None and "VideoMAEForVideoClassification" in told.names
    assert "from transformers import VideoMAEForVideoClassification" in told.imports
    assert "VideoMAEForVideoClassification" not in told.to_fill
    assert told.message().startswith("the code lacks its imports: add `from transformers import")
