"""Break-it round 26 (issue 42), one test per class fixed outside filling:

- R26-4: `check` gave the same code different verdicts by route: ``os.listdir('/x', 1)`` passed `check
  FILE` (its count "not judged: taken from a compiled module") and failed `check -` / `check --code`;
  ``time.ctime()`` (valid Python) failed `check --code` and passed `check FILE`; a method called on a
  builtin method's result (``','.join(x).jion()``, ``b''.join(...).decode(3 arguments)``) was judged in
  no route. One rule for all three: an argument count is judged unless the callable is compiled without a
  signature of its own; a chain is read through the stubs' return types.
- R26-7: ``sys.stdout.buffer.write`` / ``sys.stdin.buffer.read`` were "hallucination" in `check --code`
  and `run` (the TUI's F5 asked twice); the chain is followed through typeshed.
- R26-6: doctor said "no problems found" for config.toml ``sources`` naming /dev/zero or a FIFO, which
  `index --refresh` refuses: one function judges a source path for both.
- R26 (partly): a tools.json with a self-referencing ``$ref`` was indexed (OpenAPI refuses the cycle) and
  any value then passed for that parameter: refused whole, with one line, exit 2, as OpenAPI.
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path

import pytest

from gorilla_tui.cli import main
from gorilla_tui.paths import get_paths


def _routes(code: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys) -> dict[str, int]:
    """The exit status of `check FILE`, `check -` and `check --code` for the same code."""
    path = tmp_path / "snippet.py"
    path.write_text(code, encoding="utf-8")
    out = {"file": main(["check", str(path)])}
    monkeypatch.setattr("sys.stdin", io.StringIO(code))
    out["stdin"] = main(["check", "-"])
    out["code"] = main(["check", "--code", code])
    capsys.readouterr()
    return out


#: Code and the exit status every route must give (1: a finding; 0: nothing wrong Python would raise).
SAME_IN_EVERY_ROUTE = {
    "clinic-count": ("import os\nos.listdir('/x', 1)\n", 1),  # Argument Clinic states (path=None)
    "docstring-count": ("import time\ntime.ctime()\n", 0),  # ctime(seconds) is read from a docstring
    "inherited-count": ("import os\nos.stat_result((1,) * 10)\n", 0),  # tuple's signature, inherited
    "chained-typo": ("b = ','.join(x).jion()\n", 1),  # str.join returns str: str has no jion
    "chained-count": ("b''.join([b'a']).decode('utf-8', 'strict', 'extra')\n", 1),  # decode takes 2
    "chained-list": ("'a b'.split().count('c')\n", 0),  # str.split returns a list
    "chained-in-place": ("'a b'.split().append('c')\n", 1),  # appends to a list no one keeps: in_place_copy
    "stream-buffer": ("import sys\nsys.stdout.buffer.write(b'x')\n", 0),  # R26-7
    "stdin-buffer": ("import sys\ndata = sys.stdin.buffer.read()\n", 0),  # R26-7
}


@pytest.mark.parametrize("name", sorted(SAME_IN_EVERY_ROUTE))
def test_check_gives_one_verdict_whatever_the_route(
    small_home: Path, name: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys
) -> None:
    code, expected = SAME_IN_EVERY_ROUTE[name]
    assert _routes(code, tmp_path, monkeypatch, capsys) == {
        "file": expected,
        "stdin": expected,
        "code": expected,
    }


def test_a_chain_past_the_docs_is_judged_on_its_real_type(small_home: Path, capsys) -> None:
    """The verdicts behind the statuses: the chained typo names str's method, the count bytes.decode's;
    the stream's buffer is valid, while a typo of a documented stream method stays a hallucination."""
    verdicts = {}
    codes = ("','.join(x).jion()", "b''.join([b'a']).decode('utf-8', 'strict', 'extra')",
             "import sys; sys.stdout.buffer.write(b'x')", "import sys; sys.stdout.wrte('x')")  # fmt: skip
    for code in codes:
        main(["check", "--json", "--code", code])
        verdicts[code] = json.loads(capsys.readouterr().out)
    typo = verdicts["','.join(x).jion()"]
    assert (typo["verdict"], typo["calls"][0]["callee"], typo["suggestions"]) == (
        "hallucination", "str().jion", ["str().join"])  # fmt: skip
    count = verdicts["b''.join([b'a']).decode('utf-8', 'strict', 'extra')"]
    assert (count["reason"], count["calls"][0]["callee"]) == (
        "wrong_args:too_many_arguments",
        "bytes().decode",
    )
    assert verdicts["import sys; sys.stdout.buffer.write(b'x')"]["verdict"] == "valid"
    assert verdicts["import sys; sys.stdout.wrte('x')"]["reason"] == "hallucination:unknown_callee"


def test_run_verdict_of_a_stream_buffer_is_valid(small_home: Path, tmp_path: Path, capsys) -> None:
    """`run` (and the TUI's F5, the same verdict) no longer calls it a hallucination before running it."""
    path = tmp_path / "sb.py"
    path.write_text("import sys\nsys.stdout.buffer.write(b'x')\n", encoding="utf-8")
    main(["run", str(path), "--yes"])
    said = capsys.readouterr()
    verdicts = [line for line in (said.out + said.err).splitlines() if line.startswith("verdict:")]
    assert verdicts and verdicts[0].split()[:2] == ["verdict:", "valid"], said


@pytest.mark.parametrize("kind", ["device", "fifo"])
def test_doctor_reports_a_config_source_refresh_refuses(
    gorilla_home: Path, kind: str, capsys, monkeypatch: pytest.MonkeyPatch
) -> None:
    """One function judges a configured source for doctor and refresh (R26-6)."""
    monkeypatch.setenv("COLUMNS", "400")  # the problem line unwrapped
    if kind == "fifo":
        source = gorilla_home / "tools.jsonl"
        os.mkfifo(source)
    else:
        source = Path("/dev/zero")
    config = get_paths().config_file
    config.parent.mkdir(parents=True, exist_ok=True)
    config.write_text(f'sources = ["{source}"]\n', encoding="utf-8")
    doctor = main(["doctor", "--no-hash"])
    said = capsys.readouterr()
    what = "a FIFO" if kind == "fifo" else "a character device"
    line = f"{config}: sources entry '{source}': {source}: not a regular file ({what}); only files are read"
    assert doctor == 1
    assert f"problem: {line}" in said.out + said.err
    assert "no problems found" not in said.out + said.err
    assert main(["index", "--refresh", "--no-dense"]) == 2
    assert capsys.readouterr().err.strip() == f"gorilla-tui: error: {line}"


#: An OpenAI tools list whose first function's parameter is a $ref to itself (break-it round 26).
SELF_REF = [
    {"type": "function", "function": {"name": "get_weather", "description": "Get the weather of a city",
     "parameters": {"type": "object", "properties": {"city": {"$ref": "#/properties/city"}},
                    "required": ["city"]}}},
    {"type": "function", "function": {"name": "get_time", "description": "Get the time in a city",
     "parameters": {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}}},
]  # fmt: skip


def test_a_tools_file_with_a_ref_cycle_is_refused_whole(small_home: Path, tmp_path: Path, capsys) -> None:
    path = tmp_path / "tools.json"
    path.write_text(json.dumps(SELF_REF), encoding="utf-8")
    line = f"{path}: function 'get_weather': $ref cycle at #/properties/city (#/properties/city)"
    assert main(["check", "--pool", str(path), "--code", "get_weather(city={'a': 1})"]) == 2
    assert capsys.readouterr().err.strip() == f"gorilla-tui: error: {line}"
    index = get_paths().index_dir
    before = (index / "CURRENT").read_text(encoding="utf-8")
    assert main(["index", "--refresh", "--no-dense", "--source", str(path)]) == 2
    assert capsys.readouterr().err.strip() == f"gorilla-tui: error: --source refused: {line}"
    assert (index / "CURRENT").read_text(encoding="utf-8") == before  # nothing half-indexed
    SELF_REF[0]["function"]["parameters"]["properties"]["city"] = {"type": "string"}
    path.write_text(json.dumps(SELF_REF), encoding="utf-8")
    assert main(["check", "--pool", str(path), "--code", "get_weather(city={'a': 1})"]) == 1  # a dict for str
