"""The stubs' file-object parameters, cached per module on disk (pool/stub_files.py) so that `check` reads
them without importing typeshed_client: a fresh process with the cache written answers from the file."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from gorilla_tui.paths import get_paths
from gorilla_tui.pool import stub_files

ROOT = Path(__file__).resolve().parents[2]
PROBE = (
    "import sys; from gorilla_tui.pool.stub_files import stub_files; "
    "print(stub_files('pickle.load'), stub_files('csv.reader'), 'typeshed_client' in sys.modules)"
)


def _probe(home: Path) -> str:
    env = {**os.environ, "GORILLA_TUI_HOME": str(home), "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", PROBE], env=env, capture_output=True, text=True, check=True)
    return done.stdout.strip()


def test_a_second_process_reads_the_answer_from_the_cache_without_the_stubs(gorilla_home):
    answer = "((0, 'file', 'rb'),) ((0, 'iterable', 'r'),)"
    assert _probe(gorilla_home) == f"{answer} True"  # looked up in the stubs, then written
    written = sorted(p.name for p in (get_paths().cache / stub_files.FOLDER).glob("*/*.json"))
    assert written == ["csv.json", "pickle.json"]
    assert _probe(gorilla_home) == f"{answer} False"  # read back: typeshed_client never imported


def test_a_damaged_cache_file_is_looked_past_and_replaced(gorilla_home, monkeypatch):
    _probe(gorilla_home)
    (cached,) = (get_paths().cache / stub_files.FOLDER).glob("*/pickle.json")
    cached.write_text('{"pickle.load": [[0, "file"]]}', encoding="utf-8")  # one field short
    monkeypatch.setattr(stub_files, "_MEMORY", {})
    assert stub_files.stub_files("pickle.load") == ((0, "file", "rb"),)
    assert '"pickle.load": [[0, "file", "rb"]]' in cached.read_text(encoding="utf-8")


def test_an_unusable_home_is_no_cache(tmp_path, monkeypatch):
    not_a_folder = tmp_path / "home"
    not_a_folder.write_text("", encoding="utf-8")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(not_a_folder))
    monkeypatch.setattr(stub_files, "_MEMORY", {})
    assert stub_files.stub_files("json.dump") == ((1, "fp", "w"),)
