"""Words and runs of consecutive words of a text, and the [[api]] tables of a hand-written questions file:
for the tests that keep hand-written questions and tasks from copying a doc's description, an eval set's
task or one another."""

from __future__ import annotations

import re
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib


def words(text: str) -> list[str]:
    """The words of `text`, lower-cased: each a run of ASCII letters or digits ("Don't stop!" -> don, t,
    stop)."""
    return re.findall(r"[a-z0-9]+", text.lower())


def word_runs(text: str, n: int) -> set[tuple[str, ...]]:
    """Every run of `n` consecutive words of `text` (words); none when it has fewer than n words."""
    found = words(text)
    return {tuple(found[i : i + n]) for i in range(len(found) - n + 1)}


def api_tables(path: Path) -> list[dict]:
    """The [[api]] tables of a hand-written questions file (index/questions/*.toml); AssertionError when
    the file holds anything else."""
    data = tomllib.loads(path.read_text(encoding="utf-8"))
    assert set(data) == {"api"}, "the file holds only [[api]] tables"
    return data["api"]
