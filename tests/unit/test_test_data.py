"""Where the tests find the public data (tests/shared_data.py), on a machine without it (issue 40, item 1):
fetched from the Hugging Face hub with the product's own download code into the test data cache (here from a
local Hugging Face cache, offline, as huggingface_hub reads one), and otherwise skipped with one line that
says how to get it, counted in the terminal summary, and failed when GORILLA_TUI_REQUIRE_DATA=1."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest
from huggingface_hub import constants

from tests import shared_data
from tests.conftest import REPO, SMALL_POOL

#: A commit hash for the hand-made Hugging Face cache (refs/main names its snapshot folder).
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def _hub_cache(root: Path, files: dict[str, bytes]) -> Path:
    """A Hugging Face hub cache holding `files` of the APIBench dataset at revision main (the layout
    huggingface_hub's hf_hub_download reads with local_files_only: refs/main -> snapshots/<commit>/<file>)."""
    repo = root / f"datasets--{shared_data.APIBENCH_REPO.replace('/', '--')}"
    (repo / "refs").mkdir(parents=True)
    (repo / "refs" / "main").write_text(COMMIT)
    for name, data in files.items():
        path = repo / "snapshots" / COMMIT / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    return root


@pytest.fixture
def nowhere(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """No data root (an empty one named by the environment), an empty test data cache, the hub offline
    (HF_HUB_OFFLINE=1, though huggingface_hub read it as online when imported) with an empty Hugging Face
    cache, no installed bfcl_eval; locate's memory cleared before and after."""
    for name in ("root", "cache", "hf"):
        (tmp_path / name).mkdir()
    monkeypatch.setenv(shared_data.SHARED_ENV, str(tmp_path / "root"))
    monkeypatch.setenv(shared_data.CACHE_ENV, str(tmp_path / "cache"))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")  # what the fetch reads, not huggingface_hub's constant
    monkeypatch.setattr(constants, "HF_HUB_OFFLINE", False)
    monkeypatch.setattr(constants, "HF_HUB_CACHE", str(tmp_path / "hf"))
    monkeypatch.setattr(shared_data, "_bfcl_package_data", lambda: None)
    shared_data.locate.cache_clear()
    yield tmp_path
    shared_data.locate.cache_clear()


def test_apibench_is_fetched_from_the_hub_cache_into_the_test_data_cache(nowhere: Path) -> None:
    pool = {name: (SMALL_POOL / f"{hub}_api.jsonl").read_bytes() for name, hub in (
        ("torchhub_api.jsonl", "torchhub"), ("tensorflowhub_api.jsonl", "tensorflowhub"),
        ("huggingface_api.jsonl", "huggingface"))}  # fmt: skip
    line = b'{"code": "###Instruction: a task\\n###Output: x"}\n'
    names = ("torchhub_eval.json", "tensorflow_eval.json", "huggingface_eval.json", "torchhub_train.json")
    evals = dict.fromkeys(names, line)
    _hub_cache(nowhere / "hf", pool | evals)

    folder, why = shared_data.locate("apibench")
    assert (folder, why) == (nowhere / "cache" / "apibench", "")
    for name, data in pool.items():
        assert (folder / "api" / name).read_bytes() == data
    assert sorted(p.name for p in (folder / "eval").iterdir()) == sorted(evals)
    assert [p.name for p in (nowhere / "cache").iterdir()] == ["apibench"]  # no staging folder left

    shared_data.locate.cache_clear()  # found in the cache next time, with the hub's cache gone
    (nowhere / "hf" / f"datasets--{shared_data.APIBENCH_REPO.replace('/', '--')}" / "refs" / "main").unlink()
    assert shared_data.locate("apibench") == (folder, "")


def test_a_partial_hub_cache_leaves_nothing_and_says_why(nowhere: Path) -> None:
    _hub_cache(nowhere / "hf", {"torchhub_api.jsonl": (SMALL_POOL / "torchhub_api.jsonl").read_bytes()})
    folder, why = shared_data.locate("apibench")
    assert folder is None and list((nowhere / "cache").iterdir()) == []
    assert why.startswith(f"cannot fetch {shared_data.APIBENCH_REPO}/tensorflowhub_api.jsonl")
    assert "offline (HF_HUB_OFFLINE=1), and not in the local Hugging Face cache" in why
    assert "--from" not in why  # the product's advice to its users is not the tests' way to get the data


def test_data_sets_not_on_the_hub_say_where_they_were_looked_for(nowhere: Path) -> None:
    for name in ("responses", "apizoo", "bfcl"):
        folder, why = shared_data.locate(name)
        assert folder is None and str(nowhere / "root") in why and str(nowhere / "cache") in why
        line = shared_data.skip_line(name, why)
        assert line.startswith(shared_data.SKIP_PREFIX) and "to get it: " in line and "\n" not in line


def _pytest_run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    """Run a scratch test of the APIBench tier that needs the APIBench data, with no data to be had."""
    scratch = REPO / "tests" / "apibench" / f"test_scratch_data_{tmp_path.name}.py"
    scratch.write_text("def test_needs_the_data(apibench):\n    pass\n\ndef test_needs_none():\n    pass\n")
    for name in ("root", "cache", "hf"):
        (tmp_path / name).mkdir(exist_ok=True)
    environ = {k: v for k, v in os.environ.items() if k != shared_data.REQUIRE_ENV}
    environ.update(HF_HUB_OFFLINE="1", HF_HUB_CACHE=str(tmp_path / "hf"), **env)
    environ[shared_data.SHARED_ENV] = str(tmp_path / "root")
    environ[shared_data.CACHE_ENV] = str(tmp_path / "cache")
    try:
        return subprocess.run(
            [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(scratch)],
            cwd=REPO, env=environ, capture_output=True, text=True, timeout=300,
        )  # fmt: skip
    finally:
        scratch.unlink()


def test_without_data_the_test_is_skipped_with_how_to_get_it_and_counted(tmp_path: Path) -> None:
    run = _pytest_run(tmp_path)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "1 passed, 1 skipped" in run.stdout
    assert "1 tests skipped: public data not found" in run.stdout
    (line,) = [s for s in run.stdout.splitlines() if s.startswith("1 skipped: ")]
    assert shared_data.SKIP_PREFIX in line and shared_data.APIBENCH_REPO in line and "to get it: " in line


def test_with_data_required_a_missing_data_set_fails(tmp_path: Path) -> None:
    run = _pytest_run(tmp_path, **{shared_data.REQUIRE_ENV: "1"})
    assert run.returncode == 1, run.stdout + run.stderr
    assert "1 passed, 1 error" in run.stdout
    assert f"{shared_data.REQUIRE_ENV}=1: data may not be skipped" in run.stdout
