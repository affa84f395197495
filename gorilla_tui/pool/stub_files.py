"""The parameters typeshed's stubs type as a file object (pool/typeshed.py file_parameters), cached so that
`check` can ask for them: `stub_files`.

Reading stubs costs: importing typeshed_client and making its Resolver took 0.16-0.22 s, then 8-56 ms per
module cold (pickle 55 ms, subprocess 56 ms, json 8 ms; this machine, 2 shared cores), against `check`'s
budget of 0.25 s per file (0.1 s measured, docs/benchmarks.md "check speed"). So each answer is kept in this
process and in a small JSON file per top-level module under the cache dir (paths.get_paths().cache /
FOLDER / key / "pickle.json": {"pickle.load": [[0, "file", "rb"]], "pickle.dumps": []}), written when first
looked up; the key names the Python version, the stubs (the size and mtime of typeshed_client's VERSIONS
file, found without importing it) and RULE, so a new interpreter, new stubs or a new rule read none of it.
A lookup found in the file imports nothing. A cache that cannot be read or written is looked past.
"""

from __future__ import annotations

import contextlib
import importlib.util
import json
import os
import sys
from pathlib import Path

from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.paths import get_paths, read_regular_bytes

#: Bumped when file_parameters' rule changes (a cache written by another rule is not read).
RULE = 1
#: Folder of the cached answers inside the cache dir.
FOLDER = "stub-files"
#: Largest cache file read, bytes (os's, the largest module, holds ~300 names: ~10 KB).
MAX_CACHE_BYTES = 2**20

#: top-level module -> function -> its file parameters, as read or found in this process.
_MEMORY: dict[str, dict[str, list[list[int | str]]]] = {}

FileParams = tuple[tuple[int, str, str], ...]


def stub_files(function: str) -> FileParams:
    """(position, name, mode) of each parameter of `function` ("pickle.load", "csv.DictReader") that its
    stub types as a file object or a text file's lines (pool/typeshed.py file_parameters), from this
    process's memory, else the cache file of its top-level module, else the stubs (then written there).
    () where no stub has it."""
    group = function.split(".", 1)[0]
    table = _MEMORY.get(group)
    if table is None:
        table = _MEMORY[group] = _read(group)
    if function not in table:
        from gorilla_tui.pool.typeshed import file_parameters  # imported on a miss only: ~0.2 s

        table[function] = [list(t) for t in file_parameters(function)]
        _write(group, table)
    return tuple((int(at), str(name), str(mode)) for at, name, mode in table[function])


def _folder() -> Path | None:
    """The cache folder of this interpreter, these stubs and this rule; None where there is none (no
    typeshed_client installed, its VERSIONS file missing, an unusable GORILLA_TUI_HOME)."""
    try:
        spec = importlib.util.find_spec("typeshed_client")
        if spec is None or not spec.submodule_search_locations:
            return None
        st = os.stat(Path(spec.submodule_search_locations[0], "typeshed", "VERSIONS"))
        cache = get_paths().cache
    except (OSError, ValueError, ImportError, UsageError):  # UsageError: GORILLA_TUI_HOME is no folder
        return None
    key = f"py{sys.version_info[0]}.{sys.version_info[1]}-r{RULE}-{st.st_size}-{st.st_mtime_ns}"
    return cache / FOLDER / key


def _read(group: str) -> dict[str, list[list[int | str]]]:
    """The cached answers of top-level module `group`, {} when there are none or they are not sound (a
    damaged file is looked past and replaced on the next write)."""
    folder = _folder()
    if folder is None:
        return {}
    try:
        data = json_value(read_regular_bytes(folder / f"{group}.json", MAX_CACHE_BYTES))
    except (OSError, ValueError):
        return {}
    return data if isinstance(data, dict) and all(_sound(k, v) for k, v in data.items()) else {}


def _sound(name: object, found: object) -> bool:
    """Whether one cached answer has stub_files' shape: a name -> [[position, name, mode], ...]."""
    return (
        isinstance(name, str)
        and isinstance(found, list)
        and all(
            isinstance(t, list)
            and len(t) == 3
            and type(t[0]) is int
            and isinstance(t[1], str)
            and isinstance(t[2], str)
            for t in found
        )
    )


def _write(group: str, table: dict[str, list[list[int | str]]]) -> None:
    """Write `table` as the cache file of `group` (a temporary file, then os.replace); a failure is ignored:
    the answer is looked up again next time."""
    folder = _folder()
    if folder is None:
        return
    path = folder / f"{group}.json"
    tmp = path.with_suffix(f".{os.getpid()}.tmp")
    try:
        folder.mkdir(parents=True, exist_ok=True)
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp)  # a FIFO left there would block the write
        tmp.write_text(json.dumps(table, sort_keys=True), encoding="utf-8")
        os.replace(tmp, path)
    except OSError:
        with contextlib.suppress(OSError):
            os.unlink(tmp)
