"""Where `gorilla-tui mcp` logs: a bounded file in the user's log folder, and a few short lines on stderr.

The MCP SDK's MCPServer sets up logging itself (mcp.server.mcpserver.utilities.logging.configure_logging:
rich's RichHandler on stderr at INFO, with rich tracebacks). So every failed tool call wrote a few wrapped
lines to stderr, and a tool that crashed wrote its whole traceback (about 114 KB for a deep recursion,
break-it round 16, P2). A client that pipes stderr and never reads it (the MCP stdio transport does not ask
it to) then filled the pipe, and the server blocked in the write with the reply unsent.

`route_logs` replaces those handlers:
- the log file (logging.handlers.RotatingFileHandler, `LOG_BYTES` a file and one older file kept, so it
  never passes 2 x LOG_BYTES) gets every record from INFO up, each traceback cut to `TRACE_LINES` lines;
- stderr gets records from WARNING up (a bug, never a caller's bad input: that is in the tool's error
  result already), one line each of at most `LINE_CHARS` characters and no traceback, and no more than
  `STDERR_LINES` lines in all (then one line naming the log file): at most about 3.4 KB however many
  calls fail, under the smallest pipe Linux makes (one 4,096-byte page, pipe(7)).
"""

from __future__ import annotations

import logging
import logging.handlers
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import TextIO

#: Bytes of one log file before it is rotated (one older file is kept): a thousand failures' tracebacks.
LOG_BYTES = 1_000_000
#: Lines of a traceback kept in the log file (the first and last halves): a 1,000-frame recursion's
#: traceback was ~114 KB; its first frames say where it came from, its last where it failed.
TRACE_LINES = 60
#: Characters of one stderr line at most.
LINE_CHARS = 160
#: Lines written to stderr in the server's whole run at most: 20 x (160 + 1) bytes + the last line is
#: about 3.4 KB, under Linux's smallest pipe buffer (4,096 bytes), so an unread stderr never blocks.
STDERR_LINES = 20
#: Name of the log file in Paths.logs.
LOG_NAME = "mcp.log"

ExcInfo = tuple[type[BaseException], BaseException, TracebackType | None]


def one_line(text: str, limit: int = LINE_CHARS) -> str:
    """`text` on one line (runs of whitespace, newlines included, as one space), cut to `limit` characters
    with "..." at the cut."""
    flat = " ".join(text.split())
    return flat if len(flat) <= limit else flat[: limit - 3] + "..."


def bounded_traceback(exc_info: ExcInfo, limit: int = TRACE_LINES) -> str:
    """The traceback of `exc_info` as traceback.format_exception writes it, cut to its first and last
    `limit` // 2 lines with one line saying how many were left out between."""
    lines = "".join(traceback.format_exception(*exc_info)).splitlines()
    if len(lines) > limit:
        head, tail = lines[: limit // 2], lines[-(limit // 2) :]
        lines = [*head, f"  ... {len(lines) - len(head) - len(tail)} lines left out ...", *tail]
    return "\n".join(lines)


class _FileFormat(logging.Formatter):
    def formatException(self, ei: ExcInfo) -> str:  # noqa: N802 (logging's name)
        return bounded_traceback(ei)


class _StderrFormat(logging.Formatter):
    """One line: "gorilla-tui mcp: MESSAGE (ExceptionType)", never a traceback."""

    def format(self, record: logging.LogRecord) -> str:
        text = record.getMessage()
        if record.exc_info and record.exc_info[1] is not None:
            text += f" ({type(record.exc_info[1]).__name__})"
        return one_line(f"gorilla-tui mcp: {text}")


class BoundedStderr(logging.StreamHandler):  # type: ignore[type-arg]
    """A StreamHandler (sys.stderr by default) that writes `limit` records at most, then one line naming
    where the rest went (`log_file`, or nowhere), then nothing."""

    def __init__(
        self, log_file: Path | None, stream: TextIO | None = None, limit: int = STDERR_LINES
    ) -> None:
        super().__init__(stream or sys.stderr)
        self.setFormatter(_StderrFormat())
        self.setLevel(logging.WARNING)
        self.limit = limit
        self.written = 0
        self.log_file = log_file

    def emit(self, record: logging.LogRecord) -> None:
        if self.written > self.limit:
            return
        self.written += 1
        if self.written > self.limit:
            where = f"only in {self.log_file}" if self.log_file else "not shown"
            record = logging.makeLogRecord({"msg": f"{self.limit} messages written; the rest are {where}"})
            record.levelno = logging.WARNING
        super().emit(record)


def log_file_handler(folder: Path) -> logging.Handler | None:
    """The rotating log file `folder`/LOG_NAME (the folder made when missing), or None when it cannot be
    made or opened (a read-only home: the server still runs, with its stderr lines alone)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            folder / LOG_NAME, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8", errors="backslashreplace"
        )
    except OSError:
        return None
    handler.setFormatter(_FileFormat("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    return handler


def route_logs(folder: Path) -> Path | None:
    """Send the process's logging (the root logger: the SDK's and ours) to the bounded log file in `folder`
    and to BoundedStderr, in place of the handlers the SDK set (module doc). Returns the log file's path,
    or None when it could not be opened."""
    logging.raiseExceptions = (
        False  # a log write that fails (disk full) is dropped, not a traceback on stderr
    )
    root = logging.getLogger()
    for handler in list(root.handlers):
        root.removeHandler(handler)
        handler.close()
    file_handler = log_file_handler(folder)
    log_file = folder / LOG_NAME if file_handler is not None else None
    if file_handler is not None:
        root.addHandler(file_handler)
    root.addHandler(BoundedStderr(log_file))
    root.setLevel(logging.INFO)
    return log_file
