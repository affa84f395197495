"""State that is there but cannot be opened (mode 000, a FIFO, a stray journal) is told apart from damage
(issue 42, break-it round 14, R14-5..R14-10): each command says one line and exits 2 (doctor: a problem,
exit 1), never "internal error", never hangs, and never moves saved state aside for a permission problem.

Permission cases run the CLI as a user without CAP_DAC_OVERRIDE / CAP_DAC_READ_SEARCH: as root through
setpriv (what a normal user is), else as this user; skipped only when a mode-000 file can still be read."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import doctor
from gorilla_tui.cli import main as cli_main
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from gorilla_tui.retrieve.dense import UNREADABLE_VECTORS, changed_note
from gorilla_tui.store import versions
from gorilla_tui.store.fileio import IndexUnreadableError, cannot_read
from tests.conftest import clone_home

ROOT = Path(__file__).resolve().parents[2]
_CAPS = "-dac_override,-dac_read_search"
_NO_DAC = ["setpriv", f"--bounding-set={_CAPS}", f"--inh-caps={_CAPS}"]


def _prefix(tmp_path: Path) -> list[str]:
    """The argv prefix that runs a child without the right to read a mode-000 file; skips the test when
    there is none (a root without setpriv, a file system that ignores modes)."""
    probe = tmp_path / "probe-000"
    probe.write_text("x")
    probe.chmod(0)
    try:
        if not os.access(probe, os.R_OK):
            return []
        if os.geteuid() == 0 and shutil.which("setpriv"):
            done = subprocess.run([*_NO_DAC, "cat", str(probe)], capture_output=True, check=False)
            if done.returncode != 0:
                return _NO_DAC
        pytest.skip("this process reads a mode-000 file and cannot drop that right")
    finally:
        probe.chmod(0o600)


def _cli(prefix: list[str], *args: str, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    """Run `gorilla-tui ARGS` as a child (under `prefix`), with this test's GORILLA_TUI_HOME."""
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    return subprocess.run(
        [*prefix, sys.executable, "-m", "gorilla_tui", *args],
        capture_output=True,
        text=True,
        timeout=timeout,
        env=env,
        check=False,
    )


def _history_with(db: Path, *tasks: str) -> bytes:
    history = History(db)
    for task in tasks:
        assert history.add(task) is not None
    return db.read_bytes()


def _doctor_problems(done: subprocess.CompletedProcess[str]) -> list[dict[str, str]]:
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr, done.stderr
    return json.loads(done.stdout)["problems"]


def test_a_history_of_mode_000_is_left_where_it_is_and_doctor_gives_the_chmod(tmp_path):
    """R14-8: a sound history.sqlite3 of mode 000 was moved aside by the next ask as if it were damaged."""
    prefix = _prefix(tmp_path)
    db = get_paths().history_db
    before = _history_with(db, "copy a file", "list a folder")
    db.chmod(0)
    code = (
        "from gorilla_tui.history import History\n"
        "h = History()\n"
        "print(repr(h.add('x')), len(h.search()), h.warnings)\n"
    )
    done = subprocess.run(
        [*prefix, sys.executable, "-c", code],
        capture_output=True,
        text=True,
        timeout=60,
        env=os.environ | {"PYTHONPATH": str(ROOT)},
        check=False,
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("None 0 ['history not saved: cannot open ")
    assert "Permission denied" in done.stdout and "left as it is" in done.stdout, done.stdout
    doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
    db.chmod(0o600)
    assert list(db.parent.glob("*.broken-*")) == [] and db.read_bytes() == before  # left, unchanged
    assert doctor_run.returncode == 1
    (problem,) = [p for p in _doctor_problems(doctor_run) if "history" in p["problem"]]
    assert "Permission denied" in problem["problem"] and "left as is" in problem["problem"], problem
    assert problem["fix"].startswith(f"chmod u+rw {db}"), problem


def test_a_data_folder_of_mode_000_is_a_doctor_problem_and_one_line_for_search(tmp_path):
    """R14-6: doctor was "internal error: PermissionError ... history.sqlite3" (History.damage)."""
    prefix = _prefix(tmp_path)
    data = get_paths().data
    _history_with(get_paths().history_db, "copy a file")
    data.chmod(0)
    try:
        doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
        search = _cli(prefix, "search", "copy a file")
    finally:
        data.chmod(0o700)
    assert doctor_run.returncode == 1
    problems = _doctor_problems(doctor_run)
    (problem,) = [p for p in problems if p["problem"].startswith("the history")]
    assert "Permission denied" in problem["problem"] and f"chmod u+rwx {data} " in problem["fix"]
    assert search.returncode == 2 and "internal error" not in search.stderr, search.stderr
    assert len(list(data.glob("history.sqlite3*"))) == 1


def test_a_cache_folder_of_mode_000_is_one_line_for_the_model_and_a_doctor_problem(tmp_path):
    """R14-7: `ask` (model/registry.py) and doctor (cli/doctor_model.py) were "internal error:
    PermissionError ... cache/models/gemma-3-270m-q4_k_m.gguf"."""
    prefix = _prefix(tmp_path)
    cache = get_paths().cache
    get_paths().models_dir.mkdir(parents=True)
    cache.chmod(0)
    code = (
        "from gorilla_tui.errors import GorillaError\n"
        "from gorilla_tui.model.registry import embedded_model_path\n"
        "try:\n    embedded_model_path()\nexcept GorillaError as e:\n    print(e, '|', e.hint)\n"
    )
    try:
        done = subprocess.run(
            [*prefix, sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=60,
            env=os.environ | {"PYTHONPATH": str(ROOT)},
            check=False,
        )
        doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
    finally:
        cache.chmod(0o700)
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("cannot read model file ") and "Permission denied" in done.stdout
    assert f"| chmod u+rwx {cache} " in done.stdout, done.stdout
    assert doctor_run.returncode == 1
    problems = _doctor_problems(doctor_run)
    assert any(
        p["problem"].startswith("cannot read model file") and p["fix"].startswith(f"chmod u+rwx {cache}")
        for p in problems
    ), problems


@pytest.mark.parametrize("name", ["meta.json", "docs.jsonl", "CURRENT"])
def test_an_index_file_that_cannot_be_read_is_said_so_with_a_chmod_not_missing(
    tmp_path, home_template, gorilla_home, name
):
    """R14-5: meta.json of mode 000 was "damaged (meta.json is missing); rebuild it", vectors.npy "missing;
    index --refresh embeds them again", CURRENT "rebuild it": the OSError, and a chmod for the fix."""
    prefix = _prefix(tmp_path)
    clone_home(home_template(["index", "--refresh", "--only", "python-env"]), gorilla_home)
    root = get_paths().index_dir
    path = root / name if name == "CURRENT" else root / (root / "CURRENT").read_text().strip() / name
    path.chmod(0)
    try:
        search = _cli(prefix, "search", "copy a file")
        doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
    finally:
        path.chmod(0o600)
    said = f"{name} cannot be read (Permission denied)" if name != "CURRENT" else f"{path}: Permission denied"
    assert "missing" not in search.stderr and "rebuild it" not in search.stderr, search.stderr
    assert "--refresh" not in search.stderr, search.stderr
    assert "internal error" not in search.stderr and said in search.stderr, search.stderr
    if name == "vectors.npy":  # the dense side: BM25 alone, with a note
        assert search.returncode == 0 and "chmod u+r" in search.stderr
    else:
        assert search.returncode == 2 and "hint: chmod" in search.stderr
    assert doctor_run.returncode == 1
    (problem,) = [p for p in _doctor_problems(doctor_run) if said in p["problem"]]
    assert problem["fix"].startswith("chmod"), problem


def test_the_one_reader_rule_missing_is_missing_unreadable_says_its_oserror(tmp_path):
    assert cannot_read("vectors.npy", FileNotFoundError(2, "No such file")) == "vectors.npy is missing"
    refused = cannot_read("vectors.npy", PermissionError(13, os.strerror(13)))
    assert refused == "vectors.npy cannot be read (Permission denied)"
    error = versions.damaged(tmp_path, refused)
    assert isinstance(error, IndexUnreadableError) and "rebuild" not in str(error) and "chmod" in error.hint
    damaged = versions.damaged(tmp_path, "vectors.npy is missing")
    assert not isinstance(damaged, IndexUnreadableError) and "rebuild it" in str(damaged)
    note = changed_note(refused)  # the dense side: BM25 alone, the chmod its fix
    assert UNREADABLE_VECTORS in note and "chmod u+r" in note and "--refresh" not in note
    assert "--refresh" in changed_note("vectors.npy is missing")


@pytest.mark.parametrize("suffix", ["", "-journal", "-wal"])
def test_a_fifo_as_the_history_is_a_doctor_problem_without_a_hang_and_is_left(suffix):
    """R14-9: doctor hung for ever on a FIFO history (a read-only open blocks) and ignored Ctrl+C; ask moved
    the FIFO aside. A FIFO as SQLite's journal or WAL beside a sound history hung every use, ask too."""
    db = get_paths().history_db
    db.parent.mkdir(parents=True)
    before = _history_with(db, "copy a file") if suffix else b""
    fifo = db.with_name(db.name + suffix)
    os.mkfifo(fifo)
    done = _cli([], "doctor", "--no-hash", "--no-inference", "--json", timeout=90)
    assert done.returncode == 1
    (problem,) = [p for p in _doctor_problems(done) if "history" in p["problem"]]
    assert f"{fifo} is not a regular file (a FIFO)" in problem["problem"], problem
    assert problem["fix"].startswith(f"mv {fifo} {fifo}.not-a-"), problem
    history = History(db)
    assert history.add("copy a file") is None and history.search() == []
    assert len(history.warnings) == 1 and "not a regular file (a FIFO)" in history.warnings[0]
    assert stat.S_ISFIFO(os.stat(fifo).st_mode) and list(db.parent.glob("*.broken-*")) == []
    assert not suffix or db.read_bytes() == before


def test_a_stray_journal_of_random_bytes_is_judged_as_history_opens_it(capsys):
    """R14-10: doctor (a read-only open, which may not roll a hot journal back) said the history "cannot be
    read" and gave `mv history.sqlite3 ...broken`; ask opens it (the journal is no journal) and keeps
    every task. Doctor now judges a copy of both opened as a use opens it, and changes neither."""
    db = get_paths().history_db
    before = _history_with(db, "copy a file", "list a folder")
    journal = db.with_name(db.name + "-journal")
    noise = bytes((i * 151 + 7) % 256 for i in range(20_000))
    journal.write_bytes(noise)
    with pytest.raises(sqlite3.OperationalError):  # what doctor's read-only open met
        sqlite3.connect(f"{db.as_uri()}?mode=ro", uri=True).execute("PRAGMA quick_check").fetchall()
    assert History(db).damage() is None
    cli_main(["doctor", "--no-hash", "--no-inference", "--json"])
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert not any("history" in p["problem"] for p in problems), problems
    assert db.read_bytes() == before and journal.read_bytes() == noise  # doctor changed neither
    history = History(db)
    assert [e.task for e in history.search()] == ["list a folder", "copy a file"] and history.warnings == []


def test_doctor_names_a_file_system_under_its_floor_of_free_space(monkeypatch, capsys):
    """Noted in round 14: doctor said "no problems found" on a 100 % full disk where ask could not save its
    history. The real free space of the test's file system, against the floor: above it no problem, a floor
    above any disk a problem naming the folder."""
    get_paths().data.mkdir(parents=True)
    problems: list[dict[str, str]] = []
    doctor._free_space(problems)
    assert problems == []  # this machine's /tmp has more than 32 MiB free
    monkeypatch.setattr(doctor, "MIN_FREE_BYTES", 2**62)
    doctor._free_space(problems)
    assert len(problems) >= 1 and "MiB free (under" in problems[0]["problem"], problems
    assert "ask cannot save its history" in problems[0]["problem"] and "free space" in problems[0]["fix"]


@pytest.mark.parametrize("what", ["folder", "file"])
def test_a_config_that_cannot_be_read_is_one_line_with_a_chmod(tmp_path, what):
    """The config folder of mode 000 was "internal error: PermissionError" in search and doctor
    (config.load_settings's Path.exists); config.toml of mode 000 had doctor's fix "fix or delete" it."""
    prefix = _prefix(tmp_path)
    config = get_paths().config_file
    config.parent.mkdir(parents=True)
    config.write_text("k = 5\n")
    refused = config.parent if what == "folder" else config
    refused.chmod(0)
    try:
        search = _cli(prefix, "search", "copy a file")
        doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
    finally:
        refused.chmod(0o700)
    assert search.returncode == 2 and "internal error" not in search.stderr, search.stderr
    assert search.stderr.startswith(f"gorilla-tui: error: {config}: cannot read the config file (Permission")
    assert f"chmod u+rwx {config.parent}" in search.stderr
    (problem,) = [p for p in _doctor_problems(doctor_run) if p["problem"].startswith(str(config))]
    assert problem["fix"].startswith("chmod") and "delete" not in problem["fix"], problem
    assert config.read_text() == "k = 5\n"


def test_a_model_file_its_permissions_refuse_has_the_chmod_fix(tmp_path):
    """A GGUF of mode 000 was "cannot read model file ..." with the fix `model list` (doctor) and "check the
    disk" (ask): its fix is a chmod."""
    prefix = _prefix(tmp_path)
    model = tmp_path / "m.gguf"
    model.write_bytes(b"GGUF" + bytes(60))
    config = get_paths().config_file
    config.parent.mkdir(parents=True)
    config.write_text(f'model = "{model}"\n')
    model.chmod(0)
    try:
        doctor_run = _cli(prefix, "doctor", "--no-hash", "--no-inference", "--json")
    finally:
        model.chmod(0o600)
    problems = _doctor_problems(doctor_run)
    (problem,) = [p for p in problems if p["problem"].startswith("cannot read model file")]
    assert "Permission denied" in problem["problem"] and problem["fix"].startswith(f"chmod u+rw {model}")
