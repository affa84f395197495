"""Output of a sandbox run: line splitting, the size cap, and which limits the code ran into."""

from __future__ import annotations

import codecs
import re
import signal
from collections.abc import Callable

OutputCallback = Callable[[str, str], None]  # (stream: "stdout" | "stderr" | "sandbox", line without "\n")


class OutputBuffer:
    """Splits the byte streams into lines, keeps the first `cap` bytes (UTF-8, "\n" counted) and counts
    what is dropped; `total` counts every byte received. on_output gets each kept line (and the sandbox's
    notes)."""

    def __init__(self, cap: int, on_output: OutputCallback | None) -> None:
        self.cap, self.on_output = cap, on_output
        self.total = self.kept = self.dropped = 0
        self.parts: list[str] = []
        self._dec = {s: codecs.getincrementaldecoder("utf-8")("replace") for s in ("stdout", "stderr")}
        self._buf = {"stdout": "", "stderr": ""}

    def feed(self, stream: str, data: bytes) -> None:
        self.total += len(data)
        if self.kept >= self.cap:
            self.dropped += len(data)
            return
        buf = self._buf[stream] + self._dec[stream].decode(data)
        *lines, rest = buf.split("\n")
        while len(rest) > 8192:  # a very long line without a newline is passed on in pieces
            lines.append(rest[:8192])
            rest = rest[8192:]
        self._buf[stream] = rest
        for line in lines:
            self._keep(stream, line)

    def _keep(self, stream: str, line: str) -> None:
        size = len(line.encode("utf-8", "replace")) + 1
        if self.kept + size > self.cap:
            self.dropped += size
            self.kept = self.cap
            return
        self.kept += size
        self.parts.append(line)
        self.emit(stream, line)

    def emit(self, stream: str, line: str) -> None:
        if self.on_output is not None:
            self.on_output(stream, line)

    def finish(self) -> None:
        for stream, rest in self._buf.items():
            rest += self._dec[stream].decode(b"", final=True)
            if rest:
                self._keep(stream, rest) if self.kept < self.cap else None
        self._buf = {"stdout": "", "stderr": ""}

    def text(self) -> str:
        return "\n".join(self.parts) + ("\n" if self.parts else "")


_LIMIT_TEXT = {
    "memory": re.compile(r"\bMemoryError\b|Cannot allocate memory|std::bad_alloc"),
    "processes": re.compile(r"Resource temporarily unavailable|can't start new thread"),
    "file_size": re.compile(r"File too large"),
    "disk": re.compile(r"No space left on device"),
}


def limits_hit(
    reason: str | None, sig: int | None, cpu: float | None, output: str, cpu_limit_s: int
) -> list[str]:
    """Which limits stopped the code, best first-hand evidence first: why we killed it ("timeout",
    "output"), its signal (SIGXCPU: "cpu", SIGXFSZ: "file_size"), its CPU time, then its error text
    (MemoryError: "memory", EAGAIN from fork: "processes", EFBIG: "file_size", ENOSPC on the run's tmpfs:
    "disk"). The runner adds "memory" and "processes" from the run's cgroup counters."""
    hit = [reason] if reason in ("timeout", "output") else []
    if sig == signal.SIGXCPU or (sig == signal.SIGKILL and cpu is not None and cpu >= cpu_limit_s - 0.5):
        hit.append("cpu")
    if sig == signal.SIGXFSZ:
        hit.append("file_size")
    hit += [name for name, rx in _LIMIT_TEXT.items() if rx.search(output) and name not in hit]
    return hit
