"""Copy text to every clipboard within reach: OSC 52 (tmux passthrough where allowed), the tmux buffer and a
system clipboard tool; say honestly which of them are confirmed."""

from __future__ import annotations

import base64
import os
import shutil
import subprocess
import sys
from collections.abc import Mapping
from pathlib import Path

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


def tmux_env(env: Mapping[str, str] | None = None) -> bool:
    """True inside tmux ($TMUX set) with the tmux client on PATH."""
    env = os.environ if env is None else env
    return bool(env.get("TMUX")) and shutil.which("tmux", path=env.get("PATH")) is not None


def _tmux(args: list[str], text: str | None = None) -> subprocess.CompletedProcess[bytes]:
    data = None if text is None else text.encode("utf-8")
    return subprocess.run(["tmux", *args], input=data, capture_output=True, timeout=TOOL_TIMEOUT, check=False)


def tmux_option(name: str) -> str:
    """The global value of a tmux server option (`tmux show-options -gv NAME`), "" when it cannot be read."""
    try:
        done = _tmux(["show-options", "-gv", name])
    except (OSError, subprocess.TimeoutExpired):
        return ""
    return done.stdout.decode("utf-8", "replace").strip() if done.returncode == 0 else ""


def copy_to_tmux(text: str) -> tuple[bool, str | None]:
    """Put `text` in tmux's paste buffer with `tmux load-buffer -w -` (-w: tmux >= 3.2 also sends it to the
    outer terminal's clipboard where its `set-clipboard` option allows), falling back to `load-buffer -`,
    then read it back with `tmux show-buffer`.

    Returns (confirmed, failure): confirmed is True only when show-buffer gives `text` back; failure is a
    short reason or None. Blocks up to a few seconds: call it from a thread worker."""
    try:
        done = _tmux(["load-buffer", "-w", "-"], text)
        if done.returncode != 0:  # tmux < 3.2 has no -w
            done = _tmux(["load-buffer", "-"], text)
        if done.returncode != 0:
            err = done.stderr.decode("utf-8", "replace").strip().splitlines()
            return False, "tmux load-buffer failed" + (f": {err[0]}" if err else "")
        back = _tmux(["show-buffer"])
    except subprocess.TimeoutExpired:
        return False, "tmux timed out"
    except OSError as e:
        return False, f"tmux failed: {e.strerror or e}"
    if back.returncode != 0 or back.stdout.decode("utf-8", "replace") != text:
        return False, "the tmux buffer did not receive the text"
    return True, None


def save_copy(text: str, folder: Path) -> Path | None:
    """Write `text` to FOLDER/last-copy.txt (created if needed) so it can be found when no clipboard
    confirmed it; returns the path, or None when it cannot be written."""
    path = folder / "last-copy.txt"
    try:
        folder.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    except OSError:
        return None
    return path


def describe(confirmed: list[str], sent: list[str], failures: list[str], saved: Path | None = None) -> str:
    """One honest line for the person.

    confirmed: channels known to hold the text (a clipboard tool that exited 0, the tmux buffer read back);
    sent: channels that cannot be confirmed (OSC 52: a terminal never answers it); failures: short
    reasons; saved: the file holding the text when nothing was confirmed. "copied to ..." is said only for
    confirmed channels; otherwise the line says where the text is."""
    if confirmed:
        text = "copied to " + " and ".join(confirmed)
        if sent:
            text += f"; {', '.join(sent)} also sent"
    else:
        text = "not confirmed copied: " + (", ".join(sent) + " sent" if sent else "no clipboard reached")
        text += ", which your terminal may ignore" if sent else ""
        if saved is not None:
            text += f"; the text is in {saved}"
    if failures:
        text += f" [{'; '.join(failures)}]"
    return text
