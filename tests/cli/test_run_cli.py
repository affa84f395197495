"""`gorilla-tui run`: validate, confirm (twice for a verdict that is not valid), run sandboxed, record."""

from __future__ import annotations

import importlib
import io
import json
import os
import re
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths

SMALL_POOL = Path(__file__).resolve().parents[1] / "data" / "pool"

VALID = (
    "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet50', pretrained=True)\nprint('loaded')\n"
)
NOT_VALID = "import os\nprint('ran as', os.getuid())\n"


@pytest.fixture()
def index(gorilla_home: Path) -> Path:
    """A real BM25 index of the small pool's Torch Hub docs (tests/data/pool) in this test's
    GORILLA_TUI_HOME, built by `index --refresh --from`."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)]) == 0
    return gorilla_home


class FakeTty(io.StringIO):
    """stdin that claims to be a terminal and answers the confirmations with the given lines."""

    def isatty(self) -> bool:
        return True


def _runs() -> list[tuple]:
    db = get_paths().history_db
    if not db.exists():
        return []
    with sqlite3.connect(db) as con:
        return con.execute("SELECT code, exit_code, duration_s, output, truncated FROM runs").fetchall()


def test_valid_code_runs_with_yes_and_is_recorded(index: Path, tmp_path: Path, capsys) -> None:
    src = tmp_path / "prog.py"
    src.write_text(VALID)
    code = main(["run", str(src), "--yes", "--json"])
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"]["verdict"] == "valid"
    assert out["env_requirements"][:2] == ["torch", "torchvision"]  # from the matched Torch Hub doc
    run = out["run"]
    assert run["exit_status"] is not None and not run["limits_hit"]
    assert "loaded" in run["output"] or "ModuleNotFoundError: No module named 'torch'" in run["output"]
    if "ModuleNotFoundError" in run["output"]:  # torch is not installed: reported, never installed
        assert code == 1 and out["missing_package"]["pip_line"].startswith("pip install torch torchvision")
    rows = _runs()
    assert len(rows) == 1 and rows[0][0] == VALID and rows[0][1] == run["exit_status"]
    assert rows[0][2] == pytest.approx(run["duration_s"]) and rows[0][3] == run["output"]


def test_refuses_without_a_tty_unless_yes(index: Path, tmp_path: Path, capsys) -> None:
    src = tmp_path / "prog.py"
    src.write_text("print('should not run')\n")
    assert main(["run", str(src)]) == 2
    err = capsys.readouterr().err
    assert "refusing to run code without confirmation" in err and "--yes" in err
    assert "Traceback" not in err and _runs() == []


def test_not_valid_code_needs_a_second_confirmation(index: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    src = tmp_path / "prog.py"
    src.write_text(NOT_VALID)
    monkeypatch.setattr(sys, "stdin", FakeTty("y\nn\n"))  # yes to the first question, no to the second
    assert main(["run", str(src)]) == 1
    captured = capsys.readouterr()
    assert "Run it anyway?" in captured.err and "Not run." in captured.err
    assert "ran as" not in captured.out and _runs() == []
    monkeypatch.setattr(sys, "stdin", FakeTty("y\ny\n"))
    assert main(["run", str(src)]) == 0
    captured = capsys.readouterr()
    assert "ran as" in captured.out and "run: exit 0" in captured.err
    assert len(_runs()) == 1


def test_valid_code_asks_once(index: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    src = tmp_path / "prog.py"
    src.write_text(VALID)
    monkeypatch.setattr(sys, "stdin", FakeTty("n\n"))
    assert main(["run", str(src)]) == 1
    captured = capsys.readouterr()
    assert captured.err.count("Run this code in the sandbox?") == 1 and "anyway" not in captured.err
    assert "import torch" in captured.err and "env requirements: torch, torchvision" in captured.err


def test_timeout_is_reported_in_json(index: Path, tmp_path: Path, capsys) -> None:
    src = tmp_path / "loop.py"
    src.write_text("while True:\n    pass\n")
    assert main(["run", str(src), "--yes", "--json", "--timeout", "1"]) == 1
    out = json.loads(capsys.readouterr().out)
    assert out["run"]["limits_hit"] in (["timeout"], ["cpu"]) and out["run"]["exit_status"] is None
    assert out["run"]["duration_s"] < 3


@pytest.mark.parametrize(
    "argv, message",
    [
        (["run", "/nonexistent/prog.py", "--yes"], "cannot read /nonexistent/prog.py"),
        (["run", "-", "--yes", "--timeout", "-1"], "--timeout must be greater than 0 and at most 3600"),
    ],
)
def test_bad_input_is_one_line_and_exit_2(index: Path, argv, message, capsys, monkeypatch) -> None:
    monkeypatch.setattr(sys, "stdin", io.StringIO("print(1)\n"))
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert message in err and "Traceback" not in err and _runs() == []


@pytest.mark.parametrize("kind", ["fifo", "device", "folder"])
def test_a_file_that_is_not_a_regular_file_is_refused_before_it_is_opened(
    index: Path, tmp_path: Path, kind: str, capsys
) -> None:
    """`run /dev/zero` read until memory ran out and `run FIFO` blocked forever: one line, exit 2."""
    path = {"fifo": tmp_path / "code.py", "device": Path("/dev/zero"), "folder": tmp_path}[kind]
    if kind == "fifo":
        os.mkfifo(path)
    assert main(["run", str(path), "--yes"]) == 2
    err = capsys.readouterr().err
    assert f"cannot read {path}: not a regular file" in err and "Traceback" not in err and _runs() == []


def test_code_over_the_size_limit_is_refused(index: Path, tmp_path: Path, capsys, monkeypatch) -> None:
    monkeypatch.setattr(importlib.import_module("gorilla_tui.cli.run"), "MAX_CODE_BYTES", 100)
    big = tmp_path / "big.py"
    big.write_text("print(1)\n" * 20, encoding="utf-8")
    assert main(["run", str(big), "--yes"]) == 2
    assert "more than" in capsys.readouterr().err and _runs() == []


def test_a_file_with_more_code_than_check_takes_is_not_run(index: Path, tmp_path: Path, capsys) -> None:
    """Break-it round 8: `run FILE` read up to 10 MiB and ran it (3 MB of code took 66 s and 1.6 GB, and
    printed all of it) where `check` refuses more than 1 MiB of code. Now run has check's limit."""
    from gorilla_tui.check.lint import MAX_CODE_BYTES

    big = tmp_path / "big.py"
    big.write_text("print(1)\n" * (MAX_CODE_BYTES // 9 + 1), encoding="utf-8")
    assert main(["run", str(big), "--yes"]) == 2
    err = capsys.readouterr().err
    assert f"cannot run {big}: more than 1 MiB of code" in err and _runs() == []


def test_installed_console_script_runs_code_from_stdin(index: Path) -> None:
    exe = Path(sys.executable).with_name("gorilla-tui")
    env = dict(os.environ, MY_API_TOKEN="do-not-leak")
    proc = subprocess.run(
        [str(exe), "run", "-", "--yes", "--json", "--timeout", "5"],
        input="import os\nprint(os.environ.get('MY_API_TOKEN'))\n",
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    out = json.loads(proc.stdout)
    assert out["run"]["output"] == "None\n"  # the caller's environment does not reach the run
    assert len(_runs()) == 1


# --- issue 16: the sandbox holds (CLI side) ---------------------------------------------------------------

#: OSC 52 (clipboard := "rm -rf ~"), clear screen, concealed text: must never reach the terminal as such.
OSC52, CLEAR, CONCEAL = "\x1b]52;c;cm0gLXJmIH4=\x07", "\x1b[2J", "\x1b[8m"
WORKTREE = str(Path(__file__).resolve().parents[2])


def _cli(args: list[str], tmp_path: Path, **env: str) -> subprocess.Popen:
    """`python -m gorilla_tui ARGS` from this checkout in its own session (as a shell job would be), with
    the run folders under tmp_path/"tmp" (TMPDIR), stdout and stderr piped."""
    (tmp_path / "tmp").mkdir(exist_ok=True)
    full_env = dict(os.environ, PYTHONPATH=WORKTREE, TMPDIR=str(tmp_path / "tmp"), **env)
    return subprocess.Popen(
        [sys.executable, "-m", "gorilla_tui", *args],
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=full_env,
        start_new_session=True,
    )


def _processes_named(comm: str) -> list[str]:
    out = subprocess.run(["ps", "-eo", "pid,comm,args"], capture_output=True, text=True, check=True).stdout
    return [line for line in out.splitlines()[1:] if comm in line]


def test_ctrl_c_mid_run_stops_it_exits_130_and_leaves_nothing(index: Path, tmp_path: Path) -> None:
    # finding 2: Ctrl+C 3 s into a run gave "internal error: KeyError: 'result'", exit 1, and an orphan
    app, comm = _start_loop(index, tmp_path, "ctrlc")
    os.killpg(app.pid, signal.SIGINT)  # what the terminal does: SIGINT to the foreground process group
    out, err = app.communicate(timeout=15)
    assert app.returncode == 130, err
    assert (
        "gorilla-tui: run stopped (Ctrl+C)" in err and "internal error" not in err and "Traceback" not in err
    )
    _assert_nothing_left(comm, tmp_path)
    assert _runs()[-1][1] is None  # recorded as stopped (no exit status), nothing lost


@pytest.mark.parametrize("signame, status", [("SIGTERM", 143), ("SIGHUP", 129), ("SIGKILL", -9)])
def test_killing_gorilla_tui_run_kills_the_sandbox(index: Path, tmp_path: Path, signame, status) -> None:
    # finding 1: after kill -TERM/-KILL/-HUP of `gorilla-tui run slow.py --yes --timeout 10` the code ran on
    app, comm = _start_loop(index, tmp_path, signame[3:].lower())
    t0 = time.monotonic()
    app.send_signal(getattr(signal, signame))
    out, err = app.communicate(timeout=15)
    assert app.returncode == status, err
    if signame != "SIGKILL":  # the app survives the signal long enough to say so
        assert f"gorilla-tui: run stopped ({signame})" in err and "Traceback" not in err
    _assert_nothing_left(comm, tmp_path)
    assert time.monotonic() - t0 < 8  # gone with the app, not at the run's 10 s timeout


def _start_loop(index: Path, tmp_path: Path, tag: str) -> tuple[subprocess.Popen, str]:
    """Start `run loop.py --yes --timeout 10` of a code that names itself (/proc/self/comm, inherited by
    the daemon it starts) and prints "tick" every 0.2 s; return once it ticks."""
    comm = f"gt-{tag}-{os.getpid() % 10000}"
    src = tmp_path / "loop.py"
    src.write_text(
        f"import os, time\nopen('/proc/self/comm', 'w').write({comm!r})\n"
        "if os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(0.1)\n"
        "while True:\n    print('tick', flush=True)\n    time.sleep(0.2)\n"
    )
    app = _cli(["run", str(src), "--yes", "--timeout", "10"], tmp_path)
    assert app.stdout is not None and app.stdout.readline() == "tick\n"
    assert len(_processes_named(comm)) == 2  # the code and its daemon
    return app, comm


def _assert_nothing_left(comm: str, tmp_path: Path) -> None:
    """No process of the run (ps) and no run folder, within 5 s."""
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline and (
        _processes_named(comm) or list((tmp_path / "tmp").glob("gorilla-run-*"))
    ):
        time.sleep(0.05)
    assert _processes_named(comm) == [] and list((tmp_path / "tmp").glob("gorilla-run-*")) == []


def test_without_unshare_run_refuses_in_one_line_and_yes_does_not_override(
    index: Path, tmp_path: Path
) -> None:
    # finding 5: with no `unshare` it warned, then --yes ran the code with the network open, as root
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    marker = tmp_path / "ran.txt"
    src = tmp_path / "prog.py"
    src.write_text(f"open({str(marker)!r}, 'w').write('ran')\nprint('ran')\n")
    app = _cli(["run", str(src), "--yes"], tmp_path, PATH=str(bin_dir))
    out, err = app.communicate(timeout=60)
    assert app.returncode == 2 and out == "" and not marker.exists()
    assert err.splitlines() == [  # one line: what is missing, and the only way past it
        "gorilla-tui: error: refusing to run: no isolation here (unshare(1) (util-linux) is not on PATH);"
        " --no-isolation runs it anyway, with the network open and files writable"
    ]
    app = _cli(["run", str(src), "--yes", "--no-isolation"], tmp_path, PATH=str(bin_dir))
    out, err = app.communicate(timeout=60)
    assert app.returncode == 0 and out == "ran\n" and marker.read_text() == "ran"
    assert "no isolation here (--no-isolation): network open, files writable" in err
    assert "network: OPEN" in err and list((tmp_path / "tmp").glob("gorilla-run-*")) == []


def test_escape_sequences_in_code_and_output_are_shown_not_interpreted(
    index: Path, tmp_path: Path, capsys
) -> None:
    # finding 4: ESC[8m hid a line of code in the review, and sandbox output reached the terminal raw
    src = tmp_path / "prog.py"
    src.write_text(
        f"x = 1  # {CONCEAL}\nimport os  # hidden line\nprint({OSC52 + CLEAR!r})\n"
        f"import sys\nprint({CONCEAL + 'err'!r}, file=sys.stderr)\n"
    )
    assert main(["run", str(src), "--yes"]) == 0
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert "\x1b" not in printed and "\x07" not in printed
    assert "\\x1b]52;c;cm0gLXJmIH4=\\x07\\x1b[2J" in captured.out  # the output, visible
    assert "# \\x1b[8m" in captured.err and "import os  # hidden line" in captured.err  # the code, visible
    assert "\\x1b[8merr" in captured.err
    assert main(["run", str(src), "--yes", "--json"]) == 0  # JSON escapes control characters itself
    assert "\x1b" not in capsys.readouterr().out


def test_hostile_doc_fields_and_bracketed_source_paths_are_shown_not_interpreted(
    tmp_path: Path, capsys, monkeypatch
) -> None:
    # finding 4: an OSC 52 in a doc's description set the clipboard when `search` printed it; a source
    # path holding "[/x]" crashed `index --refresh` and `index --status` with MarkupError
    monkeypatch.setenv("COLUMNS", "400")  # rich: wide enough that no cell is folded
    folder = tmp_path / "a[" / "x]"
    folder.mkdir(parents=True)
    doc = {
        "api_call": "acme.ship(order_id)",
        "api_name": f"ship{CONCEAL}",
        "domain": f"Ops {OSC52}",
        "description": f"ship a customer order {CLEAR}[bold]loud[/bold] [/x]",
    }
    (folder / "evil.jsonl").write_text(json.dumps(doc) + "\n")
    refresh = ["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL), "--source"]
    assert main([*refresh, str(folder / "evil.jsonl")]) == 0
    assert main(["index", "--status"]) == 0
    assert main(["search", "ship the customer order", "--hub", "evil", "-k", "1"]) == 0
    assert main(["check", "--pool", str(folder / "evil.jsonl"), f"acme.ship(order_id){CLEAR}"]) == 1
    captured = capsys.readouterr()
    printed = captured.out + captured.err
    assert "\x1b" not in printed and "\x07" not in printed and "Traceback" not in printed
    assert printed.count(str(folder / "evil.jsonl")) == 2  # the path as it is, in refresh and status
    assert "Ops \\x1b]52;c;cm0gLXJmIH4=\\x07" in printed and "ship\\x1b[8m" in printed  # search: visible
    assert "acme.ship(order_id)\\x1b[2J" in printed  # check: the call under review


def test_run_of_ones_own_file_does_not_echo_its_last_expression(index: Path, tmp_path: Path, capsys) -> None:
    """`run FILE` runs a file as `python FILE` does: a final bare expression is not echoed (only the run
    of a proposal, ask --run and F5, echoes it as the REPL does)."""
    src = tmp_path / "prog.py"
    src.write_text("import os\nprint('ran')\nos.getcwd()\n")
    assert main(["run", str(src), "--yes"]) == 0
    out = capsys.readouterr().out
    assert "ran" in out and "/home/sandbox" not in out and "'/" not in out


def _panel_code(err: str) -> str:
    """The code as the "code to run" panel shows it: the rows between its borders, the border and line
    number gutter taken off, joined without whitespace (what a reader sees, whatever the wrapping)."""
    lines = err.splitlines()
    top = next(i for i, ln in enumerate(lines) if ln.startswith("╭") and "code to run" in ln)
    bottom = next(i for i in range(top + 1, len(lines)) if lines[i].startswith("╰"))
    rows = [ln.strip().removeprefix("│").removesuffix("│") for ln in lines[top + 1 : bottom]]
    gutter = len(re.match(r"\s*\d+\s", rows[0]).group())  # the line numbers, right-aligned: one width
    rows = [row[gutter:] for row in rows]
    return "".join("".join(rows).split())


@pytest.mark.parametrize("columns", ["80", "200"])
@pytest.mark.parametrize("confirm", ["--yes", "tty"])
def test_the_code_to_run_panel_shows_long_lines_whole(
    index: Path, tmp_path: Path, capsys, monkeypatch, columns: str, confirm: str
) -> None:
    """Tester's report: the panel cut a long line at its edge with no marker and the hidden part ran
    (`x = 1` + 200 spaces + `; print("HIDDEN PART RAN")` showed `x = 1`). Every character is shown now."""
    monkeypatch.setenv("COLUMNS", columns)
    code = "x = 1" + " " * 200 + '; print("HIDDEN PART RAN")\nprint("next line")\n'
    src = tmp_path / "hide.py"
    src.write_text(code)
    if confirm == "tty":
        monkeypatch.setattr(sys, "stdin", FakeTty("y\ny\n"))
    assert main(["run", str(src)] + (["--yes"] if confirm == "--yes" else [])) == 0
    captured = capsys.readouterr()
    assert "HIDDEN PART RAN" in captured.out  # it ran ...
    assert _panel_code(captured.err) == "".join(code.split())  # ... and every character of it was shown
    assert 'print("HIDDEN PART RAN")' in captured.err.replace("│", "")


@pytest.mark.parametrize(("then", "name"), [("os.kill(os.getpid(), signal.SIGSTOP)", "SIGSTOP"),
                                            ("ctypes.string_at(0)", "SIGSEGV")])  # fmt: skip
def test_code_that_makes_the_supervisor_its_tracer_is_reported_in_one_line(
    index: Path, tmp_path: Path, capsys, then: str, name: str
) -> None:
    """Tester's report: ptrace(PTRACE_TRACEME) then SIGSTOP (or a segfault) crashed the sandbox's supervisor:
    its traceback, with the host's paths, was printed (and in --json run.output), and the run was reported
    as "killed (signal 9)". The sandbox ends the code at its stop and names the signal."""
    src = tmp_path / "trace.py"
    src.write_text(f"import ctypes, os, signal; libc = ctypes.CDLL(None); libc.ptrace(0, 0, 0, 0); {then}\n")
    assert main(["run", str(src), "--yes"]) == 1
    err = capsys.readouterr().err
    assert f"run: stopped by signal {name} (the sandbox ended it); " in err
    assert "Traceback" not in err and "boot.py" not in err and "signal 9" not in err
    assert main(["run", str(src), "--yes", "--json"]) == 1
    run = json.loads(capsys.readouterr().out)["run"]
    assert run["output"] == "" and run["stop_signal"] == run["signal"] == signal.Signals[name]
    assert run["exit_status"] is None and run["limits_hit"] == []


NOTEBOOK = {
    "cells": [
        {"cell_type": "markdown", "source": ["# a notebook\n", "print('markdown cell ran')"]},
        {"cell_type": "code", "source": ["import os\n", "x = 40"], "outputs": []},
        {"cell_type": "code", "source": "%time\nprint('notebook', x + 2, os.sep)", "outputs": []},
    ],
    "nbformat": 4,
    "nbformat_minor": 5,
}
MARKDOWN = (
    "# Doc\n\nSome prose.\n\n```python\nx = 1\n```\n\nMore prose: print('prose ran')\n\n"
    "```bash\necho bash ran\n```\n\n```py\nprint('markdown', x + 1)\n```\n"
)


@pytest.mark.parametrize(
    ("name", "text", "expected"),
    [("ok.ipynb", json.dumps(NOTEBOOK), "notebook 42 /\n"), ("doc.md", MARKDOWN, "markdown 2\n")],
    ids=["notebook", "markdown"],
)
def test_run_of_a_notebook_or_markdown_runs_the_code_check_reads(
    index: Path, tmp_path: Path, capsys, name: str, text: str, expected: str
) -> None:
    """Tester's report: `run ok.ipynb` checked the notebook's code but ran its JSON as a Python dict literal
    (exit 0, no output), and `run doc.md` ran the Markdown itself (a SyntaxError at the fence). `run` now
    runs what `check` reads: a notebook's code cells, a Markdown file's Python fences, in order (IPython
    %magic lines left out, as `check` leaves them out); the rest of the file never runs."""
    src = tmp_path / name
    src.write_text(text)
    assert main(["run", str(src), "--yes", "--json"]) == 0
    run = json.loads(capsys.readouterr().out)["run"]
    assert run["output"] == expected and run["exit_status"] == 0
    ran = _runs()[-1][0]
    assert "cells" not in ran and "```" not in ran and "prose" not in ran and "%time" not in ran
    assert main(["run", str(src), "--yes"]) == 0
    captured = capsys.readouterr()
    assert captured.out == expected and "SyntaxError" not in captured.err


@pytest.mark.parametrize(
    ("name", "text", "why"),
    [
        ("broken.ipynb", '{"cells": [', "not a notebook (not JSON"),
        ("list.ipynb", "[1, 2]", "not a notebook (no cells list)"),
        ("prose.ipynb", json.dumps({"cells": [{"cell_type": "markdown", "source": "x"}]}), "no code cell"),
        ("prose.md", "# Title\n\n```bash\necho hi\n```\n", "no Python fence"),
    ],
    ids=["broken-json", "no-cells", "no-code-cell", "no-python-fence"],
)
def test_run_of_a_notebook_or_markdown_without_code_refuses_in_one_line(
    index: Path, tmp_path: Path, capsys, name: str, text: str, why: str
) -> None:
    src = tmp_path / name
    src.write_text(text)
    assert main(["run", str(src), "--yes"]) == 2
    err = capsys.readouterr().err
    assert why in err and str(src) in err and "Traceback" not in err, err
    assert err.count("\n") <= 2 and _runs() == []  # the error and at most a hint: nothing ran
