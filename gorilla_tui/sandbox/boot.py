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
       holding only what the code needs and pivot_root(2)s into it (sandbox/rootfs.py), starts the code as an
       unprivileged uid with its limits and enforces the wall-clock limit itself, independently of the app.
"""

from __future__ import annotations

import ctypes
import json
import os
import resource
import shutil
import signal
import sys
import time

# the app starts this file with `python -I -S`, so its own folder is not on sys.path: rootfs.py and
# syscalls.py, beside it and standard library only like this file, are imported from there (the app imports
# them as package modules)
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rootfs  # noqa: E402 - after the path above
import syscalls  # noqa: E402 - after the path above

PR_SET_PDEATHSIG, PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 1, 36, 38
#: Extra seconds the sandbox's own wall-clock limit gives the app's (the app normally kills first).
GRACE_S = 1.0
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
        rootfs.build_root(cfg)
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
