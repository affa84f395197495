"""Sandbox containment: each test runs hostile code and proves it was contained and left nothing behind."""

from __future__ import annotations

import os
import socket
import time
from pathlib import Path

import pytest

from gorilla_tui.sandbox.requirements import missing_package, pip_requirements
from gorilla_tui.sandbox.runner import Limits, SandboxRun, probe_isolation, run_code, scrub_env

NAMESPACES = probe_isolation().mode == "namespaces"
needs_ns = pytest.mark.skipif(not NAMESPACES, reason="unshare --net --mount --pid not permitted here")
# Every test runs with namespaces where available; the process-containment tests also run without them.
MODES = [pytest.param(None, id="auto"), pytest.param(False, id="no-namespaces")]


def _left_over(marker: str) -> list[str]:
    """Processes whose command line mentions `marker` (the sandbox dir), from a /proc scan (no psutil)."""
    found = []
    for pid in os.listdir("/proc"):
        if pid.isdigit() and int(pid) != os.getpid():
            try:
                cmdline = (
                    Path(f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
                )
            except OSError:
                continue
            if marker in cmdline:
                found.append(f"{pid}: {cmdline[:120]}")
    return found


def sandbox(code: str, tmp_path: Path, namespaces: bool | None = None, **limits) -> tuple:
    """Run `code` (sandbox dir kept under tmp_path), assert nothing of the run survives; (result, lines)."""
    lines: list[tuple[str, str]] = []
    run = SandboxRun(
        code,
        limits=Limits(**{"timeout_s": 3.0, **limits}),
        on_output=lambda s, line: lines.append((s, line)),
        base_dir=tmp_path,
        keep=True,
        namespaces=namespaces,
    )
    result = run.run()
    assert _left_over(str(result.workdir)) == [], "a process of the run survived"
    return result, lines


@pytest.mark.parametrize("namespaces", MODES)
def test_infinite_loop_is_killed_at_the_wall_clock_timeout(tmp_path: Path, namespaces) -> None:
    t0 = time.monotonic()
    result, _ = sandbox("while True:\n    pass\n", tmp_path, namespaces, timeout_s=1.0, cpu_s=30)
    assert result.limits_hit == ["timeout"]
    assert result.exit_status is None and result.signal == 9
    assert 1.0 <= result.duration_s < 2.5 and time.monotonic() - t0 < 4


@needs_ns
def test_fork_bomb_hits_the_process_limit(tmp_path: Path) -> None:
    code = (
        "import os, time\nn = 0\nwhile True:\n    if os.fork() == 0:\n        time.sleep(30)\n"
        "        os._exit(0)\n    n += 1\n    print(n, flush=True)\n"
    )
    result, _ = sandbox(code, tmp_path, processes=16)
    assert "processes" in result.limits_hit and "timeout" not in result.limits_hit
    forks = [int(line) for line in result.output.splitlines() if line.isdigit()]
    assert 0 < max(forks) < 16, result.output  # the limit, not the timeout, stopped it
    assert "BlockingIOError" in result.output and result.exit_status == 1


def test_ten_gigabyte_allocation_hits_the_address_space_limit(tmp_path: Path) -> None:
    result, _ = sandbox("x = bytearray(10 * 1024**3)\nprint('allocated')\n", tmp_path)
    assert "allocated" not in result.output
    assert "MemoryError" in result.output and result.limits_hit == ["memory"] and result.exit_status == 1


@needs_ns
def test_writes_to_real_home_and_tmp_land_only_in_the_sandbox(tmp_path: Path) -> None:
    name = f"gorilla-escape-{os.getpid()}-{time.monotonic_ns()}.txt"
    home = Path(os.path.expanduser("~"))
    code = (
        f"import os\nopen({str(home / name)!r}, 'w').write('home')\nopen('/tmp/{name}', 'w').write('tmp')\n"
        f"open(os.path.expanduser('~/{name}'), 'w').write('tilde')\nprint(os.getcwd())\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    assert not (home / name).exists() and not Path("/tmp", name).exists()
    root = result.workdir
    assert (root / "home" / name).read_text() == "home"
    assert (root / "tmp" / name).read_text() == "tmp"
    assert (root / "work" / name).read_text() == "tilde"  # HOME is the sandbox's work folder
    assert result.files == "contained" and result.output.strip() == str(root / "work")


@needs_ns
def test_the_rest_of_the_file_system_is_read_only(tmp_path: Path) -> None:
    target = tmp_path.parent / f"escape-{time.monotonic_ns()}"  # outside the sandbox dir
    result, _ = sandbox(f"open({str(Path.cwd() / 'x')!r}, 'w')\nopen({str(target)!r}, 'w')\n", tmp_path)
    assert result.exit_status == 1 and not target.exists() and not (Path.cwd() / "x").exists()
    assert "Read-only file system" in result.output or "Permission denied" in result.output


def test_secret_environment_variables_are_absent(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVICE_TOKEN", "s3cr3t-token")
    monkeypatch.setenv("AWS_ACCESS_KEY_ID", "AKIAEXAMPLE")
    monkeypatch.setenv("DATABASE_PASSWORD", "hunter2")
    monkeypatch.setenv("LANG", "C.UTF-8")
    code = "import os\nprint(sorted(os.environ))\nprint(open('/proc/self/environ','rb').read())\n"
    result, _ = sandbox(code, tmp_path)
    for secret in ("s3cr3t-token", "AKIAEXAMPLE", "hunter2", "MY_SERVICE_TOKEN", "AWS_", "PASSWORD"):
        assert secret not in result.output
    assert "'LANG'" in result.output and "'HOME'" in result.output  # the allowlist passes through


def test_scrub_env_keeps_only_the_allowlist() -> None:
    env = scrub_env(
        {
            "PATH": "/bin",
            "LC_ALL": "C",
            "LC_API_KEY": "x",
            "HF_TOKEN": "x",
            "GOOGLE_APPLICATION_CREDENTIALS": "f",
            "OPENAI_API_KEY": "x",
            "EDITOR": "vi",
            "TERM": "xterm",
        },
        home="/h",
        tmpdir="/t",
    )
    assert env == {
        "PATH": "/bin",
        "LC_ALL": "C",
        "TERM": "xterm",
        "HOME": "/h",
        "TMPDIR": "/t",
        "GORILLA_TUI_SANDBOX": "1",
    }


@pytest.mark.parametrize("namespaces", MODES)
def test_daemon_is_killed_with_the_run(tmp_path: Path, namespaces) -> None:
    # double fork + setsid escapes the process group; the daemon then outlives its parent.
    code = (
        "import os, time\nif os.fork() == 0:\n    os.setsid()\n    if os.fork() == 0:\n"
        "        time.sleep(60)\n        os._exit(0)\n    os._exit(0)\n"
        "time.sleep(0.3)\nprint('parent exits')\n"
    )
    result, _ = sandbox(code, tmp_path, namespaces)  # sandbox() asserts that no process survived
    assert result.exit_status == 0 and result.output == "parent exits\n"
    assert result.duration_s < 2.5  # the run ended with the main process, not at the timeout


@pytest.mark.parametrize("namespaces", MODES)
def test_stdout_flood_is_capped(tmp_path: Path, namespaces) -> None:
    code = "import sys\nline = 'x' * 1023 + '\\n'\nfor _ in range(100 * 1024):\n    sys.stdout.write(line)\n"
    result, lines = sandbox(code, tmp_path, namespaces, output_bytes=100_000, flood_bytes=5_000_000)
    assert result.truncated and result.dropped_bytes > 0
    assert len(result.output.encode()) <= 100_000
    assert "output" in result.limits_hit  # 100 MB is past flood_bytes: the run was stopped early
    assert sum(len(line) + 1 for s, line in lines if s == "stdout") <= 100_000
    assert lines[-1][0] == "sandbox" and "truncated" in lines[-1][1]


@needs_ns
def test_network_connection_to_localhost_is_refused(tmp_path: Path) -> None:
    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen()
        server.settimeout(0.2)
        port = server.getsockname()[1]
        code = (
            f"import socket\nsocket.create_connection(('127.0.0.1', {port}), timeout=1)\nprint('connected')\n"
        )
        result, _ = sandbox(code, tmp_path)
        with pytest.raises(socket.timeout):
            server.accept()
    assert "connected" not in result.output and result.exit_status == 1
    assert result.network == "isolated" and "OSError" in result.output


def test_without_namespaces_the_network_is_reported_open(tmp_path: Path) -> None:
    result, _ = sandbox("print('hi')\n", tmp_path, namespaces=False)
    assert result.network == "open" and result.files == "open"
    assert any("OPEN" in n for n in result.notes) and any("NOT contained" in n for n in result.notes)


def test_stop_kills_a_running_sandbox(tmp_path: Path) -> None:
    seen: list[str] = []
    run = SandboxRun(
        "import time\nprint('started', flush=True)\ntime.sleep(60)\n",
        limits=Limits(timeout_s=10),
        on_output=lambda s, line: (seen.append(line), run.stop()),
        base_dir=tmp_path,
        keep=True,
    )
    result = run.run()
    assert seen == ["started"] and result.stopped and result.duration_s < 3
    assert _left_over(str(result.workdir)) == []


def test_run_code_streams_lines_and_removes_the_sandbox_dir(tmp_path: Path) -> None:
    lines: list[tuple[str, str]] = []
    result = run_code(
        "import sys\nprint('a')\nprint('b', file=sys.stderr)\nprint('c')\nraise SystemExit(3)\n",
        on_output=lambda s, line: lines.append((s, line)),
        base_dir=tmp_path,
    )
    assert result.exit_status == 3 and not result.ok
    assert [x for x in lines if x[0] == "stdout"] == [("stdout", "a"), ("stdout", "c")]
    assert ("stderr", "b") in lines and not result.workdir.exists()


def test_missing_package_reports_the_pip_line_from_the_doc(tmp_path: Path, apibench: Path) -> None:
    from gorilla_tui.pool.doc import load_jsonl

    docs = load_jsonl(apibench / "api" / "tensorflowhub_api.jsonl", "tensorflowhub").docs
    doc = next(d for d in docs if any("tensorflow_hub" in r for r in d.env_requirements))
    result, _ = sandbox("import gorilla_surely_missing_module_xyz\n", tmp_path)
    missing = missing_package(result, doc)
    assert missing is not None and missing.module == "gorilla_surely_missing_module_xyz" and missing.from_doc
    assert missing.pip_line.startswith("pip install ") and "tensorflow-hub" in missing.pip_line
    guessed = missing_package("ModuleNotFoundError: No module named 'cv2'", None)
    assert guessed is not None and guessed.pip_line == "pip install opencv-python" and not guessed.from_doc
    assert missing_package(result.output.replace("ModuleNotFound", "Value"), doc) is None


def test_pip_requirements_normalise_apibench_shapes() -> None:
    reqs = [
        "transformers",
        "tensorflow >=2.0.0",
        "pip install -U sentence-transformers",
        "!pip install timm",
        "PIL",
        "json",
        "torch latest",
    ]
    assert pip_requirements(reqs) == [
        "transformers",
        "tensorflow>=2.0.0",
        "sentence-transformers",
        "timm",
        "Pillow",
        "torch",
    ]
