"""Every npy/npz file the store and its caches read is judged by its npy headers before its data is read
(break-it round 11, R11-4: a 2 MB vector cache whose `vectors` inflated to 1.5 GB was decompressed whole,
2.3 GB of memory, before "1400000 vectors for 1 hashes" moved it aside). numpy's own reader
(numpy.lib.format.read_array, which np.load calls) is watched: it must never be reached for the array
of a file whose header does not fit. Real numpy files, written by numpy or byte for byte as it does."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path

import numpy as np
import pytest
from numpy.lib import format as npy

from gorilla_tui.build import seed, vector_cache
from gorilla_tui.store import prior
from gorilla_tui.store import vectors as store_vectors

HASH = "a" * 40


@pytest.fixture
def unread(monkeypatch):
    """The names of the arrays numpy must not read (a file name, or an npz member's): reading one fails."""
    names: set[str] = set()
    real = npy.read_array

    def watched(fp, *args, **kwargs):
        name = getattr(fp, "name", "")
        if isinstance(name, int):  # a file opened by its descriptor (paths.open_regular): its path
            name = os.readlink(f"/proc/self/fd/{name}")
        name = str(name)
        assert not any(name.endswith(n) for n in names), f"{name} was read before it was judged"
        return real(fp, *args, **kwargs)

    monkeypatch.setattr(npy, "read_array", watched)
    return names


def _lying_npy(shape: tuple[int, ...], dtype: str = "<f4", data: bytes = b"\0" * 64) -> bytes:
    """An npy file whose header promises `shape` and holds only `data`."""
    out = io.BytesIO()
    npy.write_array_header_1_0(out, {"descr": dtype, "fortran_order": False, "shape": shape})
    return out.getvalue() + data


def _npz(path: Path, members: dict[str, bytes], compress: int = zipfile.ZIP_STORED) -> None:
    with zipfile.ZipFile(path, "w", compress) as zf:
        for name, raw in members.items():
            zf.writestr(f"{name}.npy", raw)


def _npy_bytes(array: np.ndarray) -> bytes:
    out = io.BytesIO()
    np.save(out, array)
    return out.getvalue()


@pytest.mark.parametrize("how", ["inflates", "rows", "header lies", "pickle"])
def test_a_damaged_vector_cache_is_moved_aside_by_its_headers_unread(tmp_path, monkeypatch, unread, how):
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(tmp_path))
    path = tmp_path / "emb.npz"
    hashes = _npy_bytes(np.array([HASH]))
    if how == "inflates":  # the round's file, smaller: 6 MB of zeros deflated to a few KB, 1 hash
        vectors = _npy_bytes(np.zeros((4000, 384), np.float32))
        _npz(path, {"hashes": hashes, "vectors": vectors}, zipfile.ZIP_DEFLATED)
    elif how == "rows":  # stored as we write it, but 4000 rows for 1 hash
        np.savez(path, hashes=np.array([HASH]), vectors=np.zeros((4000, 384), np.float32))
    elif how == "header lies":  # 10^9 rows promised, 64 bytes held
        _npz(path, {"hashes": hashes, "vectors": _lying_npy((10**9, 384))})
    else:  # an object array: numpy would need a pickle
        _npz(path, {"hashes": hashes, "vectors": _lying_npy((1, 384), "|O")})
    assert how != "inflates" or path.stat().st_size < 200_000
    unread.add("vectors.npy")
    notes: list[str] = []
    assert vector_cache.read_vector_cache("emb", dim=384, notes=notes) == {}
    assert len(notes) == 1 and "was damaged (" in notes[0] and "\n" not in notes[0], notes
    assert len(notes[0]) < 400 and path.with_name("emb.npz.damaged").is_file() and not path.exists()


def test_a_sound_vector_cache_is_still_read(tmp_path, monkeypatch):
    monkeypatch.setenv(vector_cache.CACHE_ENV, str(tmp_path))
    vector = np.ones(4, np.float32) / 2
    vector_cache.write_vector_cache("emb", {HASH: vector})
    got = vector_cache.read_vector_cache("emb", dim=4)
    assert list(got) == [HASH] and np.array_equal(got[HASH], vector)


@pytest.mark.parametrize(
    "raw",
    [_lying_npy((10**9,)), _lying_npy((16,), "<i8", b"\0" * 128), _lying_npy((16,), "|O")],
    ids=["header-lies", "not-floats", "pickle"],
)
def test_a_prior_whose_header_does_not_fit_is_not_read(tmp_path, unread, raw):
    (tmp_path / prior.FILE).write_bytes(raw)
    unread.add(prior.FILE)
    assert prior.load(tmp_path, 16) is None
    unread.clear()
    np.save(tmp_path / prior.FILE, np.ones(16, np.float32))
    assert prior.load(tmp_path, 16).shape == (16,)  # a sound one is read


def test_a_mask_whose_header_lies_makes_the_vectors_damaged_unread(tmp_path, unread):
    n = 3
    np.save(tmp_path / store_vectors.VECTORS, np.eye(n, 4, dtype=np.float32))
    (tmp_path / store_vectors.DENSE_META).write_text(json.dumps({"embedder": "x", "dim": 4}))
    np.save(tmp_path / store_vectors.MASK, np.ones(n, bool))
    assert store_vectors.read_vectors(tmp_path, n) is not None  # sound
    (tmp_path / store_vectors.MASK).write_bytes(_lying_npy((10**9,), "|b1"))
    unread.add(store_vectors.MASK)
    assert store_vectors.read_vectors(tmp_path, n) is None


def test_a_seed_whose_vectors_do_not_fit_its_digests_is_no_seed_and_unread(tmp_path, monkeypatch, unread):
    path = tmp_path / "seed.npz"
    digests = np.zeros((1, 20), np.uint8)
    _npz(
        path,
        {"digests": _npy_bytes(digests), "vectors": _npy_bytes(np.zeros((4000, 384), np.float16))},
        zipfile.ZIP_DEFLATED,
    )
    monkeypatch.setattr(seed, "seed_path", lambda name: path)
    monkeypatch.setattr(seed, "seed_enabled", lambda: True)
    unread.add("vectors.npy")
    assert seed.read_seed("emb", 384) == {}
