"""The limits of one sandboxed run and what it reports back: `Limits` (setrlimit(2), cgroup and tmpfs
sizes) and `RunResult` (exit status, output, limits hit, what was isolated). Used by runner.SandboxRun,
sandbox/isolation.py (doctor's layers) and the UI."""

from __future__ import annotations

import signal
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any


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
    ours); notes: plain statements about what was and was not isolated; stop_signal: the signal that
    stopped the code while it had made the sandbox's supervisor its tracer (ptrace(2) PTRACE_TRACEME), at
    which the sandbox ended it (`signal` is that signal too), else None.
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
    stop_signal: int | None = None

    @property
    def ok(self) -> bool:
        return self.exit_status == 0 and not self.limits_hit and not self.stopped

    def outcome(self) -> str:
        """How the code ended, as one line for the CLI and the run screen: "exit 1", "killed by SIGSEGV
        (signal 11)", or for a code the sandbox ended at a stop (stop_signal) "stopped by signal SIGSTOP
        (the sandbox ended it)". A number that names no signal here is shown as the number alone."""
        if self.stop_signal is not None:
            return f"stopped by signal {_signal_name(self.stop_signal)} (the sandbox ended it)"
        if self.exit_status is not None:
            return f"exit {self.exit_status}"
        return f"killed by {_signal_name(self.signal)} (signal {self.signal})"

    def to_dict(self) -> dict[str, Any]:
        d = asdict(self)
        d["workdir"] = str(self.workdir)
        return d


def _signal_name(number: int | None) -> str:
    """SIGSEGV for 11: the name of signal `number` on this machine, or "signal N" when it has none."""
    try:
        return signal.Signals(number).name  # type: ignore[arg-type]
    except (ValueError, TypeError):
        return f"signal {number}"
