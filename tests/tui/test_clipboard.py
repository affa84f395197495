"""tui.clipboard: OSC 52, tmux passthrough, system clipboard tools."""

from __future__ import annotations

import base64

from gorilla_tui.tui import clipboard


def test_osc52_and_tmux_passthrough():
    seq = clipboard.osc52("héllo")
    assert seq == "\x1b]52;c;" + base64.b64encode("héllo".encode()).decode() + "\a"
    wrapped = clipboard.tmux_passthrough(seq)
    assert wrapped.startswith("\x1bPtmux;\x1b\x1b]52;c;") and wrapped.endswith("\a\x1b\\")


def test_find_tool_follows_the_display_and_path(tmp_path):
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for name in ("xclip", "wl-copy"):
        (bin_dir / name).write_text("#!/bin/sh\ncat >/dev/null\n")
        (bin_dir / name).chmod(0o755)
    path = str(bin_dir)
    assert clipboard.find_tool({"PATH": path}, "linux") is None  # no display: no tool
    assert clipboard.find_tool({"PATH": path, "DISPLAY": ":0"}, "linux")[0] == "xclip"
    assert (
        clipboard.find_tool({"PATH": path, "DISPLAY": ":0", "WAYLAND_DISPLAY": "w"}, "linux")[0] == "wl-copy"
    )
    assert clipboard.find_tool({"PATH": str(tmp_path)}, "darwin") is None  # no pbcopy on PATH


def test_copy_with_tool_reports_failures(tmp_path):
    out = tmp_path / "out.txt"
    ok = tmp_path / "ok"
    ok.write_text(f"#!/bin/sh\ncat > {out}\n")
    ok.chmod(0o755)
    assert clipboard.copy_with_tool("copied text", (str(ok),)) is None
    assert out.read_text() == "copied text"
    bad = tmp_path / "bad"
    bad.write_text("#!/bin/sh\necho 'Error: Can not open display' >&2\nexit 1\n")
    bad.chmod(0o755)
    assert clipboard.copy_with_tool("x", (str(bad),)) == f"{bad} exited 1: Error: Can not open display"
    assert "failed" in clipboard.copy_with_tool("x", (str(tmp_path / "missing"),))
    assert clipboard.describe(["xclip"], ["OSC 52"], []) == "copied to xclip; OSC 52 also sent"
    assert (
        clipboard.describe([], ["OSC 52"], ["xclip exited 1"], tmp_path / "last-copy.txt")
        == f"not confirmed copied: OSC 52 sent, which your terminal may ignore; the text is in "
        f"{tmp_path / 'last-copy.txt'} [xclip exited 1]"
    )
    assert (
        clipboard.describe([], [], ["OSC 52 failed"])
        == "not confirmed copied: no clipboard reached [OSC 52 failed]"
    )
