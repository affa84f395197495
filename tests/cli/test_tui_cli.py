"""`gorilla-tui tui`: the subcommand is registered, its flags are checked before the app starts."""

from __future__ import annotations

import subprocess
import sys

import pytest

from gorilla_tui.cli import main


def test_tui_help_lists_the_flags(capsys):
    with pytest.raises(SystemExit) as e:
        main(["tui", "--help"])
    assert e.value.code == 0
    out = capsys.readouterr().out
    for flag in ("--model", "--mode", "-k", "--hub", "--kernel"):
        assert flag in out


def test_bad_k_is_one_line_and_exit_2(capsys):
    assert main(["tui", "-k", "0"]) == 2
    err = capsys.readouterr().err
    assert err.startswith("gorilla-tui: error: k must be between 1 and 50") and "Traceback" not in err


def test_broken_config_stops_bare_gorilla_tui_cleanly(gorilla_home):
    config = gorilla_home / "config" / "config.toml"
    config.parent.mkdir(parents=True)
    config.write_text("k = 'many'\n")
    done = subprocess.run(
        [sys.executable, "-m", "gorilla_tui"],
        capture_output=True,
        text=True,
        timeout=60,
        stdin=subprocess.DEVNULL,
    )
    assert done.returncode == 2
    assert "setting 'k' must be an integer" in done.stderr and "Traceback" not in done.stderr


def _spawn_in_a_pty(argv: list[str]) -> tuple[int, int]:
    """Run `argv` on a fresh pseudo-terminal (120x36, the kernel's default modes: ixon icanon echo isig);
    returns (pid, master fd)."""
    import fcntl
    import os
    import pty
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once, nothing else
        os.execve(sys.executable, [sys.executable, *argv], dict(os.environ, TERM="xterm-256color"))
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    return pid, fd


def test_ctrl_q_pressed_before_textual_owns_the_terminal_quits(home_with_model, capsys):
    """Break-it finding: Ctrl+Q in the first second of the TUI was lost: the terminal's XON/XOFF flow
    control (ixon, on by default) took it before Textual's driver turned that off. cli.main turns it off
    before the subcommands are imported (tui/terminal.py); a Ctrl+Q sent in that window, before Textual
    starts (ISIG still on: Textual clears it), now quits the app, and the terminal's modes come back."""
    import os
    import select
    import termios
    import time

    from tests.conftest import SMALL_POOL

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    capsys.readouterr()
    pid, fd = _spawn_in_a_pty(["-m", "gorilla_tui", "tui"])
    start, sent, status = time.monotonic(), None, None
    try:
        while time.monotonic() - start < 60 and status is None:
            iflag, lflag = termios.tcgetattr(fd)[0], termios.tcgetattr(fd)[3]  # the child's side (Linux)
            if sent is None and not iflag & termios.IXON:
                assert lflag & termios.ISIG, "Textual took the terminal before the early window was seen"
                os.write(fd, b"\x11")  # Ctrl+Q
                sent = time.monotonic() - start
            while select.select([fd], [], [], 0)[0]:  # keep the child's output flowing
                try:
                    os.read(fd, 65536)
                except OSError:
                    break
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
                break
            time.sleep(0.005)
        restored = termios.tcgetattr(fd)
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert sent is not None and status == 0, f"Ctrl+Q sent at {sent} s: the app did not quit"
    assert restored[0] & termios.IXON and restored[3] & termios.ICANON and restored[3] & termios.ECHO


def _ended_within(pid: int, fd: int, seconds: float) -> int | None:
    """The exit status of `pid` once it ends within `seconds` (its pty output read meanwhile), else None.
    Polls waitpid until the deadline: the pty closing (EIO) comes before the process is reaped, and a single
    WNOHANG look right after it read a process still running its exit as "alive after Ctrl+Q" (break-it
    round 10's TUI quit: 3 of 5 starts "killed", each reaped by itself within 0.5 s, exit 0)."""
    import os
    import select
    import time

    deadline = time.monotonic() + seconds
    while time.monotonic() < deadline:
        done, code = os.waitpid(pid, os.WNOHANG)
        if done:
            return os.waitstatus_to_exitcode(code)
        try:
            if select.select([fd], [], [], 0.02)[0]:
                os.read(fd, 65536)
        except OSError:  # the pty closed: the process is exiting
            time.sleep(0.02)
    return None


@pytest.mark.parametrize("after_paint", [0.0, 1.5])
def test_ctrl_q_while_the_app_starts_ends_the_process(home_with_model, capsys, after_paint):
    """Ctrl+Q at the first paint (the index, the model and its probe still loading in threads) or a moment
    later: the process ends, exit 0 (measured: 0.4-0.6 s after the key at any moment from 0.1 s to 14 s of
    a start with the real model and the default index; a key pressed before the first paint is handled
    when the app is up, ~1.3-1.7 s after the start). The bound here is generous: a loaded machine."""
    import os
    import select
    import time

    from tests.conftest import SMALL_POOL

    assert main(["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub", "--json"]) == 0
    capsys.readouterr()
    pid, fd = _spawn_in_a_pty(["-m", "gorilla_tui", "tui"])
    start, screen, status = time.monotonic(), b"", None
    try:
        while b"escribe a task" not in screen and time.monotonic() - start < 60:  # the task input's hint
            if select.select([fd], [], [], 0.05)[0]:
                screen += os.read(fd, 65536)
        assert b"escribe a task" in screen, "no first paint within 60 s"
        time.sleep(after_paint)
        os.write(fd, b"\x11")  # Ctrl+Q
        status = _ended_within(pid, fd, 30)
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    assert status == 0, "the TUI was still running 30 s after Ctrl+Q"


def test_keep_early_keys_clears_what_textual_clears_but_isig_and_restores():
    """tui/terminal.keep_early_keys on a real pseudo-terminal: flow control, canonical mode and echo off
    (ISIG kept), the modes as they were afterwards, also after an exception; no terminal: nothing done."""
    import os
    import pty
    import termios

    from gorilla_tui.tui.terminal import IFLAG_OFF, LFLAG_OFF, keep_early_keys

    master, slave = pty.openpty()
    try:
        before = termios.tcgetattr(slave)
        assert before[0] & termios.IXON and before[3] & termios.ICANON  # the kernel's defaults
        with pytest.raises(RuntimeError), keep_early_keys(slave) as changed:
            now = termios.tcgetattr(slave)
            assert changed and not now[0] & IFLAG_OFF and not now[3] & LFLAG_OFF and now[3] & termios.ISIG
            raise RuntimeError("the app failed")
        assert termios.tcgetattr(slave) == before
    finally:
        os.close(master)
        os.close(slave)
    read, write = os.pipe()
    try:
        with keep_early_keys(read) as changed:
            assert changed is False
    finally:
        os.close(read)
        os.close(write)
