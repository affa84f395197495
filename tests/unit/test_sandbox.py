"""Sandbox containment: each test runs hostile code and proves it was contained and left nothing behind."""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

import pytest

import gorilla_tui
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import get_paths
from gorilla_tui.sandbox import cgroups
from gorilla_tui.sandbox.isolation import visible_paths
from gorilla_tui.sandbox.requirements import pip_requirements
from gorilla_tui.sandbox.runner import (
    IsolationError,
    Limits,
    SandboxRun,
    clean_stale_runs,
    probe_isolation,
    run_code,
    scrub_env,
)

NAMESPACES = probe_isolation().mode == "namespaces"
needs_ns = pytest.mark.skipif(not NAMESPACES, reason="unshare --net --mount --pid not permitted here")
CGROUPS = cgroups.probe_cgroups().kind != "none"
# Every test runs with namespaces where available; the process-containment tests also run without them.
MODES = [pytest.param(None, id="auto"), pytest.param(False, id="no-namespaces")]


def ps_lines() -> list[str]:
    """`ps -eo pid,user:12,comm,args` as lines (the header dropped)."""
    out = subprocess.run(["ps", "-eo", "pid,uid,comm,args"], capture_output=True, text=True, check=True)
    return out.stdout.splitlines()[1:]


def _left_over(marker: str, uid: int | None = None) -> list[str]:
    """Processes (from ps) whose command line mentions `marker` (the sandbox dir: the bootstrap's) or that
    run as the run's own `uid` (the code's, wherever it is), waiting up to 2 s for the kernel to reap."""
    found: list[str] = []
    for _ in range(40):
        found = []
        for line in ps_lines():
            pid, puid, rest = line.split(None, 2)
            if int(pid) != os.getpid() and (marker in rest or (uid is not None and int(puid) == uid)):
                found.append(line)
        if not found:
            return []
        time.sleep(0.05)
    return found


def sandbox(code: str, tmp_path: Path, namespaces: bool | None = None, keep: bool = False, **limits) -> tuple:
    """Run `code` (sandbox dir under tmp_path), assert that nothing of the run survives: no process (ps),
    no folder (unless keep); returns (result, lines)."""
    lines: list[tuple[str, str]] = []
    run = SandboxRun(
        code,
        limits=Limits(**{"timeout_s": 3.0, **limits}),
        on_output=lambda s, line: lines.append((s, line)),
        base_dir=tmp_path,
        keep=keep,
        namespaces=namespaces,
        allow_unisolated=namespaces is False,
    )
    result = run.run()
    assert _left_over(str(result.workdir), result.uid) == [], "a process of the run survived"
    assert keep or list(tmp_path.glob("gorilla-run-*")) == [], "the run's folder was left"
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
        f"import os\nopen('/tmp/{name}', 'w').write('tmp')\nopen(os.path.expanduser('~/{name}'), 'w')\n"
        f"print(os.getcwd(), sorted(os.listdir('/tmp')), sorted(os.listdir('.')))\n"
        f"open({str(home / name)!r}, 'w').write('home')\n"
    )
    result, _ = sandbox(code, tmp_path, keep=True)
    assert not (home / name).exists() and not Path("/tmp", name).exists()
    # /tmp and HOME: the run's own tmpfs; in /tmp also the read-only folders of an interpreter under /tmp
    # (the venv of a fresh clone in /tmp/clone), bound on top of it
    env = {Path(p).parts[2] for p in visible_paths()[0] if p.startswith("/tmp/")}
    assert f"/home/sandbox {sorted([name, *env])} ['{name}']" in result.output
    assert result.exit_status == 1 and "Read-only file system" in result.output  # the real HOME: no way
    assert result.files == "contained" and sorted(p.name for p in result.workdir.iterdir()) == [
        ".kept",
        ".owner",
        "fs",
        "main.py",
    ]


@needs_ns
def test_the_rest_of_the_file_system_is_read_only(tmp_path: Path) -> None:
    code = (
        "import os\nfor p in ('/usr/x', '/etc/x', '/x', '/sandbox/main.py', '/proc/sys/kernel/hostname'):\n"
        "    try:\n        open(p, 'w')\n        print('wrote', p)\n    except OSError as e:\n"
        "        print(type(e).__name__, e.strerror, p)\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert "wrote" not in result.output and result.output.count("\n") == 5, result.output
    assert "Read-only file system" in result.output and not Path("/x").exists()


@needs_ns
def test_launcher_cwd_pythonpath_project_tree_data_folder_and_run_sockets_are_invisible(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # finding 3: the launcher's sys.path (cwd, PYTHONPATH, an editable install) was readable inside
    if not os.access("/run", os.W_OK):
        pytest.skip("/run is not writable here: the socket under /run cannot be made")
    project, extra = tmp_path / "project", tmp_path / "pythonpath"
    for d in (project, extra):
        d.mkdir()
        (d / ".env").write_text("DB_PASSWORD=hunter2-secret\n")
    monkeypatch.chdir(project)
    monkeypatch.setenv("PYTHONPATH", str(extra))
    monkeypatch.syspath_prepend(str(extra))
    monkeypatch.syspath_prepend(str(project))
    data = get_paths().data  # the user data folder (history, index): GORILLA_TUI_HOME of this test
    data.mkdir(parents=True, exist_ok=True)
    (data / "history.sqlite3").write_text("hunter2-secret")
    source_tree = Path(gorilla_tui.__file__).resolve().parent.parent  # this checkout: not installed
    sock_path = Path("/run") / f"gorilla-test-{os.getpid()}-{time.monotonic_ns()}.sock"
    targets = [
        project / ".env",
        extra / ".env",
        data / "history.sqlite3",
        source_tree / "gorilla_tui",
        sock_path,
    ]
    code = (
        "import os, socket, sys\n"
        f"for p in {[str(t) for t in targets]!r}:\n"
        "    print('visible' if os.path.exists(p) else 'absent', p)\n"
        "print('run:', os.listdir('/run') if os.path.exists('/run') else 'absent')\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        f"try:\n    s.connect({str(sock_path)!r})\n    print('connected')\n"
        "except OSError as e:\n    print('connect failed', e.strerror)\n"
        "print('path', [p for p in sys.path if 'pythonpath' in p or 'project' in p])\n"
    )
    with socket.socket(socket.AF_UNIX) as server:
        server.bind(str(sock_path))
        server.listen()
        server.settimeout(0.2)
        try:
            result, _ = sandbox(code, tmp_path)
            with pytest.raises(socket.timeout):
                server.accept()
        finally:
            sock_path.unlink()
    assert result.exit_status == 0, result.output
    assert "visible" not in result.output and result.output.count("absent") == len(targets) + 1
    assert "connect failed No such file or directory" in result.output and "hunter2" not in result.output
    assert "path []" in result.output
    assert (project / ".env").read_text() == "DB_PASSWORD=hunter2-secret\n"  # host files unchanged


@needs_ns
def test_tmp_and_home_filling_stops_at_the_run_tmpfs_size(tmp_path: Path) -> None:
    # finding 6: 12 files of 60 MB filled 720 MB of the host's /tmp; here 12 files of 6 MB meet 32 MiB. The
    # names are this run's own, so a file another program left in the host's /tmp cannot fail the test.
    prefix = f"gorilla-fill-{os.getpid()}-{time.monotonic_ns()}-"
    code = (
        "import os\nchunk = b'x' * (6 * 1024 * 1024)\nfor i in range(12):\n"
        "    where = '/tmp' if i % 2 else os.path.expanduser('~')\n"
        f"    with open(f'{{where}}/{prefix}{{i}}', 'wb') as f:\n        f.write(chunk)\n"
        "    print('wrote', i, flush=True)\n"
    )
    result, _ = sandbox(code, tmp_path, disk_bytes=32 * 1024**2)
    written = [line for line in result.output.splitlines() if line.startswith("wrote")]
    assert 3 <= len(written) <= 5, result.output  # 32 MiB hold 5 files of 6 MB, /tmp and HOME together
    assert "No space left on device" in result.output and "disk" in result.limits_hit
    assert not any(p.name.startswith(prefix) for p in Path("/tmp").iterdir())


@needs_ns
@pytest.mark.skipif(not CGROUPS, reason="no writable cgroup here: limits are per process (see the notes)")
def test_fan_out_memory_is_capped_for_the_whole_run(tmp_path: Path) -> None:
    # finding 6: 4 children of 1.5 GB each held 6 GB (2 GiB per process); here 4 x 120 MB meet 256 MiB
    code = (
        "import os, time\nkids = []\nfor i in range(4):\n    pid = os.fork()\n    if pid == 0:\n"
        "        block = b'x' * (120 * 1024 * 1024)\n        print('held', i, flush=True)\n"
        "        time.sleep(2)\n        os._exit(0)\n    kids.append(pid)\n    time.sleep(0.3)\n"
        "print('exits', sorted(os.waitstatus_to_exitcode(os.waitpid(p, 0)[1]) for p in kids), flush=True)\n"
    )
    result, _ = sandbox(code, tmp_path, memory_bytes=256 * 1024**2, timeout_s=10)
    assert "memory" in result.limits_hit and result.limits_scope.startswith("run (cgroup")
    exits = next((line for line in result.output.splitlines() if line.startswith("exits")), "")
    assert "-9" in exits or result.exit_status is None, result.output  # OOM-killed, not all 4 held
    assert "exits [0, 0, 0, 0]" not in result.output
    assert any("for the whole run" in n for n in result.notes)


def test_without_a_cgroup_the_notes_say_limits_are_per_process(tmp_path: Path, monkeypatch) -> None:
    monkeypatch.setattr(cgroups, "create", lambda *a, **k: None)  # as on a machine without cgroups
    result, _ = sandbox("print('hi')\n", tmp_path)
    assert result.limits_scope == "per process (setrlimit)" and result.output == "hi\n"
    assert any(n.startswith("limits: per process only") for n in result.notes)


def test_without_namespaces_nothing_runs_unless_allowed(tmp_path: Path) -> None:
    # finding 5: without namespaces it warned, then ran with the network open and files writable
    marker = tmp_path / "ran"
    with pytest.raises(IsolationError, match="refusing to run: no isolation here"):
        SandboxRun(f"open({str(marker)!r}, 'w')\n", namespaces=False, base_dir=tmp_path)
    assert not marker.exists() and list(tmp_path.iterdir()) == []


@needs_ns
def test_a_run_with_namespaces_turned_off_says_so_in_its_notes(tmp_path: Path) -> None:
    # the notes gave the probe's reason, which on a machine with namespaces describes the isolation the run
    # did *not* get ("network: OPEN: new PID, mount, network and IPC namespaces")
    result, _ = sandbox("print('hi')\n", tmp_path, namespaces=False)
    assert result.network == "open" and result.output == "hi\n"
    assert "network: OPEN: namespaces were turned off for this run" in result.notes


@pytest.mark.parametrize("namespaces", MODES)
def test_the_sandbox_enforces_the_wall_clock_limit_itself(tmp_path: Path, namespaces) -> None:
    # finding 1: only the app enforced the timeout; here the app never kills, the sandbox still ends it
    class AppNeverKills(SandboxRun):
        def _kill(self) -> None:
            pass

    run = AppNeverKills(
        "while True:\n    pass\n",
        limits=Limits(timeout_s=1.0),
        base_dir=tmp_path,
        keep=True,
        namespaces=namespaces,
        allow_unisolated=namespaces is False,
    )
    result = run.run()
    assert result.limits_hit == ["timeout"] and result.exit_status is None
    assert 1.9 <= result.duration_s < 6  # 1 s + the sandbox's grace, never the 30 s CPU limit
    assert _left_over(str(result.workdir), result.uid) == []


def test_folders_of_dead_runs_are_removed_by_a_later_start(tmp_path: Path) -> None:
    dead = tmp_path / "gorilla-run-dead"
    dead.mkdir()
    (dead / ".owner").write_text("12345\n")  # nobody holds its lock any more
    (dead / "main.py").write_text("print(1)\n")
    kept = tmp_path / "gorilla-run-kept"
    kept.mkdir()
    (kept / ".owner").write_text("1\n")
    (kept / ".kept").touch()
    young = tmp_path / "gorilla-run-old-version"  # no lock: an older version's, maybe still running
    young.mkdir()
    result = run_code("print('next run')\n", base_dir=tmp_path)
    assert result.output == "next run\n"
    assert not dead.exists() and kept.exists() and young.exists()
    assert clean_stale_runs(tmp_path) == []


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


def test_only_locale_variables_with_locale_values_reach_a_run(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Every LC_ variable passed into a run with its value: `LC_DB_URL=postgres://user:pw@...` reached the
    code (issue 42, kind 6). Only the locale variables Python reads pass, with a locale-shaped value; a
    valid LANG and LANGUAGE still do, and Python's locale module reads them in the run."""
    for name in [k for k in os.environ if k.startswith("LC_")]:  # PEP 538 sets LC_CTYPE where LANG is unset
        monkeypatch.delenv(name)
    monkeypatch.setenv("LC_DB_URL", "postgres://user:pw@db.internal/prod")
    monkeypatch.setenv("LC_MESSAGES", "postgres://user:pw@db.internal/prod")
    monkeypatch.setenv("LC_PAPER", "a4-but-secret")  # a glibc category Python does not read
    monkeypatch.setenv("LC_ALL", "")
    monkeypatch.setenv("TZ", "user:pw@db.internal")
    monkeypatch.setenv("LANG", "C.UTF-8")
    monkeypatch.setenv("LANGUAGE", "en_US:en")
    code = (
        "import locale, os\nprint(sorted(k for k in os.environ if k.startswith(('LC_', 'LANG', 'TZ'))))\n"
        "print(os.environ.get('LANG'), os.environ.get('LANGUAGE'))\n"
        "print(locale.setlocale(locale.LC_CTYPE, ''))\nprint(open('/proc/self/environ', 'rb').read())\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    for leak in ("postgres", "user:pw", "db.internal", "LC_DB_URL", "LC_PAPER", "a4-but-secret", "'TZ'"):
        assert leak not in result.output, result.output
    lines = result.output.splitlines()
    assert lines[0] == "['LANG', 'LANGUAGE']" and lines[1] == "C.UTF-8 en_US:en", result.output
    assert lines[2] == "C.UTF-8", result.output  # the locale module read the LANG that passed


def test_getpass_getuser_works_in_a_run(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """getpass.getuser() ended an ordinary program with "KeyError: 'getpwuid(): uid not found: 768249'": a
    run's fresh uid has no passwd entry and neither USER nor LOGNAME passed the scrubbed environment. The
    run sees USER=LOGNAME=sandbox, never the launcher's own name."""
    monkeypatch.setenv("USER", "launcher-name")
    monkeypatch.setenv("LOGNAME", "launcher-name")
    result, _ = sandbox("import getpass\nprint('user:', getpass.getuser())\n", tmp_path)
    assert result.exit_status == 0, result.output
    assert "user: sandbox" in result.output and "launcher-name" not in result.output


@needs_ns
def test_a_run_has_its_own_passwd_entry_and_host_name(tmp_path: Path) -> None:
    """pwd.getpwuid(os.getuid()) failed in a run ("uid not found": its fresh uid had no passwd entry) and
    socket.gethostname() gave the host's name. The run has its own UTS namespace named "sandbox" and its
    own /etc/passwd, /etc/group, /etc/hostname and /etc/hosts (read-only); the host's users are not listed
    (break-it pass 10)."""
    code = (
        "import grp, os, pwd, socket\n"
        "me = pwd.getpwuid(os.getuid())\n"
        "print('user', me.pw_name, me.pw_dir, grp.getgrgid(os.getgid()).gr_name)\n"
        "print('host', socket.gethostname(), os.uname().nodename, open('/etc/hostname').read().strip())\n"
        "print('users', sorted(p.pw_name for p in pwd.getpwall()))\n"
        "print('hosts', open('/etc/hosts').read().split())\n"
        "try:\n    open('/etc/passwd', 'a')\nexcept OSError as e:\n    print('passwd', e.strerror)\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    assert "user sandbox /home/sandbox sandbox" in result.output, result.output
    assert "host sandbox sandbox sandbox" in result.output
    assert "users ['nobody', 'root', 'sandbox']" in result.output
    assert "'127.0.1.1', 'sandbox'" in result.output
    assert "passwd Read-only file system" in result.output or "passwd Permission denied" in result.output
    host = socket.gethostname()
    if host != "sandbox":
        assert host not in result.output
    assert socket.gethostname() == host  # the host's own name was not changed by the run


@needs_ns
def test_without_a_uts_namespace_the_host_name_is_left_alone(tmp_path: Path, monkeypatch) -> None:
    """Where `unshare --uts` is refused the run goes on in the other namespaces (probe_isolation's
    fallback). Its PID 1 runs as root there, so setting the run's host name would rename the machine: it
    is set only in the run's own UTS namespace, and /etc/hostname then stays the machine's too."""
    from gorilla_tui.sandbox import runner
    from gorilla_tui.sandbox.isolation import Isolation

    real = probe_isolation()
    no_uts = tuple(flag for flag in real.prefix if flag != "--uts")
    monkeypatch.setattr(runner, "probe_isolation", lambda: Isolation("namespaces", no_uts, "no UTS"))
    host = socket.gethostname()
    code = "import socket\nprint('host', socket.gethostname(), open('/etc/hostname').read().strip())\n"
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    assert socket.gethostname() == host  # the machine was not renamed
    assert f"host {host}" in result.output
    assert "host sandbox" not in result.output or host == "sandbox"


def test_a_program_that_reads_input_is_told_stdin_is_empty(tmp_path: Path) -> None:
    """A run's stdin is empty (/dev/null): input() ended an ordinary program with "EOFError: EOF when
    reading a line" and nothing said why. The run's notes now say it."""
    result, _ = sandbox(
        "import sys\nprint('read', len(sys.stdin.read()))\nname = input('name? ')\n", tmp_path
    )
    assert "read 0" in result.output and "EOFError" in result.output and result.exit_status == 1
    assert "input: none (stdin is empty: input() raises EOFError)" in result.notes


@pytest.mark.skipif(not NAMESPACES, reason="no mount namespace here: the run uses the host's /dev")
def test_a_pseudo_terminal_can_be_opened_and_is_the_runs_own(tmp_path: Path) -> None:
    """pty.openpty() ended an ordinary program with "OSError: out of pty devices": the run's /dev had no
    ptmx. A private devpts instance gives it pseudo-terminals; /dev/pts lists only those the run opened,
    none of the host's."""
    code = (
        "import os, pty\nm, s = pty.openpty()\nos.write(m, b'hi\\n')\nprint('read', os.read(s, 3))\n"
        "print('pts', sorted(os.listdir('/dev/pts')))\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    assert "read b'hi\\n'" in result.output and "pts ['0', 'ptmx']" in result.output, result.output


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
        "PATH": f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin",
        "LC_ALL": "C",
        "TERM": "xterm",
        "HOME": "/h",
        "TMPDIR": "/t",
        "USER": "sandbox",
        "LOGNAME": "sandbox",
        "GORILLA_TUI_SANDBOX": "1",
    }


def test_the_hosts_path_never_reaches_the_code(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Break-it round 10 (issue 42, kind 6): PATH was passed as it was, so data in it reached the code
    (`...:/tmp/DB_URL=postgres://user:pw@db/prod`) with the host's layout (~/.cargo/bin, pyenv shims). The
    run's PATH is fixed: the interpreter's folder, then /usr/local/bin:/usr/bin:/bin."""
    monkeypatch.setenv(
        "PATH", os.environ["PATH"] + ":/root/.cargo/bin:/tmp/DB_URL=postgres://user:pw@db/prod"
    )
    code = "import os, shutil\nprint(os.environ['PATH'])\nprint(shutil.which('python3') is not None)\n"
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    fixed = f"{os.path.dirname(sys.executable)}:/usr/local/bin:/usr/bin:/bin"
    assert result.output == f"{fixed}\nTrue\n", result.output
    assert "pw@db" not in str(scrub_env({"PATH": "/bin:/tmp/DB_URL=postgres://user:pw@db"}, "/h", "/t"))


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


@pytest.mark.parametrize("signame", ["SIGTERM", "SIGKILL", "SIGHUP"])
def test_the_sandbox_dies_with_its_parent(tmp_path: Path, signame: str) -> None:
    # finding 1: after kill -TERM/-KILL/-HUP of the app the code ran on past its timeout, its folder stayed.
    # The code names itself (/proc/self/comm, inherited by its daemon) so that ps finds what is left.
    comm = f"gt-{signame[3:].lower()}-{os.getpid() % 10000}"
    code = (
        f"import os, time\nopen('/proc/self/comm', 'w').write({comm!r})\n"
        "if os.fork() == 0:\n    os.setsid()\n    while True:\n        time.sleep(0.1)\n"
        "print('started', flush=True)\ntime.sleep(60)\n"
    )
    script = (  # SIGHUP's default action, as for an app started from a terminal (under nohup it is ignored)
        "import signal\nsignal.signal(signal.SIGHUP, signal.SIG_DFL)\n"
        "from gorilla_tui.sandbox.runner import Limits, run_code\n"
        f"run_code({code!r}, limits=Limits(timeout_s=30), base_dir={str(tmp_path)!r},"
        " on_output=lambda s, line: print(line, flush=True))\n"
    )
    env = dict(os.environ, PYTHONPATH=str(Path(gorilla_tui.__file__).resolve().parent.parent))
    app = subprocess.Popen([sys.executable, "-c", script], stdout=subprocess.PIPE, text=True, env=env)
    assert app.stdout is not None and app.stdout.readline() == "started\n"
    (folder,) = tmp_path.glob("gorilla-run-*")
    # the code and its daemon, by their process name (the launcher's command line holds the code, and so
    # the name, too: match the comm column, not the whole line)
    assert len([line for line in ps_lines() if line.split(None, 3)[2:3] == [comm]]) == 2
    t0 = time.monotonic()
    app.send_signal(getattr(signal, signame))
    app.wait(timeout=10)
    while time.monotonic() - t0 < 5 and (folder.exists() or _left_over(comm)):
        time.sleep(0.05)
    assert _left_over(comm) == [] and _left_over(str(folder)) == [] and not folder.exists()
    assert time.monotonic() - t0 < 5  # gone with the app, not at the 30 s timeout


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


def test_pip_requirements_of_apibench_prose_are_installable_names() -> None:
    """F5 on "detect objects in a photo with pytorch" (Torch Hub's YOLOv5 doc: "Python>=3.8",
    "PyTorch>=1.7") reported `pip install 'Python>=3.8' 'PyTorch>=1.7'`: no distribution is called Python,
    and PyPI's "pytorch" is a stub that refuses to install. The interpreter is left out, PyTorch is torch,
    and the prose around names in APIBench's env requirements ("packages transformers", "from transformers
    import pipeline", "import tensorflow_hub as hub", "version latest") gives the names, not the words."""
    assert pip_requirements(["Python>=3.8", "PyTorch>=1.7"]) == ["torch>=1.7"]
    assert pip_requirements(["pytorch 1.8.0+cu101", "Python 3.6+", "Pytorch==1.13.1"]) == [
        "torch",
        "torch==1.13.1",
    ]
    assert pip_requirements(["packages transformers\nPIL\nrequests"]) == [
        "transformers",
        "Pillow",
        "requests",
    ]
    assert pip_requirements(["library transformers", "from transformers import pipeline"]) == ["transformers"]
    assert pip_requirements(
        ["import tensorflow_hub as hub", "import from diffusers import DDPMPipeline"]
    ) == [
        "tensorflow-hub",
        "diffusers",
    ]
    assert pip_requirements(["version latest", "version 4.0.0+"]) == []
    assert pip_requirements(["pip install -U git+https://github.com/huggingface/transformers.git"]) == [
        "git+https://github.com/huggingface/transformers.git"
    ]


@pytest.mark.skipif(not CGROUPS, reason="no writable cgroup here")
def test_empty_cgroups_of_dead_runs_are_removed_and_live_ones_kept() -> None:
    parent = cgroups.probe_cgroups().parents[-1]
    dead = Path(parent, f"{cgroups.PREFIX}{int(time.time()) - 3600}-1-dead00")
    fresh = Path(parent, f"{cgroups.PREFIX}{int(time.time())}-1-fresh0")  # maybe a run about to join it
    dead.mkdir()
    fresh.mkdir()
    try:
        run = cgroups.create(64 * 1024**2, 8)
        assert run is not None and not dead.exists() and fresh.exists()
        assert all(Path(d).is_dir() for d in run.dirs) and run.remove()
        assert not any(Path(d).exists() for d in run.dirs)
    finally:
        for d in (dead, fresh):
            if d.exists():
                d.rmdir()


@needs_ns
def test_an_interpreter_in_a_venv_under_tmp_starts_the_code(tmp_path: Path) -> None:
    """A venv under /tmp (the fresh clone of the test tiers, /tmp/clone/.venv): its folders are bound into
    the run's root after the tmpfs /tmp, not hidden by it. Before, every run of such an interpreter said
    "could not start the code: [Errno 2] No such file or directory"."""
    assert str(tmp_path).startswith("/tmp/")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    root = Path(__file__).resolve().parents[2]
    script = (
        "from gorilla_tui.sandbox.runner import run_code\n"
        "r = run_code(\"import sys; print('ran', sys.prefix)\")\n"
        "print(r.exit_status, r.output)\n"
    )
    out = subprocess.run(
        [str(venv / "bin" / "python"), "-c", script],
        capture_output=True, text=True, timeout=60, env={**os.environ, "PYTHONPATH": str(root)},
    )  # fmt: skip
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "ran", str(venv)], out.stdout


@pytest.mark.parametrize("namespaces", MODES)
def test_a_proposal_run_echoes_a_final_expression_as_the_repl_does(tmp_path: Path, namespaces) -> None:
    """echo_last (a proposal's run): the repr of a final top-level expression that is not None is printed,
    in the sandboxed child; a final call returning None prints nothing (no "None"); a script's own output,
    exceptions (traceback from the code's own frame, exit 1), SyntaxError and sys.exit are as `python FILE`
    gives them. Without echo_last (a file of one's own) nothing is echoed."""

    def run(code: str, echo_last: bool = True) -> tuple:
        lines: list[tuple[str, str]] = []
        result = SandboxRun(
            code,
            limits=Limits(timeout_s=10.0),
            on_output=lambda s, line: lines.append((s, line)),
            base_dir=tmp_path,
            namespaces=namespaces,
            allow_unisolated=namespaces is False,
            echo_last=echo_last,
        ).run()
        return result.exit_status, lines

    status, lines = run("import os\nos.getcwd()")
    assert status == 0 and len(lines) == 1 and lines[0][0] == "stdout"
    assert lines[0][1].startswith("'/") and lines[0][1].endswith("'")  # the directory, as repr shows it
    assert run("import os\nos.getcwd()", echo_last=False) == (0, [])
    assert run("items = []\nitems.append(1)") == (0, [])  # a call returning None: no "None"
    assert run("print('hi')\nlen('abc')\n") == (0, [("stdout", "hi"), ("stdout", "3")])
    main_guard = "if __name__ == '__main__':\n    print(__file__.endswith('main.py'))"
    assert run(main_guard)[1] == [("stdout", "True")]
    status, lines = run("x = 1\n1 / 0")
    text = "\n".join(line for _, line in lines)
    assert status == 1 and 'main.py", line 2, in <module>' in text and "ZeroDivisionError" in text
    assert "<string>" not in text and "exec(" not in text  # the echo program's own frame is left out
    status, lines = run("def f(:\n")
    assert status == 1 and lines[-1][1].startswith("SyntaxError") and "Traceback" not in lines[0][1]
    assert run("import sys\nsys.exit(3)")[0] == 3


@pytest.mark.parametrize("namespaces", MODES)
def test_the_echo_leaves_its_own_frames_out_of_every_traceback(tmp_path: Path, namespaces) -> None:
    """A proposal run (echo_last) shows the traceback `python FILE` shows for exceptions that are not
    Exceptions too: a BaseException subclass (exit 1), KeyboardInterrupt (killed by SIGINT, as Python
    does), and a text too deeply nested to parse (MemoryError, no traceback); the echo program's frames
    ("<string>", _run, ast.py) never appear."""

    def run(code: str) -> tuple:
        lines: list[str] = []
        result = SandboxRun(
            code,
            limits=Limits(timeout_s=10.0),
            on_output=lambda s, line: lines.append(line),
            base_dir=tmp_path,
            namespaces=namespaces,
            allow_unisolated=namespaces is False,
            echo_last=True,
        ).run()
        return result.exit_status, result.signal, "\n".join(lines)

    status, _, text = run("class Stop(BaseException):\n    pass\nraise Stop('b')")
    assert status == 1 and 'main.py", line 3, in <module>' in text and text.endswith("Stop: b")
    assert "<string>" not in text and "_run" not in text
    status, sig, text = run("raise KeyboardInterrupt")
    assert sig == signal.SIGINT and text.endswith("KeyboardInterrupt") and "<string>" not in text
    status, _, text = run("-" * 200_000 + "1")
    assert status == 1 and text == "MemoryError"


@needs_ns
def test_the_backup_copies_of_passwd_and_group_do_not_list_the_hosts_users(tmp_path: Path) -> None:
    """Break-it pass 11: /etc/passwd and /etc/group were the run's own, but the host's /etc was shown
    otherwise whole: /etc/passwd- and /etc/group- (the backups shadow-utils keeps) and /etc/subuid,
    /etc/subgid listed the host's users. They say what the run's own files say (subuid, subgid: nothing)."""
    host_users = {line.split(":")[0] for line in Path("/etc/passwd").read_text().splitlines() if ":" in line}
    hidden = sorted(host_users - {"root", "nobody", "sandbox"})
    code = (
        "import os\n"
        "for name in ('passwd-', 'group-', 'subuid', 'subgid'):\n"
        "    path = '/etc/' + name\n"
        "    if os.path.exists(path):\n"
        "        print(name, repr(open(path).read()))\n"
    )
    result, _ = sandbox(code, tmp_path)
    assert result.exit_status == 0, result.output
    if Path("/etc/passwd-").is_file():
        assert "passwd- 'root:x:0:0:root:/root:/usr/sbin/nologin\\nsandbox:x:" in result.output, result.output
    for user in hidden:
        assert f"'{user}:" not in result.output and f"\\n{user}:" not in result.output, user


#: Code that makes the sandbox's supervisor its tracer (ptrace PTRACE_TRACEME: the parent becomes the
#: tracer), then stops (SIGSTOP) or faults (SIGSEGV): the supervisor got a stop status from wait4 and died
#: on it ("ValueError: process stopped by delivery of signal 19", its traceback with the host's paths in the
#: run's output, reported as "killed (signal 9)"); break-it pass.
TRACEME = "import ctypes, os, signal\nprint('before', flush=True)\nctypes.CDLL(None).ptrace(0, 0, 0, 0)\n"


@pytest.mark.parametrize("namespaces", MODES)
@pytest.mark.parametrize(
    ("then", "sig"),
    [("os.kill(os.getpid(), signal.SIGSTOP)\n", signal.SIGSTOP), ("ctypes.string_at(0)\n", signal.SIGSEGV)],
    ids=["SIGSTOP", "SIGSEGV"],
)
def test_code_that_makes_the_supervisor_its_tracer_is_ended_at_its_stop(
    tmp_path: Path, namespaces, then: str, sig: signal.Signals
) -> None:
    result, lines = sandbox(TRACEME + then, tmp_path, namespaces, timeout_s=10.0)
    assert result.output == "before\n", result.output  # no supervisor traceback, no host path
    assert result.exit_status is None and result.signal == sig and result.stop_signal == sig
    assert result.limits_hit == [] and not result.stopped and result.duration_s < 5  # not the timeout
    assert result.outcome() == f"stopped by signal {sig.name} (the sandbox ended it)"
    assert result.to_dict()["stop_signal"] == sig


def test_a_signal_outside_a_trace_is_named_in_the_outcome(tmp_path: Path) -> None:
    result, _ = sandbox("import ctypes\nctypes.string_at(0)\n", tmp_path)
    assert result.signal == signal.SIGSEGV and result.stop_signal is None
    assert result.outcome() == "killed by SIGSEGV (signal 11)"


@needs_ns
def test_a_run_folder_inside_a_folder_the_code_sees_is_refused(tmp_path: Path, monkeypatch) -> None:
    """Break-it round 20, R20-3: with TMPDIR inside a folder the sandbox shows read-only (/usr/local/tmp,
    /etc), every run failed at setup and was reported as "killed by SIGKILL" (exit 1, the code never ran).
    Now one UsageError (exit 2) naming TMPDIR; a base outside every exposed folder runs."""
    # the venv's own folders first (a test makes its folder there rather than in /usr when it can)
    folders = sorted(visible_paths()[0], key=lambda p: not p.startswith(sys.prefix))
    exposed = next((p for p in folders if Path(p).is_dir() and os.access(p, os.W_OK)), None)
    if exposed is None:
        pytest.skip("no folder the sandbox exposes is writable here")
    inside = Path(exposed) / f"gorilla-test-tmp-{os.getpid()}"
    inside.mkdir()
    try:
        monkeypatch.setenv("TMPDIR", str(inside))
        monkeypatch.setattr("tempfile.tempdir", None)  # gettempdir() reads TMPDIR again
        with pytest.raises(UsageError) as caught:
            SandboxRun("print('hi')\n").run()
        assert caught.value.exit_code == 2
        assert str(caught.value).startswith(f"the sandbox cannot run code from TMPDIR {inside.resolve()}")
        assert not list(inside.iterdir())  # no run folder was made
        with pytest.raises(UsageError):
            SandboxRun("print('hi')\n", base_dir=inside).run()
    finally:
        inside.rmdir()
    assert SandboxRun("print('hi')\n", base_dir=tmp_path).run().exit_status == 0
