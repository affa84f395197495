"""Run a proposal's code in an isolated, limited Python process and stream its output back."""

from __future__ import annotations

import functools
import json
import os
import random
import re
import selectors
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui.sandbox.output import OutputBuffer, OutputCallback
from gorilla_tui.sandbox.output import limits_hit as _limits_hit

_BOOT = Path(__file__).with_name("boot.py")
#: Environment variables passed through (names or prefixes ending in "_"); everything else is dropped.
ENV_ALLOW = ("PATH", "LANG", "LANGUAGE", "TERM", "TZ", "COLUMNS", "LINES", "NO_COLOR", "LC_")
#: Names that look like secrets are dropped even when allowed above (tokens, keys, passwords, cloud creds).
SECRET_NAME = re.compile(
    r"TOKEN|KEY|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT|"
    r"^(AWS|AZURE|GOOGLE|GCP|GCLOUD|HF|HUGGING|OPENAI|ANTHROPIC|GITHUB|GH|GITLAB|NPM|PYPI|TWINE|DOCKER|SSH|GPG)_",
    re.IGNORECASE,
)


@dataclass(frozen=True)
class Limits:
    """Resource limits of one run (setrlimit(2) names in brackets).

    timeout_s: wall-clock seconds, then the whole run is killed; cpu_s: CPU seconds per process [RLIMIT_CPU];
    memory_bytes: address space per process [RLIMIT_AS]; file_bytes: largest file written [RLIMIT_FSIZE];
    processes: processes + threads of the sandbox uid [RLIMIT_NPROC]; open_files [RLIMIT_NOFILE];
    output_bytes: output kept (the rest is counted and dropped); flood_bytes: total output after which the
    run is stopped (limit "output").
    """

    timeout_s: float = 30.0
    cpu_s: int = 30
    memory_bytes: int = 2 * 1024**3
    file_bytes: int = 64 * 1024**2
    processes: int = 64
    open_files: int = 256
    output_bytes: int = 1_000_000
    flood_bytes: int = 32_000_000


@dataclass
class RunResult:
    """The outcome of one run.

    exit_status: the code's exit status (None when it was killed by a signal); signal: that signal number;
    duration_s: wall-clock seconds; output: stdout and stderr interleaved, at most Limits.output_bytes
    (truncated: more was produced, dropped_bytes of it dropped); limits_hit: any of "timeout", "cpu",
    "memory", "processes", "file_size", "output"; stopped: the person pressed Stop; network: "isolated"
    (empty network namespace) or "open"; files: "contained" (writes outside workdir cannot reach the real
    /tmp or HOME) or "open"; workdir: the sandbox dir (cwd and HOME of the code live in workdir/work);
    notes: plain statements about what was and was not isolated.
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
    as root or through a user namespace) or "none" (limits only); prefix: the unshare command to put first."""

    mode: str
    prefix: tuple[str, ...]
    reason: str


@functools.lru_cache(maxsize=1)
def probe_isolation() -> Isolation:
    """Check once per process whether `unshare --net --mount --pid` works here (costs ~30 ms)."""
    unshare = shutil.which("unshare")
    if not sys.platform.startswith("linux") or not unshare:
        return Isolation("none", (), "unshare(1) is not available on this system")
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


class SandboxRun:
    """One run of `code` in the sandbox. Call run() (blocking; e.g. in a worker thread) once; call stop()
    from any thread to kill it (run() then returns with stopped=True).

    on_output(stream, line) is called from the thread inside run() for every line, until output_bytes is
    reached. keep=False removes the sandbox dir after the run. namespaces=None uses them when the machine
    allows (probe_isolation); False forces the limits-only fallback. Raises OSError only when the sandbox
    dir cannot be created or the interpreter cannot be started.
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
    ) -> None:
        self.code, self.limits, self.on_output = code, limits or Limits(), on_output
        self.cancel = cancel or threading.Event()
        self.base_dir, self.keep = base_dir, keep
        iso = probe_isolation()
        self.namespaced = iso.mode == "namespaces" and namespaces is not False
        self._prefix = iso.prefix if self.namespaced else ()
        self._iso_reason = iso.reason
        self.proc: subprocess.Popen[bytes] | None = None

    def stop(self) -> None:
        """Ask the run to end now (thread-safe; the run is killed within ~0.1 s)."""
        self.cancel.set()

    def run(self) -> RunResult:
        """Start the code, stream its output, enforce the limits; returns when nothing of it is left."""
        root = Path(tempfile.mkdtemp(prefix="gorilla-run-", dir=self.base_dir)).resolve()
        try:
            return self._run(root)
        finally:
            if not self.keep:
                shutil.rmtree(root, ignore_errors=True)

    def _run(self, root: Path) -> RunResult:
        work, tmp, home = root / "work", root / "tmp", root / "home"
        for d in (work, tmp, home):
            d.mkdir()
        (root / "main.py").write_text(self.code, encoding="utf-8")
        uid = _sandbox_uid(self.namespaced)
        if uid is not None:
            for p in (root, work, tmp, home, root / "main.py"):
                os.chown(p, uid, uid)
        real_home = os.path.expanduser("~")
        status_r, status_w = os.pipe()
        cfg = {
            "root": str(root),
            "work": str(work),
            "code": str(root / "main.py"),
            "home": real_home if real_home not in ("/", "") else None,
            "python": sys.executable,
            "expose_ro": _interpreter_dirs(),
            "namespaces": self.namespaced,
            "uid": uid,
            "gid": uid,
            "status_fd": status_w,
            "limits": asdict(self.limits),
        }
        env = scrub_env(os.environ, str(work), "/tmp" if self.namespaced else str(tmp))
        cmd = [*self._prefix, sys.executable, "-I", "-S", str(_BOOT), json.dumps(cfg)]
        started = time.monotonic()
        try:
            self.proc = subprocess.Popen(
                cmd,
                cwd=root,
                env=env,
                stdin=subprocess.DEVNULL,
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                pass_fds=(status_w,),
                start_new_session=True,  # one process group: a timeout kills it all (os.killpg)
            )
        finally:
            os.close(status_w)
        reader = OutputBuffer(self.limits.output_bytes, self.on_output)
        reason = self._pump(reader, started)
        duration = time.monotonic() - started
        with os.fdopen(status_r, "rb") as f:
            raw = f.read()
        report = json.loads(raw) if raw else {}
        exit_code = report.get("exit")
        if exit_code is None:  # killed by us before the bootstrap could report
            exit_status, sig = None, signal.SIGKILL.value
        else:
            exit_status, sig = (exit_code, None) if exit_code >= 0 else (None, -exit_code)
        output = reader.text()
        limits_hit = _limits_hit(reason, sig, report.get("cpu_s"), output, self.limits.cpu_s)
        network = "isolated" if self.namespaced else "open"
        notes = [
            "network: isolated (empty network namespace)"
            if self.namespaced
            else f"network: OPEN: {self._iso_reason}",
            "files: /tmp, /var/tmp and HOME are private to the run; the rest of the system is read-only"
            if self.namespaced
            else "files: NOT contained: the code may write to /tmp, HOME and any folder your user can write",
        ]
        if uid is not None:
            notes.append(f"processes run as unprivileged uid {uid}")
        elif os.geteuid() == 0:
            notes.append("processes: NOT limited: running as root, which RLIMIT_NPROC does not bind")
        if reader.dropped:
            reader.emit("sandbox", f"[output truncated: {reader.dropped} more bytes dropped]")
        return RunResult(
            exit_status=exit_status,
            signal=sig,
            duration_s=round(duration, 3),
            output=output,
            truncated=reader.dropped > 0,
            limits_hit=limits_hit,
            network=network,
            files="contained" if self.namespaced else "open",
            workdir=root,
            dropped_bytes=reader.dropped,
            stopped=reason == "stopped",
            cpu_s=report.get("cpu_s"),
            notes=notes,
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
        """Kill everything of the run. With a PID namespace, SIGKILL to its init (our bootstrap) makes the
        kernel kill every process inside, and unshare(1) returns only once they are gone. Without one, the
        bootstrap (a child subreaper) kills its descendants on SIGTERM; then the process group is killed."""
        proc = self.proc
        if proc is None or proc.poll() is not None:
            return
        if self.namespaced:
            for pid in _children(proc.pid):
                _signal(pid, signal.SIGKILL)
        else:
            _signal(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=2)
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
) -> RunResult:
    """Run `code` in the sandbox and wait for it (see SandboxRun). Setting `cancel` stops the run."""
    run = SandboxRun(code, limits=limits, on_output=on_output, cancel=cancel, keep=keep, base_dir=base_dir)
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
    """Folders the child interpreter needs (prefixes and sys.path), shortest first, de-duplicated."""
    dirs = {sys.prefix, sys.base_prefix, sys.exec_prefix, os.path.dirname(os.path.realpath(sys.executable))}
    dirs |= {p for p in sys.path if p and os.path.isdir(p)}
    covered = [os.path.realpath(c) for c in ("/tmp", "/var/tmp", os.path.expanduser("~"))]
    dirs = {os.path.realpath(d) for d in dirs}  # a folder holding a hidden one would undo the hiding
    keep = {d for d in dirs if not any(c == d or c.startswith(d.rstrip("/") + "/") for c in covered)}
    return sorted(keep, key=len)


def _children(pid: int) -> list[int]:
    """PIDs whose parent is `pid` (from /proc/*/stat)."""
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


def _signal(pid: int, sig: int) -> None:
    try:
        os.kill(pid, sig)
    except ProcessLookupError:
        pass
