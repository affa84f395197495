"""The model flags shared by `ask`, `tui` and `eval run` (cli/options.py), above all --select-by: it reaches
Settings (and the pipeline), a bad value or a bad config.toml value is one line and exit 2."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths

VIDEO_TASK = "classify the actions in short video clips"  # BM25 hits on Torch Hub: the PyTorchVideo models


def _write_config(text: str) -> Path:
    path = get_paths().config_file
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def test_eval_run_keeps_its_own_required_hub(capsys):
    with pytest.raises(SystemExit) as e:
        main(["eval", "run", "--retriever", "bm25", "--out", "x.jsonl"])
    assert e.value.code == 2
    assert "the following arguments are required: --hub" in capsys.readouterr().err


def test_tui_select_by_reaches_the_app(monkeypatch):
    import gorilla_tui.tui.app as app_module

    seen = []

    class FakeApp:
        def run(self) -> None:
            pass

    import gorilla_tui.tui.session as session_module

    started = []
    # the CLI starts the model load before Textual is imported: recorded here, not run
    monkeypatch.setattr(session_module.Session, "start_backend_load", lambda self: started.append(self))
    monkeypatch.setattr(app_module, "create_app", lambda session: seen.append(session.settings) or FakeApp())
    _write_config('select_by = "likelihood"\n')
    monkeypatch.setattr("gorilla_tui.cli.tui.has_terminal", lambda: True)  # pytest captures stdout
    assert main(["--select-by", "grammar"]) == 0  # bare options go to the default command `tui`
    assert [s.select_by for s in seen] == ["grammar"]
    assert [s.settings.select_by for s in started] == ["grammar"]


def test_bad_select_by_subprocess(tmp_path):
    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    env = {**os.environ, "GORILLA_TUI_HOME": str(tmp_path)}
    r = subprocess.run([exe, "ask", VIDEO_TASK, "--select-by", "GBNF"], capture_output=True, text=True,
                       timeout=60, env=env, stdin=subprocess.DEVNULL)  # fmt: skip
    assert r.returncode == 2 and r.stdout == "" and "Traceback" not in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stderr.startswith(
        "gorilla-tui: error: argument --select-by: invalid choice: 'GBNF' (choose from"
    )
    assert r.stderr.endswith("(see 'gorilla-tui ask --help')\n")
