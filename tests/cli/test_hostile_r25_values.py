"""Break-it round 25 through `ask --json` on the small home: R25-3 ("::1" was ``socket.socket().connect(1)``)
and R25-5 (a no-break space in a path gave ``pathlib.Path('file.txt').read_text()``, another file)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from gorilla_tui.cli import main


def _ask(task: str, capsys: pytest.CaptureFixture[str]) -> dict:
    main(["ask", "--json", task])
    return json.loads(capsys.readouterr().out)


def test_ask_never_cuts_an_ipv6_address_into_a_number(
    small_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _ask("connect a socket to the address ::1 port 8080", capsys)
    assert "(1)" not in data["api_call"] and "(1," not in data["api_call"], data["api_call"]


def test_ask_reads_a_path_with_a_no_break_space_whole(
    small_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = _ask("read the text file /tmp/x/my\u00a0file.txt", capsys)
    assert "'file.txt'" not in data["api_call"], data["api_call"]
    assert "/tmp/x/my" not in str(data.get("unused")), data.get("unused")


def test_ask_never_cuts_a_time_into_numbers(small_home: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = _ask("sleep until 12:30:45 then print the time", capsys)
    assert not any(f"({n})" in data["api_call"] for n in (12, 30, 45)), data["api_call"]
