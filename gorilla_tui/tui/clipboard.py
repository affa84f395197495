"""Copy text to every clipboard within reach: OSC 52 (tmux passthrough too) and a system clipboard tool."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping

#: System clipboard tools, in the order they are tried: (name, argv, condition). Each reads the text on stdin.
#: wl-copy: Wayland (needs WAYLAND_DISPLAY); xclip / xsel: X11 (need DISPLAY); pbcopy: macOS.
TOOLS: tuple[tuple[str, tuple[str, ...], str], ...] = (
    ("wl-copy", ("wl-copy",), "WAYLAND_DISPLAY"),
    ("xclip", ("xclip", "-selection", "clipboard"), "DISPLAY"),
    ("xsel", ("xsel", "--clipboard", "--input"), "DISPLAY"),
    ("pbcopy", ("pbcopy",), "darwin"),
)

#: Seconds a clipboard tool may take before it is given up (xclip can hang without an X server).
TOOL_TIMEOUT = 2.0


def osc52(text: str) -> str:
    """The OSC 52 escape sequence that sets the terminal's clipboard ("c" selection) to `text` (UTF-8,
    base64; xterm ctlseqs "Manipulate Selection Data")."""
    return f"\x1b]52;c;{base64.b64encode(text.encode('utf-8')).decode('ascii')}\a"


def tmux_passthrough(sequence: str) -> str:
    """Wrap an escape sequence for tmux passthrough (DCS ``\\ePtmux;`` ... ``\\e\\\\``, every ESC
    doubled), so it reaches the outer terminal (tmux >= 3.3 needs ``set -g allow-passthrough on``)."""
    return "\x1bPtmux;" + sequence.replace("\x1b", "\x1b\x1b") + "\x1b\\"


def find_tool(env: Mapping[str, str] | None = None, platform: str | None = None) -> tuple[str, ...] | None:
    """argv of the first usable system clipboard tool (see TOOLS), or None."""
    env = os.environ if env is None else env
    platform = platform or sys.platform
    for name, argv, condition in TOOLS:
        usable = platform == "darwin" if condition == "darwin" else bool(env.get(condition))
        if usable and shutil.which(name, path=env.get("PATH")):
            return argv
    return None


def copy_with_tool(text: str, argv: tuple[str, ...]) -> str | None:
    """Run a clipboard tool with `text` on stdin; returns None on success or a short reason it failed.
    Blocks for up to TOOL_TIMEOUT seconds: call it from a thread worker."""
    try:
        done = subprocess.run(
            list(argv), input=text.encode("utf-8"), capture_output=True, timeout=TOOL_TIMEOUT, check=False
        )
    except subprocess.TimeoutExpired:
        return f"{argv[0]} timed out"
    except OSError as e:
        return f"{argv[0]} failed: {e.strerror or e}"
    if done.returncode != 0:
        err = done.stderr.decode("utf-8", "replace").strip().splitlines()
        return f"{argv[0]} exited {done.returncode}" + (f": {err[0]}" if err else "")
    return None


def describe(channels: list[str], failures: list[str]) -> str:
    """One line for the person: what was done ("copied via OSC 52 and xclip") and what failed."""
    text = "copied via " + " and ".join(channels) if channels else "nothing could be copied"
    if failures:
        text += f" ({'; '.join(failures)})"
    return text
