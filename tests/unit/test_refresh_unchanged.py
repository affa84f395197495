"""Issue 18: a refresh whose sources did not change keeps the live index; a changed source is rebuilt; the
live index is reused only when it can be trusted. Real loaders and BM25 index over tests/data/pool."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.build.previous import STATE_FILE, UNCHANGED
from gorilla_tui.build.refresh import refresh
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.pool.pyenv.source import fingerprint as pyenv_fingerprint
from gorilla_tui.pool.pyenv.source import with_spec
from gorilla_tui.pool.sources import load_manifests
from gorilla_tui.retrieve.index import ApiIndex
from gorilla_tui.store import integrity
from gorilla_tui.store import versions as index_store
from gorilla_tui.store.fileio import DAMAGED_HINT

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"

#: The small pool's manifest sources (python-env is the interpreter's own: see the pyenv tests below).
HUBS = ["torchhub", "tensorflowhub", "huggingface", "apizoo"]
QUERIES = ["classify actions in a video", "detect objects in an image", "translate english to german",
           "list the users of an account", "embed a sentence as a vector"]  # fmt: skip
NEW_DOC = {
    "domain": "Video Classification",
    "framework": "PyTorch",
    "functionality": "zebra stripes",
    "api_name": "zebra_net",
    "api_call": "torch.hub.load(repo_or_dir='acme/zebra', model='zebra_net', pretrained=True)",
    "api_arguments": {"pretrained": "True"},
    "python_environment_requirements": ["torch"],
    "example_code": ["import torch"],
    "performance": {},
    "description": "Counts the stripes of a zebra in a photo.",
}


@pytest.fixture
def mirror(tmp_path: Path) -> Path:
    """A writable copy of tests/data/pool (a --from folder)."""
    folder = tmp_path / "mirror"
    shutil.copytree(SMALL_POOL, folder)
    return folder


def _built_by_other_code(folder: Path) -> None:
    """Make the version `folder`'s STATE_FILE say it was built by other code (an older release), sealed
    again with its own digest (integrity.SELF_KEY): a sound record, not a damaged one."""
    path = folder / STATE_FILE
    state = dict(json.loads(path.read_text(encoding="utf-8")), code="an older release")
    state[integrity.SELF_KEY] = integrity.state_digest(state)
    path.write_text(json.dumps(state), encoding="utf-8")


def _searches(index: ApiIndex) -> list[list[tuple[str, float]]]:
    return [[(h.doc.id, round(h.score, 6)) for h in index.search(q, k=5)] for q in QUERIES]


def _versions() -> list[str]:
    return sorted(p.name for p in index_store.index_root().glob("v-*"))


def test_an_unchanged_refresh_keeps_the_live_index_and_says_so(mirror: Path) -> None:
    first = refresh(mirrors=[mirror], only=HUBS)
    assert not first.unchanged and all(r["fingerprint"] for r in first.sources)
    versions = _versions()
    os.utime(mirror / "torchhub_api.jsonl")  # touched, content unchanged: still unchanged
    again = refresh(mirrors=[mirror], only=HUBS)
    assert again.unchanged and again.path == first.path == index_store.current_version()
    assert _versions() == versions  # nothing written
    assert {r["name"]: (r["status"], r["message"]) for r in again.sources} == {
        name: ("ok", UNCHANGED) for name in HUBS
    }
    assert [r["loaded"] for r in again.sources] == [r["loaded"] for r in first.sources]
    assert _searches(again.index) == _searches(first.index)


def test_an_edited_file_rebuilds_its_source_and_reuses_the_others(mirror: Path) -> None:
    first = refresh(mirrors=[mirror], only=HUBS)
    with open(mirror / "torchhub_api.jsonl", "a", encoding="utf-8") as fh:
        fh.write(json.dumps(NEW_DOC) + "\n")
    second = refresh(mirrors=[mirror], only=HUBS)
    assert not second.unchanged and second.path != first.path
    rows = {r["name"]: r for r in second.sources}
    assert rows["torchhub"]["message"] != UNCHANGED
    assert rows["torchhub"]["loaded"] == {r["name"]: r for r in first.sources}["torchhub"]["loaded"] + 1
    assert all(rows[n]["message"] == UNCHANGED for n in HUBS if n != "torchhub")
    assert second.index.search("count the stripes of a zebra", k=1)[0].doc.api_name == "zebra_net"
    forced = refresh(mirrors=[mirror], only=HUBS, force=True)  # the same as building every source again
    assert [d.to_dict() for d in forced.index.docs] == [d.to_dict() for d in second.index.docs]
    assert _searches(forced.index) == _searches(second.index)
    assert ApiIndex.load().meta["diagnostics"] == second.index.meta["diagnostics"]


def test_force_rebuilds_every_source(mirror: Path) -> None:
    first = refresh(mirrors=[mirror], only=HUBS)
    forced = refresh(mirrors=[mirror], only=HUBS, force=True)
    assert not forced.unchanged and forced.path != first.path
    assert index_store.current_version() == forced.path
    assert all(r["message"] != UNCHANGED for r in forced.sources)
    assert _searches(forced.index) == _searches(first.index)


def test_a_changed_user_source_is_rebuilt(mirror: Path, tmp_path: Path) -> None:
    mine = tmp_path / "team.jsonl"
    mine.write_text('{"api_call": "acme.ship(order_id)", "description": "ship a customer order"}\n')
    refresh(mirrors=[mirror], only=["torchhub"], user_paths=[mine])
    assert refresh(mirrors=[mirror], only=["torchhub"], user_paths=[mine]).unchanged
    mine.write_text(mine.read_text() + '{"api_call": "acme.refund(order_id)", "description": "refund it"}\n')
    report = refresh(mirrors=[mirror], only=["torchhub"], user_paths=[mine])
    rows = {r["name"]: r for r in report.sources}
    assert not report.unchanged and rows["team"]["loaded"] == 2 and rows["torchhub"]["message"] == UNCHANGED


@pytest.mark.parametrize(
    "damage", ["edit docs.jsonl", "truncate postings.npz", "remove state", "edit lookup"]
)
def test_a_damaged_live_index_is_rebuilt_never_trusted(mirror: Path, damage: str) -> None:
    def lookup(folder: Path, docs) -> None:  # stands in for check's lookup: one more file of the version
        (folder / "lookup").mkdir()
        (folder / "lookup" / "0").write_text(json.dumps([d.id for d in docs]))

    first = refresh(mirrors=[mirror], only=HUBS, extra_files=lookup)
    live = first.path
    if damage == "edit docs.jsonl":  # still valid JSON and the same size: only the hash tells
        data = (live / "docs.jsonl").read_bytes()
        at = data.index(b'"description": "') + len(b'"description": "')
        assert all(32 <= c < 127 and c not in b'"\\' for c in data[at : at + 8])
        (live / "docs.jsonl").write_bytes(data[:at] + b"tampered" + data[at + 8 :])
    elif damage == "truncate postings.npz":
        with open(live / "postings.npz", "r+b") as fh:
            fh.truncate(100)
    elif damage == "remove state":  # as an older release left it
        (live / STATE_FILE).unlink()
    else:
        (live / "lookup" / "0").write_text("[]")
    report = refresh(mirrors=[mirror], only=HUBS, extra_files=lookup)
    assert not report.unchanged and report.path != live
    assert all(r["message"] != UNCHANGED for r in report.sources)
    assert not any(d.description.startswith("tampered") for d in report.index.docs)
    assert _searches(ApiIndex.load()) == _searches(first.index)
    if damage in ("edit docs.jsonl", "edit lookup"):  # every recorded file is in the one check (integrity.py)
        assert any("could not be read" in w and "changed since it was built" in w for w in report.warnings)
    assert refresh(mirrors=[mirror], only=HUBS, extra_files=lookup).unchanged  # trusted again


def test_a_tampered_live_index_keeps_none_of_its_docs_for_the_sources_not_refreshed_now(mirror: Path) -> None:
    """`index --refresh` of one source (or one whose other sources cannot be fetched now) over a live index
    whose docs.jsonl changed since it was built: the other sources are read again from the folder they came
    from, as the warning says ("rebuilt from the sources"); their docs were kept from the changed file."""
    first = refresh(mirrors=[mirror], only=HUBS)
    data = (first.path / "docs.jsonl").read_bytes()
    line = next(raw for raw in data.splitlines(keepends=True) if b'"source": "huggingface"' in raw)
    at = line.index(b'"description": "') + len(b'"description": "')
    assert all(32 <= c < 127 and c not in b'"\\' for c in line[at : at + 8])
    edited = line[:at] + b"tampered" + line[at + 8 :]
    (first.path / "docs.jsonl").write_bytes(data.replace(line, edited))
    with pytest.raises(GorillaError, match="docs.jsonl changed since it was built"):  # a search refuses it
        ApiIndex.load()
    report = refresh(mirrors=[mirror], only=["torchhub"])
    assert any("could not be read" in w and "rebuilt from the sources" in w for w in report.warnings)
    assert not any(d.description.startswith("tampered") for d in ApiIndex.load().docs)
    assert {r["name"]: r["status"] for r in report.sources} == dict.fromkeys(HUBS, "ok")
    assert _searches(ApiIndex.load()) == _searches(first.index)


def test_an_index_built_by_another_version_has_its_sources_read_again_from_where_they_came(
    mirror: Path, tmp_path: Path
) -> None:
    """The TUI's rebuild after an upgrade, and `index --refresh` without --from: the sources not refreshed
    now are read again from the folder they came from (the README: "rebuilt from the sources it was built
    from"), not kept as the older code had parsed them; one whose folder is gone keeps its docs."""
    first = refresh(mirrors=[mirror], only=HUBS)
    _built_by_other_code(first.path)
    with open(mirror / "tensorflowhub_api.jsonl", "a", encoding="utf-8") as fh:
        fh.write(
            json.dumps(dict(NEW_DOC, framework="TensorFlow Hub", api_call="hub.load('acme/zebra')")) + "\n"
        )
    report = refresh(mirrors=[mirror], only=["torchhub"])
    rows = {r["name"]: r for r in report.sources}
    assert {name: rows[name]["status"] for name in HUBS} == dict.fromkeys(HUBS, "ok")
    assert rows["apizoo"]["message"] == "re-read: not reused: built by another version of gorilla-tui"
    assert any(d.api_name == "zebra_net" for d in report.index.docs if d.source == "tensorflowhub")
    torch_only = tmp_path / "torch_only"
    torch_only.mkdir()
    shutil.copy(mirror / "torchhub_api.jsonl", torch_only)
    shutil.rmtree(mirror)  # the others' folder is gone: their docs are kept, as before
    _built_by_other_code(report.path)
    again = refresh(mirrors=[torch_only], only=["torchhub"])
    assert {r["name"]: r["status"] for r in again.sources if r["status"] == "kept"} == dict.fromkeys(
        ["tensorflowhub", "huggingface", "apizoo"], "kept"
    )
    assert len(again.index.docs) == len(report.index.docs)


def test_a_named_user_source_read_again_keeps_its_name(mirror: Path, tmp_path: Path) -> None:
    """`--source mine=.../other.jsonl`, then a refresh over that index once another version built it (the
    TUI does it by itself after an upgrade): the source is read again from its path as "mine", not renamed
    after the file ("other"), which lost `--hub mine` and config `hub = "mine"`."""
    other = tmp_path / "other.jsonl"
    other.write_text(json.dumps(NEW_DOC) + "\n", encoding="utf-8")
    first = refresh(mirrors=[mirror], only=["torchhub"], user_paths=[f"mine={other}"])
    assert "mine" in first.index.sources
    _built_by_other_code(first.path)
    report = refresh(mirrors=[mirror], only=["torchhub"])
    assert sorted(report.index.sources) == ["mine", "torchhub"]
    assert [d.api_name for d in report.index.docs if d.source == "mine"] == ["zebra_net"]


def test_a_refresh_asking_for_the_lookup_rebuilds_an_index_built_without_it(mirror: Path) -> None:
    refresh(mirrors=[mirror], only=HUBS)
    report = refresh(
        mirrors=[mirror], only=HUBS, extra_files=lambda folder, docs: (folder / "x").write_text("1")
    )
    assert not report.unchanged and (report.path / "x").is_file()
    assert all(r["message"] == UNCHANGED for r in report.sources)  # its docs reused, the version rebuilt


def test_a_source_named_like_a_builtin_must_hold_its_format(mirror: Path, tmp_path: Path) -> None:
    zoo = tmp_path / "zoo"
    zoo.mkdir()
    shutil.copy(mirror / "apizoo.json", zoo / "apizoo.json")
    with pytest.raises(UsageError) as e:
        refresh(mirrors=[mirror], user_paths=[f"torchhub={zoo}"])
    assert str(e.value) == (
        f"--source torchhub={zoo}: apizoo.json holds APIZoo JSON lists, but torchhub is a built-in source of "
        f"JSON Lines (torchhub_api.jsonl); name your copy otherwise: --source OTHER={zoo}"
    )
    with pytest.raises(UsageError, match=r"python-env is the built-in python-env source; name your copy"):
        refresh(mirrors=[mirror], user_paths=[f"python-env={zoo}"])
    assert index_store.current_version() is None  # nothing was built
    hub = tmp_path / "hub"
    hub.mkdir()
    shutil.copy(mirror / "torchhub_api.jsonl", hub / "torchhub_api.jsonl")
    report = refresh(mirrors=[mirror], only=["apizoo"], user_paths=[f"torchhub={hub}", f"apizoo={zoo}"])
    assert {r["name"]: r["loaded"] for r in report.sources} == {"apizoo": 2, "torchhub": 8}


def test_the_python_env_fingerprint_follows_the_interpreter_and_the_spec() -> None:
    manifest = next(m for m in load_manifests() if m.kind == "python-env")
    first = pyenv_fingerprint(manifest)
    assert first == pyenv_fingerprint(manifest) and len(first) == 64
    other = next(m for m in with_spec(load_manifests(), "stdlib,filelock") if m.kind == "python-env")
    assert pyenv_fingerprint(other) not in (first, None)


def _refresh_torchhub_alone(mirror: Path) -> tuple[Any, dict[str, dict]]:
    """`index --refresh --only torchhub` from a mirror holding only Torch Hub's file, as after a damaged
    live index: (the report, its rows by source), every hub's row asserted "ok" (read again)."""
    torch_only = mirror.parent / "torch_only"
    torch_only.mkdir()
    shutil.copy(mirror / "torchhub_api.jsonl", torch_only)
    report = refresh(mirrors=[torch_only], only=["torchhub"])
    rows = {r["name"]: r for r in report.sources}
    assert {name: rows[name]["status"] for name in HUBS} == dict.fromkeys(HUBS, "ok")
    return report, rows


def test_a_live_index_with_a_damaged_meta_json_has_every_source_read_again(mirror: Path) -> None:
    """meta.json is where the sources' folders were recorded: once it was truncated, `index --refresh`
    (which the error tells the person to run) read no source again and, offline, published the sources
    it could fetch alone, dropping the others' docs. STATE_FILE keeps a copy of the rows."""
    first = refresh(mirrors=[mirror], only=HUBS)
    with open(first.path / "meta.json", "r+b") as fh:
        fh.truncate(100)
    with pytest.raises(GorillaError) as damaged:  # the error says what rebuilds it: a refresh, no --from
        ApiIndex.load()
    assert damaged.value.hint == DAMAGED_HINT and "--from" not in DAMAGED_HINT
    report, rows = _refresh_torchhub_alone(mirror)
    assert rows["apizoo"]["message"].startswith("re-read: the previous index could not be read")
    assert len(report.index.docs) == len(first.index.docs)
    assert _searches(ApiIndex.load()) == _searches(first.index)


@pytest.mark.parametrize("pointer", ["garbage", "", "../elsewhere"])
def test_a_corrupt_current_pointer_has_every_source_read_again(mirror: Path, pointer: str) -> None:
    """CURRENT names the live version folder: with it pointing nowhere ("garbage"), emptied or corrupt,
    `index --refresh` knew no source of the index and, offline, published python-env alone, then removed
    the intact version folder: the hubs' docs were gone. The newest version folder's rows stand in."""
    first = refresh(mirrors=[mirror], only=HUBS)
    (index_store.index_root() / "CURRENT").write_text(pointer)
    with pytest.raises(GorillaError) as damaged:  # the hint: a refresh alone rebuilds it, no --from
        ApiIndex.load()
    assert damaged.value.hint == DAMAGED_HINT
    report, rows = _refresh_torchhub_alone(mirror)
    assert len(report.index.docs) == len(first.index.docs)
    assert _searches(ApiIndex.load()) == _searches(first.index)
