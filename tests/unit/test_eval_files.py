"""Files given to `eval run` / `index --refresh` that are not what they should be: nothing is lost, no eval
set is indexed, an offline hub fails fast."""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import pytest

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.evaluate.score import resolve_file
from gorilla_tui.pool.doc import is_question_set, load_paths
from gorilla_tui.pool.sources import FetchContext, fetch, load_manifests

INFO = evalrun.RunInfo("torchhub", "bm25", "select", "gemma3-270m", 5, "likelihood")


def _line(qid: int, **extra) -> str:
    return json.dumps({"question_id": qid, "text": "x", **INFO.key(), **extra})


@pytest.mark.parametrize("content", ["my important notes\nline two\n", "no newline at the end", "[1, 2]\n"])
def test_a_file_that_is_not_a_responses_file_is_refused_and_left_alone(tmp_path: Path, content: str) -> None:
    f = tmp_path / "notes.txt"
    f.write_text(content, encoding="utf-8")
    f.chmod(0o644)
    with pytest.raises(UsageError, match="is not a responses file"):
        evalrun.load_answers(f, INFO)
    assert f.read_text(encoding="utf-8") == content and (f.stat().st_mode & 0o777) == 0o644


def test_a_repaired_responses_file_keeps_its_good_lines_and_permissions(tmp_path: Path) -> None:
    f = tmp_path / "answers.jsonl"
    f.write_text(_line(1) + "\nnot json\n" + _line(2) + "\n" + '{"question_id": 3, "te', encoding="utf-8")
    f.chmod(0o664)
    kept, notes = evalrun.load_answers(f, INFO)
    assert sorted(kept) == [1, 2] and any("partial last line" in n for n in notes)
    assert (f.stat().st_mode & 0o777) == 0o664
    assert [json.loads(x)["question_id"] for x in f.read_text(encoding="utf-8").splitlines()] == [1, 2]


def test_a_lone_partial_first_answer_is_repaired_not_refused(tmp_path: Path) -> None:
    f = tmp_path / "answers.jsonl"
    f.write_text('{"question_id": 1, "te', encoding="utf-8")
    assert evalrun.load_answers(f, INFO)[0] == {}
    assert f.read_text(encoding="utf-8") == ""


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
    assert rc == 2 and "question set" in err and "not indexed" in err and len(err.strip().splitlines()) == 1
    assert ApiIndex.load().path == before.path  # the previous index still answers


def test_an_offline_hub_fails_fast_without_retries(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    from huggingface_hub import constants

    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "empty-cache"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    start = time.perf_counter()
    with pytest.raises(GorillaError, match="network unreachable.*not in the local Hugging Face cache"):
        resolve_file("torchhub_eval.json")
    assert time.perf_counter() - start < 10  # huggingface_hub's 5 retries take ~25 s
    assert os.environ.get("HF_HUB_OFFLINE") == "1"  # the suite's own setting is untouched
