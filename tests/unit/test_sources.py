"""Source manifests, hf_hub_download through a local Hugging Face cache, mirrors and user sources."""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.sources import (
    LOADERS,
    FetchContext,
    clip,
    fetch,
    load_manifests,
    parse_manifest,
    register_loader,
    source_fingerprint,
    user_source,
)

HUBS = {"torchhub": 94, "tensorflowhub": 696, "huggingface": 936}


def _manifests() -> dict:
    return {m.name: m for m in load_manifests()}


def test_shipped_manifests() -> None:
    ms = _manifests()
    assert {"torchhub", "tensorflowhub", "huggingface", "apizoo"} <= set(ms)
    for hub in HUBS:
        m = ms[hub]
        assert m.kind == "docs" and m.format == "apibench" and m.files == (f"{hub}_api.jsonl",)
        assert m.remote == {
            "type": "hf",
            "repo_id": "gorilla-llm/APIBench",
            "repo_type": "dataset",
            "revision": "main",
        }
        assert m.license == "Apache-2.0" and "2305.15334" in m.citation
    assert ms["apizoo"].format == "apizoo" and ms["apizoo"].remote["type"] == "url"


def test_bad_manifests_are_usage_errors() -> None:
    with pytest.raises(UsageError, match="needs a `name`"):
        parse_manifest({"files": ["a.jsonl"]}, "index/x.toml")
    with pytest.raises(UsageError, match="unknown format"):
        parse_manifest({"name": "x", "format": "csv", "files": ["a"]}, "index/x.toml")
    with pytest.raises(UsageError, match="remote"):
        parse_manifest({"name": "x", "files": ["a"], "remote": {"type": "ftp"}}, "index/x.toml")


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


def test_clip_cuts_at_a_word_boundary() -> None:
    text = "Cannot reach https://huggingface.co/api/datasets: offline mode is enabled " * 4
    out = clip(text, 160)
    assert len(out) <= 160 and out.endswith("...") and text.startswith(out[:-3])
    assert out[:-3].split()[-1] in text.split()  # the last word is whole
    assert clip("short\nline") == "short line"


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
    assert nowhere.status == "unreachable" and "--from" in nowhere.message


def test_user_source_named_after_stem(tmp_path: Path) -> None:
    f = tmp_path / "my_tools.jsonl"
    f.write_text('{"api_call": "tools.run(x)", "description": "run a tool"}\n')
    load = user_source(f)
    assert load.name == "my_tools" and load.status == "ok" and load.result.docs[0].source == "my_tools"
    with pytest.raises(UsageError, match="already used"):
        user_source(f, taken=["my_tools"])
    with pytest.raises(UsageError, match="no such file"):
        user_source(tmp_path / "nope.jsonl")
    folder = tmp_path / "team_docs"
    folder.mkdir()
    (folder / "a.jsonl").write_text('{"api_call": "a.b()"}\n')
    assert user_source(folder).name == "team_docs"
    named = user_source(f"tools={f}")  # --source NAME=PATH
    assert named.name == "tools" and named.result.docs[0].source == "tools" and named.origin == str(f)
    with pytest.raises(UsageError, match="name it: --source OTHER="):
        user_source(f"tools={f}", taken=["tools"])
    odd = tmp_path / "a=b.jsonl"  # an existing path with "=" in it stays a path
    odd.write_text('{"api_call": "odd.f()"}\n')
    assert user_source(odd).name == "a=b"


def test_bad_source_name_or_empty_path_says_so(tmp_path: Path) -> None:
    """`--source ../x=PATH`, `--source "a b"=PATH`, `--source =PATH` and `--source zoo=` used to be "no such
    file or folder" for the whole value; they name what is wrong. A missing PATH is still "no such file"."""
    f = tmp_path / "docs.jsonl"
    f.write_text('{"api_call": "tools.run(x)", "description": "run a tool"}\n')
    for bad in ("../x", "a b", ""):
        with pytest.raises(UsageError, match=f"{bad!r} is not a source name"):
            user_source(f"{bad}={f}")
    with pytest.raises(UsageError, match="no path after 'zoo='"):
        user_source("zoo=")
    with pytest.raises(UsageError, match="no such file or folder"):
        user_source(f"zoo={tmp_path / 'nope.jsonl'}")
    with pytest.raises(UsageError, match="no such file or folder"):
        user_source(f"../x={tmp_path / 'nope.jsonl'}")


def test_loader_registry_by_kind() -> None:
    m = parse_manifest({"name": "fake", "kind": "fake-kind"}, "index/fake.toml")
    assert fetch(m, FetchContext()).status == "unsupported"
    from gorilla_tui.pool.doc import ApiDoc, LoadResult

    def loader(manifest, ctx):
        return "memory", [], LoadResult(docs=[ApiDoc(id="fake:1", source=manifest.name, api_call="f()")])

    register_loader("fake-kind", loader)
    try:
        load = fetch(m, FetchContext())
        assert load.status == "ok" and load.result.docs[0].source == "fake"
    finally:
        LOADERS.pop("fake-kind")
