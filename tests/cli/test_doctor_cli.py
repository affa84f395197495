"""`gorilla-tui doctor`: reports versions, kernel, model, index; every problem carries the fixing command."""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
import subprocess
import sys
import threading
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.history import History
from gorilla_tui.paths import get_paths
from gorilla_tui.retrieve import tokenize
from tests.fixtures_model import free_port


def test_doctor_fresh_home_lists_problems_with_fixes(gorilla_home, capsys):
    rc = main(["doctor", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert rc == 1
    assert rep["kernel"]["name"] == "cpu" and rep["llama_cpp"]["gpu_offload"] is False
    # the built-in sources and backends, found as entry points like any plugin
    assert rep["plugins"] == {"sources": ["docs", "python-env"], "backends": ["llama", "remote"]}
    fixes = {p["fix"] for p in rep["problems"]}
    # the embedded model not assembled yet is a note, not a problem: the first use assembles it
    assert not any("model pull" in f for f in fixes)
    assert any("not assembled yet" in n["note"] and "model pull" in n["fix"] for n in rep["notes"])
    # the index fix names both ways: the hub refresh, and --from DIR (works offline)
    assert any(f.startswith("gorilla-tui index --refresh") and "--from DIR" in f for f in fixes)
    assert all(
        p["fix"].startswith(("gorilla-tui", "pip", "CMAKE_ARGS", "fix or delete", "sysctl"))
        for p in rep["problems"]
    )


def test_doctor_shows_use_extra_bufts_from_config(home_with_model, capsys):
    cfg = home_with_model / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text("use_extra_bufts = false\n")
    main(["doctor", "--json", "--no-hash", "--no-inference"])
    rep = json.loads(capsys.readouterr().out)
    assert rep["kernel"]["use_extra_bufts"] == {"value": False, "why": "config.toml: set to off"}
    assert rep["kernel"]["runtime"]["use_extra_bufts"] is False and "inference" not in rep


def test_doctor_bad_model_in_config(gorilla_home, tmp_path, capsys):
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'model = "{tmp_path / "gone.gguf"}"\n')
    main(["doctor", "--json", "--no-hash"])
    rep = json.loads(capsys.readouterr().out)
    assert any("model file not found" in p["problem"] for p in rep["problems"])


def test_doctor_shows_the_settings_the_commands_use(gorilla_home, capsys):
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text('n_ctx = 1024\nselect_by = "grammar"\n')
    main(["doctor", "--json", "--no-hash"])
    rep = json.loads(capsys.readouterr().out)
    assert rep["settings"]["n_ctx"] == 1024 and rep["settings"]["select_by"] == "grammar"
    main(["doctor", "--no-hash"])
    assert "select_by grammar" in capsys.readouterr().out
    cfg.write_text('select_by = "bogus"\n')
    assert main(["doctor", "--json", "--no-hash"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert rep["settings"]["select_by"] == "likelihood"  # the defaults, with the broken file as a problem
    assert any("select_by must be one of" in p["problem"] for p in rep["problems"])


def test_doctor_lists_the_sandbox_isolation_layers(gorilla_home, tmp_path, capsys, monkeypatch):
    from gorilla_tui.sandbox.runner import probe_isolation

    main(["doctor", "--json", "--no-hash"])
    layers = json.loads(capsys.readouterr().out)["isolation"]
    expected = {"namespaces", "root", "cgroups", "tmpfs", "no_new_privs", "seccomp", "keyring", "uid"}
    assert set(layers) == expected | {"parent_death"}
    assert "user namespaces, the kernel keyrings and io_uring" in layers["seccomp"]  # x86_64 or aarch64
    assert layers["namespaces"].startswith("yes") and "256 MiB tmpfs" in layers["tmpfs"]  # root, Linux here
    assert layers["no_new_privs"] == "yes" and layers["cgroups"].startswith(("yes: cgroup v", "no ("))
    main(["doctor", "--no-hash"])
    table = capsys.readouterr().out
    assert "sandbox namespaces" in table and "sandbox cgroups" in table and "sandbox tmpfs" in table
    (tmp_path / "bin").mkdir()
    monkeypatch.setenv("PATH", str(tmp_path / "bin"))  # no unshare(1): namespaces refused
    probe_isolation.cache_clear()
    try:
        main(["doctor", "--json", "--no-hash"])
    finally:
        probe_isolation.cache_clear()
    rep = json.loads(capsys.readouterr().out)
    assert rep["isolation"]["namespaces"].startswith("NO: unshare(1) (util-linux) is not on PATH")
    assert rep["isolation"]["tmpfs"] == "no: needs a mount namespace"
    problem = next(p for p in rep["problems"] if "no namespaces" in p["problem"])
    assert problem["fix"].startswith("sysctl -w user.max_user_namespaces=")


def test_doctor_a_truncated_gguf_is_a_model_file_problem(gorilla_home, gemma_path, tmp_path, capsys):
    """A GGUF cut short (an interrupted download) passes the magic-bytes check but is shorter than its header
    says (llama.cpp refuses it too): the fix names the model file, not a rebuild of llama-cpp-python
    (CMAKE_ARGS=... pip install, as before)."""
    cut = tmp_path / "cut.gguf"
    with gemma_path.open("rb") as f:
        cut.write_bytes(f.read(5_000_000))
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'model = "{cut}"\n')
    assert main(["doctor", "--json", "--no-hash"]) == 1
    rep = json.loads(capsys.readouterr().out)
    # its size is checked against its header (registry.check_gguf) before llama.cpp is asked to load it
    assert rep["inference"]["ok"] is None
    problem = next(p for p in rep["problems"] if "is a truncated GGUF file (5.0 MB" in p["problem"])
    assert problem["fix"].startswith("gorilla-tui model list") and "CMAKE_ARGS" not in problem["fix"]


SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"


def test_doctor_notes_what_a_python_env_only_index_lacks(home_with_model, dense, capsys):
    """doctor said "no problems found" on an index of python-env only (no model-hub source): a person who
    expects model-hub answers got none and no word why. It now notes which sources the index lacks, with
    the fix; a deliberate python-env-only setup is not a failure (exit 0). python-env is hybrid (its
    vectors from the packaged seed), so the note no longer says BM25 alone."""
    assert main(["index", "--refresh", "--only", "python-env"]) == 0
    capsys.readouterr()
    assert main(["doctor", "--json", "--no-hash", "--no-inference"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["problems"] == [] and len(rep["notes"]) == 1
    (note,) = rep["notes"]
    assert "no huggingface, tensorflowhub, torchhub, apizoo docs (built from python-env)" in note["note"]
    assert "BM25 alone" not in note["note"]
    assert note["fix"].startswith(
        "huggingface, tensorflowhub, torchhub: to add them: gorilla-tui index --refresh"
    )
    assert "; apizoo: to add it: gorilla-tui index --refresh --source apizoo=DIR" in note["fix"]
    assert main(["doctor", "--no-hash", "--no-inference"]) == 0
    out = capsys.readouterr().out
    assert "note: the index has no huggingface" in out and "no problems found" in out

    # every shipped source, embedded: nothing to note
    assert main(["index", "--refresh", "--from", str(SMALL_POOL)]) == 0
    capsys.readouterr()
    assert main(["doctor", "--json", "--no-hash", "--no-inference"]) == 0
    rep = json.loads(capsys.readouterr().out)
    assert rep["notes"] == [] and rep["problems"] == [], rep["notes"]


def test_doctor_names_a_data_folder_that_cannot_be_written(gorilla_home, capsys):
    """Break-it pass 10: `doctor` said "no problems found" where the index, history and settings could not
    be written. A file where the data folder should be is one of those (ENOTDIR for every write)."""
    (gorilla_home / "data").write_text("not a folder")
    assert main(["doctor", "--json", "--no-inference"]) == 1
    rep = json.loads(capsys.readouterr().out)
    data = [
        p for p in rep["problems"] if p["problem"].startswith(f"{gorilla_home / 'data'} cannot be written")
    ]
    assert data == [
        {
            "problem": f"{gorilla_home / 'data'} cannot be written (a file is where the folder should be): "
            "the index cannot be refreshed and the history is not saved",
            "fix": f"make {gorilla_home / 'data'} writable, or set GORILLA_TUI_HOME to a writable folder",
        }
    ]
    assert not any("cache cannot be written" in p["problem"] for p in rep["problems"])


@pytest.mark.skipif(os.geteuid() != 0 or not shutil.which("unshare"), reason="needs root for a ro bind mount")
def test_doctor_on_a_read_only_home_lists_each_folder_it_cannot_write(gorilla_home):
    """The home bind-mounted read-only in a private mount namespace (root ignores file modes, so a chmod
    would prove nothing): data, cache and config are each a problem, with the file system's own reason."""
    for sub in ("data", "cache", "config"):
        (gorilla_home / sub).mkdir()
    script = (
        f"mount --bind -o ro {gorilla_home} {gorilla_home} && "
        f"exec {sys.executable} -m gorilla_tui doctor --json --no-inference"
    )
    done = subprocess.run(["unshare", "-m", "sh", "-c", script], capture_output=True, text=True, timeout=300)
    assert done.returncode == 1, done.stderr
    problems = [p["problem"] for p in json.loads(done.stdout)["problems"]]
    for sub in ("data", "cache", "config"):
        assert any(
            p.startswith(f"{gorilla_home / sub} cannot be written (Read-only file system)") for p in problems
        )


def test_doctor_shows_a_home_holding_escape_sequences_escaped(gorilla_home, monkeypatch, capsys):
    """Break-it pass 11: the problem lines went through rich's markup escape only, so a GORILLA_TUI_HOME
    holding ESC[31m (its folders cannot be written: a file is where data should be) reached the terminal as
    an escape sequence; the table rows were already made safe."""
    home = gorilla_home / "home\x1b[31mred\x1b]0;title\x07"
    home.mkdir()
    (home / "data").write_text("not a folder")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home))
    assert main(["doctor", "--no-inference"]) == 1
    out = capsys.readouterr().out
    assert "cannot be written" in out
    assert "\x1b" not in out and "\x07" not in out
    assert "home\\x1b[31mred\\x1b]0;title\\x07" in out


def test_doctor_names_a_data_folder_that_is_a_broken_symlink(gorilla_home, capsys):
    """Break-it pass 11: with `data` a symbolic link to a folder that is gone, the write test went up to
    the home (which can be written) and said nothing, while every `index --refresh` failed to make it."""
    (gorilla_home / "data").symlink_to(gorilla_home / "gone")
    assert main(["doctor", "--json", "--no-inference"]) == 1
    rep = json.loads(capsys.readouterr().out)
    assert {
        "problem": f"{gorilla_home / 'data'} cannot be written (a broken symbolic link is where the folder "
        "should be): the index cannot be refreshed and the history is not saved",
        "fix": f"make {gorilla_home / 'data'} writable, or set GORILLA_TUI_HOME to a writable folder",
    } in rep["problems"]
    assert not (gorilla_home / "gone").exists()
    # a refresh moves the broken link aside (store.fileio.reclaim_root) and builds there; it failed before
    assert main(["index", "--refresh", "--only", "python-env", "--no-dense"]) == 0
    assert [p.name[:13] for p in gorilla_home.glob("data.damaged-*")] == ["data.damaged-"]
    assert (gorilla_home / "data").is_dir() and not (gorilla_home / "gone").exists()


def test_doctor_on_a_fresh_install_with_an_index_exits_0_the_unassembled_model_a_note(
    gorilla_home, capsys, monkeypatch
):
    """A fresh install (the embedded model not assembled yet: done on first use, ~1 s) with an index built
    listed `problem: the embedded model is not assembled yet` and exited 1. It is a note now; with nothing
    else wrong doctor exits 0. The sandbox's namespaces are this machine's: left out of the verdict."""
    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    assert main(["index", "--refresh", "--from", str(pool), "--only", "torchhub", "--json"]) == 0
    capsys.readouterr()
    monkeypatch.setattr("gorilla_tui.cli.doctor.isolation_layers", lambda: {"namespaces": "yes"})
    rc = main(["doctor", "--no-inference", "--no-hash", "--json"])
    rep = json.loads(capsys.readouterr().out)
    assert not (gorilla_home / "cache").exists() or not any((gorilla_home / "cache").rglob("*.gguf"))
    assert rep["problems"] == [] and rc == 0
    assert any("not assembled yet" in n["note"] for n in rep["notes"])
    assert main(["doctor", "--no-inference", "--no-hash"]) == 0
    out = " ".join(capsys.readouterr().out.split())
    assert "note: the embedded model is not assembled yet" in out and "no problems found" in out
    assert "problem:" not in out


@pytest.mark.parametrize("spec", ["gemma3-270m:q9_X", "gorilla-7b-hf-v1:q9_X", "gorilla-7b-hf-v1:"])
def test_doctor_a_quant_the_model_lacks_is_a_problem(gorilla_home, spec, capsys):
    """config.toml's `model = "gemma3-270m:q9_X"` ended doctor with "unknown quant ..." (exit 2) before its
    report: it is one of the report's problems, with the fix."""
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'model = "{spec}"\n')
    assert main(["doctor", "--json", "--no-hash"]) == 1
    rep = json.loads(capsys.readouterr().out)
    problem = next(p for p in rep["problems"] if p["problem"].startswith(f"model = {spec!r} in config: "))
    assert "quant" in problem["problem"] and problem["fix"].startswith("gorilla-tui model list")


@pytest.mark.parametrize(
    "setting, problem",
    [
        ('endpoint = "notaurl"', "endpoint 'notaurl' is not an http(s) URL with a host"),
        ('endpoint = "http://h/\\nFAKE"', "endpoint 'http://h/\\\\x0aFAKE' holds a control character"),
        (
            'hub = "nosuchhub"',
            "hub 'nosuchhub' in config.toml is not a source of the index (its sources: torchhub)",
        ),
        ('model = "a\\nFAKE line.gguf"', "model file not found: a\\x0aFAKE line.gguf"),
    ],
)
def test_doctor_says_what_ask_refuses_in_config_on_one_line(gorilla_home, capsys, setting, problem):
    """Break-it round 7: doctor said "no problems found" (exit 0) for config values `ask` refuses (exit 2):
    a malformed endpoint, a hub the index lacks; a newline in a value (a model path) split `ask`'s error and
    doctor's problem line in two, one of them forged. Each is a problem, on one line, in doctor and ask."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]) == 0
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(setting + "\n")
    capsys.readouterr()
    assert main(["doctor", "--no-hash", "--no-inference"]) == 1
    out = capsys.readouterr().out
    lines = [line for line in out.splitlines() if line.startswith("problem: ")]
    assert any(problem in line for line in lines), out
    assert "FAKE" not in "".join(line for line in out.splitlines() if line.startswith("FAKE")), out
    assert main(["ask", "load a resnet"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gorilla-tui: error: ") and "\nFAKE" not in err, err


@pytest.mark.parametrize("damage", ["current-nul", "current-fifo", "file-changed", "index-folder-a-file"])
def test_doctor_finds_damaged_state_exit_1_where_search_refuses_it_exit_2(
    gorilla_home, capsys, monkeypatch, damage
):
    """The exit rule for doctor (cli/doctor.py run): finding problems is doctor's job, so each one it finds,
    damaged state included, is a finding (exit 1, its fix beside it), where a command that needs the state
    (search, ask) is refused it (exit 2). Known at round 10's stop: the same damaged CURRENT gave doctor 1
    and search 2 with no rule written for it. doctor exits 2 only when it cannot run (a GORILLA_TUI_HOME
    that is a file: no folder to look in)."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]) == 0
    index_dir = gorilla_home / "data" / "index"
    pointer = index_dir / "CURRENT"
    if damage == "current-nul":
        pointer.write_bytes(b"\0" * 30)
    elif damage == "current-fifo":
        pointer.unlink()
        os.mkfifo(pointer)
    elif damage == "file-changed":
        (index_dir / pointer.read_text().strip() / "vocab.json").write_text("{}")
    else:
        shutil.rmtree(index_dir)
        index_dir.write_text("not a folder")
    capsys.readouterr()
    assert main(["search", "classify images", "-k", "1"]) == 2
    refused = capsys.readouterr().err.splitlines()[0].removeprefix("gorilla-tui: error: ")
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(p["problem"] == refused and "gorilla-tui index --refresh" in p["fix"] for p in problems), (
        refused,
        problems,
    )
    home_file = gorilla_home / "home-file"
    home_file.write_text("")
    monkeypatch.setenv("GORILLA_TUI_HOME", str(home_file))
    assert main(["doctor", "--no-hash", "--no-inference"]) == 2
    assert "is a file, not a folder" in capsys.readouterr().err


@pytest.mark.parametrize(
    "state", ["models-folder-a-file", "config-source-missing", "config-mirror-not-a-folder"]
)
def test_doctor_reports_as_a_problem_the_state_a_command_refuses(gorilla_home, capsys, state):
    """Break-it round 12: doctor said "no problems found" (exit 0) for state other commands refuse (exit 2):
    `cache/models` a file (`model pull`, `ask`: "cannot assemble the embedded model"), a config.toml
    `sources` entry naming no file, `mirrors` naming /dev/zero (`index --refresh`). doctor runs the same
    check functions (model.registry.check_models_folder, services.check_configured_sources and
    configured_mirrors), so the command's refusal line is one of doctor's problems, exit 1."""
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    if state == "models-folder-a-file":
        (gorilla_home / "cache").mkdir()
        (gorilla_home / "cache" / "models").write_text("")
        command = ["model", "pull"]
    elif state == "config-source-missing":
        cfg.write_text(f'sources = ["{gorilla_home / "nonexistent" / "x.jsonl"}"]\n')
        command = ["index", "--refresh", "--no-dense"]
    else:
        cfg.write_text('mirrors = ["/dev/zero"]\n')
        command = ["index", "--refresh", "--no-dense"]
    assert main(command) == 2
    refused = capsys.readouterr().err.splitlines()[0].removeprefix("gorilla-tui: error: ")
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1
    problems = [p["problem"] for p in json.loads(capsys.readouterr().out)["problems"]]
    assert refused in problems, (refused, problems)


def test_doctor_a_history_that_ask_would_move_aside_is_a_problem(gorilla_home, capsys):
    """Break-it round 12: a history.sqlite3 of random bytes, which the next `ask` moves aside with a
    warning, was "no problems found" in doctor. It is a problem naming the cause the warning gives
    (History.damage reads it as a use does, writing nothing); the file is left where it is."""
    db = get_paths().history_db
    db.parent.mkdir(parents=True, exist_ok=True)
    db.write_bytes(bytes(range(256)) * 20)
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1
    problems = [p for p in json.loads(capsys.readouterr().out)["problems"] if "history" in p["problem"]]
    assert len(problems) == 1 and "file is not a database" in problems[0]["problem"], problems
    assert db.read_bytes() == bytes(range(256)) * 20  # doctor wrote nothing
    history = History(db)
    assert history.add("copy a file") is not None  # the use: moved aside, a new one started
    assert "file is not a database" in history.warnings[0] and "moved aside" in history.warnings[0]
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1  # the index is still missing
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert not any("history" in p["problem"] for p in problems), problems


@pytest.mark.parametrize(
    "schema, cause",
    [
        ("CREATE TABLE tasks(x)", "table tasks has no columns id, ts, task, proposal_json"),
        ("CREATE VIEW tasks AS SELECT 1 AS id", "tasks is a view, not a table"),
        (
            "CREATE TABLE tasks(id INTEGER PRIMARY KEY, ts REAL, task TEXT)",
            "table tasks has no column proposal_json",
        ),
        ("CREATE VIEW runs AS SELECT 1 AS id", "runs is a view, not a table"),
        ("CREATE TABLE t(a); CREATE INDEX tasks ON t(a)", "tasks is an index, not a table"),
        ("CREATE TABLE tasks_ts(a)", "tasks_ts is a table, not an index"),
        # an older release's runs (no duration_s, truncated): used as it is, the columns added
        ("CREATE TABLE runs(id INTEGER PRIMARY KEY, task_id, ts, code, exit_code, output)", None),
    ],
)
def test_doctor_a_history_of_another_schema_is_the_problem_its_use_meets(gorilla_home, capsys, schema, cause):
    """Break-it round 13 (R13-1): a history.sqlite3 that is sound SQLite with the wrong tables (`tasks(x)`,
    `tasks` a view) was "no problems found" in doctor (exit 0), and the next ask warned "no such column:
    ts" and moved it aside. History checks a file's schema before it makes its tables
    (history_schema.schema_problem) and doctor runs that same check (History.damage): the problem doctor names
    is the cause the use's warning gives, and a schema the use takes is no problem."""
    db = get_paths().history_db
    db.parent.mkdir(parents=True, exist_ok=True)
    con = sqlite3.connect(db)
    con.executescript(schema)
    con.close()
    before = db.read_bytes()
    main(["doctor", "--no-hash", "--no-inference", "--json"])
    problems = [
        p["problem"] for p in json.loads(capsys.readouterr().out)["problems"] if "history" in p["problem"]
    ]
    assert db.read_bytes() == before  # doctor wrote nothing
    history = History(db)
    assert history.add("copy a file") is not None
    if cause is None:
        assert problems == [] and history.warnings == [], (problems, history.warnings)
        return
    assert len(problems) == 1 and f"({cause})" in problems[0], problems
    assert len(history.warnings) == 1 and f"({cause}): moved aside" in history.warnings[0], history.warnings


class _Completions(BaseHTTPRequestHandler):
    """A tiny OpenAI-compatible /v1/completions server: under /scores it echoes the prompt with a
    log-probability for each character (the echo + logprobs format the probe reads), under /plain it
    answers a completion without them (llama.cpp's llama-server does so)."""

    def log_message(self, *args: object) -> None:
        pass

    def do_POST(self) -> None:
        prompt = json.loads(self.rfile.read(int(self.headers.get("Content-Length", 0))))["prompt"]
        logprobs = {"tokens": list(prompt), "token_logprobs": [None] + [-0.5] * (len(prompt) - 1),
                    "text_offset": list(range(len(prompt)))}  # fmt: skip
        choice = {"text": "", "index": 0} | (
            {"logprobs": logprobs} if self.path.startswith("/scores/") else {}
        )
        body = json.dumps({"choices": [choice]}).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)


@pytest.fixture(scope="module")
def completions_server() -> Iterator[str]:
    """The origin of a _Completions server on 127.0.0.1 (a port of its own)."""
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Completions)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    yield f"http://127.0.0.1:{server.server_address[1]}"
    server.shutdown()
    server.server_close()


def test_doctor_an_endpoint_ask_cannot_reach_is_a_problem(gorilla_home, capsys):
    """Break-it round 13 (R13-2): config.toml's `endpoint` at a closed port (or an unknown host) was listed
    by doctor with "no problems found", exit 0, while every `ask` exited 2 "cannot reach endpoint". doctor
    runs the start-up probe `ask` makes (services.probe_endpoint, the same requests with their deadlines
    capped at doctor.ENDPOINT_PROBE_S), so ask's refusal line is one of doctor's problems, exit 1."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]) == 0
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'endpoint = "http://127.0.0.1:{free_port()}/v1"\n')  # nothing listens there
    capsys.readouterr()
    assert main(["ask", "load a resnet"]) == 2
    refused = capsys.readouterr().err.splitlines()[0].removeprefix("gorilla-tui: error: ")
    assert refused.startswith("cannot reach endpoint http://127.0.0.1:"), refused
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1
    report = json.loads(capsys.readouterr().out)
    assert [p["problem"] for p in report["problems"]] == [refused], report["problems"]
    assert report["model"]["probe"] == "cannot reach it"
    assert main(["doctor", "--no-hash", "--no-inference"]) == 1
    assert "no problems found" not in capsys.readouterr().out


@pytest.mark.parametrize("route", ["scores", "plain"])
def test_doctor_an_endpoint_that_answers_is_no_problem(gorilla_home, capsys, completions_server, route):
    """The same probe against a server that answers: no problem, exit 0; one without prompt
    log-probabilities is a note (select mode chooses with the grammar), not a problem."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]) == 0
    cfg = gorilla_home / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'endpoint = "{completions_server}/{route}/v1"\n')
    capsys.readouterr()
    rc = main(["doctor", "--no-hash", "--no-inference", "--json"])
    report = json.loads(capsys.readouterr().out)
    assert rc == 0 and report["problems"] == [], report["problems"]
    notes = [n["note"] for n in report["notes"] if "log-probabilities" in n["note"]]
    if route == "scores":
        assert report["model"]["probe"] == "answers with prompt log-probabilities" and notes == [], report
    else:
        assert report["model"]["probe"].startswith("answers; ") and len(notes) == 1, report
        assert "returns no prompt log-probabilities" in notes[0]


@pytest.mark.parametrize("step, said", [(1, "built by an older version"), (-1, "built by a newer version")])
def test_doctor_an_index_of_another_release_is_the_problem_search_refuses(
    gorilla_home, capsys, monkeypatch, step, said
):
    """The class of R13-1/R13-2 ("doctor runs the commands' own checks"), a third member found beside them:
    an index tokenised by another release (an upgrade, a downgrade, two installs sharing one home), which
    search and ask refuse first (retrieve.tokenize.check_tokenizer, exit 2), was "no problems found" in
    doctor (its record of hashes matches: nothing changed since it was built). doctor reads the index
    through previous.read_verified, which now runs check_tokenizer as ApiIndex.load does: search's line
    is doctor's problem, with the refresh that rebuilds it."""
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--no-dense"]) == 0
    monkeypatch.setattr(tokenize, "TOKENIZER_VERSION", tokenize.TOKENIZER_VERSION + step)  # this release's
    capsys.readouterr()
    assert main(["search", "classify images", "-k", "1"]) == 2
    refused = capsys.readouterr().err.splitlines()[0].removeprefix("gorilla-tui: error: ")
    assert said in refused, refused
    assert main(["doctor", "--no-hash", "--no-inference", "--json"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert any(p["problem"] == refused and "gorilla-tui index --refresh" in p["fix"] for p in problems), (
        refused,
        problems,
    )
