"""Where the tests find the public data sets (APIBench, its released responses, APIZoo, BFCL), and what they
do without them.

Each data set is a folder of a data root, laid out as ../shared is (apibench/api, apibench/eval,
apibench/responses, apizoo/, bfcl/). It is looked for, in order:

1. `$GORILLA_TUI_SHARED` (a folder holding those folders) when set, else `../shared` beside the checkout
   (where CI lays it);
2. the test data cache (`$GORILLA_TUI_TEST_DATA`, else `<user cache>/gorilla-tui/test-data`), filled on
   first use from the Hugging Face hub with the product's own download code (`pool.hub.hf_files`, which
   honours HF_HUB_OFFLINE and HF_HUB_CACHE, probes the hub once and reads only its local cache when it is
   unreachable) for the data sets published there: APIBench's pools and eval sets
   (`gorilla-llm/APIBench`);
3. for BFCL, the data folder of an installed `bfcl_eval` (the PyPI package `bfcl-eval` ships BFCL v4's files
   in `bfcl_eval/data/`; the hub's `gorilla-llm/Berkeley-Function-Calling-Leaderboard` holds v3's names).

When a data set can be had nowhere, `missing` skips the test with one line that says how to get it, and
tests/conftest.py's terminal summary counts those skips; `GORILLA_TUI_REQUIRE_DATA=1` (set by .ci/run)
makes it a failure, so CI never passes by skipping.
"""

from __future__ import annotations

import importlib.util
import os
import shutil
import tempfile
from dataclasses import dataclass
from functools import cache
from pathlib import Path

import platformdirs
import pytest
from huggingface_hub import constants

from gorilla_tui.pool.hub import MIRROR_HINT, hf_files
from gorilla_tui.pool.manifest import FetchContext, Manifest, SourceUnavailable

REPO = Path(__file__).resolve().parent.parent
#: A folder holding apibench/, apizoo/, bfcl/ (as ../shared); overrides ../shared.
SHARED_ENV = "GORILLA_TUI_SHARED"
#: The folder the hub's files are copied into, laid out as ../shared (default: the user cache).
CACHE_ENV = "GORILLA_TUI_TEST_DATA"
#: "1": a data set that cannot be had fails its tests instead of skipping them (.ci/run sets it).
REQUIRE_ENV = "GORILLA_TUI_REQUIRE_DATA"
#: How every skip line for missing data starts (tests/conftest.py counts them in the terminal summary).
SKIP_PREFIX = "public data not found:"
#: The Hugging Face dataset of APIBench (the product's manifests index/apibench-*.toml fetch from it too).
APIBENCH_REPO = "gorilla-llm/APIBench"


@dataclass(frozen=True)
class DataSet:
    """One public data set the tests read.

    Attributes:
        folder: its folder under a data root ("apibench/responses" is under apibench/).
        title: its name in messages.
        marker: a file, relative to the folder, whose presence says the data set is there.
        hub_files: (file in the hub repo, path under the folder) of the files fetched from APIBENCH_REPO;
            empty when the data set is not published on the hub.
        how: one line saying how to get it.
    """

    folder: str
    title: str
    marker: str
    hub_files: tuple[tuple[str, str], ...] = ()
    how: str = ""


DATA_SETS: dict[str, DataSet] = {
    "apibench": DataSet(
        "apibench",
        "APIBench (pools, eval sets)",
        "api/torchhub_api.jsonl",
        hub_files=(
            ("torchhub_api.jsonl", "api/torchhub_api.jsonl"),
            ("tensorflowhub_api.jsonl", "api/tensorflowhub_api.jsonl"),
            ("huggingface_api.jsonl", "api/huggingface_api.jsonl"),
            ("torchhub_eval.json", "eval/torchhub_eval.json"),
            ("tensorflow_eval.json", "eval/tensorflow_eval.json"),
            ("huggingface_eval.json", "eval/huggingface_eval.json"),
            ("torchhub_train.json", "eval/torchhub_train.json"),
        ),
        how=f"run the tests once online (they fetch the Hugging Face dataset {APIBENCH_REPO}), or put its "
        "*_api.jsonl in apibench/api/ and *_eval.json in apibench/eval/ of ../shared or $GORILLA_TUI_SHARED",
    ),
    "responses": DataSet(
        "apibench/responses",
        "APIBench's released Gorilla responses",
        "torchhub/response_torchhub_Gorilla_FT_0_shot.jsonl",
        how="copy eval/eval-data/responses/ of github.com/ShishirPatil/gorilla to apibench/responses/ of "
        "../shared or $GORILLA_TUI_SHARED",
    ),
    "apizoo": DataSet(
        "apizoo",
        "APIZoo",
        "yfinance.json",
        how="copy data/apizoo/ of github.com/ShishirPatil/gorilla to apizoo/ of ../shared or "
        "$GORILLA_TUI_SHARED",
    ),
    "conala": DataSet(
        "conala",
        "CoNaLa's dev split with its oracle docs (DocPrompting)",
        "cmd_dev.oracle_man.full.json",
        how="copy the dev split of DocPrompting's CoNaLa release (neulab/docprompting-conala) to conala/ of "
        "../shared or $GORILLA_TUI_SHARED",
    ),
    "bfcl": DataSet(
        "bfcl",
        "BFCL v4",
        "possible_answer/BFCL_v4_simple_python.json",
        how="pip install bfcl-eval (its bfcl_eval/data/ is read), or copy that folder to bfcl/ of ../shared "
        "or $GORILLA_TUI_SHARED",
    ),
}


def shared_root() -> Path:
    """The data root named by the machine's layout: $GORILLA_TUI_SHARED when set (it replaces ../shared),
    else ../shared beside the checkout."""
    named = os.environ.get(SHARED_ENV, "").strip()
    return Path(named).expanduser() if named else REPO.parent / "shared"


def cache_root() -> Path:
    """The test data cache: $GORILLA_TUI_TEST_DATA, else <user cache dir>/gorilla-tui/test-data."""
    named = os.environ.get(CACHE_ENV, "").strip()
    return (
        Path(named).expanduser() if named else Path(platformdirs.user_cache_dir("gorilla-tui")) / "test-data"
    )


def fetch_from_hub(data: DataSet, root: Path) -> str | None:
    """Copy `data`'s hub files into root/<folder> with the product's hf_files (the hub, or its local cache
    when the hub is unreachable). Returns None when they are all there, else why not (one line). The folder
    appears whole or not at all (the files are gathered in a sibling temporary folder, then renamed)."""
    target = root / data.folder
    manifest = Manifest(
        name=data.folder,
        title=data.title,
        files=tuple(name for name, _ in data.hub_files),
        remote={"type": "hf", "repo_id": APIBENCH_REPO, "repo_type": "dataset"},
    )
    saved = constants.HF_HUB_OFFLINE
    # huggingface_hub read HF_HUB_OFFLINE when it was imported, maybe inside a test whose environment said
    # offline (tests/conftest.py gorilla_home): the person's own setting is the one that counts here
    constants.HF_HUB_OFFLINE = os.environ.get("HF_HUB_OFFLINE", "").strip().upper() in {
        "1",
        "ON",
        "YES",
        "TRUE",
    }
    try:
        fetched = hf_files(manifest, FetchContext())
    except SourceUnavailable as e:
        return str(e).removesuffix(f"; {MIRROR_HINT}")  # the product's advice; skip_line gives the tests'
    finally:
        constants.HF_HUB_OFFLINE = saved
    target.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{target.name}-", dir=target.parent))
    try:
        for src, (_, rel) in zip(fetched, data.hub_files, strict=True):
            dest = staging / rel
            dest.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(src, dest)
        staging.rename(target)
    except OSError as e:
        return f"cannot write {target}: {e}"
    finally:
        shutil.rmtree(staging, ignore_errors=True)
    return None


def _bfcl_package_data() -> Path | None:
    """bfcl_eval/data of an installed bfcl-eval, found without importing it (find_spec of a top-level
    package runs none of its code)."""
    spec = importlib.util.find_spec("bfcl_eval")
    if spec is None or not spec.origin:
        return None
    return Path(spec.origin).parent / "data"


@cache
def locate(name: str) -> tuple[Path | None, str]:
    """Where data set `name` (a DATA_SETS key) is: (its folder, "") or (None, why it could not be had).

    Tried in the order of the module docstring; the hub fetch happens at most once per test session."""
    data = DATA_SETS[name]
    roots = [shared_root(), cache_root()]
    for root in roots:
        if (root / data.folder / data.marker).is_file():
            return root / data.folder, ""
    if name == "bfcl":
        package = _bfcl_package_data()
        if package is not None and (package / data.marker).is_file():
            return package, ""
    if not data.hub_files:
        return None, f"not in {', '.join(str(r / data.folder) for r in roots)}"
    why = fetch_from_hub(data, cache_root())
    if why is None and (cache_root() / data.folder / data.marker).is_file():
        return cache_root() / data.folder, ""
    return None, why or f"{data.marker} not among the hub's files"


def skip_line(name: str, why: str) -> str:
    """The one line of a test skipped for want of data set `name`: what is missing, why, how to get it."""
    data = DATA_SETS[name]
    return f"{SKIP_PREFIX} {data.title} ({why}); to get it: {data.how}"


def require(name: str) -> Path:
    """The folder of data set `name`, or the test is skipped (failed under GORILLA_TUI_REQUIRE_DATA=1) with
    skip_line. Raises pytest's Skipped or Failed outcome."""
    folder, why = locate(name)
    if folder is not None:
        return folder
    line = skip_line(name, why)
    if os.environ.get(REQUIRE_ENV, "").strip() not in ("", "0"):
        pytest.fail(f"{line} ({REQUIRE_ENV}=1: data may not be skipped)", pytrace=False)
    pytest.skip(line)
