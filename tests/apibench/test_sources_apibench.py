"""APIBench tier of tests/unit/test_sources.py: Source manifests, hf_hub_download through a local Hugging Face
cache, mirrors and user sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gorilla_tui.pool.sources import FetchContext, fetch, source_fingerprint
from tests.unit.test_sources import HUBS, _manifests


def _fake_hf_cache(root: Path, apibench: Path, files: list[str]) -> Path:
    """The layout huggingface_hub uses: datasets--OWNER--NAME/{refs/main, snapshots/<commit>/<file>}."""
    repo = root / "datasets--gorilla-llm--APIBench"
    commit = "0123456789abcdef0123456789abcdef01234567"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(commit)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True)
    for f in files:
        shutil.copy(apibench / "api" / f, snap / f)
    return root


def test_hf_hub_download_from_local_cache(
    apibench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from huggingface_hub import constants

    cache = _fake_hf_cache(tmp_path / "hf", apibench, ["torchhub_api.jsonl"])
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", True)
    ms = _manifests()
    ctx = FetchContext()
    load = fetch(ms["torchhub"], ctx)
    assert load.status == "ok", load.message
    assert load.origin == "hf://datasets/gorilla-llm/APIBench"
    assert load.files[0].startswith(str(cache)) and len(load.result.docs) == 94 and load.result.flagged == 7
    # not in the cache and HF_HUB_OFFLINE: a clean one-line "unreachable" naming each source's own file
    missing = fetch(ms["huggingface"], ctx)
    assert missing.status == "unreachable" and "\n" not in missing.message
    assert "gorilla-llm/APIBench/huggingface_api.jsonl" in missing.message
    assert "offline (HF_HUB_OFFLINE=1)" in missing.message and "--from DIR" in missing.message
    tf = fetch(ms["tensorflowhub"], ctx)
    assert "tensorflowhub_api.jsonl" in tf.message and "huggingface_api.jsonl" not in tf.message
    # issue 18: a hub source from the cache has a fingerprint (its cached file's bytes); a missing one none
    print_ = source_fingerprint(ms["torchhub"], ctx)
    assert print_ is not None and print_ == source_fingerprint(ms["torchhub"], FetchContext())
    assert source_fingerprint(ms["huggingface"], ctx) is None


def test_unreachable_hub_fails_fast_per_source(
    apibench: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture
) -> None:
    """No network (a closed local port as the hub endpoint): one probe, then every hub file is looked up in
    the local cache only, without huggingface_hub's 5 retries; each row names its own file and --from."""
    from huggingface_hub import constants
    from huggingface_hub.utils import get_session

    cache = _fake_hf_cache(tmp_path / "hf", apibench, ["torchhub_api.jsonl"])
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(cache))
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setenv("HF_HUB_OFFLINE", "0")  # online: pool/hub.py reads the variable too
    monkeypatch.setattr(constants, "ENDPOINT", "http://127.0.0.1:9")  # discard port: connection refused
    probes = []
    session = get_session()
    real_head = session.head
    monkeypatch.setattr(session, "head", lambda *a, **kw: probes.append(a) or real_head(*a, **kw))
    ms = _manifests()
    ctx = FetchContext()
    loads = {h: fetch(ms[h], ctx) for h in ("huggingface", "tensorflowhub", "torchhub")}
    assert len(probes) == 1 and ctx.hub_error and ctx.hub_error.startswith("network unreachable")
    assert loads["torchhub"].status == "ok" and len(loads["torchhub"].result.docs) == 94  # from the cache
    for hub in ("huggingface", "tensorflowhub"):
        msg = loads[hub].message
        assert loads[hub].status == "unreachable" and f"APIBench/{hub}_api.jsonl" in msg
        assert msg.count("_api.jsonl") == 1 and "--from DIR" in msg and "\n" not in msg
    assert "Retry" not in caplog.text


def test_mirror_lookup_and_not_in_mirror(apibench: Path, apizoo: Path) -> None:
    ms = _manifests()
    shared = apibench.parent
    for name, n in HUBS.items():  # found through mirror_subdirs (apibench/api) of the shared root
        load = fetch(ms[name], FetchContext(mirrors=[shared]))
        assert load.status == "ok" and len(load.result.docs) == n
    zoo = fetch(ms["apizoo"], FetchContext(mirrors=[apibench / "api", apizoo]))
    assert zoo.status == "ok" and any(f.endswith("KubernetesAPI.JSON") for f in zoo.files)
    absent = fetch(ms["torchhub"], FetchContext(mirrors=[apizoo]))
    assert absent.status == "not in mirror" and "torchhub_api.jsonl" in absent.message
    nowhere = fetch(ms["apizoo"], FetchContext())
    assert nowhere.status == "unreachable" and "--source apizoo=DIR" in nowhere.message  # pool/remedies.py


def test_a_copy_of_a_builtin_source_is_that_source(apizoo: Path, gorilla_home: Path) -> None:
    """`--source apizoo=DIR` (the README's command) and `--from` a folder holding apizoo/ build the same
    APIZoo source: its hand-written questions attached (index/questions/apizoo.toml) and, the manifest
    setting embed_questions, given vectors (dense_vectors.question_sources). A user file under another name
    stays a user's source: no hand-written questions."""
    from gorilla_tui.build.dense_vectors import question_sources
    from gorilla_tui.build.refresh import refresh

    by_mirror = refresh(mirrors=[apizoo.parent], only=["apizoo"])
    by_copy = refresh(user_paths=[f"apizoo={apizoo}"], only=["apizoo"], keep_previous=False)
    other = refresh(user_paths=[f"zoo={apizoo}"], only=["zoo"], keep_previous=False)
    row = {r["name"]: r for r in by_mirror.index.meta["sources"]}["apizoo"]
    copy = {r["name"]: r for r in by_copy.index.meta["sources"]}["apizoo"]
    assert copy["user"] and copy["copy"] and not row["user"]
    assert copy["questions"] == row["questions"] > 200  # 64 of APIZoo's own + the hand-written ones
    assert "apizoo" in question_sources([{**copy, "retrieval": "hybrid"}])
    zoo = {r["name"]: r for r in other.index.meta["sources"]}["zoo"]
    assert not zoo["copy"] and zoo["questions"] < row["questions"]
    assert "zoo" not in question_sources([{**zoo, "retrieval": "hybrid"}])
