"""`gorilla-tui ask`: real embedded model, real index; JSON and panel output; bad input exits 2."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from gorilla_tui.cli import main

SPORTS = "I want to classify sports activities in videos"


def test_ask_bad_input(home_with_model, capsys):
    assert main(["ask", "   "]) == 2
    assert "task is empty" in capsys.readouterr().err


def test_ask_a_task_of_control_characters_only_is_empty(home_with_model, capsys):
    """Escape sequences and control characters are not words: a task made of them alone is refused like a
    blank one (it was answered, e.g. with a YouTube API call, after a model load)."""
    assert main(["ask", "\x1b[31m\x1b]0;title\x07\x08\r"]) == 2
    assert "task is empty" in capsys.readouterr().err


@pytest.mark.model
def test_ask_on_first_launch_builds_the_offline_index_and_answers(home_with_model, capsys):
    from gorilla_tui.retrieve.index import ApiIndex

    # no index yet and no hub reachable (HF_HUB_OFFLINE=1): the python-env pool is built, then used
    rc = main(["ask", "parse a JSON document from a string", "--json"])
    captured = capsys.readouterr()
    assert "first launch" in captured.err and "python-env" in captured.err and "--from DIR" in captured.err
    proposal = json.loads(captured.out)
    assert rc in (0, 1) and proposal["hits"] and proposal["hits"][0]["doc"]["source"] == "python-env"
    assert "python-env" in ApiIndex.load().sources


@pytest.mark.parametrize(
    "url", ["notaurl", "localhost:8080", "ftp://example.org", "http://", "http://h:99999"]
)
def test_ask_bad_endpoint_is_one_line_exit_2(url, capsys):
    assert main(["ask", SPORTS, "--endpoint", url]) == 2  # before the index: none is needed to fail
    err = capsys.readouterr().err
    assert "Traceback" not in err and len(err.strip().splitlines()) == 1
    assert f"endpoint {url!r}" in err and ("http(s) URL" in err or "not a valid URL" in err)


def test_ask_bad_endpoint_subprocess_has_no_traceback():
    exe = os.path.join(os.path.dirname(sys.executable), "gorilla-tui")
    r = subprocess.run(
        [exe, "ask", SPORTS, "--endpoint", "notaurl"], capture_output=True, text=True, timeout=60
    )
    assert r.returncode == 2 and "Traceback" not in r.stderr and "'notaurl' is not an http(s) URL" in r.stderr


def test_ask_unknown_kernel_names_the_known_ones(capsys):
    assert main(["ask", SPORTS, "--kernel", "tpu"]) == 2
    err = capsys.readouterr().err
    assert "unknown kernel profile 'tpu'" in err and "cpu, cuda, metal, vulkan" in err


def test_panel_title_has_no_edge_spaces():
    from rich.text import Text

    from gorilla_tui.cli.ask import panel_title

    task = "x" * 69 + " and the rest of a long task"  # the 70-character cut ends in a space
    title = panel_title({"task": task, "mode": "select", "model": "gemma3-270m"})
    assert Text.from_markup(title).plain == "x" * 69 + "  [select, gemma3-270m]"
    assert Text.from_markup(panel_title({"task": "  hi ", "mode": "m", "model": "x"})).plain == "hi  [m, x]"
    hostile = panel_title({"task": "a \x1b]0;PWNED\x07 [/] [bold]b", "mode": "m", "model": "x"})
    # shown as visible escapes, never interpreted
    assert Text.from_markup(hostile).plain == "a \\x1b]0;PWNED\\x07 [/] [bold]b  [m, x]"


def test_unexpected_exception_is_one_line_unless_debugging(monkeypatch, capsys):
    import gorilla_tui.cli.ask as ask_cli

    def boom(_args):
        raise RuntimeError("something broke\nsecond line")

    monkeypatch.setattr(ask_cli, "run", boom)
    monkeypatch.delenv("GORILLA_TUI_DEBUG", raising=False)
    assert main(["ask", SPORTS]) == 1
    err = capsys.readouterr().err
    assert err == (
        "gorilla-tui: internal error: RuntimeError: something broke "
        "(run with GORILLA_TUI_DEBUG=1 for the traceback)\n"
    )
    monkeypatch.setenv("GORILLA_TUI_DEBUG", "1")
    with pytest.raises(RuntimeError, match="something broke"):
        main(["ask", SPORTS])


def test_bare_options_go_to_the_default_tui_command(monkeypatch, capsys):
    import gorilla_tui.cli.tui as tui_cli

    seen = []
    monkeypatch.setattr(tui_cli, "run", lambda args: seen.append(args) or 0)
    assert main(["--model", "some.gguf", "--mode", "generate", "-k", "3"]) == 0
    assert seen[0].command == "tui" and seen[0].model == "some.gguf" and seen[0].mode == "generate"
    assert seen[0].k == 3
    with pytest.raises(SystemExit) as e:
        main(["--version"])
    assert e.value.code == 0 and "gorilla-tui" in capsys.readouterr().out
    with pytest.raises(SystemExit) as e:
        main(["tui", "--help"])
    assert e.value.code == 0 and "default command" in capsys.readouterr().out


@pytest.mark.parametrize(
    ("size", "error", "doctor_says"),
    [
        (
            5_000_000,
            "is a truncated GGUF file (5.0 MB; its header is cut short)",
            "is a truncated GGUF file (5.0",
        ),
        (
            200_000_000,
            "(200.0 MB; its header describes 253.1 MB)",
            "(200.0 MB; its header describes 253.1 MB)",
        ),
        (10, "is a truncated GGUF file (10 bytes)", "is a truncated GGUF file (10 bytes)"),
    ],
)
def test_ask_on_a_truncated_gguf_gives_the_hint_doctor_gives(
    size, error, doctor_says, home_with_model, gemma_path, tmp_path, capsys
):
    """Break-it finding: a GGUF cut short (an interrupted download) got no hint from `ask`, while `doctor`
    names the fix: cut inside the tensors or inside the header (check_gguf refuses both: the file is
    shorter than its header says, or than a GGUF header at all). ask's one-line error now carries doctor's
    fix, word for word (model.registry.model_file_fix)."""
    from tests.conftest import SMALL_POOL

    cut = tmp_path / "cut.gguf"
    with gemma_path.open("rb") as f:
        cut.write_bytes(f.read(size))
    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    capsys.readouterr()
    assert main(["ask", "--model", str(cut), SPORTS]) == 2
    err = capsys.readouterr().err
    assert "Traceback" not in err and error in err and len(err.splitlines()) == 2
    hint = err.splitlines()[1].removeprefix("  hint: ")
    assert hint == "gorilla-tui model list  # llama.cpp refuses this file: set model = NAME in config"
    cfg = home_with_model / "config" / "config.toml"
    cfg.parent.mkdir(parents=True, exist_ok=True)
    cfg.write_text(f'model = "{cut}"\n')
    assert main(["doctor", "--json", "--no-hash"]) == 1
    problems = json.loads(capsys.readouterr().out)["problems"]
    assert next(p["fix"] for p in problems if doctor_says in p["problem"]) == hint


@pytest.mark.model
def test_ask_a_task_without_searchable_words_says_so(home_with_model, capsys):
    """Break-it finding: `ask "🚀🔥"` (no BM25 term) answered "no API doc matched the task" with no word on
    why. The proposal's warnings say the task has no searchable words (stderr; --json's "warnings")."""
    from pathlib import Path

    pool = Path(__file__).resolve().parents[1] / "data" / "pool"
    assert main(["index", "--refresh", "--only", "torchhub", "--from", str(pool)]) == 0
    capsys.readouterr()
    note = "the task has no searchable words (emoji, symbols and stop words are not searched)"
    assert main(["ask", "🚀🔥"]) == 1
    captured = capsys.readouterr()
    assert f"gorilla-tui: warning: {note}" in captured.err.splitlines() and "no_call" in captured.out
    assert main(["ask", "🚀🔥", "--json"]) == 1
    proposal = json.loads(capsys.readouterr().out)
    assert note in proposal["warnings"] and proposal["verdict"]["verdict"] == "no_call"
    assert main(["ask", "detect objects in an image", "--json"]) in (0, 1)
    assert note not in json.loads(capsys.readouterr().out)["warnings"]


def test_ask_with_an_unwritable_home_says_why_once(monkeypatch, capsys):
    """A home under /proc cannot hold an index: the first attempt and the python-env retry fail alike, and
    the error said the same clause twice ("...: No such file or directory; cannot write the index in ...")."""
    monkeypatch.setenv("GORILLA_TUI_HOME", "/proc/nope")
    monkeypatch.setenv("HF_HUB_OFFLINE", "1")
    assert main(["ask", "parse a JSON document"]) == 2
    err = capsys.readouterr().err
    assert err.count("cannot write the index in /proc/nope/data/index") == 1, err


@pytest.mark.model
def test_ask_dash_reads_the_task_from_stdin(home_with_model, monkeypatch, capsys):
    """`ask -` answered the task "-" while `check -` and `run -` read stdin: "-" reads the task from
    standard input, as the help says."""
    import io

    monkeypatch.setattr("sys.stdin", io.TextIOWrapper(io.BytesIO(b"parse a JSON document from a string\n")))
    assert main(["ask", "-", "--json"]) in (0, 1)
    proposal = json.loads(capsys.readouterr().out)
    assert proposal["task"] == "parse a JSON document from a string"
    assert proposal["hits"][0]["doc"]["api_name"].startswith("json.")


def _panel_lines(out: str) -> list[str]:
    """The text lines of `ask`'s panel, without its border."""
    return [line.strip("│ ").rstrip() for line in out.splitlines()]


def test_ask_text_lists_the_filled_arguments_with_their_origin(monkeypatch, capsys):
    """Under the call, one "args" line: each value with where it came from (fill/: the task, the doc, a
    default), a placeholder only when the verdict line does not already say "needs: ..."; text from a doc
    is shown escaped."""
    from gorilla_tui.check.verdicts import incomplete
    from gorilla_tui.cli import ask as ask_cli
    from gorilla_tui.types import Argument, Proposal, Verdict

    call = "tool.fetch('notes.txt', model='\x1b]0;PWNED\x07', retries=3, out=out)"
    arguments = [
        Argument("path", "'notes.txt'", "task"),
        Argument("model", "'\x1b]0;PWNED\x07'", "doc"),
        Argument("retries", "3", "default"),
        Argument("out", "out", "missing"),
    ]
    verdicts = iter(
        [incomplete(Verdict("valid", api_call=call), ["out"]), Verdict("wrong_args", api_call=call)]
    )

    def answer(args, settings, cancel, interrupted):
        return Proposal(task=args.task, api_call=call, code=call, verdict=next(verdicts), arguments=arguments,
                        code_source="filled")  # fmt: skip

    monkeypatch.setattr(ask_cli, "_ask", answer)
    assert main(["ask", "fetch notes.txt"]) == 1
    out = capsys.readouterr().out
    lines = _panel_lines(out)
    args = "args     path='notes.txt' (task), model='\\x1b]0;PWNED\\x07' (doc), retries=3 (default)"
    assert lines[lines.index(args) - 1].startswith("call     tool.fetch(")  # under the call
    assert "verdict  incomplete  needs: out" in lines and "\x1b" not in out and "\x07" not in out
    # a verdict line that does not name the placeholder: the args line does
    assert main(["ask", "fetch notes.txt"]) == 1
    assert args + ", out (missing)" in _panel_lines(capsys.readouterr().out)


@pytest.mark.model
def test_ask_text_says_which_values_came_from_the_task(home_with_model, capsys):
    """The real model fills the chosen python-env call with the task's two file names (first launch: the
    offline python-env index is built)."""
    assert main(["ask", "copy the file notes.txt to backup.txt"]) == 0
    lines = _panel_lines(capsys.readouterr().out)
    call = next(line for line in lines if line.startswith("call     "))
    assert call.startswith("call     shutil.copy") and "'notes.txt'" in call and "'backup.txt'" in call
    args = lines[lines.index(call) + 1]
    assert args.startswith("args     ") and "'notes.txt' (task)" in args and "'backup.txt' (task)" in args
    assert not any(line.startswith("args") for line in lines if line != args)
