"""Sources are validated before they are indexed (issue 17): regular files only, bounded reads, a per-source
size limit, a line is a doc only with its format's fields, and a source that is mostly not docs is refused."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from pathlib import Path

from gorilla_tui.pool.doc import load_file, load_paths


def test_a_line_is_a_doc_only_with_the_fields_of_its_format(tmp_path: Path) -> None:
    f = tmp_path / "docs.jsonl"
    rows = [
        {"api_call": "torch.hub.load('a/b', 'c')", "api_name": "c", "domain": "Vision"},
        {"api_call": "torch.hub.load('a/b', 'd')", "api_name": "d"},  # no domain: not an APIBench doc
        {"api_call": 42, "api_name": "e", "domain": "Vision"},  # the call is not a string
        {"api_call": ["x()"], "api_name": "f", "domain": "Vision"},
    ]
    f.write_text("\n".join(json.dumps(r) for r in rows) + "\n")
    apibench_fmt = load_file(f, "s", "apibench")
    assert [d.api_name for d in apibench_fmt.docs] == ["c"]
    assert [(d.line, d.message) for d in apibench_fmt.diagnostics] == [
        (2, "no domain (required in apibench docs)"),
        (3, "no api_call"),
        (4, "no api_call"),
    ]
    # user JSONL needs the call only
    assert [d.api_name for d in load_file(f, "s", "jsonl").docs] == ["c", "d"]
    zoo = tmp_path / "zoo.json"
    zoo.write_text(json.dumps([{"api_call": "GET /v1/x", "api_name": "x"}, {"api_call": "GET /v1/y"}]))
    r = load_file(zoo, "zoo", "apizoo")
    assert [d.api_name for d in r.docs] == ["x"] and r.diagnostics[
        0
    ].message == "no api_name (required in apizoo docs)"


def test_fifo_and_devices_are_refused_without_being_opened(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.jsonl"
    os.mkfifo(fifo)
    # run in a child: opening a FIFO with no writer would block this test forever
    code = textwrap.dedent(
        f"""
        from gorilla_tui.pool.doc import SourceRejected, load_paths, load_file
        for p in ({str(fifo)!r}, "/dev/zero"):
            for fn in (lambda: load_paths([p], "s"), lambda: load_file(p, "s")):
                try:
                    fn()
                except SourceRejected as e:
                    print(e)
        """
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    lines = out.stdout.splitlines()
    assert lines[:2] == [f"{fifo}: not a regular file (a FIFO); only files are read"] * 2
    assert lines[2:] == ["/dev/zero: not a regular file (a character device); only files are read"] * 2
    # a folder holding a FIFO: only its regular files are read
    folder = tmp_path / "docs"
    folder.mkdir()
    os.mkfifo(folder / "stuck.jsonl")
    (folder / "ok.jsonl").write_text('{"api_call": "a.b()"}\n')
    assert [d.api_call for d in load_paths([folder], "docs").docs] == ["a.b()"]
