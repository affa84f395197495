"""The run's root, built by PID 1 of the sandbox's namespaces (sandbox/boot.py `inner`) before it starts
the code: a tmpfs holding only what the code needs (the system's /usr, /etc and library folders, the
interpreter and its site-packages, read-only; a minimal /dev with a private devpts; a fresh /proc showing
only the code's own processes; a size-limited tmpfs for /tmp, /var/tmp, /dev/shm and HOME; the run's own
/etc/passwd, group, hostname and hosts), then pivot_root(2) into it, made read-only.

Standard library only, like boot.py: boot.py, a script the app starts with `python -I -S`, imports this file
from its own folder, before the root changes; the app never runs it (it may import it as
gorilla_tui.sandbox.rootfs).
"""

from __future__ import annotations

import ctypes
import os
import platform

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, ST_RELATIME = 1024, 2048, 1 << 21, 4096
MNT_DETACH = 2
#: pivot_root(2) has no glibc wrapper: its syscall number per machine (asm/unistd*.h).
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217, "armv7l": 218}
#: Device nodes bound into the run's /dev.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_libc = ctypes.CDLL(None, use_errno=True)


def _check(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _mount(src: str | None, target: str, fstype: str | None, flags: int, data: str | None = None) -> None:
    enc = [x.encode() if x is not None else None for x in (src, target, fstype, data)]
    _check(_libc.mount(enc[0], enc[1], enc[2], ctypes.c_ulong(flags), enc[3]), f"mount {src} -> {target}")


def _bind(src: str, target: str, readonly: bool) -> None:
    """Bind `src` (a folder or a file) onto `target`, creating the mount point when it is missing (an
    existing one may sit in a read-only mount: /etc/passwd); read-only when asked."""
    if os.path.isdir(src):
        os.makedirs(target, exist_ok=True)
    elif not os.path.isfile(target):
        os.makedirs(os.path.dirname(target), exist_ok=True)
        open(target, "a").close()
    _mount(src, target, None, MS_BIND | MS_REC)
    if readonly:
        # keep the flags the source already has: in a user namespace they are locked, and a remount that
        # would drop one fails (mount(2), EPERM); statvfs ST_* bits equal MS_* ones except ST_RELATIME
        have = os.statvfs(target).f_flag
        keep = have & (MS_NOEXEC | MS_NOATIME | MS_NODIRATIME) | (MS_RELATIME if have & ST_RELATIME else 0)
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV | keep)


def _mount_devpts(dev: str) -> None:
    """A private devpts instance (devpts(5) "newinstance": its terminals are the run's own, none of the
    host's) at dev/pts, with dev/ptmx -> pts/ptmx, so pty.openpty() works ("OSError: out of pty devices"
    without it: expect-style programs and tests that spawn a shell on a pty). Where the kernel refuses the
    mount, the run goes on without pseudo-terminals, as before."""
    os.makedirs(dev + "/pts", exist_ok=True)
    try:
        _mount("devpts", dev + "/pts", "devpts", MS_NOSUID | MS_NOEXEC, "newinstance,ptmxmode=0666,mode=0620")
    except OSError:
        return
    os.symlink("pts/ptmx", dev + "/ptmx")


def build_root(cfg: dict) -> None:
    """Make a tmpfs the new root holding only what the code needs (see the module docstring), pivot_root(2)
    into it and make it read-only. Needs CAP_SYS_ADMIN in a private mount namespace. Raises OSError."""
    new = os.path.join(cfg["root"], "fs")
    with open(cfg["code"], "rb") as f:
        code = f.read()
    _mount("tmpfs", new, "tmpfs", MS_NOSUID | MS_NODEV, f"size={len(code) + 1024 * 1024},mode=755")
    for name, target in cfg["symlinks"]:  # /bin -> usr/bin on merged-/usr systems
        os.makedirs(os.path.dirname(new + name), exist_ok=True)
        os.symlink(target, new + name)
    # one size-limited tmpfs holds everything the code may write: /tmp, /var/tmp, /dev/shm and HOME
    scratch = os.path.join(new, ".scratch")
    os.mkdir(scratch)
    limit = cfg["limits"]["disk_bytes"]
    _mount("tmpfs", scratch, "tmpfs", MS_NOSUID | MS_NODEV, f"size={limit},mode=755")
    uid = cfg["uid"] if cfg["uid"] is not None else 0
    for sub, mode in (("tmp", 0o1777), ("shm", 0o1777), ("home", 0o700)):
        os.mkdir(os.path.join(scratch, sub))
        os.chmod(os.path.join(scratch, sub), mode)
        os.chown(os.path.join(scratch, sub), uid, uid)
    os.makedirs(new + "/dev", exist_ok=True)
    _mount("tmpfs", new + "/dev", "tmpfs", MS_NOSUID, "size=64k,mode=755")
    for dev in DEVICES:
        if os.path.exists("/dev/" + dev):
            _bind("/dev/" + dev, f"{new}/dev/{dev}", readonly=False)
    _mount_devpts(new + "/dev")
    for name, target in (("fd", "/proc/self/fd"), ("stdin", "/proc/self/fd/0"), ("stdout", "/proc/self/fd/1"),
                         ("stderr", "/proc/self/fd/2")):  # fmt: skip
        os.symlink(target, f"{new}/dev/{name}")
    for sub, target in (("tmp", "/tmp"), ("tmp", "/var/tmp"), ("shm", "/dev/shm"), ("home", cfg["home"])):
        _bind(os.path.join(scratch, sub), new + target, readonly=False)
    # the environment's folders after the scratch ones: a venv under /tmp (a fresh clone's .venv in
    # /tmp/clone) bound first was hidden by the tmpfs /tmp, and the interpreter could not be started
    for path in cfg["expose"]:
        if os.path.exists(path):
            _bind(path, new + path, readonly=True)
    _identity_files(cfg, scratch, new, uid)
    _check(_libc.umount2(scratch.encode(), MNT_DETACH), "umount scratch")
    os.rmdir(scratch)
    os.makedirs(new + "/proc")
    # hidepid=2 (proc(5)): the code sees only its own processes, not PID 1 (root) whose command line holds
    # the host-side paths of the run, its cgroups and the app's pid
    _mount("proc", new + "/proc", "proc", MS_NOSUID | MS_NODEV | MS_NOEXEC, "hidepid=2")
    os.makedirs(new + os.path.dirname(cfg["code_inside"]), exist_ok=True)
    with open(new + cfg["code_inside"], "wb") as f:
        f.write(code)
    os.chdir(new)
    number = SYS_PIVOT_ROOT.get(platform.machine())
    if number is not None:
        _check(_libc.syscall(number, b".", b"."), "pivot_root")
        _check(_libc.umount2(b".", MNT_DETACH), "umount the old root")
    else:  # unknown machine: move the mount over / and chroot (weaker: a privileged process could leave)
        _mount(".", "/", None, 8192)  # MS_MOVE
        os.chroot(".")
    os.chdir("/")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID | MS_NODEV)


def _identity_files(cfg: dict, scratch: str, new: str, uid: int) -> None:
    """Show the run its own /etc/passwd, /etc/group (and their backups passwd-, group-; empty subuid,
    subgid), /etc/hostname and /etc/hosts (read-only files bound over the host's in the new root), and set
    the UTS namespace's host name: the run's fresh uid has a passwd entry (pwd.getpwuid(os.getuid())
    failed with "uid not found", and programs that look up their user stopped), the host's user list is
    not shown, and neither is the host's name (socket.gethostname() and /etc/hostname gave it). Files the
    host lacks are left out. The host name is set only in a UTS namespace of the run's own (cfg "uts":
    unshare --uts): as root outside one, sethostname(2) would rename the machine itself."""
    user, host, home = cfg.get("user", "sandbox"), cfg.get("hostname", "sandbox"), cfg["home"]
    root = "root:x:0:0:root:/root:/usr/sbin/nologin\n" if uid != 0 else f"root:x:0:0:{user}:{home}:/bin/sh\n"
    mine = f"{user}:x:{uid}:{uid}:{user}:{home}:/bin/sh\n" if uid != 0 else ""
    nobody = "nobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n"
    files = {
        "passwd": root + mine + nobody,
        "group": "root:x:0:\n" + (f"{user}:x:{uid}:\n" if uid != 0 else "") + "nogroup:x:65534:\n",
        "hostname": host + "\n",
        "hosts": f"127.0.0.1\tlocalhost\n127.0.1.1\t{host}\n::1\tlocalhost ip6-localhost ip6-loopback\n",
    }
    # the copies shadow-utils keeps (passwd-, group-) and the subordinate id files list the host's users
    # too (break-it pass 11: /etc/passwd- showed them all): the same as the run's own, and nothing
    files.update({"passwd-": files["passwd"], "group-": files["group"], "subuid": "", "subgid": ""})
    if not cfg.get("uts"):  # the run shares the machine's host name: its files say the same
        del files["hostname"], files["hosts"]
    for name, text in files.items():
        target = f"{new}/etc/{name}"
        if not os.path.isfile(target):
            continue
        path = os.path.join(scratch, "etc-" + name)
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
        os.chmod(path, 0o644)
        _bind(path, target, readonly=True)
    if cfg.get("namespaces") and cfg.get("uts"):
        raw = host.encode()
        _libc.sethostname(raw, len(raw))
