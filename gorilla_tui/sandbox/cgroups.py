"""Per-run control groups: one cgroup per sandbox run caps the memory and the process count of the whole run.

cgroup v2 (memory.max, memory.swap.max, pids.max; Documentation/admin-guide/cgroup-v2.rst) is used where the
machine delegates the memory and pids controllers to us; otherwise cgroup v1 (memory.limit_in_bytes,
memory.memsw.limit_in_bytes, pids.max; Documentation/admin-guide/cgroup-v1/) where its hierarchies are
writable; otherwise none, and the run falls back to per-process setrlimit(2) limits (see runner.Limits).

The sandbox's supervisor joins the cgroup by writing "0" (= the writing process) to each `cgroup.procs` of
RunCgroup.procs_files before it starts anything, so every process of the run is inside (cgroups(7)).
Each run's cgroup is named "gorilla-run-<epoch>-<pid>-<random>"; an empty one older than STALE_AFTER_S
(its run died before it could remove it) is removed by the next run.
"""

from __future__ import annotations

import functools
import os
import secrets
import time
from dataclasses import dataclass
from pathlib import Path

#: Prefix of every run's cgroup directory.
PREFIX = "gorilla-run-"
#: An empty run cgroup older than this (seconds) belongs to a dead run and may be removed.
STALE_AFTER_S = 60.0
#: Processes of the sandbox machinery itself inside the cgroup (supervisor's child, unshare, PID 1).
OVERHEAD_PROCESSES = 3


@dataclass(frozen=True)
class CgroupSupport:
    """What this machine allows: kind "v2", "v1" or "none"; parents: the directories run cgroups are made in
    (one for v2; one per controller, memory then pids, for v1); reason: one line saying why."""

    kind: str
    parents: tuple[str, ...]
    reason: str


@dataclass
class RunCgroup:
    """The cgroup(s) of one run. dirs: one for v2, two for v1 (memory, pids); kind: "v2" or "v1"."""

    kind: str
    dirs: list[str]

    @property
    def procs_files(self) -> list[str]:
        """The `cgroup.procs` files the supervisor writes "0" to, to join."""
        return [os.path.join(d, "cgroup.procs") for d in self.dirs]

    def events(self) -> dict[str, int]:
        """Counters after the run: {"oom_kill": kills by the run's memory limit, "pids_max": forks refused
        by its process limit} (v2: memory.events, pids.events; v1: memory.oom_control, memory.failcnt,
        pids.events)."""
        out = {"oom_kill": 0, "pids_max": 0}
        for d in self.dirs:
            for name, key, field in (
                ("memory.events", "oom_kill", "oom_kill"),
                ("memory.oom_control", "oom_kill", "oom_kill"),
                ("pids.events", "pids_max", "max"),
            ):
                out[key] = max(out[key], _read_counter(os.path.join(d, name), field))
        return out

    def remove(self, wait_s: float = 2.0) -> bool:
        """rmdir the cgroup(s), retrying while the last processes exit; True when all are gone."""
        deadline = time.monotonic() + wait_s
        left = list(self.dirs)
        while left:
            for d in list(left):
                try:
                    os.rmdir(d)
                    left.remove(d)
                except FileNotFoundError:
                    left.remove(d)
                except OSError:
                    pass
            if not left or time.monotonic() > deadline:
                break
            time.sleep(0.02)
        return not left


def _read_counter(path: str, field: str) -> int:
    try:
        with open(path) as f:
            for line in f:
                parts = line.split()
                if len(parts) == 2 and parts[0] == field:
                    return int(parts[1])
    except (OSError, ValueError):
        pass
    return 0


def _mounts() -> list[tuple[str, str, list[str]]]:
    """(mount point, fstype, super options) of each cgroup mount, from /proc/self/mountinfo."""
    found = []
    try:
        lines = Path("/proc/self/mountinfo").read_text().splitlines()
    except OSError:
        return found
    for line in lines:
        left, _, right = line.partition(" - ")
        fields, rest = left.split(), right.split()
        if len(rest) >= 3 and rest[0] in ("cgroup", "cgroup2") and len(fields) >= 5:
            found.append((fields[4].replace("\\040", " "), rest[0], rest[2].split(",")))
    return found


def _own_paths() -> dict[str, str]:
    """Our cgroup path per hierarchy from /proc/self/cgroup: {"": v2 path, "memory": ..., "pids": ...}."""
    paths: dict[str, str] = {}
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return paths
    for line in lines:
        _, controllers, path = line.split(":", 2)
        for c in controllers.split(",") if controllers else [""]:
            paths[c] = path
    return paths


def _writable_dir(d: str) -> bool:
    """A cgroup we can make children in and move our processes out of (into a child: cgroups(7) asks for
    write access to cgroup.procs of the common ancestor, which is `d`)."""
    procs = os.path.join(d, "cgroup.procs")
    return os.path.isdir(d) and os.access(d, os.W_OK | os.X_OK) and os.access(procs, os.W_OK)


def _v2_parent() -> tuple[str | None, str]:
    own = _own_paths().get("")
    mount = next((m for m, fstype, _ in _mounts() if fstype == "cgroup2"), None)
    if own is None or mount is None:
        return None, "no cgroup v2 hierarchy"
    parent = os.path.join(mount, own.lstrip("/"))
    try:
        enabled = Path(parent, "cgroup.subtree_control").read_text().split()
        available = Path(parent, "cgroup.controllers").read_text().split()
    except OSError:
        return None, f"cgroup v2: cannot read {parent}"
    # enabling a controller ourselves would change the machine's cgroup setup (and fails with EBUSY in a
    # cgroup that holds processes): only what is already delegated to us is used
    missing = [c for c in ("memory", "pids") if c not in enabled or c not in available]
    if missing:
        return None, f"cgroup v2: controller {', '.join(missing)} not delegated to {parent}"
    if not _writable_dir(parent):
        return None, f"cgroup v2: {parent} is not writable"
    return parent, "cgroup v2 (memory.max, pids.max)"


def _v1_parents() -> tuple[list[str], str]:
    own = _own_paths()
    parents = []
    for controller in ("memory", "pids"):
        mount = next((m for m, fstype, opts in _mounts() if fstype == "cgroup" and controller in opts), None)
        if mount is None or controller not in own:
            return [], f"cgroup v1: no {controller} hierarchy"
        parent = os.path.join(mount, own[controller].lstrip("/"))
        if not os.path.isdir(parent):  # our path is relative to a namespace root we cannot see
            parent = mount
        if not _writable_dir(parent):
            return [], f"cgroup v1: {parent} is not writable"
        parents.append(parent)
    return parents, "cgroup v1 (memory.limit_in_bytes, pids.max)"


@functools.lru_cache(maxsize=1)
def probe_cgroups() -> CgroupSupport:
    """Which cgroup version can hold a run's memory and process limits here (checked once per process)."""
    if not os.path.isdir("/sys/fs/cgroup"):
        return CgroupSupport("none", (), "no /sys/fs/cgroup")
    v2, why2 = _v2_parent()
    if v2 is not None:
        return CgroupSupport("v2", (v2,), why2)
    v1, why1 = _v1_parents()
    if v1:
        return CgroupSupport("v1", tuple(v1), why1)
    return CgroupSupport("none", (), f"{why2}; {why1}")


def create(memory_bytes: int, processes: int, support: CgroupSupport | None = None) -> RunCgroup | None:
    """Make this run's cgroup with its limits, or return None when the machine allows none (or making it
    fails). processes: the run's own processes and threads; OVERHEAD_PROCESSES are added for the sandbox's.
    Also removes empty run cgroups of dead runs (clean_stale)."""
    support = support or probe_cgroups()
    if support.kind == "none":
        return None
    name = f"{PREFIX}{int(time.time())}-{os.getpid()}-{secrets.token_hex(3)}"
    pids_max = str(processes + OVERHEAD_PROCESSES)
    dirs: list[str] = []
    try:
        for parent in support.parents:
            clean_stale(parent)
            d = os.path.join(parent, name)
            os.mkdir(d)
            dirs.append(d)
        if support.kind == "v2":
            _write(dirs[0], "memory.max", str(memory_bytes))
            _write(dirs[0], "memory.swap.max", "0", optional=True)
            _write(dirs[0], "memory.oom.group", "1", optional=True)  # an OOM kills the whole run
            _write(dirs[0], "pids.max", pids_max)
        else:
            _write(dirs[0], "memory.limit_in_bytes", str(memory_bytes))
            _write(dirs[0], "memory.memsw.limit_in_bytes", str(memory_bytes), optional=True)
            _write(dirs[1], "pids.max", pids_max)
    except OSError:
        RunCgroup(support.kind, dirs).remove(wait_s=0)
        return None
    return RunCgroup(support.kind, dirs)


def _write(d: str, name: str, value: str, *, optional: bool = False) -> None:
    try:
        Path(d, name).write_text(value)
    except OSError:
        if not optional:
            raise


def clean_stale(parent: str, older_than_s: float = STALE_AFTER_S) -> list[str]:
    """rmdir the empty run cgroups under `parent` made more than `older_than_s` ago; returns those removed.
    A cgroup still holding a process cannot be removed (EBUSY) and is left alone."""
    removed = []
    now = time.time()
    try:
        entries = os.listdir(parent)
    except OSError:
        return removed
    for entry in entries:
        if not entry.startswith(PREFIX):
            continue
        try:
            made = int(entry[len(PREFIX) :].split("-")[0])
        except ValueError:
            continue
        if now - made < older_than_s:
            continue
        try:
            os.rmdir(os.path.join(parent, entry))
            removed.append(entry)
        except OSError:
            pass
    return removed
