"""llama.cpp's thread count, lowered while the CPU is contended (issue 19: answers on a busy machine).

llama.cpp's worker threads meet at a spinning barrier after every graph node. When other processes hold the
cores, a thread waits for a partner that is not scheduled, and every barrier costs a scheduler slice: on this
project's 2-core machine at load average 6, scoring 5 hits took 6 to 15 s with 2 batch threads against 2.1 s
with one (bench/latency.py --threads; 0.8 s with 2 threads when idle). So each decode is timed, and when the
calling thread got too little of its core while it ran (its CPU time / wall time below EFFICIENCY_FLOOR: it
was waiting to be scheduled), the context drops to one thread for RETRY_SECONDS, then tries the configured
count again. The calling thread's own CPU time (time.thread_time) is used, not the process's: other threads
of the app (the TUI, an index being embedded) would hide the contention they cause.
"""

from __future__ import annotations

import os
import threading
import time
from collections.abc import Callable

#: Below this share of its core (thread CPU time / wall time over one decode) the calling thread was kept
#: waiting: an idle machine gives 0.9 to 1.0 for a decode with 2 threads, load average 6 on 2 cores gave 0.3.
EFFICIENCY_FLOOR = 0.7
#: Seconds at one thread before the configured count is tried again.
RETRY_SECONDS = 30.0
#: Decodes shorter than this (seconds) are not judged: timer resolution and one slice decide them.
MIN_WALL = 0.03


class ThreadGovernor:
    """Sets the thread counts of one llama.cpp context before each decode, from how the last decodes ran.

    Args:
        apply: apply(n_threads, n_threads_batch) sets the context's counts (llama_set_n_threads).
        n_threads: the configured generation threads (one token per decode), >= 1.
        n_threads_batch: the configured prompt-evaluation threads (a batch per decode), >= 1.
        clock, cpu, load: wall clock, the calling thread's CPU clock (seconds) and the 1-minute load average
            (default time.perf_counter, time.thread_time, os.getloadavg()[0]; replaceable in tests).

    A context that starts on a machine whose load average already fills every core starts at one thread.
    Thread-safe; `contended_until` (clock seconds) is when the configured count is tried again, 0 when it is
    in use. Both counts of 1 leave nothing to govern: apply is then never called.
    """

    def __init__(
        self,
        apply: Callable[[int, int], None],
        n_threads: int,
        n_threads_batch: int,
        *,
        clock: Callable[[], float] = time.perf_counter,
        cpu: Callable[[], float] = time.thread_time,
        load: Callable[[], float] | None = None,
    ) -> None:
        self._apply, self._clock, self._cpu = apply, clock, cpu
        self.configured = (max(1, int(n_threads)), max(1, int(n_threads_batch)))
        self.current = self.configured
        self.contended_until = 0.0
        self._lock = threading.Lock()
        self._start: tuple[float, float] | None = None
        self._warm = False  # the context's first decode is not judged (see end())
        cores = os.cpu_count() or 1
        loadavg = load if load is not None else _loadavg
        if self.governs and loadavg() >= cores:
            self._set((1, 1), until=self._clock() + RETRY_SECONDS)

    @property
    def governs(self) -> bool:
        """True when a configured count is above 1 (there is something to lower)."""
        return max(self.configured) > 1

    def _set(self, counts: tuple[int, int], until: float) -> None:
        if counts != self.current:
            self._apply(*counts)
            self.current = counts
        self.contended_until = until

    def begin(self) -> None:
        """Call right before a decode: restores the configured counts once RETRY_SECONDS have passed."""
        if not self.governs:
            return
        with self._lock:
            now = self._clock()
            if self.contended_until and now >= self.contended_until:
                self._set(self.configured, until=0.0)
            self._start = (now, self._cpu())

    def end(self) -> None:
        """Call right after the decode begin() opened: judges it, and drops to one thread when the calling
        thread ran less than EFFICIENCY_FLOOR of the wall time while more than one thread was in use. The
        first decode of a context is never judged: llama.cpp starts its thread pool and allocates the
        compute graph in it (on an idle machine the first decode of an ask ran at 0.58 of its core, the
        following ones at 0.9 to 1.0)."""
        if not self.governs:
            return
        with self._lock:
            if self._start is None:
                return
            wall = self._clock() - self._start[0]
            used = self._cpu() - self._start[1]
            self._start = None
            if not self._warm:  # llama.cpp starts its thread pool and allocates the graph: not contention
                self._warm = True
                return
            if max(self.current) > 1 and wall >= MIN_WALL and used < EFFICIENCY_FLOOR * wall:
                self._set((1, 1), until=self._clock() + RETRY_SECONDS)


def _loadavg() -> float:
    try:
        return os.getloadavg()[0]
    except (OSError, AttributeError):  # no load average on this platform (Windows)
        return 0.0
