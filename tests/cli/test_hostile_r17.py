"""Break-it round 17 (issue 42), the partly-held classes outside the endpoint (R17-1 and P1 are in
tests/unit/test_endpoint_reads.py):

- P2 (kinds 2/4): a TAB in a file name was printed raw in `check`'s text findings (a newline, ESC, DEL, the
  C1 CSI and U+202E were escaped): a raw TAB shifts the fields of a `path:line:col:` reader. Every control
  character of a file name is one visible escape, TAB included.
- P3 (kind 5): the MCP server skipped a line of "\\x1c" (str.strip() took it for whitespace) and answered a
  lone surrogate in the method with -32602 "Invalid params". A line of JSON whitespace only is no message
  and is skipped; any other line gets its answer; a lone surrogate outside params is -32600.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.mcp.replies import reply_to
from tests.cli.test_mcp_protocol_errors import Stdio

POOL = Path(__file__).resolve().parents[1] / "data" / "pool" / "torchhub_api.jsonl"
WRONG = "import torch\nmodel = torch.hub.load('pytorch/vision', 'resnet-201')\n"
#: File name characters and how a finding shows each: TAB with the rest (ESC, CR, DEL, the C1 CSI, U+202E).
NAMED = {"\t": "\\x09", "\x1b": "\\x1b", "\r": "\\x0d", "\x7f": "\\x7f", "\x9b": "\\x9b", "\u202e": "\\u202e"}


def test_every_control_character_of_a_file_name_is_escaped_in_text_findings(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`check DIR` over files named with each control character (and one holding them all): one finding a
    line, each name with its escapes, no raw control character in the output; JSON shows the same names."""
    names = [f"a{c}b.py" for c in NAMED] + ["all" + "".join(NAMED) + ".py"]
    for name in names:
        (tmp_path / name).write_text(WRONG)
    assert main(["check", str(tmp_path), "--pool", str(POOL)]) == 1
    out = capsys.readouterr().out
    lines = out.splitlines()
    assert len(lines) == len(names) and not any(c in out for c in NAMED), repr(out)
    shown = {line.removeprefix(f"{tmp_path}/").split(":2:9: wrong_args:")[0] for line in lines}
    expected = {"".join(NAMED.get(c, c) for c in name) for name in names}
    assert shown == expected, shown
    assert main(["check", str(tmp_path), "--pool", str(POOL), "--format", "json"]) == 1
    paths = {Path(e["path"]).name for e in json.loads(capsys.readouterr().out)}
    assert paths == expected


@pytest.mark.parametrize("line", ["", "   ", "\t \r", " \n"])
def test_a_line_of_json_whitespace_is_skipped(line: str) -> None:
    assert reply_to(line) == []


@pytest.mark.parametrize(
    "line, code",
    [
        ("\x1c", -32700),  # str.isspace() says yes, JSON says no: it was skipped without a reply
        ("\u3000", -32700),
        ('{"jsonrpc": "2.0", "id": 21, "method": "ping\\ud800"}', -32600),
        ('{"jsonrpc": "2.0", "id": 21, "method": "ping", "\\udc80": 1}', -32600),
        ('{"jsonrpc": "2.0", "id": 21, "method": "ping", "params": {"\\udc80": 1}}', -32602),
        ('{"jsonrpc": "2.0", "id": 21, "method": "tools/call", "params": {"name": "x\\ud800"}}', -32602),
    ],
)
def test_a_line_that_is_no_message_or_no_request_gets_its_code(line: str, code: int) -> None:
    (reply,) = reply_to(line) or [None]
    assert reply is not None and reply.error.code == code, reply
    assert reply.id == (21 if line.startswith("{") else None)


@pytest.fixture
def server(tmp_path: Path) -> Iterator[Stdio]:
    s = Stdio(tmp_path).initialized()
    yield s
    s.close()


def test_the_server_skips_blank_lines_and_answers_the_others(server: Stdio) -> None:
    """Over stdio: blank lines get nothing (the next reply is the ping's), "\\x1c" gets -32700 and a lone
    surrogate in the method -32600 with its id."""
    server.send(b"   ")
    server.send(b"\t")
    assert server.request("ping") == {"jsonrpc": "2.0", "id": 101, "result": {}}
    server.send(b"\x1c")
    reply = server.receive()
    assert reply is not None and (reply["id"], reply["error"]["code"]) == (None, -32700), reply
    server.send(b'{"jsonrpc": "2.0", "id": 21, "method": "ping\\ud800"}')
    reply = server.receive()
    assert reply is not None and (reply["id"], reply["error"]["code"]) == (21, -32600), reply
