"""Doc expansion: training-split questions attached to their docs, from a --from folder or the HF cache;
eval questions never reach the index."""

from __future__ import annotations

import dataclasses
import json
import shutil
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.pool.doc import load_jsonl
from gorilla_tui.pool.expansion import (
    MAX_QUESTIONS_PER_DOC,
    attach_questions,
    doc_key,
    read_hand_questions,
    read_questions,
)
from gorilla_tui.pool.sources import (
    FetchContext,
    fetch,
    hand_questions_text,
    load_manifests,
    parse_manifest,
)


def _manifest(name: str):
    return next(m for m in load_manifests() if m.name == name)


def _eval_tasks(apibench: Path, hub: str, stem: str) -> set[str]:
    return {t.task for t in evalrun.load_tasks(apibench / "eval" / f"{stem}_eval.json", hub)}


def test_read_questions_maps_every_torchhub_training_line_to_one_pool_doc(apibench: Path) -> None:
    pairs, diags = read_questions(apibench / "eval" / "torchhub_train.json")
    assert len(pairs) == 837 and diags == []
    docs = load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs
    keys = {doc_key(d.domain, d.api_name, d.functionality, d.api_call) for d in docs}
    assert len(keys) == len(docs)  # the key tells every pool doc apart
    assert all(k in keys for k, _ in pairs)
    assert pairs[5][1].startswith("I work for Tesla, and I need a ready-to-use model for detecting")


def test_attach_questions_keeps_order_drops_duplicates_and_caps(apibench: Path) -> None:
    docs = load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs
    key = doc_key(docs[0].domain, docs[0].api_name, docs[0].functionality, docs[0].api_call)
    many = [(key, f"question {i}") for i in range(MAX_QUESTIONS_PER_DOC + 5)] + [(key, "question 0")]
    assert attach_questions(docs, many + [(("no", "such", "doc", "x"), "lost")]) == MAX_QUESTIONS_PER_DOC
    assert docs[0].questions == [f"question {i}" for i in range(MAX_QUESTIONS_PER_DOC)]
    assert all(not d.questions for d in docs[1:])


def test_bad_question_lines_are_skipped_with_a_note(tmp_path: Path, apibench: Path) -> None:
    good = (apibench / "eval" / "torchhub_train.json").read_text(encoding="utf-8").splitlines()[0]
    f = tmp_path / "torchhub_train.json"
    f.write_text(good + "\n{broken\n" + json.dumps({"code": "no api_data"}) + "\n\n", encoding="utf-8")
    pairs, diags = read_questions(f)
    assert len(pairs) == 1 and [d.line for d in diags] == [2, 3]
    assert all(d.severity == "note" for d in diags)  # the docs load either way


def test_manifests_cannot_name_an_eval_set() -> None:
    with pytest.raises(UsageError, match="never an eval set"):
        parse_manifest(
            {"name": "x", "files": ["a.jsonl"], "questions": ["torchhub_eval.json"]}, "index/x.toml"
        )
    with pytest.raises(UsageError, match="list of file names"):
        parse_manifest({"name": "x", "files": ["a.jsonl"], "questions": "t.json"}, "index/x.toml")
    assert _manifest("torchhub").questions == ("torchhub_train.json",)


@pytest.mark.parametrize("where", ["root", "apibench", "api"])
def test_refresh_from_a_mirror_expands_torchhub_and_never_indexes_eval_questions(
    apibench: Path, where: str
) -> None:
    folder = {"root": apibench.parent, "apibench": apibench, "api": apibench / "api"}[where]
    load = fetch(_manifest("torchhub"), FetchContext(mirrors=[folder]))
    assert load.status == "ok" and len(load.result.docs) == 94
    questions = [q for d in load.result.docs for q in d.questions]
    assert len(questions) == 837 and all(d.questions for d in load.result.docs)
    assert not set(questions) & _eval_tasks(apibench, "torchhub", "torchhub")


def test_a_missing_training_split_leaves_the_docs_unexpanded_with_a_note(apibench: Path) -> None:
    bare = dataclasses.replace(_manifest("tensorflowhub"), hand_questions=())
    load = fetch(bare, FetchContext(mirrors=[apibench]))
    assert load.status == "ok" and len(load.result.docs) == 696
    assert all(not d.questions for d in load.result.docs)
    notes = [d for d in load.result.diagnostics if d.severity == "note"]
    assert [(n.file, n.message) for n in notes] == [
        ("tensorflow_train.json", "training questions not found: docs not expanded")
    ]


def test_the_tensorflow_hub_hand_questions_expand_every_doc_with_the_questions_that_name_it(
    apibench: Path,
) -> None:
    # not named by the shipped manifest (tried, worse on the eval set: index/apibench-tensorflowhub.toml)
    assert _manifest("tensorflowhub").hand_questions == ()
    tried = dataclasses.replace(_manifest("tensorflowhub"), hand_questions=("tensorflowhub.toml",))
    load = fetch(tried, FetchContext(mirrors=[apibench]))
    assert load.status == "ok" and len(load.result.docs) == 696
    notes = [(d.file, d.message) for d in load.result.diagnostics if d.severity == "note"]
    assert (
        "tensorflow_train.json",
        "training questions not found: docs expanded with the hand-written questions only",
    ) in notes
    pairs, diags = read_hand_questions(hand_questions_text("tensorflowhub.toml") or "", "tensorflowhub.toml")
    assert diags == [] and len(pairs) >= 400
    named = {(sel.get("domain"), sel["api_call"]) for sel, _ in pairs}

    def is_named(d) -> bool:
        call = "".join(d.api_call.split())
        return (None, call) in named or ("".join(d.domain.split()), call) in named

    written = {q for _, q in pairs}
    expanded = [d for d in load.result.docs if d.questions]
    assert len(expanded) == len(load.result.docs)  # the file covers every (domain, api_call) of the pool
    assert all(is_named(d) and set(d.questions) <= written for d in expanded)


def test_training_questions_come_from_the_hugging_face_cache(
    apibench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    repo = tmp_path / "hf" / "datasets--gorilla-llm--APIBench"
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    shutil.copy(apibench / "api" / "torchhub_api.jsonl", snap)
    shutil.copy(apibench / "eval" / "torchhub_train.json", snap)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    load = fetch(_manifest("torchhub"), FetchContext())
    assert load.status == "ok" and sum(len(d.questions) for d in load.result.docs) == 837


def test_refresh_cli_reports_the_questions_and_search_finds_a_training_phrasing(
    apibench: Path, capsys
) -> None:
    from gorilla_tui.cli import main
    from gorilla_tui.retrieve.index import ApiIndex

    assert main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub", "--json"]) == 0
    rows = json.loads(capsys.readouterr().out)
    row = next(
        r for r in (rows.get("sources") if isinstance(rows, dict) else rows) if r["name"] == "torchhub"
    )
    assert row["questions"] == 837
    index = ApiIndex.load()
    assert sum(len(d.questions) for d in index.pool("torchhub")) == 837
    hit = index.search(
        "ready-to-use model for detecting cars, pedestrians, lanes and drivable area", 1, "torchhub"
    )
    assert "hybridnets" in hit[0].doc.api_call
