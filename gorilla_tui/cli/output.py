"""Standard output that fails cleanly: a write or flush that the OS refuses ends the command with one line.

Every command prints through sys.stdout (print, json.dumps, rich's Console). A full disk (ENOSPC, `>
/dev/full`) was "internal error: OSError [Errno 28]" (exit 1); a closed stdout (`>&-`, EBADF: Python sets
sys.stdout to None) lost the output in silence with exit 0; a reader that went away (`| head -1`, EPIPE)
made rich's Console exit 1 with no word in `index --status`, where `search` exited 0 (break-it pass 4).
cli/__init__.py main() runs each command inside guarded_stdout(): a write that fails raises OutputLost,
which main turns into "gorilla-tui: error: could not write the output: <why>" (exit 2: the output was
lost) or, for a broken pipe, the usual silent exit 0 (the reader asked for no more).

Standard error is the other way round: its lines (errors, hints, warnings, notes) are not the output, and
a stderr that cannot be written never changes the exit status. With `2>/dev/full` or `2>&-` the print in
main()'s error handler raised, and every exit 2 (bad input, damaged state) became Python's exit 1, the
status of findings (break-it round 11, R11-3). main() runs each command inside quiet_stderr(), and say()
is the one writer of the CLI's own lines to stderr.
"""

from __future__ import annotations

import errno
import io
import os
import sys
import warnings
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

from gorilla_tui.textsafe import safe_text

if sys.version_info >= (3, 11):
    from builtins import BaseExceptionGroup
else:  # pragma: no cover - Python 3.10: anyio's own dependency
    from exceptiongroup import BaseExceptionGroup


class OutputLost(BaseException):
    """Writing standard output failed (`error`, the OSError). A BaseException, like KeyboardInterrupt, so
    that no command's ``except Exception`` takes it for a failure of its own (one task of `eval run`, one
    file of `check`) and writes on into the same broken stream."""

    def __init__(self, error: OSError) -> None:
        super().__init__(error)
        self.error = error
        #: The exit status when the reader went away (status_if_cut): what the command had to say.
        self.status = 0

    @property
    def broken_pipe(self) -> bool:
        """True when the reader went away (EPIPE): not an error of the command."""
        return isinstance(self.error, BrokenPipeError) or self.error.errno == errno.EPIPE

    def message(self) -> str:
        """The line main() prints: "could not write the output: No space left on device"."""
        return f"could not write the output: {self.error.strerror or self.error}"


class _Guarded:
    """sys.stdout as it was, each write and flush turning an OSError into OutputLost. Every other attribute
    (buffer, fileno, isatty, encoding...) is the stream's own. Not an io.IOBase: its close() at garbage
    collection would flush the stream again, outside main()."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as e:
            raise OutputLost(e) from None

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as e:
            raise OutputLost(e) from None

    def isatty(self) -> bool:
        return self._stream.isatty()

    def fileno(self) -> int:
        return self._stream.fileno()

    def __getattr__(self, name: str) -> Any:
        return getattr(self._stream, name)


class _Closed:
    """Standard output when its file descriptor was closed (`>&-`; Python set sys.stdout to None and print
    wrote nothing): the first write of any text fails with EBADF."""

    encoding = "utf-8"

    def write(self, text: str) -> int:
        if text:
            raise OSError(errno.EBADF, os.strerror(errno.EBADF))
        return 0

    def flush(self) -> None:
        pass

    def isatty(self) -> bool:
        return False

    def fileno(self) -> int:
        raise io.UnsupportedOperation("standard output is closed")


@contextmanager
def guarded_stdout() -> Iterator[None]:
    """sys.stdout replaced by a guarded one for the block, flushed at its end inside it (Python's own flush
    at shutdown printed "Exception ignored ... OSError" and exited 120), restored after. A closed file
    descriptor 1 is first given /dev/null, so no file the command opens takes its place (a run's child
    would write its output into it). Raises OutputLost."""
    previous = sys.stdout
    stream = previous
    if stream is None:
        _hold_closed_stdout()
        stream = _Closed()
    sys.stdout = _Guarded(stream)
    try:
        yield
        sys.stdout.flush()
    finally:
        sys.stdout = previous


def raise_if_stdout_closed() -> None:
    """For a command that hands file descriptor 1 to a library writing on its own (`mcp`: the MCP SDK's
    stdio writer): standard output closed at start (`>&-`) is OutputLost(EBADF) now, as any command's first
    write would make it, instead of the library's own failure ("internal error: ExceptionGroup", R24-4).

    Raises:
        OutputLost: inside guarded_stdout(), file descriptor 1 was closed when the command started."""
    guarded = sys.stdout
    if isinstance(guarded, _Guarded) and isinstance(guarded._stream, _Closed):
        raise OutputLost(OSError(errno.EBADF, os.strerror(errno.EBADF)))


def output_lost_in(group: BaseExceptionGroup) -> OutputLost | None:
    """The OutputLost an exception group of a library's task groups stands for (`mcp`: anyio's, around the
    MCP SDK's stdout writer, mcp/server/stdio.py stdout_writer), or None when anything else is in it.

    Args:
        group: the group raised; it counts as lost output when every exception in it, at any depth, is an
            OSError (a write or flush the OS refused: EPIPE, ENOSPC, EBADF) or an OutputLost.

    Returns:
        OutputLost for its first such exception (a broken pipe first: the reader went away, and the other
        writes failed after it), or None."""
    matched, rest = group.split((OSError, OutputLost))
    if matched is None or rest is not None:
        return None
    leaves: list[BaseException] = []
    stack: list[BaseException] = [matched]
    while stack:
        e = stack.pop()
        if isinstance(e, BaseExceptionGroup):
            stack.extend(reversed(e.exceptions))
        else:
            leaves.append(e)
    lost = [e if isinstance(e, OutputLost) else OutputLost(e) for e in leaves]  # type: ignore[arg-type]
    return next((e for e in lost if e.broken_pipe), lost[0])


def say(line: str) -> None:
    """Write `line` and a newline to sys.stderr as one write, flushed, never raising: a stderr that is
    closed (None), full (ENOSPC), not open for writing (EBADF), a gone reader (EPIPE) or a closed stream
    (ValueError) loses the line and nothing else. The one writer of the CLI's error, hint, warning and note
    lines: the exit status is the command's, whatever happens to stderr. Never falls back to stdout
    (print(file=None) would write the line into the output)."""
    stream = sys.stderr
    if stream is None:
        return
    try:
        stream.write(f"{line}\n")
        stream.flush()
    except (OSError, ValueError, AttributeError):
        pass


class _QuietStderr:
    """sys.stderr as it was (None when file descriptor 2 was closed), each write and flush that fails
    swallowed: the first failure points file descriptor 2 at the null device (so the stream's buffered
    bytes, Python's flush at shutdown and a C library's own writes to fd 2 go nowhere, quietly) and drops
    every later line. Rich's Console(stderr=True), warnings and logging write through it too."""

    encoding = "utf-8"

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        if self._stream is not None:
            try:
                return self._stream.write(text)
            except (OSError, ValueError):
                self._lose()
        return len(text)

    def flush(self) -> None:
        if self._stream is not None:
            try:
                self._stream.flush()
            except (OSError, ValueError):
                self._lose()

    def isatty(self) -> bool:
        try:
            return self._stream is not None and self._stream.isatty()
        except (OSError, ValueError):
            return False

    def fileno(self) -> int:
        if self._stream is None:
            raise io.UnsupportedOperation("standard error is closed")
        return self._stream.fileno()

    def _lose(self) -> None:
        stream, self._stream = self._stream, None
        try:
            on_fd2 = stream.fileno() == 2
        except (OSError, ValueError, AttributeError):  # a stream of no descriptor (a test's capture)
            on_fd2 = False
        if on_fd2:
            _null_fd(2)
        try:  # what the stream still buffers now goes to the null device
            stream.flush()
        except (OSError, ValueError):
            pass

    def __getattr__(self, name: str) -> Any:
        if self._stream is None:
            raise AttributeError(name)
        return getattr(self._stream, name)


@contextmanager
def quiet_stderr() -> Iterator[None]:
    """sys.stderr replaced, for the block, by one whose writes never raise (_QuietStderr), flushed at its
    end, restored after. A closed file descriptor 2 is first given the null device, so no file the command
    opens (an index file, the history database) takes its place and receives a library's messages."""
    previous = sys.stderr
    if previous is None:
        try:
            os.fstat(2)
        except OSError:
            _null_fd(2)
    quiet = _QuietStderr(previous)
    sys.stderr = quiet
    try:
        yield
    finally:
        quiet.flush()
        sys.stderr = previous


def _null_fd(fd: int) -> None:
    """Point file descriptor `fd` (1 or 2) at the null device; nothing when that fails."""
    try:
        null = os.open(os.devnull, os.O_WRONLY)
        if null != fd:
            os.dup2(null, fd)
            os.close(null)
    except OSError:
        pass


@contextmanager
def one_line_warnings() -> Iterator[None]:
    """Python warnings shown, for the block, as one escaped line each on stderr ("gorilla-tui: warning:
    MESSAGE"), whichever library warns from whichever thread: huggingface_hub's "Not enough free disk space
    to download the file. ..." printed its source line and text raw over two lines (break-it round 9, R1).
    warnings.showwarning is restored after."""
    previous = warnings.showwarning

    def show(message: Any, *_where: Any, **_how: Any) -> None:  # showwarning(message, category, ...)
        say(f"gorilla-tui: warning: {safe_text(' '.join(str(message).split()))}")

    warnings.showwarning = show
    try:
        yield
    finally:
        warnings.showwarning = previous


@contextmanager
def status_if_cut(status: int) -> Iterator[None]:
    """Print the block's output with `status` as the exit status should the reader go away (`check ... |
    head -1`: findings stay exit 1, as a pre-commit hook or `set -o pipefail` reads them; it was 0, break-it
    round 8). Raises OutputLost with its `status` set."""
    try:
        yield
    except OutputLost as e:
        e.status = status
        raise


class HeldLoss:
    """An OutputLost held while a command finishes the work that does not print, then raised with the
    command's status: `run` goes on running the code when its reader goes away mid-run and exits with the
    run's status (it said "the sandbox could not start: Broken pipe", exit 2, break-it round 10); `ask`
    still saves its history row. `lost` says whether to write to stdout any more."""

    def __init__(self) -> None:
        self.error: OutputLost | None = None

    @contextmanager
    def catch(self) -> Iterator[None]:
        """Run the block; an OutputLost in it is held (the first one kept) instead of raised."""
        try:
            yield
        except OutputLost as e:
            self.error = self.error or e

    @property
    def lost(self) -> bool:
        """True once a write to stdout failed."""
        return self.error is not None

    def end(self, status: int) -> int:
        """Return `status`, or raise the held OutputLost with it as its status (status_if_cut)."""
        if self.error is not None:
            with status_if_cut(status):
                raise self.error
        return status


def discard_stdout() -> None:
    """Point file descriptor 1 at /dev/null and drop what the stream still buffers, so that nothing more is
    written to the broken output (Python's shutdown flush then succeeds quietly; the Python docs' advice for
    SIGPIPE, library/signal.html "Note on SIGPIPE")."""
    _null_fd(1)  # 1 itself when descriptor 1 was closed


def _hold_closed_stdout() -> None:
    """Give a closed file descriptor 1 /dev/null (nothing is written to it: sys.stdout is _Closed)."""
    try:
        os.fstat(1)
    except OSError:
        discard_stdout()
