"""Break-it rounds 21 and 22: input that reached "internal error" from the environment (issue 42 exit rule).

R21-5: GORILLA_TUI_HOME or GORILLA_TUI_VECTOR_CACHE starting with a `~user` that names no user ended every
command in "internal error: RuntimeError: Could not determine home directory" (exit 1): one line, exit 2.
R21-6: a standard output whose encoding cannot hold the text (PYTHONIOENCODING=ascii, a latin-1 locale)
ended `search`, `ask` and `check` in "internal error: UnicodeEncodeError" (exit 1, which a hook reads as
findings): such characters are written as escapes. The real CLI in a subprocess.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
POOL = REPO / "tests" / "data" / "pool" / "torchhub_api.jsonl"


def _cli(*args: str, cwd: Path, **env: str) -> subprocess.CompletedProcess[str]:
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *args],
        capture_output=True, text=True, encoding="utf-8", errors="replace", cwd=cwd, timeout=300,
        env=base | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"} | env,
    )  # fmt: skip


@pytest.mark.parametrize("variable", ["GORILLA_TUI_HOME", "GORILLA_TUI_VECTOR_CACHE"])
def test_a_tilde_user_that_names_no_user_is_one_line(tmp_path: Path, variable: str) -> None:
    env = {"GORILLA_TUI_HOME": str(tmp_path / "home"), variable: "~no_such_gorilla_user/x"}
    args = ["search", "copy a file"] if variable == "GORILLA_TUI_HOME" else ["index", "--refresh", "--only",
                                                                              "python-env"]  # fmt: skip
    done = _cli(*args, cwd=tmp_path, **env)
    # a first refresh whose vectors cannot be cached builds BM25 alone and says why (exit 0; a refresh
    # that would replace a live index with a weaker one exits 2: test_refresh_keeps_vectors et al.)
    assert done.returncode == (2 if variable == "GORILLA_TUI_HOME" else 0), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr
    assert "cannot expand '~no_such_gorilla_user'" in done.stderr + done.stdout


@pytest.mark.parametrize("encoding", ["ascii", "latin-1"])
def test_text_the_output_encoding_cannot_hold_is_escaped(tmp_path: Path, encoding: str) -> None:
    source = tmp_path / "caf\u00e9_\u4e2d.py"
    source.write_text("import torch\ntorch.hub.load('pytorch/vision', 'resnet201')\n", encoding="utf-8")
    done = _cli("check", source.name, "--pool", str(POOL), cwd=tmp_path, PYTHONIOENCODING=encoding,
                GORILLA_TUI_HOME=str(tmp_path / "home"))  # fmt: skip
    assert done.returncode == 1, done.stderr  # the finding: a hallucinated model name
    assert "internal error" not in done.stderr
    assert "\\u4e2d" in done.stdout  # the file's name, written as its escape


@pytest.mark.parametrize("value", ["abc", "1e3"])
def test_a_hub_timeout_that_is_no_whole_number_is_ignored_with_a_warning(tmp_path: Path, value: str) -> None:
    """Break-it round 22, R22-1: huggingface_hub reads HF_HUB_ETAG_TIMEOUT with int() when imported, and
    `model list` was "internal error: ValueError"; the value is dropped with one warning line."""
    done = _cli(
        "model", "list", cwd=tmp_path, GORILLA_TUI_HOME=str(tmp_path / "home"), HF_HUB_ETAG_TIMEOUT=value
    )
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == (
        f"gorilla-tui: warning: HF_HUB_ETAG_TIMEOUT={value} is not a usable whole number: ignored"
    )
    assert "internal error" not in done.stderr


def test_a_config_integer_longer_than_python_reads_is_invalid_toml(tmp_path: Path) -> None:
    """Break-it round 22, R22-2: tomllib raises ValueError (not TOMLDecodeError) for an integer of more than
    4,300 digits, and every command was "internal error"; it is "invalid TOML", exit 2."""
    home = tmp_path / "home"
    (home / "config").mkdir(parents=True)
    (home / "config" / "config.toml").write_text("k = " + "9" * 5_000 + "\n", encoding="utf-8")
    done = _cli("search", "copy a file", cwd=tmp_path, GORILLA_TUI_HOME=str(home))
    assert done.returncode == 2, done.stderr
    assert "config.toml: invalid TOML: Exceeds the limit (4300 digits)" in done.stderr
    assert "internal error" not in done.stderr


@pytest.mark.parametrize("value", ["\u00b2", "9" * 5_000])
def test_a_terminal_size_rich_cannot_read_is_ignored_with_a_warning(tmp_path: Path, value: str) -> None:
    """Break-it round 23, R23-1: rich reads COLUMNS when str.isdigit() says it is a number, and int() then
    refused "²" or 5,000 digits: "internal error" in search, doctor, model list and mcp. Dropped with a
    warning; a value rich skips by itself ("", "-5") is left alone."""
    done = _cli("model", "list", cwd=tmp_path, GORILLA_TUI_HOME=str(tmp_path / "home"), COLUMNS=value)
    assert done.returncode == 0, done.stderr
    assert done.stderr.startswith("gorilla-tui: warning: COLUMNS=") and "internal error" not in done.stderr
    quiet = _cli("model", "list", cwd=tmp_path, GORILLA_TUI_HOME=str(tmp_path / "home"), COLUMNS="-5")
    assert quiet.returncode == 0 and "warning" not in quiet.stderr, quiet.stderr
