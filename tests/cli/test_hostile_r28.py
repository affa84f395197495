"""Break-it round 28 (issue 42), the "partly" items fixed by s12-fix27b, one test per class (damaged vectors,
said the same way by search --json and mcp, are in tests/cli/test_index_state_cli.py; the next-source
timings in tests/apibench/test_everyday_asks_apibench.py):

- `index --status` showed config.toml's path and exit 0 for a config.toml that search refuses (not UTF-8,
  a FIFO) or whose `sources` entry `index --refresh` refuses: a "problem:" line, exit 2.
- Bytes that are not UTF-8 inside a JSON string of an MCP request were replaced by U+FFFD and the tool
  ran: -32700 now, with the request's id.
- A source name of 5,000 characters went into the index and filled every message naming it: at most 64
  characters, and a message cuts a longer one.
- A notebook holding a 100,000-digit number passed on Python's advice (sys.set_int_max_str_digits).
- `--only '[/b]' --source '[/b]=FILE'` listed a source "b]=FILE" made of a path that does not exist: the
  --source value is refused first.
"""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from tests.cli.test_mcp_protocol_errors import Stdio

BAD_CONFIGS = {
    "not UTF-8": b"k = \xff\n",
    "a bad escape": b'hub = "\\uZZZZ"\n',
}


@pytest.mark.parametrize("body", BAD_CONFIGS.values(), ids=BAD_CONFIGS.keys())
def test_status_says_config_toml_is_refused_and_exits_2(
    small_home: Path, body: bytes, capsys: pytest.CaptureFixture[str]
) -> None:
    config = small_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(body)
    assert main(["search", "copy a file"]) == 2  # what search refuses ...
    refused = capsys.readouterr().err.strip().removeprefix("gorilla-tui: error: ")
    assert main(["index", "--status"]) == 2  # ... status says, on a line of its own
    out = " ".join(capsys.readouterr().out.split())
    assert f"problem: {refused}" in out and "docs," in out, out
    assert main(["index", "--status", "--json"]) == 2
    assert json.loads(capsys.readouterr().out)["config_problem"]["message"] == refused
    config.unlink()
    assert main(["index", "--status", "--json"]) == 0
    assert json.loads(capsys.readouterr().out)["config_problem"] is None


def test_status_says_a_sources_entry_refresh_refuses(
    small_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    fifo = tmp_path / "docs.jsonl"
    os.mkfifo(fifo)
    config = small_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f"sources = [{json.dumps(str(fifo))}]\n")
    assert main(["index", "--status"]) == 2
    out = " ".join(capsys.readouterr().out.split())
    assert "problem: " in out and "sources entry" in out and "FIFO" in out, out


def test_no_index_and_a_refused_config_is_exit_2(gorilla_home: Path, capsys) -> None:
    config = gorilla_home / "config" / "config.toml"
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_bytes(b"k = \xff\n")
    assert main(["index", "--status"]) == 2
    lines = capsys.readouterr().out.splitlines()
    assert lines[0].startswith("no index yet") and lines[1].startswith("problem: ") and "UTF-8" in lines[1]


def test_bytes_that_are_not_utf8_inside_a_json_string_are_a_parse_error(tmp_path: Path) -> None:
    server = Stdio(tmp_path).initialized()
    try:
        call = b'{"jsonrpc":"2.0","id":15,"method":"tools/call","params":{"name":"search_api_docs",'
        server.send(call + b'"arguments":{"task":"\xff\xfe load resnet"}}}')
        reply = server.receive()
        assert reply is not None and reply["id"] == 15 and reply["error"]["code"] == -32700, reply
        assert "not UTF-8" in reply["error"]["message"] and "result" not in reply
        server.send(b'{"jsonrpc":"2.0","id":"a\xffb","method":"ping"}')  # an id of such bytes: null
        reply = server.receive()
        assert reply is not None and reply["id"] is None and reply["error"]["code"] == -32700, reply
        server.send(b'{"jsonrpc":"2.0","id":16,"method":"ping"}\xff')  # after the object: its id is read
        reply = server.receive()
        assert reply is not None and reply["id"] == 16 and reply["error"]["code"] == -32700, reply
        server.send(b'{"jsonrpc":"2.0","method":"notifications/x","params":{"a":"\xff"}}')  # no reply
        tools = server.request("tools/list")  # the next reply is this request's
        assert tools is not None and "result" in tools, tools
    finally:
        server.close()


def test_a_long_source_name_is_refused_and_cut_in_every_message(
    small_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("hostile.jsonl").write_text(
        '{"api_call": "f(x)", "domain": "d", "api_name": "f", "provider": "p", "explanation": "e"}\n'
    )
    name = "a" * 5000
    for argv in (
        ["index", "--refresh", "--no-dense", "--source", f"{name}=hostile.jsonl"],
        ["index", "--refresh", "--no-dense", "--only", name, "--source", "hostile.jsonl"],
        ["search", "copy a file", "--hub", name],
    ):
        assert main(argv) == 2, argv
        err = capsys.readouterr().err
        assert len(err) < 600 and "more characters" in err and "internal error" not in err, err[:300]
    assert main(["index", "--refresh", "--no-dense", "--source", f"{'b' * 64}=hostile.jsonl"]) == 0
    capsys.readouterr()


def test_a_bad_name_before_a_path_is_refused_before_only_reads_it(
    small_home: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    Path("hostile.jsonl").write_text("{}\n")
    assert main(["index", "--refresh", "--no-dense", "--only", "[/b]", "--source", "[/b]=hostile.jsonl"]) == 2
    err = capsys.readouterr().err
    assert "'[/b]' is not a source name" in err and "known:" not in err, err


def test_a_notebook_number_too_long_for_python_is_said_without_its_advice(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    nb = tmp_path / "big.ipynb"
    nb.write_text('{"cells": [], "n": ' + "9" * 100_000 + "}")
    assert main(["check", str(nb)]) == 2
    err = capsys.readouterr().err
    assert "not a notebook" in err and "a number of more than" in err
    assert "set_int_max_str_digits" not in err, err
