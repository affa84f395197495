"""Sandbox bootstrap: inside the new namespaces, set mounts and limits, then exec the code (stdlib only)."""

# This file is executed as a script by `python -I` (see sandbox/runner.py), never imported by the app.
# When namespaces are available it is PID 1 of a fresh PID namespace: when it exits, the kernel kills every
# process left in the namespace (pid_namespaces(7)), which is what contains daemons (double fork + setsid).
# Without namespaces it makes itself a child subreaper (prctl(2) PR_SET_CHILD_SUBREAPER) so that orphaned
# descendants are re-parented to it, and it kills them all before it exits.

from __future__ import annotations

import ctypes
import json
import os
import resource
import signal
import sys

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38
_libc = ctypes.CDLL(None, use_errno=True)


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [x.encode() if x is not None else None for x in (src, target, fstype, data)]
    if _libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {src} -> {target}: {os.strerror(err)}")


def _bind(fd: int, target: str, readonly: bool) -> None:
    """Bind the directory open as `fd` onto `target` (creating a stub mount point when it is missing)."""
    os.makedirs(target, exist_ok=True)
    _mount(f"/proc/self/fd/{fd}", target, None, MS_BIND | MS_REC)
    if readonly:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _readonly_rest(writable: list[str]) -> None:
    """Best effort: remount every other mount read-only (a write outside the sandbox dir then fails)."""
    keep = {"/proc", "/dev", "/sys", *writable}
    try:
        lines = open("/proc/self/mountinfo").read().splitlines()
    except OSError:
        return
    for line in lines:
        fields = line.split()
        mountpoint, opts = fields[4].replace("\\040", " "), fields[5].split(",")
        if any(mountpoint == k or mountpoint.startswith(k.rstrip("/") + "/") for k in keep):
            continue
        flags = MS_REMOUNT | MS_BIND | MS_RDONLY
        flags |= (MS_NOSUID if "nosuid" in opts else 0) | (MS_NODEV if "nodev" in opts else 0)
        flags |= MS_NOEXEC if "noexec" in opts else 0
        try:
            _mount(None, mountpoint, None, flags)
        except OSError:
            pass  # locked or gone: the uid drop / hidden /tmp and HOME still hold


def setup_mounts(cfg: dict) -> None:
    """Hide /tmp, /var/tmp, /dev/shm and the real HOME behind folders of the sandbox dir; keep the sandbox
    dir and the interpreter visible at their own paths. All sources are opened before the first mount, so
    the order of the mounts does not matter (a source hidden by an earlier mount is still reachable)."""
    root = cfg["root"]
    fds = {name: os.open(os.path.join(root, name), os.O_PATH | os.O_DIRECTORY) for name in ("tmp", "home")}
    root_fd = os.open(root, os.O_PATH | os.O_DIRECTORY)
    expose = []
    for path in cfg["expose_ro"]:
        try:
            expose.append((path, os.open(path, os.O_PATH | os.O_DIRECTORY)))
        except OSError:
            pass
    for target in ("/tmp", "/var/tmp"):
        if os.path.isdir(target):
            _bind(fds["tmp"], target, readonly=False)
    if os.path.isdir("/dev/shm"):
        _mount("tmpfs", "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=16m")
    if cfg.get("home") and os.path.isdir(cfg["home"]):
        _bind(fds["home"], cfg["home"], readonly=False)
    for path, fd in expose:  # the interpreter and its site-packages, where they were hidden
        if not _same(path, fd):
            _bind(fd, path, readonly=True)
    if not _same(root, root_fd):
        _bind(root_fd, root, readonly=False)
    _readonly_rest([root, "/tmp", "/var/tmp", "/dev/shm", cfg.get("home") or root])


def _same(path: str, fd: int) -> bool:
    try:
        a, b = os.stat(path), os.fstat(fd)
    except OSError:
        return False
    return (a.st_dev, a.st_ino) == (b.st_dev, b.st_ino)


def _child(cfg: dict) -> None:
    """In the forked child: limits, privileges, then exec the code. Never returns."""
    lim = cfg["limits"]
    for res, value in (
        (resource.RLIMIT_CPU, lim["cpu_s"]),
        (resource.RLIMIT_AS, lim["memory_bytes"]),
        (resource.RLIMIT_FSIZE, lim["file_bytes"]),
        (resource.RLIMIT_NPROC, lim["processes"]),
        (resource.RLIMIT_NOFILE, lim["open_files"]),
        (resource.RLIMIT_CORE, 0),
    ):
        hard = value + 1 if res == resource.RLIMIT_CPU else value  # CPU: SIGXCPU at soft, SIGKILL at hard
        resource.setrlimit(res, (value, hard))
    if cfg.get("uid") is not None:  # running as root: RLIMIT_NPROC only binds an unprivileged uid
        os.setgroups([])
        os.setgid(cfg["gid"])
        os.setuid(cfg["uid"])
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no setuid binary can give privileges back
    os.chdir(cfg["work"])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    os.execv(cfg["python"], [cfg["python"], "-I", "-u", "-X", "utf8", cfg["code"]])


def _kill_all_children() -> None:
    """SIGKILL every child (orphans come to us as subreaper) until none is left, reaping as we go."""
    me = str(os.getpid())
    for _ in range(1000):
        kids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    stat = open(f"/proc/{entry}/stat").read()
                except OSError:
                    continue
                if stat.rsplit(")", 1)[1].split()[1] == me:
                    kids.append(int(entry))
        if not kids:
            return
        for pid in kids:
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for pid in kids:
            try:
                os.waitpid(pid, 0)
            except ChildProcessError:
                pass


def main() -> None:
    cfg = json.loads(sys.argv[1])
    status_fd = cfg["status_fd"]
    os.set_inheritable(status_fd, False)
    try:
        if cfg["namespaces"]:
            setup_mounts(cfg)
        else:
            _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    except OSError as e:
        os.write(2, f"gorilla-tui sandbox: setup failed: {e}\n".encode())
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        try:
            _child(cfg)
        except BaseException as e:  # noqa: BLE001 - report any setup failure on stderr, never run unlimited
            os.write(2, f"gorilla-tui sandbox: could not start the code: {e}\n".encode())
        os._exit(126)

    def _terminate(signum: int, frame: object) -> None:
        _kill_all_children()
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, _terminate)
    while True:  # act as init: reap everything, stop when the code's own process has exited
        try:
            done, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            status, usage = 0, None
            break
        if done == pid:
            break
    report = {
        "exit": os.waitstatus_to_exitcode(status),
        "cpu_s": (usage.ru_utime + usage.ru_stime) if usage else None,
        "maxrss_kb": usage.ru_maxrss if usage else None,
    }
    _kill_all_children()
    os.write(status_fd, json.dumps(report).encode())
    os._exit(0)


if __name__ == "__main__":
    main()
