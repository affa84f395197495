"""Break-it round 14 (issue 42), one test per class fixed:

- R14-1: text holding a lone surrogate (a model answer ``"\\udcff\\ud800"``, valid JSON) in a JSON or JSON
  Lines writer: `ask --json` was "internal error: UnicodeEncodeError", exit 1. Every writer that keeps
  non-ASCII text as it is goes through jsontext.dumps (lone surrogates written as JSON escapes).
- R14-2: a `check` CODE argument holding a byte that is not UTF-8 was verdict "unparseable" with Python's
  codec message at 1:1, exit 1, where the same bytes on stdin were "not UTF-8 text", exit 2.
- R14-3: a server that drips a byte a second before any status line: after the log-probability probe gave
  up at the total deadline, `ask` sent two tokenize requests and the completion, each held to a deadline
  of its own (~28 s with total=6, ~40 min by default). One total deadline per answer; the first request
  that passes a deadline ends it.
- R14-13: `eval run --out FILE` read an existing FILE whole before resuming (1 GiB: 2.1 GB of memory), where
  `eval score` refused it at once: one cap for every answer file, checked before reading.
"""

from __future__ import annotations

import ast
import io
import json
import sys
import threading
import time
import tracemalloc
from collections.abc import Iterator
from contextlib import closing
from pathlib import Path

import pytest

from gorilla_tui import jsontext
from gorilla_tui.check.verdicts import python_error
from gorilla_tui.cli import main
from gorilla_tui.errors import UsageError
from gorilla_tui.evaluate import run as evalrun
from gorilla_tui.evaluate.apibench_files import read_responses
from gorilla_tui.model.remote import EndpointError, RemoteBackend
from gorilla_tui.model.remote_budget import AnswerOver
from tests.conftest import SMALL_POOL, clone_home
from tests.endpoint_helpers import LocalServer, QuietHandler, send_json

ROOT = Path(__file__).resolve().parents[2]
#: The completion the hostile server answers: a call, then a lone low and a lone high surrogate escape.
SURROGATE_REPLY = b'{"choices":[{"text":"torch.hub.load(\'pytorch/vision\', \'resnet50\')\\udcff\\ud800"}]}'


class Server:
    """A server on 127.0.0.1 (an ephemeral port): /surrogate/... answers every POST with SURROGATE_REPLY;
    /drip/... accepts and sends one byte every 0.2 s before any status line, until closed; /slow/... answers
    as /surrogate/ after 1.2 s. `paths`: the
    path of every request received."""

    def __init__(self) -> None:
        self.paths: list[str] = []
        self.stop = threading.Event()
        server = self

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.read_body()
                server.paths.append(self.path)
                try:
                    if self.path.startswith("/drip"):
                        while not server.stop.wait(0.2):
                            self.wfile.write(b"H")
                            self.wfile.flush()
                        return
                    if self.path.startswith("/slow") and server.stop.wait(1.2):
                        return
                except OSError:  # the client hung up
                    return
                send_json(self, SURROGATE_REPLY)

        self.local = LocalServer(Handler)
        self.url = self.local.url

    def close(self) -> None:
        self.stop.set()
        self.local.close()


@pytest.fixture
def server() -> Iterator[Server]:
    with closing(Server()) as s:
        yield s


@pytest.fixture
def torchhub_home(home_template, gorilla_home: Path) -> Path:
    """gorilla_home with a BM25 index of the small pool's Torch Hub docs."""
    template = home_template(["index", "--refresh", "--only", "torchhub", "--from", str(SMALL_POOL)])
    return clone_home(template, gorilla_home)


# ---------------------------------------------------------------------------------------------------------
# R14-1: JSON writers and lone surrogates


def test_dumps_writes_lone_surrogates_as_escapes_that_read_back() -> None:
    value = {"text": "call()\udcff\ud800 é \u2028", "\ud800key": ["ok", 1]}
    text = jsontext.dumps(value, indent=1)
    assert text.encode("utf-8")  # valid UTF-8, where json.dumps(ensure_ascii=False) is not
    assert "\\udcff\\ud800" in text and "é" in text  # only the surrogates are escaped
    assert json.loads(text) == value


#: ensure_ascii=False calls whose text is never written as it is: hash inputs (encoded with surrogatepass)
#: and the MCP replies' test for a lone surrogate (mcp/replies.py).
def test_dumps_escapes_what_a_terminal_obeys() -> None:
    """Break-it round 20, P-e: C1 controls (U+009B, the one-byte CSI; U+0085), bidirectional overrides
    (U+202E) and line separators in model text were written raw by `ask --json`: each is a JSON escape now,
    and the text reads back the same; other non-ASCII text stays as it is."""
    value = {"api_call": "x\u009b2J\u0085\u202eevil\u2028 caf\u00e9 \u4e2d"}
    text = jsontext.dumps(value)
    assert not any(0x80 <= ord(c) <= 0x9F or c in "\u202e\u2028" for c in text)
    assert "\\u009b2J" in text and "caf\u00e9 \u4e2d" in text
    assert json.loads(text) == value


NOT_WRITERS = {"gorilla_tui/jsontext.py", "gorilla_tui/store/integrity.py", "gorilla_tui/pool/fingerprint.py",
               "gorilla_tui/mcp/replies.py"}  # fmt: skip


def test_every_json_writer_that_keeps_non_ascii_goes_through_jsontext_dumps() -> None:
    """json.dumps/json.dump with ensure_ascii=False write a lone surrogate raw, which no UTF-8 writer takes
    (ask/check/eval --json, eval --out files, index files): each such writer uses jsontext.dumps."""
    found = []
    for path in sorted((ROOT / "gorilla_tui").rglob("*.py")):
        name = path.relative_to(ROOT).as_posix()
        if name in NOT_WRITERS:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Call) and any(
                k.arg == "ensure_ascii" and isinstance(k.value, ast.Constant) and k.value.value is False
                for k in node.keywords
            ):
                found.append(f"{name}:{node.lineno}")
    assert not found, found


def test_ask_json_with_a_lone_surrogate_in_the_answer_is_valid_utf8(
    server: Server, torchhub_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    out = io.BytesIO()
    monkeypatch.setattr(sys, "stdout", io.TextIOWrapper(out, encoding="utf-8", errors="strict"))
    argv = ["ask", "load resnet50 from torch hub", "--mode", "generate", "--endpoint",
            f"{server.url}/surrogate/v1", "--json"]  # fmt: skip
    status = main(argv)
    sys.stdout.flush()
    err = capsys.readouterr().err
    assert "internal error" not in err and status in (0, 1), err
    data = json.loads(out.getvalue().decode("utf-8"))  # strict UTF-8, one JSON document
    assert "\udcff\ud800" in data["explanation"] + data["code"] + data["api_call"]


# ---------------------------------------------------------------------------------------------------------
# R14-2: code that is not UTF-8 text, from an argument or from stdin


def test_a_code_argument_that_is_not_utf8_is_bad_input_as_on_stdin(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    raw = b"import shutil\nshutil.copyfile('a\xff')"
    pool = ["--pool", str(SMALL_POOL / "python_env.jsonl")]
    # Python holds an argument's byte that is not UTF-8 as a lone surrogate (PEP 383)
    assert main(["check", raw.decode("utf-8", "surrogateescape"), *pool]) == 2
    argv_err = capsys.readouterr().err
    monkeypatch.setattr(sys, "stdin", io.TextIOWrapper(io.BytesIO(raw), encoding="utf-8"))
    assert main(["check", "-", *pool]) == 2
    stdin_err = capsys.readouterr().err
    assert (
        argv_err
        == "gorilla-tui: error: cannot read the CODE argument: not UTF-8 text (bad byte at offset 32)\n"
    )
    assert stdin_err == "gorilla-tui: error: cannot read stdin: not UTF-8 text (bad byte at offset 32)\n"


def test_model_text_with_a_lone_surrogate_is_unparseable_where_it_is() -> None:
    """A model answer is no input: its lone surrogate is an unparseable verdict, located, in our words
    (it was Python's codec message at 1:1)."""
    assert python_error("import shutil\nshutil.copyfile('a\udcff')") == (
        "unparseable:python_syntax",
        "2:19: not UTF-8 text (a lone surrogate, U+DCFF)",
    )


# ---------------------------------------------------------------------------------------------------------
# R14-3: one deadline per answer; a request that timed out ends it


def test_a_server_that_drips_before_its_status_line_gets_one_request_per_answer(
    server: Server, torchhub_home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """`ask` (select by likelihood: the probe first) against the drip: the probe passes the total deadline
    (2 s), and the answer ends there with that line; no tokenize request, no completion (before: three
    more requests, each held 2 s)."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", "total=2")
    status = main(["ask", "load resnet50 from torch hub", "--endpoint", f"{server.url}/drip/v1"])
    err = capsys.readouterr().err
    assert status == 1, err
    assert err.startswith(
        f"gorilla-tui: error: endpoint {server.url}/drip/v1/completions did not finish within 2 s"
    )
    assert err.count("\n") == 1 and "Traceback" not in err
    assert server.paths == ["/drip/v1/completions"]


def test_the_requests_of_one_answer_share_its_total_deadline(
    server: Server, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Two completions of 1.2 s each with total=2: each alone is within it, one answer's two are not."""
    monkeypatch.setenv("GORILLA_TUI_ENDPOINT_DEADLINES", "total=2")
    backend = RemoteBackend(f"{server.url}/slow/v1", n_ctx=2048)
    for _ in range(2):  # apart: each its own answer
        with backend.one_answer():
            assert "torch.hub.load" in "".join(backend.complete("call:", max_tokens=64))
    with (
        backend.one_answer(),
        pytest.raises(EndpointError, match=r"within 2 s \(the total deadline of one answer"),
    ):
        for _ in range(2):
            "".join(backend.complete("call:", max_tokens=64))
    with backend.one_answer(), pytest.raises(AnswerOver):  # a spent answer sends nothing more
        time.sleep(2.1)
        backend.count_tokens("x")
    assert len(server.paths) == 4


# ---------------------------------------------------------------------------------------------------------
# R14-13: one cap for every answer file read, before reading


def test_an_answer_file_over_the_cap_is_refused_unread_as_eval_score_refuses_it(tmp_path: Path) -> None:
    """A 100 MiB sparse --out file: the line `eval score --responses` gives, with next to nothing read
    (before: read whole, then "not a responses file")."""
    out = tmp_path / "answers.jsonl"
    with open(out, "wb") as fh:
        fh.truncate(100 * 2**20)
    info = evalrun.RunInfo("torchhub", "bm25", "select", "gemma3-270m", 5, "likelihood")
    tracemalloc.start()
    try:
        with pytest.raises(UsageError) as resumed:
            evalrun.load_answers(out, info)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    with pytest.raises(UsageError) as scored:
        read_responses(out)
    assert str(resumed.value) == str(scored.value)
    assert "104,857,600 bytes, more than the 64,000,000 it may hold" in str(resumed.value)
    assert peak < 8 * 2**20, peak
