"""What an ended sandbox run gave: boot.py's status report read from its pipe (read_status), and the
RunResult made of it, the output and the cgroup's events, with the limits hit and the notes on what was
isolated (run_result, run_notes). Starting and supervising the run is sandbox/runner.py."""

from __future__ import annotations

import json
import os
import signal
from pathlib import Path
from typing import Any

from gorilla_tui.sandbox import cgroups
from gorilla_tui.sandbox.limits import Limits, RunResult
from gorilla_tui.sandbox.output import OutputBuffer
from gorilla_tui.sandbox.output import limits_hit as _limits_hit


def run_result(
    limits: Limits,
    namespaced: bool,
    iso_reason: str,
    *,
    root: Path,
    uid: int | None,
    cgroup: cgroups.RunCgroup | None,
    reader: OutputBuffer,
    reason: str | None,
    report: dict[str, Any],
    duration: float,
) -> RunResult:
    """The RunResult of an ended run: exit status or signal from boot.py's `report` (SIGKILL when it has
    none), the limits hit (`reason` the run was killed for, the CPU time, the output, the cgroup's
    events), and the notes on what was isolated (run_notes).

    Args:
        limits: the run's Limits.
        namespaced: whether the run had its namespaces (network isolated, files contained).
        iso_reason: why it did not, said in the notes when not namespaced.
        root: the run's folder (RunResult.workdir).
        uid: the unprivileged uid the code ran as, None when none.
        cgroup: the run's cgroup, None when its limits were per process (setrlimit).
        reader: the run's output, read to its end.
        reason: why the app killed the run ("stopped", "timeout", "output"), None when it did not.
        report: boot.py's status report (read_status; {} when it wrote none).
        duration: the run's wall-clock time in seconds.

    Returns:
        The RunResult; a truncated output gets its "[output truncated: ...]" line through `reader`."""
    exit_code = report.get("exit")
    if exit_code is None:  # killed (by us or by the sandbox's own wall-clock limit) before it exited
        exit_status, sig = None, signal.SIGKILL.value
    else:
        exit_status, sig = (exit_code, None) if exit_code >= 0 else (None, -exit_code)
    if report.get("timeout") and reason is None:
        reason = "timeout"
    output = reader.text()
    limits_hit = _limits_hit(reason, sig, report.get("cpu_s"), output, limits.cpu_s)
    events = cgroup.events() if cgroup else {}
    for key, name in (("oom_kill", "memory"), ("pids_max", "processes")):
        if events.get(key) and name not in limits_hit:
            limits_hit.append(name)
    scope = f"run (cgroup {cgroup.kind})" if cgroup else "per process (setrlimit)"
    notes = run_notes(limits, namespaced, iso_reason, uid, scope)
    if reader.dropped:
        reader.emit("sandbox", f"[output truncated: {reader.dropped} more bytes dropped]")
    return RunResult(
        exit_status=exit_status,
        signal=sig,
        duration_s=round(duration, 3),
        output=output,
        truncated=reader.dropped > 0,
        limits_hit=limits_hit,
        network="isolated" if namespaced else "open",
        files="contained" if namespaced else "open",
        workdir=root,
        dropped_bytes=reader.dropped,
        stopped=reason == "stopped",
        cpu_s=report.get("cpu_s"),
        notes=notes,
        limits_scope=scope,
        uid=uid,
        stop_signal=report.get("stop_signal") if exit_code is not None else None,
    )


def run_notes(limits: Limits, namespaced: bool, iso_reason: str, uid: int | None, scope: str) -> list[str]:
    """Plain statements of what the run isolated and limited (RunResult.notes): network, files, the memory
    and process limits for the whole run or per process (`scope`: "run (cgroup KIND)" or "per process
    (setrlimit)"), the empty stdin, and the uid the code ran as; `iso_reason` is why the network is open
    when not `namespaced`."""
    lim = limits
    mib = 1024**2
    if namespaced:
        notes = [
            "network: isolated (empty network namespace)",
            "files: only system folders, the interpreter and its site-packages are visible (read-only);"
            f" /tmp and HOME are a private {lim.disk_bytes // mib} MiB tmpfs",
        ]
    else:
        notes = [
            f"network: OPEN: {iso_reason}",
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
    # stdin is /dev/null (runner.SandboxRun._start): `echo data | gorilla-tui run prog.py` gives prog.py
    # nothing, and input() ends it with "EOFError: EOF when reading a line"; said here, so that is not a
    # mystery
    notes.append("input: none (stdin is empty: input() raises EOFError)")
    if uid is not None:
        notes.append(f"processes run as unprivileged uid {uid}")
    elif os.geteuid() == 0:
        notes.append("processes: NOT limited: running as root, which RLIMIT_NPROC does not bind")
    return notes


def read_status(status_r: int) -> dict[str, Any]:
    """Read boot.py's status report (one JSON object: exit, timeout, cpu_s) from the pipe `status_r` and
    close it; {} when it wrote none or something that is not JSON (killed before it could report)."""
    with os.fdopen(status_r, "rb") as f:
        raw = f.read().decode(errors="replace")
    if not raw.strip():
        return {}
    try:
        return json.JSONDecoder().raw_decode(raw.strip())[0]
    except ValueError:
        return {}
