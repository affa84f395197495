"""Hand-written questions (a manifest's `hand_questions`, pool/expansion.py read_hand_questions): read from
TOML, attached to the docs they name by api_call (and domain) or api_name, whatever loader read the docs,
and part of the source's fingerprint. Real docs of the test pool (tests/data/pool)."""

from __future__ import annotations

import dataclasses
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.pool import sources
from gorilla_tui.pool.doc import LoadResult, load_jsonl
from gorilla_tui.pool.expansion import attach_hand_questions, read_hand_questions
from gorilla_tui.pool.sources import load_manifests, parse_manifest, with_hand_questions
from gorilla_tui.resources import data_dir
from tests.conftest import REPO

POOL = REPO / "tests" / "data" / "pool"
MOBILENET = "hub.KerasLayer('https://tfhub.dev/google/imagenet/mobilenet_v2_100_224/classification/4')"

TEXT = f'''
[[api]]
domain = "Image classification"
api_call = "{MOBILENET}"
questions = ["label what is in my holiday photos", "  label   what is in my holiday photos ", "tag pets"]

[[api]]
domain = "Text embedding"
api_call = "{MOBILENET}"
questions = ["wrong domain: attaches to nothing"]

[[api]]
api_name = "shutil.copyfile"
questions = ["duplicate one file under a new name"]

[[api]]
questions = ["no selector"]
'''


def _docs(name: str, source: str) -> list:
    return load_jsonl(POOL / name, source).docs


def test_questions_attach_to_the_docs_they_name_and_nowhere_else() -> None:
    pairs, diags = read_hand_questions(TEXT, "t.toml")
    assert [d.line for d in diags] == [4] and "api_call or api_name" in diags[0].message
    tf = _docs("tensorflowhub_api.jsonl", "tensorflowhub")
    target = [d for d in tf if d.api_call == MOBILENET and d.domain == "Image classification"]
    assert target, "the test pool has the MobileNet V2 classifier"
    attached = attach_hand_questions(tf, pairs)
    assert attached == 2 * len(target)  # the whitespace-variant duplicate is dropped, the wrong domain is not
    for d in tf:
        want = ["label what is in my holiday photos", "tag pets"] if d in target else []
        assert d.questions == want
    env = _docs("python_env.jsonl", "python-env")
    assert attach_hand_questions(env, pairs) == 1
    assert [d.api_name for d in env if d.questions] == ["shutil.copyfile"]


def test_a_limit_per_doc_keeps_the_first_questions() -> None:
    pairs, _ = read_hand_questions(TEXT, "t.toml")
    tf = _docs("tensorflowhub_api.jsonl", "tensorflowhub")
    attach_hand_questions(tf, pairs, limit=1)
    assert {tuple(d.questions) for d in tf if d.api_call == MOBILENET} >= {
        ("label what is in my holiday photos",)
    }


def test_not_toml_raises_value_error() -> None:
    with pytest.raises(ValueError):
        read_hand_questions("[[api]\nquestions = [", "bad.toml")


def test_with_hand_questions_notes_a_missing_file_and_keeps_the_docs() -> None:
    manifest = parse_manifest({"name": "x", "files": ["a.jsonl"], "hand_questions": ["nope.toml"]}, "x.toml")
    result = LoadResult(docs=_docs("tensorflowhub_api.jsonl", "tensorflowhub"))
    with_hand_questions(manifest, result)
    assert all(not d.questions for d in result.docs)
    assert [(d.file, d.severity) for d in result.diagnostics] == [("nope.toml", "note")]
    assert "not found" in result.diagnostics[0].message


def test_a_manifest_names_files_of_the_questions_folder_only() -> None:
    for bad in (["../secrets.toml"], "a.toml", [1]):
        with pytest.raises(UsageError, match="hand_questions"):
            parse_manifest({"name": "x", "files": ["a.jsonl"], "hand_questions": bad}, "x.toml")


def test_every_shipped_hand_questions_file_exists_and_parses() -> None:
    named = [(m.name, q) for m in load_manifests() for q in m.hand_questions]
    assert named, "a shipped source names hand-written questions"
    folder = Path(str(data_dir("index"))) / sources.HAND_QUESTIONS_DIR
    for source, name in named:
        pairs, diags = read_hand_questions((folder / name).read_text(encoding="utf-8"), name)
        assert pairs and not diags, (source, name)


def test_the_questions_are_part_of_the_fingerprint(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "a.jsonl").write_bytes((POOL / "tensorflowhub_api.jsonl").read_bytes())
    manifest = parse_manifest(
        {"name": "x", "format": "apibench", "files": ["a.jsonl"], "hand_questions": ["q.toml"]}, "x.toml"
    )
    ctx = sources.FetchContext(mirrors=[tmp_path])
    texts = iter([TEXT, TEXT, TEXT + '\n[[api]]\napi_name = "y"\nquestions = ["z"]\n'])
    monkeypatch.setattr(sources, "hand_questions_text", lambda name: next(texts))
    first, same, changed = (sources.source_fingerprint(manifest, ctx) for _ in range(3))
    assert first is not None and first == same != changed
    bare = sources.source_fingerprint(dataclasses.replace(manifest, hand_questions=()), ctx)
    assert bare not in (first, changed)
