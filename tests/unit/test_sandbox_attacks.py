"""Attacks on the sandbox that once worked: each runs hostile code in the real sandbox (real unshare, real
kernel) and proves the hole is closed. The attack programs and what they achieved are in
docs/sandbox_attacks.md."""

from __future__ import annotations

import ctypes
import os
import platform
import secrets
from pathlib import Path

import pytest

from gorilla_tui.sandbox.runner import Limits, SandboxRun, probe_isolation

NAMESPACES = probe_isolation().mode == "namespaces"
needs_ns = pytest.mark.skipif(not NAMESPACES, reason="unshare --net --mount --pid not permitted here")
_libc = ctypes.CDLL(None, use_errno=True)
#: keyctl(2) has no glibc wrapper: its syscall numbers (add_key, keyctl) per machine (asm/unistd*.h).
SYS_KEYS = {"x86_64": (248, 250), "aarch64": (217, 219), "riscv64": (217, 219)}
IPC_CREAT, IPC_RMID = 0o1000, 0


def run(code: str, tmp_path: Path, namespaces: bool | None = None) -> str:
    """Run `code` in the real sandbox (a 10 s limit); returns its output (stdout and stderr)."""
    result = SandboxRun(
        code,
        limits=Limits(timeout_s=10.0),
        base_dir=tmp_path,
        namespaces=namespaces,
        allow_unisolated=namespaces is False,
    ).run()
    return result.output


def _sysv_keys() -> set[int]:
    """Keys of the SysV shared memory segments, message queues and semaphore sets the host sees."""
    keys = set()
    for kind in ("shm", "msg", "sem"):
        with open(f"/proc/sysvipc/{kind}") as f:
            keys |= {int(line.split()[0]) for line in f.readlines()[1:] if line.strip()}
    return keys


def _remove_sysv(key: int) -> None:
    """Remove the host's SysV objects with `key` (left by a sandbox that let them out)."""
    for get, ctl, args in ((_libc.shmget, _libc.shmctl, (0, 0)), (_libc.msgget, _libc.msgctl, (0,))):
        ident = get(key, *args)
        if ident >= 0:
            ctl(ident, IPC_RMID, None)
    ident = _libc.semget(key, 0, 0)
    if ident >= 0:
        _libc.semctl(ident, 0, IPC_RMID)


@needs_ns
def test_sysv_ipc_objects_neither_outlive_the_run_nor_reach_the_hosts(tmp_path: Path) -> None:
    """A run that creates a 16 MiB SysV shared memory segment, a message queue and a semaphore set leaves
    none of them on the host (before: they stayed after the run, in the host's memory, for any process to
    read), and does not see a world-readable segment of the host's."""
    key, host_key = (0x6000_0000 + secrets.randbelow(0x0FFF_FFFF) for _ in range(2))
    host_seg = _libc.shmget(host_key, 4096, IPC_CREAT | 0o666)
    assert host_seg >= 0
    code = (
        "import ctypes\nlibc = ctypes.CDLL(None)\n"
        f"print('shm', libc.shmget({key}, 16 << 20, 0o1666), 'msg', libc.msgget({key}, 0o1666),"
        f" 'sem', libc.semget({key}, 1, 0o1666))\n"
        f"print('host segment', libc.shmget({host_key}, 0, 0))\n"
    )
    try:
        out = run(code, tmp_path)
        left = key in _sysv_keys()
    finally:
        _remove_sysv(key)
        _libc.shmctl(host_seg, IPC_RMID, None)
    assert "shm 0 msg 0 sem 0" in out  # created, inside the run
    assert "host segment -1" in out, out  # the host's segment is not there
    assert not left, "a SysV IPC object of the run outlived it on the host"


@needs_ns
@pytest.mark.skipif(platform.machine() not in SYS_KEYS, reason="keyctl syscall number unknown here")
@pytest.mark.parametrize("namespaces", [pytest.param(None, id="auto"), pytest.param(False, id="no-ns")])
def test_the_apps_session_keyring_is_out_of_reach(tmp_path: Path, namespaces) -> None:
    """A secret in the app's session keyring (pam_keyinit gives every login one; keyrings(7)) cannot be read
    by the code: the run starts in a fresh, empty session keyring (before: the code possessed the app's
    keyring, inherited across fork and exec, and read the key as "possessor" whatever its uid)."""
    add_key, keyctl = SYS_KEYS[platform.machine()]
    secret = f"gorilla-secret-{secrets.token_hex(8)}".encode()
    if _libc.syscall(keyctl, 1, None) < 0:  # KEYCTL_JOIN_SESSION_KEYRING: this test's own, anonymous one
        pytest.skip(f"no kernel keyrings here: {os.strerror(ctypes.get_errno())}")
    assert _libc.syscall(add_key, b"user", b"gorilla-test", secret, len(secret), -3) > 0  # -3: @s
    code = (
        "import ctypes\nlibc = ctypes.CDLL(None)\nbuf = ctypes.create_string_buffer(4096)\n"
        f"n = libc.syscall({keyctl}, 11, -3, buf, 4096)\n"  # KEYCTL_READ of the session keyring: key ids
        "ids = [int.from_bytes(buf.raw[i:i + 4], 'little') for i in range(0, max(n, 0), 4)]\n"
        "print('keys', ids)\n"
        f"for k in ids:\n    n = libc.syscall({keyctl}, 11, k, buf, 4096)\n    print(buf.raw[:max(n, 0)])\n"
    )
    out = run(code, tmp_path, namespaces)
    assert "keys []" in out and secret.decode() not in out, out


@needs_ns
def test_the_sandboxs_own_processes_and_their_command_lines_are_hidden(tmp_path: Path) -> None:
    """The code sees only its own processes in /proc: PID 1 (the sandbox's supervisor, root) and its command
    line, which holds the host-side paths of the run, its cgroup and the app's pid, stay hidden (before:
    /proc/1/cmdline was readable)."""
    code = (
        "import os\nprint('pids', sorted(int(p) for p in os.listdir('/proc') if p.isdigit()))\n"
        "try:\n    print(open('/proc/1/cmdline', 'rb').read())\nexcept OSError as e:\n"
        "    print('cmdline', type(e).__name__)\n"
    )
    out = run(code, tmp_path)
    assert "pids [2]" in out and "cmdline FileNotFoundError" in out, out
    assert str(tmp_path) not in out and "parent_pid" not in out


@needs_ns
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="seccomp filter: x86_64, aarch64")
def test_the_code_cannot_make_a_user_namespace(tmp_path: Path) -> None:
    """unshare(CLONE_NEWUSER), by libc and by unshare(1), is refused with EPERM: a user namespace would give
    the code every capability inside it (CAP_SYS_ADMIN, CAP_NET_ADMIN: mounts, nf_tables), the kernel
    surface of most local privilege escalations (before: both succeeded). Threads and subprocesses, which
    glibc starts with clone3 and falls back to clone for (ENOSYS), still work."""
    code = (
        "import ctypes, subprocess, threading\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "r = subprocess.run(['unshare', '--user', '--map-root-user', 'id', '-u'], capture_output=True)\n"
        "print('unshare(1)', r.returncode, r.stdout, r.stderr)\n"
        "print('unshare', libc.unshare(0x10000000), ctypes.get_errno())\n"
        "t = threading.Thread(target=print, args=('thread ran',))\nt.start()\nt.join()\n"
        "print('subprocess', subprocess.run(['true']).returncode)\n"
    )
    out = run(code, tmp_path)
    assert (
        "unshare -1 1\n" in out
        and "unshare(1) 1 b'' b'unshare: unshare failed: Operation not permitted" in out
    ), out
    assert "thread ran" in out and "subprocess 0" in out


def _key_users() -> dict[int, str]:
    """/proc/key-users: uid -> its line (keys and bytes each uid holds in the kernel's key quota)."""
    with open("/proc/key-users") as f:
        return {int(line.split(":")[0]): line.strip() for line in f}


@needs_ns
@pytest.mark.skipif(platform.machine() not in SYS_KEYS, reason="keyctl syscall number unknown here")
@pytest.mark.skipif(not os.path.exists("/proc/key-users"), reason="no kernel keyrings here")
def test_keys_of_the_run_do_not_outlive_it(tmp_path: Path) -> None:
    """The kernel's keyrings are not namespaced: keys the code adds to its uid's user keyring stayed in
    the kernel after the run (up to the 20,000-byte per-uid quota, with every run a fresh uid: kernel memory
    that never came back). The run may not use the key syscalls at all (ENOSYS), as Docker's default
    seccomp profile does."""
    add_key, keyctl = SYS_KEYS[platform.machine()]
    code = (
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        f"k = libc.syscall({add_key}, b'user', b'junk', b'x' * 100, 100, -4)\n"  # -4: @u, the user keyring
        f"j = libc.syscall({keyctl}, 1, None)\n"  # KEYCTL_JOIN_SESSION_KEYRING
        "print('add_key', k, 'keyctl', j, ctypes.get_errno())\n"
    )
    result = SandboxRun(code, limits=Limits(timeout_s=10.0), base_dir=tmp_path).run()
    assert "add_key -1 keyctl -1 38" in result.output, result.output  # ENOSYS
    assert result.uid is None or result.uid not in _key_users()


@needs_ns
@pytest.mark.skipif(platform.machine() not in ("x86_64", "aarch64"), reason="seccomp filter: x86_64, aarch64")
def test_the_code_cannot_set_up_io_uring(tmp_path: Path) -> None:
    """io_uring_setup(2) fails with ENOSYS (before: it returned a ring's file descriptor, and with it the
    io_uring interface, whose operations no seccomp filter sees, a frequent way into kernel exploits)."""
    code = (
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\nparams = ctypes.create_string_buffer(120)\n"
        "print('io_uring_setup', libc.syscall(425, 4, params), ctypes.get_errno())\n"
    )
    assert "io_uring_setup -1 38\n" in run(code, tmp_path)


@needs_ns
@pytest.mark.skipif(platform.machine() != "x86_64", reason="the 32-bit int 0x80 entry is x86_64's")
def test_the_32_bit_syscall_entry_does_not_get_around_the_filter(tmp_path: Path) -> None:
    """unshare(CLONE_NEWUSER) through the 32-bit entry (int 0x80, where unshare is number 310, not 272)
    fails with ENOSYS: the filter refuses every syscall of another ABI (before the filter, it returned 0)."""
    code = (
        "import ctypes, mmap\n"
        "buf = mmap.mmap(-1, 4096, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)\n"
        # mov eax, 310; mov ebx, CLONE_NEWUSER; int 0x80; ret
        "buf.write(bytes.fromhex('b836010000bb00000010cd80c3'))\n"
        "f = ctypes.CFUNCTYPE(ctypes.c_int)(ctypes.addressof(ctypes.c_char.from_buffer(buf)))\n"
        "print('int 0x80 unshare', f())\n"
    )
    assert "int 0x80 unshare -38\n" in run(code, tmp_path)
