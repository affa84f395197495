"""Our own small state, config and cache files are read with a byte limit each reader states, and one over it
is refused before a byte is read (break-it round 11, R11-5: a 1 GB sparse cache/probe.json cost `ask` 2.16
GB, a 1 GB sparse config.toml cost `search` 2.1 GB before "invalid TOML"). Each file here is a sparse file
of 64 MiB (holes: what a crash or a stray truncate leaves), and every byte read through paths.open_regular
is counted: none may be read."""

from __future__ import annotations

import inspect
import os

import pytest

from gorilla_tui import config, paths
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model import probe, verified
from gorilla_tui.pool import fingerprint
from gorilla_tui.pool.pyenv import usage
from gorilla_tui.store import fileio, folders, lock

SPARSE = 64 * 2**20


@pytest.fixture
def bytes_read(monkeypatch) -> list[int]:
    """[bytes read so far] from the files paths.open_regular opens (its os.fdopen wrapped)."""
    counted = [0]
    real = os.fdopen

    class Counting:
        def __init__(self, fh):
            self._fh = fh

        def read(self, n=-1):
            data = self._fh.read(n)
            counted[0] += len(data)
            return data

        def __enter__(self):
            return self

        def __exit__(self, *exc):
            self._fh.close()

        def __getattr__(self, name):
            return getattr(self._fh, name)

    monkeypatch.setattr(paths.os, "fdopen", lambda fd, *a, **k: Counting(real(fd, *a, **k)))
    return counted


def _sparse(path):
    path.parent.mkdir(parents=True, exist_ok=True)
    with open(path, "wb") as fh:
        fh.truncate(SPARSE)
    return path


def test_the_readers_of_our_files_must_state_a_limit():
    for fn in (paths.open_regular, paths.read_regular_bytes, paths.read_regular_text, paths.read_toml,
               fingerprint.file_digest):  # fmt: skip
        limit = inspect.signature(fn).parameters["limit"]
        assert limit.default is inspect.Parameter.empty, fn.__name__


def test_an_oversized_config_is_one_line_of_damage_unread(tmp_path, bytes_read):
    path = _sparse(tmp_path / "config.toml")
    with pytest.raises(UsageError) as caught:
        config.load_settings(path)
    said = str(caught.value)
    assert f"{SPARSE:,} bytes" in said and "damaged" in said and "\n" not in said and len(said) < 300
    assert bytes_read == [0]


def test_an_oversized_probe_cache_is_ignored_unread_and_replaced(tmp_path, monkeypatch, bytes_read):
    monkeypatch.setenv(paths.HOME_ENV, str(tmp_path))
    _sparse(probe.cache_file())
    assert probe._read_cache() == {} and bytes_read == [0]
    probe._write_cache("k", {"params": {}, "note": ""})
    assert probe.cache_file().stat().st_size < 1000  # rewritten: the cache rebuilt


def test_an_oversized_current_pointer_is_corrupt_unread(tmp_path, bytes_read):
    root = tmp_path / "index"
    _sparse(root / folders.POINTER)
    with pytest.raises(GorillaError, match="is corrupt"):
        folders.current_version(root)
    assert bytes_read == [0]


def test_an_oversized_lock_owner_verified_record_or_usage_cache_is_none_unread(tmp_path, bytes_read):
    root = tmp_path / "index"
    _sparse(root / lock.LOCK_OWNER)
    assert lock.lock_holder(root) == "another process"
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF")
    _sparse(model.with_name(model.name + verified.SUFFIX))
    assert verified.recorded(model, "0" * 64) is False
    cache = tmp_path / "cache"
    _sparse(cache / usage.FOLDER / "k.json")
    assert usage._cached("k", [], cache) is not None  # scanned again (nothing to scan here)
    assert (cache / usage.FOLDER / "k.json").stat().st_size < SPARSE  # and rewritten
    with pytest.raises(ValueError, match="bytes"):
        fileio.json_of(_sparse(tmp_path / "meta.json"), 2**20)
    assert bytes_read == [0]
