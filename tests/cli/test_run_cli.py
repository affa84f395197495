"""`gorilla-tui run`: validate, confirm (twice for a verdict that is not valid), run sandboxed, record."""

from __future__ import annotations

import io
import json
import os
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths

VALID = (
    "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet18', pretrained=True)\nprint('loaded')\n"
)
NOT_VALID = "import os\nprint('ran as', os.getuid())\n"


@pytest.fixture()
def index(apibench: Path, gorilla_home: Path) -> Path:
    """A real BM25 index of the APIBench Torch Hub pool in this test's GORILLA_TUI_HOME."""
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(apibench)]) == 0
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
    assert out["run"]["output"] == "None\n" and out["verdict"]["verdict"] != "valid"
    assert len(_runs()) == 1
