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
import os
import stat
import sys
import traceback
from pathlib import Path
from types import TracebackType
from typing import TextIO

from gorilla_tui.paths import NotRegularFileError, file_kind
from gorilla_tui.textsafe import safe_text

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


def log_path_problem(path: Path) -> str | None:
    """Why the log file `path` is not written, or None when it is a regular file or absent: "not a regular
    file (a FIFO)" (paths.file_kind), or os.stat's error. By os.stat, so a symbolic link to a device or a
    FIFO is refused before it is opened. The one cause `mcp` (on stderr) and `doctor` give."""
    try:
        mode = os.stat(path).st_mode
    except FileNotFoundError:
        return None
    except OSError as e:
        return f"cannot be used ({e.strerror or e})"
    return None if stat.S_ISREG(mode) else f"not a regular file ({file_kind(mode)})"


class RegularFileHandler(logging.handlers.RotatingFileHandler):
    """A RotatingFileHandler that opens its file (at start and after each rotation) only when it is a
    regular file or absent, never blocking: a FIFO at logs/mcp.log held `mcp` in open(2) until a reader
    came, and the client waited forever with no reply (break-it round 18, R18-2). Opened with O_NONBLOCK
    and checked with fstat on the open descriptor (paths.open_regular's way), then set back to blocking."""

    def _open(self) -> TextIO:
        flags = (
            os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NONBLOCK | os.O_NOCTTY | getattr(os, "O_CLOEXEC", 0)
        )
        fd = os.open(self.baseFilename, flags, 0o644)
        try:
            mode = os.fstat(fd).st_mode
            if not stat.S_ISREG(mode):
                raise NotRegularFileError(Path(self.baseFilename), mode)
            os.set_blocking(fd, True)
            return open(fd, "a", encoding=self.encoding, errors=self.errors)  # noqa: SIM115 (the handler's)
        except BaseException:
            os.close(fd)
            raise


def log_file_handler(folder: Path) -> tuple[logging.Handler | None, str | None]:
    """The rotating log file `folder`/LOG_NAME (the folder made when missing) and None; or None and why
    it cannot be used: it cannot be made or opened (a read-only home), or it is not a regular file
    (log_path_problem). The server then still runs, with its stderr lines alone."""
    path = folder / LOG_NAME
    try:
        folder.mkdir(parents=True, exist_ok=True)
        problem = log_path_problem(path)
        if problem:
            return None, problem
        handler = RegularFileHandler(
            path, maxBytes=LOG_BYTES, backupCount=1, encoding="utf-8", errors="backslashreplace"
        )
    except OSError as e:
        return None, f"unusable: it cannot be opened ({e.strerror or type(e).__name__})"
    handler.setFormatter(_FileFormat("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    handler.setLevel(logging.INFO)
    return handler, None


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
    file_handler, problem = log_file_handler(folder)
    log_file = folder / LOG_NAME if file_handler is not None else None
    if file_handler is not None:
        root.addHandler(file_handler)
    stderr = BoundedStderr(log_file)
    root.addHandler(stderr)
    root.setLevel(logging.INFO)
    if problem:  # one line, then the server runs without its log file
        logging.getLogger(__name__).warning(
            "no log file: %s is %s; logging to stderr only", safe_text(str(folder / LOG_NAME)), problem
        )
    return log_file
