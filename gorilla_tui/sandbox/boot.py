"""Sandbox bootstrap: the supervisor of one run, then (with namespaces) PID 1 that builds the run's root.

This file is executed as a script by `python -I -S` (see sandbox/runner.py), never imported by the app, and
uses the standard library only. It runs in two stages (argv[2]):

outer  Started by the app, on the host side. Asks the kernel for SIGTERM when the app dies (prctl(2)
       PR_SET_PDEATHSIG), then forks the run: with namespaces `unshare --net --mount --pid --fork --kill-child
       ... boot.py CFG inner`, without them the code itself (as a child subreaper, PR_SET_CHILD_SUBREAPER, so
       that orphans come back to it). The forked child joins the run's cgroup first. On SIGTERM (the app
       stopping the run, or the app's death) and at the wall-clock limit it kills everything of the run;
       when the app is gone it also removes the run's folder and cgroup itself.
inner  PID 1 of the run's PID namespace (unshare --kill-child gives it SIGKILL when unshare dies; when it
       exits the kernel kills every process left in the namespace, pid_namespaces(7)). Builds a new root
       holding only what the code needs (the system's /usr, /etc and library folders, the interpreter and its
       site-packages, read-only; a minimal /dev; a fresh /proc; a size-limited tmpfs for /tmp, /var/tmp,
       /dev/shm and HOME), pivot_root(2)s into it, starts the code as an unprivileged uid with its limits and
       enforces the wall-clock limit itself, independently of the app.
"""

from __future__ import annotations

import ctypes
import json
import os
import platform
import resource
import shutil
import signal
import sys
import time

# the app starts this file with `python -I -S`, so its own folder is not on sys.path: syscalls.py, beside it
# and standard library only like this file, is imported from there (the app imports it as a package module)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import syscalls  # noqa: E402 - after the path above

MS_RDONLY, MS_NOSUID, MS_NODEV, MS_NOEXEC, MS_REMOUNT, MS_BIND, MS_REC = 1, 2, 4, 8, 32, 4096, 16384
MS_NOATIME, MS_NODIRATIME, MS_RELATIME, ST_RELATIME = 1024, 2048, 1 << 21, 4096
MNT_DETACH = 2
PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
#: pivot_root(2) has no glibc wrapper: its syscall number per machine (asm/unistd*.h).
SYS_PIVOT_ROOT = {"x86_64": 155, "aarch64": 41, "riscv64": 41, "ppc64le": 203, "s390x": 217, "armv7l": 218}
#: Extra seconds the sandbox's own wall-clock limit gives the app's (the app normally kills first).
GRACE_S = 1.0
#: Device nodes bound into the run's /dev.
DEVICES = ("null", "zero", "full", "random", "urandom", "tty")
_libc = ctypes.CDLL(None, use_errno=True)

#: The program `python -c` runs in the sandboxed child instead of the code file itself when the run echoes
#: its last expression (cfg "echo_last": a proposal, whose doc example is often a bare expression such as
#: `os.getcwd()`). It behaves like Python's REPL (code.InteractiveInterpreter, which compiles in mode
#: "single"): the file runs as __main__, then a final top-level expression statement is compiled alone in
#: mode "single", so sys.displayhook prints its repr unless it is None. Tracebacks start at the code's own
#: frames (this program's frame is left out, for any exception: a BaseException subclass, KeyboardInterrupt,
#: a MemoryError of a too deeply nested text) and an uncaught exception exits 1 (KeyboardInterrupt: killed by
#: SIGINT), as a script's does. It runs
#: only here, in the sandbox: model and doc text is never compiled in the app's process.
ECHO_LAST = """
def _run(path):
    import ast, sys, traceback, types
    sys.argv = [path]
    with open(path, encoding="utf-8") as f:
        source = f.read()
    main = types.ModuleType("__main__")
    main.__file__ = path
    sys.modules["__main__"] = main
    try:
        tree = ast.parse(source, path)
    except Exception as e:  # SyntaxError, or MemoryError / RecursionError of a too deeply nested text
        traceback.print_exception(type(e), e, None)
        sys.exit(1)
    last = tree.body.pop() if tree.body and isinstance(tree.body[-1], ast.Expr) else None
    try:
        exec(compile(tree, path, "exec"), main.__dict__)
        if last is not None:
            exec(compile(ast.Interactive([last]), path, "single"), main.__dict__)
    except SystemExit:
        raise
    except BaseException as e:
        traceback.print_exception(type(e), e, e.__traceback__.tb_next)
        if isinstance(e, KeyboardInterrupt):
            import os, signal
            sys.stderr.flush()
            signal.signal(signal.SIGINT, signal.SIG_DFL)
            os.kill(os.getpid(), signal.SIGINT)
        sys.exit(1)
_run(__import__("sys").argv[1])
"""


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


def _kill_children(me: int | None = None) -> None:
    """SIGKILL every child of this process until none is left, reaping as we go (orphans come to us as
    PID 1 or as child subreaper)."""
    me_s = str(me or os.getpid())
    for _ in range(1000):
        kids = []
        for entry in os.listdir("/proc"):
            if entry.isdigit():
                try:
                    with open(f"/proc/{entry}/stat") as f:
                        if f.read().rsplit(")", 1)[1].split()[1] == me_s:
                            kids.append(int(entry))
                except (OSError, IndexError):
                    continue
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


def _children(pid: int) -> list[int]:
    kids = []
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/stat") as f:
                    if int(f.read().rsplit(")", 1)[1].split()[1]) == pid:
                        kids.append(int(entry))
            except (OSError, IndexError, ValueError):
                continue
    return kids


def _kill_run(namespaces: bool) -> None:
    """Kill everything of the run from the outer stage. With namespaces: SIGKILL PID 1 of the namespace (a
    grandchild), then give unshare(1) up to 2 s to return: it does once PID 1 is reaped, which the kernel
    allows only after every process of the namespace has exited; then kill whatever is left."""
    if namespaces:
        kids = _children(os.getpid())
        for kid in kids:
            for grandchild in _children(kid):
                try:
                    os.kill(grandchild, signal.SIGKILL)
                except ProcessLookupError:
                    pass
        deadline = time.monotonic() + 2.0
        while kids and time.monotonic() < deadline:
            for kid in list(kids):
                try:
                    if os.waitpid(kid, os.WNOHANG)[0] == kid:
                        kids.remove(kid)
                except ChildProcessError:
                    kids.remove(kid)
            time.sleep(0.01)
    _kill_children()


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


def _exec_code(cfg: dict) -> None:
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
    syscalls.new_session_keyring()
    if cfg.get("uid") is not None:  # running as root: RLIMIT_NPROC only binds an unprivileged uid
        os.setgroups([])
        os.setgid(cfg["uid"])
        os.setuid(cfg["uid"])
    _libc.prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)  # no setuid binary can give privileges back
    syscalls.install_seccomp()
    os.chdir(cfg["cwd"])
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)
    echo = ["-c", ECHO_LAST] if cfg.get("echo_last") else []
    os.execv(cfg["python"], [cfg["python"], "-I", "-u", "-X", "utf8", *echo, cfg["code_inside"]])


def _supervise(pid: int, timeout_s: float, namespaces: bool = False) -> dict:
    """Reap every child until `pid` exits, or kill them all at `timeout_s` (SIGALRM). Returns the report
    for the app: {"exit": exit code (negative: a signal) or None at the wall-clock limit, "cpu_s",
    "timeout", "stop_signal"}.

    A child that made this process its tracer (ptrace(2) PTRACE_TRACEME makes the parent the tracer) is
    reported to wait4 as stopped at its first signal, which no untraced child ever is here (no WUNTRACED).
    This supervisor is no debugger: it SIGKILLs such a child at that stop; for `pid`, "exit" is then minus
    the signal that stopped it (SIGSTOP, or SIGSEGV for a fault) and "stop_signal" that signal (None
    otherwise). Before, the stop status reached os.waitstatus_to_exitcode, which raised ValueError: the
    supervisor died with a traceback in the run's output (break-it pass)."""
    fired = []

    def on_alarm(signum: int, frame: object) -> None:
        fired.append(signum)
        _kill_run(namespaces)

    signal.signal(signal.SIGALRM, on_alarm)
    signal.setitimer(signal.ITIMER_REAL, timeout_s)
    status, usage, stop_signal = 0, None, None
    while True:
        try:
            done, status, usage = os.wait4(-1, 0)
        except ChildProcessError:
            break
        if os.WIFSTOPPED(status):  # a tracee of ours at a stop (see above): end it, then reap it
            if done == pid and stop_signal is None:
                stop_signal = os.WSTOPSIG(status)
            try:
                os.kill(done, signal.SIGKILL)
            except ProcessLookupError:
                pass
            continue
        if done == pid:
            break
    signal.setitimer(signal.ITIMER_REAL, 0)
    if not namespaces:  # as PID 1 or subreaper: orphans of the code are ours to kill (the outer stage of a
        _kill_children()  # namespaced run has no other child than unshare, which has exited)
    if fired:
        return {"exit": None, "cpu_s": None, "timeout": True}
    if stop_signal is not None:
        code = -stop_signal
    else:
        try:
            code = os.waitstatus_to_exitcode(status)
        except ValueError:  # not an exit nor a signal: never expected, never a traceback
            code = -signal.SIGKILL
    return {
        "exit": code,
        "cpu_s": (usage.ru_utime + usage.ru_stime) if usage else None,
        "timeout": False,
        "stop_signal": stop_signal,
    }


def _join_cgroups(cfg: dict) -> None:
    for path in cfg["cgroup_procs"]:
        with open(path, "w") as f:
            f.write("0")


def _cleanup(cfg: dict) -> None:
    """Remove the run's folder (unless kept) and cgroups: done here only when the app is gone."""
    if not cfg["keep"]:
        shutil.rmtree(cfg["root"], ignore_errors=True)
    for d in cfg["cgroup_dirs"]:
        for _ in range(100):
            try:
                os.rmdir(d)
                break
            except FileNotFoundError:
                break
            except OSError:
                time.sleep(0.02)


def outer(cfg: dict) -> None:
    """Stage 1 (host side): see the module docstring."""
    _libc.prctl(PR_SET_PDEATHSIG, signal.SIGTERM, 0, 0, 0)
    os.set_inheritable(cfg["lock_fd"], False)  # held by this process (and the app) for the run's life
    if os.getppid() != cfg["parent_pid"]:  # the app died before the line above
        _cleanup(cfg)
        os._exit(1)
    if not cfg["namespaces"]:
        _libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)
    pid = os.fork()
    if pid == 0:
        try:
            _join_cgroups(cfg)
            if cfg["namespaces"]:
                _libc.prctl(PR_SET_PDEATHSIG, signal.SIGKILL, 0, 0, 0)  # this stage gone: the run goes
                argv = [*cfg["unshare"], cfg["python"], "-I", "-S", cfg["boot"], sys.argv[1], "inner"]
                os.execv(argv[0], argv)
            os.close(cfg["status_fd"])
            _exec_code(cfg)
        except BaseException as e:  # noqa: BLE001 - report any setup failure on stderr, never run unlimited
            os.write(2, f"gorilla-tui sandbox: could not start the code: {e}\n".encode())
        os._exit(126)

    def terminate(signum: int, frame: object) -> None:
        _kill_run(cfg["namespaces"])
        if os.getppid() != cfg["parent_pid"]:  # the app is gone: nobody else will clean up
            _cleanup(cfg)
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, terminate)
    if cfg["namespaces"]:  # PID 1 inside enforces the limit; this is the last resort if it cannot
        report = _supervise(pid, cfg["limits"]["timeout_s"] + 2 * GRACE_S, namespaces=True)
        if report["timeout"]:
            os.write(cfg["status_fd"], json.dumps(report).encode())
    else:
        report = _supervise(pid, cfg["limits"]["timeout_s"] + GRACE_S)
        os.write(cfg["status_fd"], json.dumps(report).encode())
    if os.getppid() != cfg["parent_pid"]:
        _cleanup(cfg)
    os._exit(0)


def inner(cfg: dict) -> None:
    """Stage 2 (PID 1 of the run's namespaces): see the module docstring."""
    try:
        build_root(cfg)
    except OSError as e:
        os.write(2, f"gorilla-tui sandbox: setup failed: {e}\n".encode())
        os._exit(125)
    pid = os.fork()
    if pid == 0:
        try:
            os.close(cfg["status_fd"])
            _exec_code(cfg)
        except BaseException as e:  # noqa: BLE001 - report any setup failure on stderr, never run unlimited
            os.write(2, f"gorilla-tui sandbox: could not start the code: {e}\n".encode())
        os._exit(126)

    def terminate(signum: int, frame: object) -> None:
        _kill_children()
        os._exit(128 + signum)

    for sig in (signal.SIGTERM, signal.SIGINT, signal.SIGHUP):
        signal.signal(sig, terminate)
    report = _supervise(pid, cfg["limits"]["timeout_s"] + GRACE_S)
    os.write(cfg["status_fd"], json.dumps(report).encode())
    os._exit(0)


def main() -> None:
    cfg = json.loads(sys.argv[1])
    os.set_inheritable(cfg["status_fd"], cfg["namespaces"] and sys.argv[2] == "outer")
    (outer if sys.argv[2] == "outer" else inner)(cfg)


if __name__ == "__main__":
    main()
