"""The client's lines for `gorilla-tui mcp`, read from standard input by a daemon thread of our own.

Break-it pass 4: the SDK's reader (anyio.wrap_file(...).readline() in a worker thread) held the server for
as long as a read blocked: Ctrl+C waited until the client closed stdin, and a process with that worker
thread alive could not exit. It also read a line whole however long it was (a 300 MB line cost 1.27 GB).
Here a daemon thread reads the file descriptor in chunks of CHUNK_BYTES and hands each line to the event
loop; a line over MAX_LINE_BYTES is dropped as it comes (never held whole) and handed on as TooLong once.
The thread never keeps the process alive, and the event loop can stop waiting for it at any time.
"""

from __future__ import annotations

import contextlib
import os
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.from_thread
import anyio.lowlevel
from anyio.abc import ObjectReceiveStream, ObjectSendStream

#: Longest line taken from the client (bytes, the newline excluded). An MCP message is a JSON-RPC request;
#: the longest argument a tool takes is check_api_call's code (100,000 characters, at most 400 KB of UTF-8
#: in JSON escapes), so 16 MiB leaves room for any client's metadata.
MAX_LINE_BYTES = 16 * 2**20
#: Bytes read from standard input at once.
CHUNK_BYTES = 64 * 2**10
#: Lines read but not yet taken by the server, at most (the reader waits for a free place).
LINES_IN_FLIGHT = 8

T = TypeVar("T")


@dataclass(frozen=True)
class TooLong:
    """A line over MAX_LINE_BYTES, dropped: `size` is how many bytes had come when it was (the rest of the
    line is dropped as it comes, up to its newline)."""

    size: int


@dataclass(frozen=True)
class NotUtf8:
    """A line that is not UTF-8 (RFC 8259 section 8.1: JSON exchanged between systems is UTF-8): `start`,
    the offset of its first byte that is not, and `text`, the line with each such byte as U+FFFD (what the
    SDK reads; the reply's id is read from it). Replaced in silence, invalid bytes inside a JSON string
    reached a tool as "\ufffd" (break-it round 28); outside one the line was already no JSON."""

    start: int
    text: str


#: What the reader hands on for each line.
Line = str | TooLong | NotUtf8


def decoded(line: bytes) -> str | NotUtf8:
    """`line` decoded as UTF-8, or NotUtf8 when it is not."""
    try:
        return line.decode("utf-8")
    except UnicodeDecodeError as e:
        return NotUtf8(e.start, line.decode("utf-8", "replace"))


def _split(buf: bytearray, skipping: bool) -> tuple[list[bytes | TooLong], bool]:
    """Take the complete lines out of `buf` (in place); (the items, whether the next bytes still belong to a
    dropped line). A line longer than MAX_LINE_BYTES becomes one TooLong; so does a partial line that has
    already grown past it (its newline may be far away)."""
    items: list[bytes | TooLong] = []
    start = 0
    while (end := buf.find(b"\n", start)) >= 0:
        if skipping:
            skipping = False
        elif end - start > MAX_LINE_BYTES:
            items.append(TooLong(end - start))
        else:
            items.append(bytes(buf[start : end + 1]))
        start = end + 1
    del buf[:start]
    if len(buf) > MAX_LINE_BYTES:
        if not skipping:
            items.append(TooLong(len(buf)))
        skipping = True
    if skipping:
        buf.clear()
    return items, skipping


class Lines:
    """The reader thread's lines as the event loop takes them: `await receive()` gives the next line (str),
    TooLong or NotUtf8, and raises anyio.EndOfStream at end of file. At most LINES_IN_FLIGHT lines wait
    here; the thread waits for a free place before it reads on (a client that floods stdin is held
    back)."""

    def __init__(self, receive: ObjectReceiveStream[Line], places: threading.Semaphore) -> None:
        self._receive = receive
        self._places = places

    async def receive(self) -> Line:
        """The next line; raises anyio.EndOfStream once the client closed stdin and every line was taken."""
        item = await self._receive.receive()
        self._places.release()
        return item


def _read(fd: int, send: ObjectSendStream[Line], places: threading.Semaphore,
          token: anyio.lowlevel.EventLoopToken) -> None:  # fmt: skip
    """The reader thread: lines of `fd` (decoded as UTF-8: NotUtf8 for a line that is not), TooLong items
    to `send` until end of file, then close it; stops quietly once the event loop is gone or `send`
    closed.

    Each hand-over is a plain callback on the loop (anyio.from_thread.run_sync of send_nowait), never a
    task: a task still waiting to hand a line over when Ctrl+C ended the loop was cancelled by asyncio.run
    and printed "Exception in thread mcp-stdin" and asyncio's "unhandled exception during shutdown" before
    the one "interrupted" line (CI, 2026-12-06). A callback the ended loop never runs leaves this daemon
    thread waiting, which never keeps the process alive."""
    buf, skipping = bytearray(), False

    def give(item: Line) -> None:
        places.acquire()
        anyio.from_thread.run_sync(send.send_nowait, item, token=token)

    try:
        while True:
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError:
                chunk = b""
            if not chunk:
                if buf and not skipping:  # a last line without its newline
                    give(decoded(bytes(buf)))
                break
            buf += chunk
            items, skipping = _split(buf, skipping)
            for item in items:
                give(item if isinstance(item, TooLong) else decoded(item))
        anyio.from_thread.run_sync(send.close, token=token)
    except BaseException:  # noqa: BLE001 - the loop has ended or stopped listening: nothing left to tell
        return


def start_reader(fd: int) -> Lines:
    """Start the daemon thread that reads `fd` (call inside the event loop); its lines (Lines), which end
    at end of file."""
    send, receive = anyio.create_memory_object_stream[Line](LINES_IN_FLIGHT)
    places = threading.Semaphore(LINES_IN_FLIGHT)
    token = anyio.lowlevel.current_token()
    threading.Thread(target=_read, args=(fd, send, places, token), name="mcp-stdin", daemon=True).start()
    return Lines(receive, places)


async def in_daemon_thread(fn: Callable[..., T], *args: Any, stop: threading.Event | None = None) -> T:
    """fn(*args) in a daemon thread of its own, awaited so that a cancelled caller stops waiting at once
    (anyio.to_thread.run_sync waits for its worker thread, which is not a daemon and kept the process alive
    until a tool call returned). When the awaiting task is cancelled (the client's notifications/cancelled
    cancels the request's scope; Ctrl+C; the end of input), `stop` is set, so that fn, which watches it,
    stops its work too (break-it round 18, R18-3: the thread ran on). Returns what fn returns, raises what
    it raises."""
    done = anyio.Event()
    token = anyio.lowlevel.current_token()
    box: dict[str, Any] = {}

    def work() -> None:
        try:
            box["result"] = fn(*args)
        except BaseException as e:  # noqa: BLE001 - handed to the awaiting task as it is
            box["error"] = e
        with contextlib.suppress(Exception):  # the loop may have ended meanwhile
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=work, name="mcp-tool", daemon=True).start()
    try:
        await done.wait()
    except anyio.get_cancelled_exc_class():
        if stop is not None:
            stop.set()
        raise
    if "error" in box:
        raise box["error"]
    return box["result"]
