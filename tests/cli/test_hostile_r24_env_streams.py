"""Break-it round 24, the environment and the standard streams (R24-5, -7 and -9: test_hostile_r24.py): input
that reached "internal error" or a wrong exit status (issue 42 exit rule: bad input is one line and exit 2,
never a traceback; a stderr that cannot be written never changes the status).

R24-1: a variable a dependency converts with int()/float() (NUMPY_MADVISE_HUGEPAGE, tqdm's TQDM_*) is dropped
with one warning line (cli/env_checks.py). R24-2: LLAMA_CPP_LIB_PATH at a folder without a loadable libllama
is one line naming it (model/profiles.py load_llama_cpp). R24-3: `ask` with standard output or error closed
at start. R24-4: `mcp` whose standard output refuses a write. R24-6: a YAML OpenAPI --source with a value
PyYAML's constructors cannot convert. R24-8: TEXTUAL_COLOR_SYSTEM, TEXTUAL_DRIVER, TEXTUAL_LOG and
TEXTUAL_SCREENSHOT that textual cannot use. Also R24-3's class for standard input (`<&-`).
The real CLI in a subprocess (the TUI on a pseudo-terminal).
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.conftest import SMALL_POOL, clone_home

REPO = Path(__file__).resolve().parents[2]
INDEX_TORCHHUB = ["index", "--refresh", "--from", str(SMALL_POOL), "--only", "torchhub"]
BIG = "9" * 5_000  # more digits than Python's int() reads (sys.get_int_max_str_digits(): 4,300)


def _cli(*args: str, cwd: Path, stdin: str | None = None, closed: int | None = None, **env: str):
    """The CLI in a subprocess; `closed` (0, 1 or 2): that file descriptor closed before Python starts, as
    `<&-`, `>&-` and `2>&-` leave it (Python sets sys.stdin, sys.stdout or sys.stderr to None)."""
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    return subprocess.run(
        [sys.executable, "-m", "gorilla_tui", *args],
        text=True, encoding="utf-8", errors="replace", cwd=cwd, timeout=300, input=stdin,
        stdout=None if closed == 1 else subprocess.PIPE, stderr=None if closed == 2 else subprocess.PIPE,
        preexec_fn=(lambda: os.close(closed)) if closed is not None else None,  # noqa: PLW1509
        env=base | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "GORILLA_TUI_DENSE": "0"} | env,
    )  # fmt: skip


@pytest.fixture
def torchhub_home(home_template: Callable[..., Path], tmp_path: Path) -> Path:
    """A home with the torchhub pool's index (BM25)."""
    return clone_home(home_template(INDEX_TORCHHUB), tmp_path / "home")


@pytest.fixture
def model_home(home_template: Callable[..., Path], home_with_model: Path) -> Path:
    """torchhub_home with the real tiny model (Gemma 3 270M) linked in."""
    return clone_home(home_template(INDEX_TORCHHUB), home_with_model)


# R24-1 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("variable", "value", "command", "why"),
    [
        ("NUMPY_MADVISE_HUGEPAGE", "junk", ["search", "load a resnet"], "is not a usable whole number"),
        ("NUMPY_MADVISE_HUGEPAGE", "\u00b2", ["index", "--status"], "is not a usable whole number"),
        ("TQDM_NCOLS", "abc", ["model", "list"], "is not a usable whole number"),
        ("TQDM_MININTERVAL", "soon", ["model", "list"], "is not a usable number"),
        ("TQDM_UNIT_DIVISOR", "1.5", ["model", "list"], "is not a usable whole number"),
    ],
)
def test_a_variable_a_dependency_converts_is_dropped_with_a_warning(
    torchhub_home: Path, tmp_path: Path, variable: str, value: str, command: list[str], why: str
) -> None:
    """numpy converts NUMPY_MADVISE_HUGEPAGE with int() when imported, tqdm each TQDM_<argument> with its
    type: every command importing them was "internal error: ValueError" (exit 1)."""
    done = _cli(*command, cwd=tmp_path, GORILLA_TUI_HOME=str(torchhub_home), **{variable: value})
    assert done.returncode == 0, done.stderr
    assert done.stderr.splitlines()[0] == f"gorilla-tui: warning: {variable}={value} {why}: ignored"
    assert "internal error" not in done.stderr


def test_a_dependency_variable_it_reads_fine_is_kept(torchhub_home: Path, tmp_path: Path) -> None:
    env = {"NUMPY_MADVISE_HUGEPAGE": "0", "TQDM_MININTERVAL": "0.5", "TQDM_NCOLS": "80"}
    done = _cli("model", "list", cwd=tmp_path, GORILLA_TUI_HOME=str(torchhub_home), **env)
    assert done.returncode == 0 and "warning" not in done.stderr, done.stderr


# R24-2 -------------------------------------------------------------------------------------------------


@pytest.mark.parametrize("library", [None, b"not a shared library"])
def test_llama_cpp_lib_path_without_a_loadable_library_is_one_line(
    torchhub_home: Path, tmp_path: Path, library: bytes | None
) -> None:
    """llama_cpp raises FileNotFoundError (no libllama there) or RuntimeError (a file it cannot load), not
    ImportError: `ask` was "internal error" and `doctor`, which should name it, crashed the same way."""
    folder = tmp_path / "lib"
    folder.mkdir()
    if library is not None:
        (folder / "libllama.so").write_bytes(library)
    env = {"GORILLA_TUI_HOME": str(torchhub_home), "LLAMA_CPP_LIB_PATH": str(folder)}
    said = f"llama.cpp's library could not be loaded from LLAMA_CPP_LIB_PATH={folder}: "
    asked = _cli("ask", "--json", "load a pretrained resnet", cwd=tmp_path, **env)
    assert asked.returncode == 2, asked.stderr
    assert asked.stderr.startswith(f"gorilla-tui: error: {said}"), asked.stderr
    assert "hint: unset LLAMA_CPP_LIB_PATH" in asked.stderr and "internal error" not in asked.stderr
    doctor = _cli("doctor", "--no-hash", cwd=tmp_path, **env)
    assert doctor.returncode == 1, doctor.stderr  # a problem found, with its fix
    assert f"problem: {said}" in doctor.stdout and "internal error" not in doctor.stderr


# R24-3 -------------------------------------------------------------------------------------------------


def test_ask_with_standard_output_closed_is_exit_2(model_home: Path, tmp_path: Path) -> None:
    """`ask` ends with os._exit after flushing both streams (EXIT_NOW): a closed one is None, and the flush
    was a raw AttributeError traceback, exit 1."""
    done = _cli("ask", "--json", "load a pretrained resnet", cwd=tmp_path, closed=1,
                GORILLA_TUI_HOME=str(model_home))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == "gorilla-tui: error: could not write the output: Bad file descriptor"


def test_ask_with_standard_error_closed_keeps_its_status(model_home: Path, tmp_path: Path) -> None:
    """`ask ... 2>&-` (a cron job's shape) printed the answer and exited 1, a failed answer's status."""
    done = _cli("ask", "--json", "load a pretrained resnet", cwd=tmp_path, closed=2,
                GORILLA_TUI_HOME=str(model_home))  # fmt: skip
    answer = json.loads(done.stdout)
    assert done.returncode == (0 if answer["verdict"]["verdict"] == "valid" else 1)
    assert done.returncode == 0, answer  # the tiny model's answer to this task is valid (measured)


@pytest.mark.parametrize(
    ("command", "line"),
    [
        (["ask", "-"], "the task is empty"),
        (["check", "-"], "nothing to check: the code is empty"),
        (["run", "-"], "stdin holds no code"),
        (["tui"], "the TUI needs a terminal"),
    ],
)
def test_a_closed_standard_input_reads_as_empty(
    torchhub_home: Path, tmp_path: Path, command: list[str], line: str
) -> None:
    """R24-3's class for file descriptor 0 (`<&-`): sys.stdin None was "internal error: AttributeError"
    (ask -, check -, run) or a raw traceback (the TUI's early key capture); it reads as `</dev/null` does."""
    done = _cli(*command, cwd=tmp_path, closed=0, GORILLA_TUI_HOME=str(torchhub_home))
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith(f"gorilla-tui: error: {line}"), done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


# R24-4 -------------------------------------------------------------------------------------------------

PING = '{"jsonrpc":"2.0","id":1,"method":"ping"}\n'


@pytest.mark.parametrize(
    ("where", "line"),
    [("full", "No space left on device"), ("closed", "Bad file descriptor")],
)
def test_mcp_whose_output_refuses_a_write_is_one_line(torchhub_home: Path, tmp_path: Path, where: str,
                                                      line: str) -> None:  # fmt: skip
    """The SDK's stdout writer raised OSError inside anyio's task groups: "internal error: ExceptionGroup"."""
    env = {"GORILLA_TUI_HOME": str(torchhub_home)}
    if where == "full":
        with open(os.devnull.replace("null", "full"), "w") as full:  # /dev/full
            base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
            done = subprocess.run(
                [sys.executable, "-m", "gorilla_tui", "mcp"], input=PING, stdout=full, stderr=subprocess.PIPE,
                text=True, cwd=tmp_path, timeout=120,
                env=base | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1"} | env,
            )  # fmt: skip
    else:
        done = _cli("mcp", cwd=tmp_path, stdin=PING, closed=1, **env)
    assert done.returncode == 2, done.stderr
    assert done.stderr.strip() == f"gorilla-tui: error: could not write the output: {line}"


def test_mcp_whose_client_went_away_ends_quietly(torchhub_home: Path, tmp_path: Path) -> None:
    """A client that reads one reply and closes its end (`| head -c1`): the server ends as any command
    whose reader went away does (`search ... | head -1`: exit 0, nothing said)."""
    base = {k: v for k, v in os.environ.items() if k in ("PATH", "HOME", "LANG", "TMPDIR")}
    server = subprocess.Popen(
        [sys.executable, "-m", "gorilla_tui", "mcp"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
        stderr=subprocess.PIPE, cwd=tmp_path,
        env=base | {"PYTHONPATH": str(REPO), "HF_HUB_OFFLINE": "1", "GORILLA_TUI_HOME": str(torchhub_home)},
    )  # fmt: skip
    assert server.stdin is not None and server.stdout is not None and server.stderr is not None
    try:
        server.stdin.write(PING.encode())
        server.stdin.flush()
        assert server.stdout.readline()  # the reply to the ping
        server.stdout.close()  # the client goes away
        with contextlib.suppress(BrokenPipeError):  # the server may have ended at its first lost reply
            for n in range(2, 12):
                server.stdin.write(f'{{"jsonrpc":"2.0","id":{n},"method":"ping"}}\n'.encode())
                server.stdin.flush()
                time.sleep(0.05)
            server.stdin.close()
        status = server.wait(timeout=120)
    finally:
        if server.poll() is None:
            server.kill()
            server.wait()
    err = server.stderr.read().decode("utf-8", "replace")
    assert status == 0, err
    assert "internal error" not in err and "error:" not in err


# R24-6 -------------------------------------------------------------------------------------------------

OPENAPI_YAML = """openapi: "3.0.0"
info: {{title: t, version: {version}}}
paths:
  /x:
    get:
      operationId: x
      summary: read a thing
      responses: {{"200": {{description: ok}}}}
"""


@pytest.mark.parametrize(
    ("version", "why"),
    [
        (BIG, "a number of more than 4300 digits"),
        ("!!int many", "invalid literal for int() with base 10: 'many'"),
        ("!!timestamp 2001-02-30", "day is out of range for month"),
    ],
    ids=["5000-digits", "int-tag", "bad-date"],
)
def test_a_yaml_value_python_cannot_read_refuses_the_source(
    torchhub_home: Path, tmp_path: Path, version: str, why: str
) -> None:
    """PyYAML's constructors call int() and datetime(): their ValueError was "internal error"; now the
    source's one-line refusal, exit 2, and the live index is the one before."""
    source = tmp_path / "api.yaml"
    source.write_text(OPENAPI_YAML.format(version=version), encoding="utf-8")
    live = (torchhub_home / "data" / "index" / "CURRENT").read_text()
    done = _cli("index", "--refresh", "--only", "api", "--source", f"api={source}", cwd=tmp_path,
                GORILLA_TUI_HOME=str(torchhub_home))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert f"--source refused: {source}: invalid YAML: a value Python cannot read: {why}" in done.stderr
    assert "internal error" not in done.stderr
    assert (torchhub_home / "data" / "index" / "CURRENT").read_text() == live
    assert _cli("search", "load a resnet", cwd=tmp_path, GORILLA_TUI_HOME=str(torchhub_home)).returncode == 0


@pytest.mark.parametrize(
    "document",
    [
        [{"type": "function", "function": {"name": "f", "description": "read a file", "parameters": {
            "type": "object", "properties": {"a": {"type": "integer", "default": "BIG"}}}}}],
        {"tools": [{"name": "f", "description": "read a file", "inputSchema": {
            "type": "object", "properties": {"a": {"type": "integer", "default": "BIG"}}}}]},
        [{"name": "f", "description": "read a file", "parameters": {
            "type": "dict", "properties": {"a": {"type": "integer", "default": "BIG"}}}}],
    ],
    ids=["openai-tools", "mcp-tools-list", "bfcl-list"],
)  # fmt: skip
def test_a_json_source_with_a_number_python_cannot_read_is_refused(
    torchhub_home: Path, tmp_path: Path, document: object
) -> None:
    """The JSON sources held in round 24 (jsontext.decode): kept so."""
    source = tmp_path / "tools.json"
    source.write_text(json.dumps(document).replace('"BIG"', BIG), encoding="utf-8")
    done = _cli("index", "--refresh", "--only", "tools", "--source", f"tools={source}", cwd=tmp_path,
                GORILLA_TUI_HOME=str(torchhub_home))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert "internal error" not in done.stderr and "Traceback" not in done.stderr


# R24-8 -------------------------------------------------------------------------------------------------


def _tui_on_a_pty(env: dict[str, str], quit_at_paint: bool) -> tuple[int | None, str]:
    """Run bare `gorilla-tui` on a fresh pseudo-terminal with `env`; with quit_at_paint, press Ctrl+Q at the
    first paint. Returns (exit status, or None when it ran on 60 s; what it wrote)."""
    import fcntl
    import pty
    import select
    import struct
    import termios

    pid, fd = pty.fork()
    if pid == 0:  # the child: exec at once, nothing else
        child_env = dict(os.environ, TERM="xterm-256color", PYTHONPATH=str(REPO), **env)
        os.execve(sys.executable, [sys.executable, "-m", "gorilla_tui"], child_env)
    fcntl.ioctl(fd, termios.TIOCSWINSZ, struct.pack("HHHH", 36, 120, 0, 0))
    screen, status, start, sent = b"", None, time.monotonic(), False
    try:
        while time.monotonic() - start < 60:
            done, code = os.waitpid(pid, os.WNOHANG)
            if done:
                status = os.waitstatus_to_exitcode(code)
                break
            try:
                if select.select([fd], [], [], 0.05)[0]:
                    screen += os.read(fd, 65536)
            except OSError:  # the pty closed: the process is exiting
                time.sleep(0.02)
            if quit_at_paint and not sent and b"escribe a task" in screen:  # the task input's hint
                os.write(fd, b"\x11")  # Ctrl+Q
                sent = True
    finally:
        if status is None:
            os.kill(pid, 9)
            os.waitpid(pid, 0)
        os.close(fd)
    return status, screen.decode("utf-8", "replace").replace("\r", "")


@pytest.mark.parametrize(
    ("variables", "warning"),
    [
        ({"TEXTUAL_COLOR_SYSTEM": "junk"},
         "TEXTUAL_COLOR_SYSTEM=junk is not one of auto, standard, 256, truecolor, windows"),
        ({"TEXTUAL_LOG": "no/such/folder/log"},
         "TEXTUAL_LOG=no/such/folder/log cannot be written (No such file or directory)"),
        ({"TEXTUAL_SCREENSHOT": "0", "TEXTUAL_SCREENSHOT_LOCATION": "{tmp}/nowhere"},
         "TEXTUAL_SCREENSHOT=0 would write into {tmp}/nowhere, which is no writable folder"),
    ],
    ids=["color-system", "log", "screenshot"],
)  # fmt: skip
def test_a_textual_variable_textual_would_fail_on_is_dropped(
    model_home: Path, tmp_path: Path, variables: dict[str, str], warning: str
) -> None:
    """TEXTUAL_COLOR_SYSTEM=junk was "internal error: KeyError: 'junk'" (rich's COLOR_SYSTEMS[...]), a
    TEXTUAL_LOG in a missing folder "internal error: FileNotFoundError", a screenshot into one a rich
    traceback on the screen: each is dropped with one warning line, and the TUI runs and quits (exit 0)."""
    env = {name: value.format(tmp=tmp_path) for name, value in variables.items()}
    status, screen = _tui_on_a_pty({"GORILLA_TUI_HOME": str(model_home), **env}, quit_at_paint=True)
    assert status == 0, screen[-2000:]
    assert f"gorilla-tui: warning: {warning.format(tmp=tmp_path)}: ignored" in screen
    assert "internal error" not in screen and "Traceback" not in screen and "Error" not in screen


@pytest.mark.parametrize("driver", ["nosuch:X", "os:path", ":X"])
def test_a_textual_driver_textual_cannot_load_is_one_line(model_home: Path, driver: str) -> None:
    """TEXTUAL_DRIVER=nosuch:X was "internal error: ModuleNotFoundError" (textual imports it unchecked)."""
    status, screen = _tui_on_a_pty({"GORILLA_TUI_HOME": str(model_home), "TEXTUAL_DRIVER": driver}, False)
    assert status == 2, screen[-2000:]
    assert f"gorilla-tui: error: TEXTUAL_DRIVER={driver} is no driver textual can load (" in screen
    assert "hint: unset TEXTUAL_DRIVER" in screen and "internal error" not in screen
