"""Run a proposal's code in an isolated, limited Python process and stream its output back.

Layers (each reported in RunResult.notes and by `gorilla-tui doctor`, see isolation_layers): new PID, mount,
network, IPC and UTS namespaces via unshare(1) with a new root that holds only the system folders, the
interpreter and its site-packages, and a /proc showing only the code's own processes (sandbox/boot.py); a
size-limited tmpfs for everything writable; a per-run cgroup for the memory and process count of the whole
run (sandbox/cgroups.py), else per-process setrlimit(2); an unprivileged uid, no_new_privs, a seccomp filter
refusing new user namespaces and the kernel keyrings, and a fresh session keyring; a scrubbed environment;
a wall-clock limit enforced both here and inside the sandbox; the sandbox's supervisor dies with the app
(PR_SET_PDEATHSIG) and then cleans up.
Without namespaces nothing runs unless the caller allows it explicitly (IsolationError).
"""

from __future__ import annotations

import json
import os
import selectors
import shutil
import signal
import subprocess
import sys
import threading
import time
from dataclasses import asdict
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.sandbox import cgroups
from gorilla_tui.sandbox.isolation import (
    SANDBOX_HOSTNAME,
    SANDBOX_USER,
    isolation_layers,
    probe_isolation,
    sandbox_uid,
    scrub_env,
    visible_paths,
)
from gorilla_tui.sandbox.limits import Limits, RunResult
from gorilla_tui.sandbox.outcome import read_status, run_result
from gorilla_tui.sandbox.output import OutputBuffer, OutputCallback
from gorilla_tui.sandbox.rundir import check_run_base, clean_stale_runs, new_run_dir

#: Public names of the sandbox, importable from here (the probe and the data types live in isolation.py and
#: limits.py).
__all__ = [
    "IsolationError",
    "Limits",
    "RunResult",
    "SandboxRun",
    "clean_stale_runs",
    "isolation_layers",
    "probe_isolation",
    "run_code",
    "scrub_env",
]

_BOOT = Path(__file__).with_name("boot.py")
#: HOME and current folder of the code inside the sandbox's root; the code itself is CODE_INSIDE.
HOME_INSIDE = "/home/sandbox"
CODE_INSIDE = "/sandbox/main.py"


class IsolationError(GorillaError):
    """The machine refuses namespaces and the caller did not allow a run without them (exit 2)."""


class SandboxRun:
    """One run of `code` in the sandbox. Call run() (blocking; e.g. in a worker thread) once; call stop()
    from any thread to kill it (run() then returns with stopped=True).

    on_output(stream, line) is called from the thread inside run() for every line, until output_bytes is
    reached. keep=False removes the sandbox dir after the run. namespaces=None uses them when the machine
    allows (probe_isolation); False forces the limits-only fallback. allow_unisolated: run even without
    namespaces (network open, files writable); without it such a run raises IsolationError before
    anything starts. echo_last: print the repr of a final top-level expression that is not None, as
    Python's REPL does (boot.ECHO_LAST, in the sandboxed child only): for running a proposal, whose doc
    example is often a bare expression (`os.getcwd()`); a file of one's own runs as a script (False).
    run() must be called from a thread that lives until it returns: the sandbox's
    supervisor is told to end when that thread ends (PR_SET_PDEATHSIG is per thread, prctl(2)).

    Raises:
        IsolationError: no namespaces here (or namespaces=False) and allow_unisolated is False.
        OSError: the sandbox dir cannot be created or the interpreter cannot be started (from run()).
    """

    def __init__(
        self,
        code: str,
        *,
        limits: Limits | None = None,
        on_output: OutputCallback | None = None,
        cancel: threading.Event | None = None,
        base_dir: str | Path | None = None,
        keep: bool = False,
        namespaces: bool | None = None,
        allow_unisolated: bool = False,
        echo_last: bool = False,
    ) -> None:
        self.code, self.limits, self.on_output = code, limits or Limits(), on_output
        self.echo_last = echo_last
        self.cancel = cancel or threading.Event()
        self.base_dir, self.keep = base_dir, keep
        iso = probe_isolation()
        self.namespaced = iso.mode == "namespaces" and namespaces is not False
        if not self.namespaced and not allow_unisolated:
            why = iso.reason if iso.mode != "namespaces" else "namespaces were turned off for this run"
            raise IsolationError(
                f"refusing to run: no isolation here ({why}); --no-isolation runs it anyway, with the"
                " network open and files writable"
            )
        self._prefix = iso.prefix if self.namespaced else ()
        # why the run is not isolated, for its notes: the probe's reason names what isolation *would* use
        # when namespaces are there and only this run turned them off
        turned_off = "namespaces were turned off for this run"
        self._iso_reason = iso.reason if iso.mode != "namespaces" else turned_off
        self.proc: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        """Ask the run to end now (thread-safe; the run is killed within ~0.1 s)."""
        self.cancel.set()

    def run(self) -> RunResult:
        """Start the code, stream its output, enforce the limits; returns when nothing of it is left. Folders
        of dead runs found next to this one's are removed first (clean_stale_runs). Raises UsageError when
        the run folder's base lies inside a folder the code sees read-only (rundir.check_run_base)."""
        if self.namespaced:
            check_run_base(self.base_dir, visible_paths()[0])
        clean_stale_runs(self.base_dir)
        root, lock_fd = new_run_dir(self.base_dir)
        cgroup = cgroups.create(self.limits.memory_bytes, self.limits.processes)
        try:
            return self._run(root, lock_fd, cgroup)
        finally:
            if cgroup is not None:
                cgroup.remove()
            if self.keep:
                (root / ".kept").touch()
            else:
                shutil.rmtree(root, ignore_errors=True)
            os.close(lock_fd)

    def _run(self, root: Path, lock_fd: int, cgroup: cgroups.RunCgroup | None) -> RunResult:
        """One run in the prepared folder `root`: lay out its folders, start boot.py (outer) with the run's
        configuration, pump its output until it ends, and build the RunResult from boot.py's status report."""
        (root / "main.py").write_text(self.code, encoding="utf-8")
        uid = sandbox_uid(self.namespaced)
        home, tmpdir, cwd, code_inside = self._layout(root, uid)
        status_r, status_w = os.pipe()
        cfg = self._boot_config(root, uid, cwd, home, code_inside, status_w, lock_fd, cgroup)
        started = time.monotonic()
        try:
            self._start(root, cfg, scrub_env(os.environ, home, tmpdir), (status_w, lock_fd))
        finally:
            os.close(status_w)
        reader = OutputBuffer(self.limits.output_bytes, self.on_output)
        reason = self._pump(reader, started)
        duration = time.monotonic() - started
        return run_result(
            self.limits, self.namespaced, self._iso_reason, root=root, uid=uid, cgroup=cgroup, reader=reader,
            reason=reason, report=read_status(status_r), duration=duration,
        )  # fmt: skip

    def _layout(self, root: Path, uid: int | None) -> tuple[str, str, str, str]:
        """The folders of the run: (HOME, TMPDIR, current folder, path of the code) as the code sees them.
        With namespaces they live in the sandbox's own root (`root/fs`, a tmpfs inside); without, they are
        made under `root` (owned by `uid` when there is one)."""
        if self.namespaced:
            (root / "fs").mkdir()
            return HOME_INSIDE, "/tmp", HOME_INSIDE, CODE_INSIDE
        work, tmp, home_dir = root / "work", root / "tmp", root / "home"
        for d in (work, tmp, home_dir):
            d.mkdir()
        if uid is not None:
            for p in (root, work, tmp, home_dir, root / "main.py"):
                os.chown(p, uid, uid)
        return str(work), str(tmp), str(work), str(root / "main.py")

    def _boot_config(
        self,
        root: Path,
        uid: int | None,
        cwd: str,
        home: str,
        code_inside: str,
        status_w: int,
        lock_fd: int,
        cgroup: cgroups.RunCgroup | None,
    ) -> dict[str, Any]:
        """The JSON configuration boot.py reads (its keys are the ones boot.py's `main` takes)."""
        expose, symlinks = visible_paths()
        return {
            "parent_pid": os.getpid(),
            "root": str(root),
            "code": str(root / "main.py"),
            "code_inside": code_inside,
            "home": home,
            "cwd": cwd,
            "keep": self.keep,
            "echo_last": self.echo_last,
            "python": sys.executable,
            "boot": str(_BOOT),
            "unshare": list(self._prefix),
            "expose": expose,
            "symlinks": symlinks,
            "namespaces": self.namespaced,
            "uid": uid,
            "user": SANDBOX_USER,
            "hostname": SANDBOX_HOSTNAME,
            "uts": "--uts" in self._prefix,
            "status_fd": status_w,
            "lock_fd": lock_fd,
            "cgroup_procs": cgroup.procs_files if cgroup else [],
            "cgroup_dirs": cgroup.dirs if cgroup else [],
            "limits": asdict(self.limits),
        }

    def _start(self, root: Path, cfg: dict[str, Any], env: dict[str, str], fds: tuple[int, int]) -> None:
        """Start boot.py as the sandbox's supervisor ("outer") in its own session; `fds` (the status pipe's
        write end and the owner lock) are passed on to it."""
        cmd = [sys.executable, "-I", "-S", str(_BOOT), json.dumps(cfg), "outer"]
        self.proc = subprocess.Popen(
            cmd,
            cwd=root,
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            pass_fds=fds,
            start_new_session=True,  # one process group, and no SIGINT/SIGHUP from our terminal
        )

    def _pump(self, reader: OutputBuffer, started: float) -> str | None:
        """Read both pipes until EOF; kill on timeout, stop or flood. Returns why it was killed, or None."""
        assert self.proc is not None and self.proc.stdout and self.proc.stderr
        sel = selectors.DefaultSelector()
        sel.register(self.proc.stdout, selectors.EVENT_READ, "stdout")
        sel.register(self.proc.stderr, selectors.EVENT_READ, "stderr")
        reason: str | None = None
        deadline = started + self.limits.timeout_s
        while sel.get_map():
            if reason is None:
                if self.cancel.is_set():
                    reason = "stopped"
                elif time.monotonic() > deadline:
                    reason = "timeout"
                elif reader.total > self.limits.flood_bytes:
                    reason = "output"
                if reason is not None:
                    self._kill()
                    deadline = time.monotonic() + 2.0  # drain what is left, briefly
            elif time.monotonic() > deadline:
                break
            for key, _ in sel.select(timeout=0.05):
                data = os.read(key.fd, 65536)
                if data and not (reason and data.startswith(b"unshare: ")):  # unshare(1)'s note on a kill
                    reader.feed(key.data, data)
                elif not data:
                    sel.unregister(key.fileobj)
        sel.close()
        reader.finish()
        for pipe in (self.proc.stdout, self.proc.stderr):
            pipe.close()
        try:
            self.proc.wait(timeout=5)
        except subprocess.TimeoutExpired:
            self._kill()
            self.proc.wait()
        return reason

    def _kill(self) -> None:
        """Kill everything of the run: SIGTERM to the sandbox's supervisor (boot.py outer), which kills the
        namespace's PID 1 (the kernel then kills every process inside) or, without namespaces, every
        descendant (it is their child subreaper); SIGKILL to its process group if it is not gone in 3 s."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        _signal(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            pass
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except (ProcessLookupError, PermissionError):
            pass


def run_code(
    code: str,
    *,
    limits: Limits | None = None,
    on_output: OutputCallback | None = None,
    cancel: threading.Event | None = None,
    keep: bool = False,
    base_dir: str | Path | None = None,
    allow_unisolated: bool = False,
    echo_last: bool = False,
) -> RunResult:
    """Run `code` in the sandbox and wait for it (see SandboxRun; echo_last: REPL-like echo of a final
    expression). Setting `cancel` stops the run. Raises IsolationError without namespaces unless
    allow_unisolated."""
    run = SandboxRun(
        code,
        limits=limits,
        on_output=on_output,
        cancel=cancel,
        keep=keep,
        base_dir=base_dir,
        allow_unisolated=allow_unisolated,
        echo_last=echo_last,
    )
    return run.run()


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
