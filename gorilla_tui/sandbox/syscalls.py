"""The run's limits on the kernel interface, set in the code's process just before it execs the code
(sandbox/boot.py `_exec_code`): a fresh, empty session keyring, and a seccomp filter that refuses new user
namespaces, the kernel keyrings, io_uring and syscalls of another ABI.

Standard library only, like boot.py: boot.py, a script the app starts with `python -I -S`, imports this file
from its own folder; the app imports it as gorilla_tui.sandbox.syscalls (isolation.py: which machines get the
filter, for `doctor`).
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform

_libc = ctypes.CDLL(None, use_errno=True)

#: keyctl(2) has no glibc wrapper either: its syscall number per machine (asm/unistd*.h).
SYS_KEYCTL = {
    "x86_64": 250,
    "aarch64": 219,
    "riscv64": 219,
    "ppc64le": 271,
    "s390x": 280,
    "armv7l": 311,
    "i686": 288,
}
KEYCTL_JOIN_SESSION_KEYRING = 1
#: The seccomp filter's machines: AUDIT_ARCH_* (linux/audit.h) and the syscall numbers it looks at
#: (asm/unistd*.h). On other machines no filter is installed (README, sandbox section).
SECCOMP_ARCH = {
    "x86_64": (0xC000003E, {"unshare": 272, "clone": 56, "clone3": 435, "add_key": 248, "request_key": 249,
                            "keyctl": 250, "io_uring_setup": 425, "io_uring_enter": 426,
                            "io_uring_register": 427}),
    "aarch64": (0xC00000B7, {"unshare": 97, "clone": 220, "clone3": 435, "add_key": 217, "request_key": 218,
                             "keyctl": 219, "io_uring_setup": 425, "io_uring_enter": 426,
                             "io_uring_register": 427}),
}  # fmt: skip
#: Syscalls the filter refuses outright (ENOSYS); see install_seccomp.
SECCOMP_ENOSYS = ("clone3", "add_key", "request_key", "keyctl", "io_uring_setup", "io_uring_enter",
                  "io_uring_register")  # fmt: skip
CLONE_NEWUSER = 0x10000000
PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 22, 2


def new_session_keyring() -> None:
    """Join a fresh, empty anonymous session keyring (keyctl(2) KEYCTL_JOIN_SESSION_KEYRING with no name):
    the app's session keyring is inherited across fork and execve, and a process possesses every key in it
    whatever its uid (keyrings(7), "possession"), so the code could read the person's keys. A kernel
    without keyrings (ENOSYS) has nothing to inherit; where a seccomp filter refuses keyctl (EPERM, as
    Docker's default profile does) the code cannot call it either. Raises OSError on any other failure."""
    number = SYS_KEYCTL.get(platform.machine())
    if number is None:
        raise OSError(0, f"keyctl: unknown syscall number on {platform.machine()}")
    if _libc.syscall(number, KEYCTL_JOIN_SESSION_KEYRING, None) < 0:
        err = ctypes.get_errno()
        if err not in (errno.ENOSYS, errno.EPERM):
            raise OSError(err, f"keyctl join session keyring: {os.strerror(err)}")


class _SockFilter(ctypes.Structure):
    _fields_ = [
        ("code", ctypes.c_ushort),
        ("jt", ctypes.c_ubyte),
        ("jf", ctypes.c_ubyte),
        ("k", ctypes.c_uint),
    ]


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.POINTER(_SockFilter))]


def seccomp_program(audit_arch: int, nr: dict[str, int]) -> list[tuple[int, int, int, int]]:
    """The classic-BPF program of the seccomp filter (see install_seccomp) as (code, jt, jf, k) rows over
    struct seccomp_data (nr at offset 0, arch at 4, args[0] at 16: its low 32 bits on little-endian
    machines); a jump of n skips n rows."""
    ld, jeq, jge, jset, ret = 0x20, 0x15, 0x35, 0x45, 0x06  # BPF_LD|W|ABS, BPF_JMP|JEQ/JGE/JSET|K, BPF_RET|K
    allow, eperm, enosys = 0x7FFF0000, 0x00050000 | errno.EPERM, 0x00050000 | errno.ENOSYS
    rows: list[tuple] = [  # targets by name, resolved below
        ("arch", ld, 0, 0, 4),
        (None, jeq, 0, "enosys", audit_arch),  # another ABI (the 32-bit int 0x80 entry)
        (None, ld, 0, 0, 0),
        (None, jge, "enosys", 0, 0x40000000),  # x32 (__X32_SYSCALL_BIT)
        *[(None, jeq, "enosys", 0, nr[name]) for name in SECCOMP_ENOSYS],
        (None, jeq, "flags", 0, nr["unshare"]),
        (None, jeq, "flags", "allow", nr["clone"]),
        ("flags", ld, 0, 0, 16),
        (None, jset, "eperm", "allow", CLONE_NEWUSER),
        ("allow", ret, 0, 0, allow),
        ("eperm", ret, 0, 0, eperm),
        ("enosys", ret, 0, 0, enosys),
    ]
    at = {row[0]: i for i, row in enumerate(rows) if row[0]}
    return [
        (
            code,
            at[jt] - i - 1 if isinstance(jt, str) else jt,
            at[jf] - i - 1 if isinstance(jf, str) else jf,
            k,
        )
        for i, (_, code, jt, jf, k) in enumerate(rows)
    ]


def install_seccomp() -> None:
    """Install the run's seccomp filter (seccomp(2), SECCOMP_MODE_FILTER; kept across execve; needs
    PR_SET_NO_NEW_PRIVS first). It refuses:

    - new user namespaces: unshare(2) and clone(2) with CLONE_NEWUSER fail with EPERM. A user namespace
      gives the code every capability inside it (mounts, nf_tables): the kernel surface of most local
      privilege escalations; Docker's default profile and bubblewrap's --disable-userns refuse it too.
      clone3(2), whose flags sit in memory a filter cannot read, fails with ENOSYS, and glibc falls back to
      clone for threads and fork.
    - the kernel's keyrings (add_key, request_key, keyctl: ENOSYS), which are not namespaced: keys added to
      the run's uid outlived the run in kernel memory (Docker's default profile refuses them too).
    - io_uring (io_uring_setup, io_uring_enter, io_uring_register: ENOSYS), whose operations no seccomp
      filter sees and which has been the way in for many kernel exploits (Docker's default profile refuses
      it since 2023; ChromeOS and Android turn it off).
    - syscalls of another ABI (x32, the 32-bit int 0x80 entry, whose numbers differ): ENOSYS.

    Not installed on machines outside SECCOMP_ARCH. Raises OSError when the kernel refuses the filter."""
    arch = SECCOMP_ARCH.get(platform.machine())
    if arch is None:
        return
    program = seccomp_program(*arch)
    filters = (_SockFilter * len(program))(*[_SockFilter(*row) for row in program])
    prog = _SockFprog(len(program), filters)
    if _libc.prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, ctypes.byref(prog), 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"seccomp filter: {os.strerror(err)}")
