"""Run a proposal's code in an isolated, limited Python process and stream its output back.

Layers (each reported in RunResult.notes and by `gorilla-tui doctor`, see isolation_layers): new PID, mount
and network namespaces via unshare(1) with a new root that holds only the system folders, the interpreter
and its site-packages (sandbox/boot.py); a size-limited tmpfs for everything writable; a per-run cgroup
for the memory and process count of the whole run (sandbox/cgroups.py), else per-process setrlimit(2); an
unprivileged uid and no_new_privs; a scrubbed environment; a wall-clock limit enforced both here and
inside the sandbox; the sandbox's supervisor dies with the app (PR_SET_PDEATHSIG) and then cleans up.
Without namespaces nothing runs unless the caller allows it explicitly (IsolationError).
"""

from __future__ import annotations

import fcntl
import functools
import json
import os
import random
import re
import selectors
import shutil
import signal
import site
import subprocess
import sys
import sysconfig
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.sandbox import cgroups
from gorilla_tui.sandbox.output import OutputBuffer, OutputCallback
from gorilla_tui.sandbox.output import limits_hit as _limits_hit

_BOOT = Path(__file__).with_name("boot.py")
#: Prefix of every run's folder (under tempfile.gettempdir() unless base_dir is given).
RUN_PREFIX = "gorilla-run-"
#: System folders shown read-only inside the sandbox (symlinks, as on merged-/usr systems, are copied).
SYSTEM_DIRS = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/etc")
#: HOME and current folder of the code inside the sandbox's root; the code itself is CODE_INSIDE.
HOME_INSIDE = "/home/sandbox"
CODE_INSIDE = "/sandbox/main.py"
#: A run folder without an owner lock (made by an older version) is removed once older than this.
UNOWNED_STALE_S = 3700.0
#: Environment variables passed through (names or prefixes ending in "_"); everything else is dropped.
ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "COLUMNS", "LINES", "NO_COLOR", "LC_")
#: Names that look like secrets are dropped even when allowed above (tokens, keys, passwords, cloud creds).
SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|"
    r"^(AWS|AZURE|GOOGLE|GCP|GCLOUD|HF|HUGGING|OPENAI|ANTHROPIC|GITHUB|GH|GITLAB|NPM|PYPI|TWINE|DOCKER|SSH|GPG)_",
    re.IGNORECASE,
)


class IsolationError(GorillaError):
    """The machine refuses namespaces and the caller did not allow a run without them (exit 2)."""


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (setrlimit(2) and cgroup names in brackets).

    timeout_s: wall-clock seconds, then the whole run is killed (by the app, and boot.GRACE_S later by the
    sandbox itself); cpu_s: CPU seconds per process [RLIMIT_CPU]; memory_bytes: memory of the whole run
    [cgroup memory.max / memory.limit_in_bytes] and address space per process [RLIMIT_AS]; processes:
    processes + threads of the whole run [cgroup pids.max; RLIMIT_NPROC of the run's own uid];
    file_bytes: largest file written [RLIMIT_FSIZE]; disk_bytes: size of the tmpfs holding /tmp, /var/tmp,
    /dev/shm and HOME (with namespaces only); open_files [RLIMIT_NOFILE]; output_bytes: output kept (the
    rest is counted and dropped); flood_bytes: total output after which the run is stopped (limit "output").
    """

    timeout_s: float = 30.0
    cpu_s: int = 30
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256
    output_bytes: int = 1_000_000
    flood_bytes: int = 32_000_000
    disk_bytes: int = 256 * 1024**2


@dataclass
class RunResult:
    """The outcome of one run.

    exit_status: the code's exit status (None when it was killed by a signal); signal: that signal number;
    duration_s: wall-clock seconds; output: stdout and stderr interleaved, at most Limits.output_bytes
    (truncated: more was produced, dropped_bytes of it dropped); limits_hit: any of "timeout", "cpu",
    "memory", "processes", "file_size", "disk", "output"; stopped: the person pressed Stop (or Ctrl+C);
    network: "isolated" (empty network namespace) or "open"; files: "contained" (the code sees only the
    system folders and its environment, and writes only to its own size-limited tmpfs) or "open";
    limits_scope: "run (cgroup v2)", "run (cgroup v1)" or "per process (setrlimit)": what memory_bytes and
    processes bound; workdir: the run's folder on the host; uid: the unprivileged uid the code ran as (None:
    ours); notes: plain statements about what was and was not isolated.
    """

    exit_status: int | None
    signal: int | None
    duration_s: float
    output: str
    truncated: bool
    limits_hit: list[str]
    network: str
    files: str
    workdir: Path
    dropped_bytes: int = 0
    stopped: bool = False
    cpu_s: float | None = None
    notes: list[str] = field(default_factory=list)
    limits_scope: str = "per process (setrlimit)"
    uid: int | None = None

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.limits_hit and not self.stopped

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["workdir"] = str(self.workdir)
        return d


@dataclass(frozen=True)
class Isolation:
    """What this machine allows: mode "namespaces" (new PID, mount and network namespaces via unshare(1),
    as root or through a user namespace) or "none"; prefix: the unshare command to put first; reason: one
    line saying what is there, or what is missing."""

    mode: str
    prefix: tuple[str, ...]
    reason: str


@functools.lru_cache(maxsize=1)
def probe_isolation() -> Isolation:
    """Check once per process whether `unshare --net --mount --pid` works here (costs ~30 ms)."""
    if not sys.platform.startswith("linux"):
        return Isolation("none", (), f"namespaces are Linux-only (this is {sys.platform})")
    unshare = shutil.which("unshare")
    if not unshare:
        return Isolation("none", (), "unshare(1) (util-linux) is not on PATH")
    flags = ["--net", "--mount", "--pid", "--fork", "--kill-child", "--mount-proc"]
    if os.geteuid() != 0:
        flags = ["--user", "--map-root-user", *flags]
    prefix = (unshare, *flags, "--")
    try:
        r = subprocess.run(
            [*prefix, sys.executable, "-I", "-S", "-c", "pass"], capture_output=True, timeout=10
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return Isolation("none", (), f"unshare failed: {e}")
    if r.returncode != 0:
        why = r.stderr.decode(errors="replace").strip().splitlines()[-1:] or ["unknown error"]
        return Isolation("none", (), f"namespaces not permitted here: {why[0]}")
    return Isolation("namespaces", prefix, "new PID, mount and network namespaces")


def isolation_layers() -> dict[str, str]:
    """The isolation layers this machine allows, one line each (for `doctor`): namespaces, root (what the
    code sees), cgroups, tmpfs (size of the writable space), no_new_privs, uid, parent_death."""
    iso, cg = probe_isolation(), cgroups.probe_cgroups()
    ns = iso.mode == "namespaces"
    limits = Limits()
    nnp = _libc_prctl(39) >= 0  # PR_GET_NO_NEW_PRIVS: -1 when the kernel does not know it (< 3.5)
    return {
        "namespaces": f"yes: {iso.reason}"
        if ns
        else f"NO: {iso.reason} (runs are refused without --no-isolation)",
        "root": "only system folders, the interpreter and its site-packages (pivot_root)"
        if ns
        else "NOT contained: the code sees and may write every file your user can",
        "cgroups": f"yes: {cg.reason}: memory and processes of the whole run"
        if cg.kind != "none"
        else f"no ({cg.reason}): per-process setrlimit(2) limits only",
        "tmpfs": f"yes: /tmp, /var/tmp, /dev/shm and HOME in one {limits.disk_bytes // 1024**2} MiB tmpfs"
        if ns
        else "no: needs a mount namespace",
        "no_new_privs": "yes" if nnp else "no",
        "uid": "a fresh unprivileged uid per run"
        if os.geteuid() == 0
        else f"your uid {os.geteuid()}" + (" (root inside a user namespace)" if ns else ""),
        "parent_death": "yes: the sandbox dies with the app (PR_SET_PDEATHSIG)"
        if sys.platform.startswith("linux")
        else "no",
    }


def _libc_prctl(option: int) -> int:
    import ctypes  # deferred on purpose: only `doctor` asks

    return ctypes.CDLL(None, use_errno=True).prctl(option, 0, 0, 0, 0)


def scrub_env(environ: Mapping[str, str], home: str, tmpdir: str) -> dict[str, str]:
    """The child's environment: only ENV_ALLOW names, minus anything matching SECRET_NAME; HOME and TMPDIR
    set to the sandbox's folders."""
    env = {
        k: v
        for k, v in environ.items()
        if (k in ENV_ALLOW or any(k.startswith(p) for p in ENV_ALLOW if p.endswith("_")))
        and not SECRET_NAME.search(k)
    }
    env.setdefault("PATH", "/usr/local/bin:/usr/bin:/bin")
    env.update(HOME=home, TMPDIR=tmpdir, GORILLA_TUI_SANDBOX="1")
    return env


def clean_stale_runs(base_dir: str | Path | None = None) -> list[Path]:
    """Remove the folders of dead runs under `base_dir` (default: tempfile.gettempdir()); returns them.

    A run's folder holds `.owner`, flock(2)-ed by the app and the sandbox's supervisor for the run's life;
    a folder whose `.owner` can be locked has no live run. Kept folders (`.kept`, from keep=True) stay; a
    folder without `.owner` (an older version's) is removed once older than UNOWNED_STALE_S."""
    base = Path(base_dir or tempfile.gettempdir())
    removed: list[Path] = []
    try:
        entries = [p for p in base.iterdir() if p.name.startswith(RUN_PREFIX)]
    except OSError:
        return removed
    for folder in entries:
        try:
            if (folder / ".kept").exists() or not folder.is_dir() or folder.is_symlink():
                continue
            owner = folder / ".owner"
            if owner.exists():
                fd = os.open(owner, os.O_RDONLY)
                try:
                    fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
                except BlockingIOError:
                    continue
                finally:
                    os.close(fd)
            elif time.time() - folder.stat().st_mtime < UNOWNED_STALE_S:
                continue
        except OSError:
            continue
        shutil.rmtree(folder, ignore_errors=True)
        removed.append(folder)
    return removed


class SandboxRun:
    """One run of `code` in the sandbox. Call run() (blocking; e.g. in a worker thread) once; call stop()
    from any thread to kill it (run() then returns with stopped=True).

    on_output(stream, line) is called from the thread inside run() for every line, until output_bytes is
    reached. keep=False removes the sandbox dir after the run. namespaces=None uses them when the machine
    allows (probe_isolation); False forces the limits-only fallback. allow_unisolated: run even without
    namespaces (network open, files writable); without it such a run raises IsolationError before
    anything starts. run() must be called from a thread that lives until it returns: the sandbox's
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
    ) -> None:
        self.code, self.limits, self.on_output = code, limits or Limits(), on_output
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
        self._iso_reason = iso.reason
        self.proc: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        """Ask the run to end now (thread-safe; the run is killed within ~0.1 s)."""
        self.cancel.set()

    def run(self) -> RunResult:
        """Start the code, stream its output, enforce the limits; returns when nothing of it is left. Folders
        of dead runs found next to this one's are removed first (clean_stale_runs)."""
        clean_stale_runs(self.base_dir)
        root = Path(tempfile.mkdtemp(prefix=RUN_PREFIX, dir=self.base_dir)).resolve()
        # the owner lock is taken before `.owner` appears under its name, so a cleaner never sees it free
        lock_fd = os.open(root / ".owner.new", os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
        fcntl.flock(lock_fd, fcntl.LOCK_EX)
        os.write(lock_fd, f"{os.getpid()}\n".encode())
        os.rename(root / ".owner.new", root / ".owner")
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
        (root / "main.py").write_text(self.code, encoding="utf-8")
        uid = _sandbox_uid(self.namespaced)
        if self.namespaced:
            (root / "fs").mkdir()
            home, tmpdir, cwd, code_inside = HOME_INSIDE, "/tmp", HOME_INSIDE, CODE_INSIDE
        else:
            work, tmp, home_dir = root / "work", root / "tmp", root / "home"
            for d in (work, tmp, home_dir):
                d.mkdir()
            if uid is not None:
                for p in (root, work, tmp, home_dir, root / "main.py"):
                    os.chown(p, uid, uid)
            home, tmpdir, cwd, code_inside = str(work), str(tmp), str(work), str(root / "main.py")
        expose, symlinks = _visible_paths()
        status_r, status_w = os.pipe()
        cfg = {
            "parent_pid": os.getpid(),
            "root": str(root),
            "code": str(root / "main.py"),
            "code_inside": code_inside,
            "home": home,
            "cwd": cwd,
            "keep": self.keep,
            "python": sys.executable,
            "boot": str(_BOOT),
            "unshare": list(self._prefix),
            "expose": expose,
            "symlinks": symlinks,
            "namespaces": self.namespaced,
            "uid": uid,
            "status_fd": status_w,
            "lock_fd": lock_fd,
            "cgroup_procs": cgroup.procs_files if cgroup else [],
            "cgroup_dirs": cgroup.dirs if cgroup else [],
            "limits": asdict(self.limits),
        }
        env = scrub_env(os.environ, home, tmpdir)
        cmd = [sys.executable, "-I", "-S", str(_BOOT), json.dumps(cfg), "outer"]
        started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                cmd,
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(status_w, lock_fd),
                start_new_session=True,  # one process group, and no SIGINT/SIGHUP from our terminal
            )
        finally:
            os.close(status_w)
        reader = OutputBuffer(self.limits.output_bytes, self.on_output)
        reason = self._pump(reader, started)
        duration = time.monotonic() - started
        with os.fdopen(status_r, "rb") as f:
            raw = f.read().decode(errors="replace")
        report: dict[str, Any] = {}
        if raw.strip():
            try:
                report = json.JSONDecoder().raw_decode(raw.strip())[0]
            except ValueError:
                report = {}
        exit_code = report.get("exit")
        if exit_code is None:  # killed (by us or by the sandbox's own wall-clock limit) before it exited
            exit_status, sig = None, signal.SIGKILL.value
        else:
            exit_status, sig = (exit_code, None) if exit_code >= 0 else (None, -exit_code)
        if report.get("timeout") and reason is None:
            reason = "timeout"
        output = reader.text()
        limits_hit = _limits_hit(reason, sig, report.get("cpu_s"), output, self.limits.cpu_s)
        events = cgroup.events() if cgroup else {}
        for key, name in (("oom_kill", "memory"), ("pids_max", "processes")):
            if events.get(key) and name not in limits_hit:
                limits_hit.append(name)
        scope = f"run (cgroup {cgroup.kind})" if cgroup else "per process (setrlimit)"
        notes = self._notes(uid, scope)
        if reader.dropped:
            reader.emit("sandbox", f"[output truncated: {reader.dropped} more bytes dropped]")
        return RunResult(
            exit_status=exit_status,
            signal=sig,
            duration_s=round(duration, 3),
            output=output,
            truncated=reader.dropped > 0,
            limits_hit=limits_hit,
            network="isolated" if self.namespaced else "open",
            files="contained" if self.namespaced else "open",
            workdir=root,
            dropped_bytes=reader.dropped,
            stopped=reason == "stopped",
            cpu_s=report.get("cpu_s"),
            notes=notes,
            limits_scope=scope,
            uid=uid,
        )

    def _notes(self, uid: int | None, scope: str) -> list[str]:
        lim = self.limits
        mib = 1024**2
        if self.namespaced:
            notes = [
                "network: isolated (empty network namespace)",
                "files: only system folders, the interpreter and its site-packages are visible (read-only);"
                f" /tmp and HOME are a private {lim.disk_bytes // mib} MiB tmpfs",
            ]
        else:
            notes = [
                f"network: OPEN: {self._iso_reason}",
                "files: NOT contained: the code may read and write any file your user can",
            ]
        if scope.startswith("run"):
            notes.append(
                f"limits: {lim.memory_bytes // mib} MiB of memory and {lim.processes} processes for the whole"
                f" run ({scope[5:-1]})"
            )
        else:
            notes.append(
                f"limits: per process only (no cgroup here): {lim.memory_bytes // mib} MiB of address space"
                f" each, {lim.processes} processes of the run's uid"
            )
        if uid is not None:
            notes.append(f"processes run as unprivileged uid {uid}")
        elif os.geteuid() == 0:
            notes.append("processes: NOT limited: running as root, which RLIMIT_NPROC does not bind")
        return notes

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
) -> RunResult:
    """Run `code` in the sandbox and wait for it (see SandboxRun). Setting `cancel` stops the run.
    Raises IsolationError without namespaces unless allow_unisolated."""
    run = SandboxRun(
        code,
        limits=limits,
        on_output=on_output,
        cancel=cancel,
        keep=keep,
        base_dir=base_dir,
        allow_unisolated=allow_unisolated,
    )
    return run.run()


def _sandbox_uid(namespaced: bool) -> int | None:
    """A fresh unprivileged uid for this run when we are root (root ignores RLIMIT_NPROC, setrlimit(2)), or
    None. Without namespaces the interpreter must be reachable by other users, else we stay root."""
    if os.geteuid() != 0:
        return None
    if not namespaced and not all(_others_can_enter(p) for p in (sys.executable, *_interpreter_dirs())):
        return None
    busy = {_proc_uid(p) for p in os.listdir("/proc") if p.isdigit()}
    while True:
        uid = random.randrange(600_000, 1_600_000)  # above the usual subuid ranges; no passwd entry
        if uid not in busy:
            return uid


def _others_can_enter(path: str) -> bool:
    p = Path(os.path.realpath(path))
    return all(os.stat(d).st_mode & 0o001 for d in [*p.parents] + ([p] if p.is_dir() else []))


def _proc_uid(pid: str) -> int | None:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Uid:"):
                    return int(line.split()[1])
    except OSError:
        return None
    return None


def _interpreter_dirs() -> list[str]:
    """Folders of the environment the child interpreter needs: its executable's folder, the standard
    library and the site-packages (sysconfig, site.getsitepackages), LIBDIR for a shared libpython; never
    sys.path as such (it holds the launcher's cwd, PYTHONPATH entries and editable installs)."""
    dirs = {os.path.dirname(sys.executable), os.path.dirname(os.path.realpath(sys.executable))}
    dirs |= {sysconfig.get_path(k) for k in ("stdlib", "platstdlib", "purelib", "platlib")}
    dirs |= set(site.getsitepackages())
    if sysconfig.get_config_var("Py_ENABLE_SHARED"):
        dirs.add(sysconfig.get_config_var("LIBDIR") or "")
    dirs |= {os.path.realpath(d) for d in dirs if d}
    return sorted((d for d in dirs if d and os.path.isdir(d)), key=len)


def _visible_paths() -> tuple[list[str], list[list[str]]]:
    """What the code may see, for boot.build_root: (paths bound read-only, [[path, symlink target]]).
    SYSTEM_DIRS (symlinks among them are copied as symlinks), then the environment's folders not already
    under one of them, then the venv's pyvenv.cfg (the interpreter reads it to find its site-packages)."""
    expose: list[str] = []
    symlinks: list[list[str]] = []
    for d in SYSTEM_DIRS:
        if os.path.islink(d):
            symlinks.append([d, os.readlink(d)])
        elif os.path.isdir(d):
            expose.append(d)
    for d in _interpreter_dirs():
        if not any(d == e or d.startswith(e.rstrip("/") + "/") for e in expose):
            expose.append(d)
    cfg = os.path.join(sys.prefix, "pyvenv.cfg")
    if os.path.isfile(cfg):
        expose.append(cfg)
    return expose, symlinks


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
