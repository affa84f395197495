"""APIBench tier of tests/unit/test_eval_files.py: Files given to `eval run` / `index --refresh` that are not
what they should be: nothing is lost, no eval set is indexed, an offline hub fails fast."""

from __future__ import annotations

from pathlib import Path

from gorilla_tui.pool.doc import is_question_set, load_paths
from gorilla_tui.pool.sources import FetchContext, fetch, load_manifests


def test_question_sets_are_never_loaded_as_docs(apibench: Path) -> None:
    for name in (
        "torchhub_eval.json",
        "tensorflow_eval.json",
        "huggingface_eval.json",
        "torchhub_train.json",
    ):
        assert is_question_set(apibench / "eval" / name)
    assert not is_question_set(apibench / "api" / "torchhub_api.jsonl")
    result = load_paths([apibench / "eval"], "mine")
    assert result.docs == [] and len(result.diagnostics) == 4
    assert all(d.severity == "skipped" and "not indexed" in d.message for d in result.diagnostics)
    zoo = next(m for m in load_manifests() if m.name == "apizoo")  # files = ["*.json"]
    load = fetch(zoo, FetchContext(mirrors=[apibench / "eval"]))
    assert load.result.docs == []


def test_refresh_source_of_an_eval_set_is_refused(apibench: Path, capsys) -> None:
    from gorilla_tui.cli import main
    from gorilla_tui.retrieve.index import ApiIndex

    assert main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub"]) == 0
    before = ApiIndex.load()
    capsys.readouterr()
    rc = main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub", "--source",
               str(apibench / "eval" / "torchhub_eval.json")])  # fmt: skip
    err = capsys.readouterr().err
    errors = [line for line in err.splitlines() if line.startswith("gorilla-tui: error: ")]
    assert rc == 2 and "question set" in err and "not indexed" in err and len(errors) == 1
    assert ApiIndex.load().path == before.path  # the previous index still answers
