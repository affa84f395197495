"""Untrusted text in the CLI's terminal output (issue 42, kind 2): paths, source names, file contents and
model names in progress lines, table titles and cells are shown through textsafe.safe_text and never read
as markup. `index --refresh` runs in a pseudo-terminal (its spinners are only drawn on one); the eval and
ask printers run on a rich Console that writes as to a terminal (force_terminal)."""

from __future__ import annotations

import io
import json
import os
import pty
import select
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest
from rich.console import Console
from rich.panel import Panel
from rich.progress import Progress

import gorilla_tui.cli.console as cli_console
from gorilla_tui.build.seed import SEED_ENV
from gorilla_tui.cli import main
from gorilla_tui.cli.ask import panel_title
from gorilla_tui.cli.console import progress_columns
from gorilla_tui.cli.eval_bfcl import _print_scores
from gorilla_tui.cli.evalcmd import _print_summary
from gorilla_tui.evaluate import bfcl
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.evaluate.summary import summarise
from gorilla_tui.evaluate.tasks import load_tasks
from tests.conftest import REPO, SMALL_POOL

#: An OSC title sequence, a CSI sequence, markup that renders ("[red]") and markup that raised ("[/x]",
#: "[/b]": a closing tag nothing opened), and what safe_text makes of it.
OSC, CSI = "\x1b]0;pwned\x07", "\x1b[2J"
HOSTILE = f"evil{OSC}[red]red[/x]x[/b]{CSI}"
SHOWN = "evil\\x1b]0;pwned\\x07[red]red[/x]x[/b]\\x1b[2J"


def _assert_safe(out: str) -> None:
    """None of the hostile sequences reached the terminal, and the text is shown as it was (the literal
    "[red]" is there: it was not read as markup). Styles of our own (ESC[1m...) may be there."""
    assert OSC not in out and CSI not in out and "\x07" not in out, repr(out)
    assert "MarkupError" not in out and "internal error" not in out, out


@pytest.fixture
def terminal(monkeypatch: pytest.MonkeyPatch) -> io.StringIO:
    """Every make_console() writes to one buffer as to a colour terminal 250 columns wide."""
    buffer = io.StringIO()

    def make_console(stderr: bool = False) -> Console:
        return Console(file=buffer, force_terminal=True, color_system="truecolor", width=250)

    monkeypatch.setattr(cli_console, "make_console", make_console)
    return buffer


def _in_a_pty(argv: list[str], env: dict[str, str]) -> tuple[int, str]:
    """Run `argv` with stdin, stdout and stderr on a pseudo-terminal; (exit status, all it wrote)."""
    leader, follower = pty.openpty()
    child = subprocess.Popen(argv, stdin=follower, stdout=follower, stderr=follower, env=env, close_fds=True)
    os.close(follower)
    out = b""
    while select.select([leader], [], [], 300)[0]:
        try:
            chunk = os.read(leader, 65536)
        except OSError:  # EIO: the child closed the terminal
            break
        if not chunk:
            break
        out += chunk
    status = child.wait(timeout=60)
    os.close(leader)
    return status, out.decode("utf-8", "replace")


def test_a_refresh_on_a_terminal_shows_a_hostile_source_path(tmp_path: Path) -> None:
    """`index --refresh --source` with "[/b]" in the path ended on a terminal with "internal error:
    MarkupError" (the spinner line read the path as markup), and an escape sequence in it went raw through
    the progress lines."""
    folder = tmp_path.joinpath(*HOSTILE.split("/"))  # ".../evil\x1b]0;pwned\x07[red]red[" / "x]x[" / ...
    folder.mkdir(parents=True)
    (folder / "torchhub_api.jsonl").write_bytes((SMALL_POOL / "torchhub_api.jsonl").read_bytes())
    env = dict(os.environ, PYTHONPATH=str(REPO), GORILLA_TUI_HOME=str(tmp_path / "home"), COLUMNS="200")
    env.update({SEED_ENV: "0", "GORILLA_TUI_VECTOR_CACHE": str(tmp_path / "vectors"), "TERM": "xterm"})
    argv = [sys.executable, "-m", "gorilla_tui", "index", "--refresh", "--only", "mine"]
    status, out = _in_a_pty([*argv, "--source", f"mine={folder}", "--no-dense"], env)
    assert status == 0, out
    _assert_safe(out)
    assert SHOWN in out and "index refreshed" in out


def test_an_eval_progress_line_shows_a_hostile_description(terminal: io.StringIO) -> None:
    """The progress bar of `eval run` and `eval bfcl` (progress_columns) read its description (the hub,
    a path) as markup: "[/x]" raised MarkupError mid-run."""
    console = cli_console.make_console(stderr=True)
    with Progress(*progress_columns("task"), console=console) as progress:
        bar = progress.add_task(HOSTILE, total=2)
        progress.update(bar, advance=1, description=f"{HOSTILE} valid 1/1")
    out = terminal.getvalue()
    _assert_safe(out)
    assert f"{SHOWN} valid 1/1" in out


def _eval_files(tmp_path: Path) -> tuple[Path, Path, Path]:
    """An eval set of the small pool's Torch Hub docs whose domains are hostile, answered with its own
    calls: (eval file, pool file, responses file)."""
    pool = SMALL_POOL / "torchhub_api.jsonl"
    docs = [json.loads(line) for line in pool.read_text().splitlines() if line.strip()][:3]
    eval_file, responses = tmp_path / "eval.json", tmp_path / "responses.jsonl"
    eval_file.write_text("".join(json.dumps({"api_data": {**d, "domain": HOSTILE}}) + "\n" for d in docs))
    lines = [{"question_id": i, "text": d["api_call"], "api_call": d["api_call"], "timings": {"total": 0.5}}
             for i, d in enumerate(docs, start=1)]  # fmt: skip
    responses.write_text("".join(json.dumps(x) + "\n" for x in lines))
    return eval_file, pool, responses


def test_eval_score_shows_a_hostile_domain(tmp_path: Path, terminal: io.StringIO) -> None:
    """`eval score` put each domain of the eval file into a table cell as markup: "[/x]" in a domain
    raised MarkupError, an escape sequence went to the terminal raw."""
    eval_file, pool, responses = _eval_files(tmp_path)
    argv = ["eval", "score", "--hub", "th", "--responses", str(responses), "--eval", str(eval_file),
            "--pool", str(pool)]  # fmt: skip
    assert main(argv) == 0
    out = terminal.getvalue()
    _assert_safe(out)
    assert SHOWN in out  # the domain's row


def test_eval_run_summary_shows_a_hostile_model_name_and_domain(
    tmp_path: Path, terminal: io.StringIO
) -> None:
    """`eval run`'s summary put the model's name (a .gguf path, an endpoint's model) into its table title
    and the domains into cells as markup, and the response file's path into a markup line."""
    eval_file, pool, responses = _eval_files(tmp_path)
    tasks = load_tasks(eval_file, "th")
    summary = summarise(responses, "th", tasks, eval_path=eval_file, pool_path=pool)
    info = evalrun.RunInfo("th", "bm25", "select", f"/models/{HOSTILE}.gguf", 5, "likelihood")
    _print_summary(summary, info, evalrun.RunStats(answered=3), f"/out/{HOSTILE}.jsonl")
    out = terminal.getvalue()
    _assert_safe(out)
    flat = "".join(out.split())  # the title wraps at the table's width
    assert f"/models/{SHOWN}" in flat and f"/out/{SHOWN}" in flat and SHOWN in flat.replace(f"/{SHOWN}", "")


def test_eval_bfcl_scores_show_a_hostile_category_and_model_name(terminal: io.StringIO) -> None:
    """`eval bfcl`'s table put the model's name into its title and each category into a cell as markup."""
    score = bfcl.CategoryScore(HOSTILE, n=2, right=1, errors=Counter({HOSTILE: 1}))
    _print_scores([score], bfcl.BfclRun(f"/models/{HOSTILE}.gguf", "select", "likelihood", 5, False), HOSTILE)
    out = terminal.getvalue()
    _assert_safe(out)
    assert f"/models/{SHOWN}" in out and f"{SHOWN} wrong: {SHOWN} 1" in out


def test_the_ask_panel_title_shows_a_hostile_model_name(terminal: io.StringIO) -> None:
    """`ask`'s panel title escaped the task's markup and controls but not the model's name: a .gguf path
    with an escape sequence reached the terminal raw."""
    title = panel_title({"task": f"list {HOSTILE} files", "mode": "select", "model": f"/m/{HOSTILE}.gguf"})
    cli_console.make_console().print(Panel("body", title=title))
    out = terminal.getvalue()
    _assert_safe(out)
    assert f"list {SHOWN}" in out and f"/m/{SHOWN}" in out
