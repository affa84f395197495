"""`check PATH...` over many files: the files split into chunks checked by worker processes (issue 39).

A tree of 1,000 files is CPU-bound (tree-sitter, Python's compile, the validator's rules) and its files
are independent: each chunk of files gets its own Validator from validator_for (over the lookup, the
Validator of a set of texts gives each text the verdicts the whole pool gives it: check/lookup.py
load_validator), so a chunk's findings are those of the whole run, and the results are put back in
path order. Workers are forked (they inherit the loaded modules and validator_for; a platform without
fork, a single core or fewer than PARALLEL_MIN files are checked in this process, the same way).
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from functools import partial
from typing import Any

from gorilla_tui.check.lint import Block, Finding, check_block

#: Fewest files checked by worker processes: below it, starting the workers and building one Validator
#: per chunk costs more than it saves (a worker's Validator over the lookup: ~0.1 s of CPU).
PARALLEL_MIN = 64
#: Chunks per worker: files differ in size, so more chunks than workers keep every worker busy.
CHUNKS_PER_WORKER = 3

#: What a file gives: per block, (findings, notes, calls not judged with why), check_block's three lists.
Checked = list[tuple[list[Finding], list[str], list[str]]]

_validator_for: Callable[[list[str]], Any] | None = None


def workers() -> int:
    """The worker processes to use: the CPU cores this process may run on (1 where fork is missing)."""
    if not hasattr(os, "fork"):
        return 1
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:  # not Linux
        return os.cpu_count() or 1


def check_files(
    files: Sequence[tuple[str, list[Block]]], validator: Any, syntax_notes: bool = False
) -> list[Checked]:
    """check_block of every block of `files` ((path, blocks) pairs) with one Validator: per file, per
    block, (findings, notes, skipped) (check_block's findings and its notes and skipped lists).
    syntax_notes: code Python refuses is a note, not a finding (check_block syntax_note: files)."""
    out: list[Checked] = []
    for name, blocks in files:
        per_block: Checked = []
        for block in blocks:
            notes: list[str] = []
            skipped: list[str] = []
            found = check_block(
                validator, name, block, notes=notes, skipped=skipped, syntax_note=syntax_notes
            )
            per_block.append((found, notes, skipped))
        out.append(per_block)
    return out


def checked_files(
    files: Sequence[tuple[str, list[Block]]],
    validator_for: Callable[[list[str]], Any],
    syntax_notes: bool = False,
) -> list[Checked]:
    """check_files of `files` in path order, each chunk of files with the Validator validator_for(its
    blocks' code) gives (one Validator for all when checked in this process). Trees of at least
    PARALLEL_MIN files are checked by workers() forked processes when there are two or more; a broken
    worker pool (a worker killed) falls back to this process. syntax_notes: as check_files."""
    n = workers()
    if len(files) < PARALLEL_MIN or n < 2:
        return _serial(files, validator_for, syntax_notes)
    # multiprocessing and concurrent.futures cost ~40 ms to import; `check FILE` (the cold one-file target
    # of issue 39: 0.25 s) never needs them
    import multiprocessing  # deferred: see above
    from concurrent.futures import ProcessPoolExecutor  # deferred: see above
    from concurrent.futures.process import BrokenProcessPool  # deferred: see above

    chunks = _chunks(files, n * CHUNKS_PER_WORKER)
    global _validator_for
    _validator_for = validator_for  # inherited by the forked workers (a lambda cannot be pickled)
    try:
        with ProcessPoolExecutor(max_workers=n, mp_context=multiprocessing.get_context("fork")) as ex:
            done = list(ex.map(partial(_check_chunk, syntax_notes=syntax_notes), chunks))
    except BrokenProcessPool:
        return _serial(files, validator_for, syntax_notes)
    finally:
        _validator_for = None
    return [checked for part in done for checked in part]


def _serial(
    files: Sequence[tuple[str, list[Block]]],
    validator_for: Callable[[list[str]], Any],
    syntax_notes: bool = False,
) -> list[Checked]:
    if not files:
        return []
    validator = validator_for([b.code for _, blocks in files for b in blocks])
    return check_files(files, validator, syntax_notes)


def _check_chunk(files: list[tuple[str, list[Block]]], syntax_notes: bool = False) -> list[Checked]:
    assert _validator_for is not None  # set by checked_files before the workers fork
    return _serial(files, _validator_for, syntax_notes)


def _chunks(files: Sequence[tuple[str, list[Block]]], k: int) -> list[list[tuple[str, list[Block]]]]:
    """`files` cut into at most `k` runs of consecutive files of about equal code size (path order kept)."""
    sizes = [sum(len(b.code) for b in blocks) + 1 for _, blocks in files]
    step = sum(sizes) / k
    out: list[list[tuple[str, list[Block]]]] = [[]]
    total = 0
    for item, size in zip(files, sizes, strict=True):
        if out[-1] and total >= step * len(out) and len(out) < k:
            out.append([])
        out[-1].append(item)
        total += size
    return out
