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

T = TypeVar("T")


@dataclass(frozen=True)
class TooLong:
    """A line over MAX_LINE_BYTES, dropped: `size` is how many bytes had come when it was (the rest of the
    line is dropped as it comes, up to its newline)."""

    size: int


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


def _read(fd: int, send: ObjectSendStream[str | TooLong], token: anyio.lowlevel.EventLoopToken) -> None:
    """The reader thread: lines of `fd` (decoded as UTF-8, bytes that are not UTF-8 as U+FFFD, as the SDK
    reads them) and TooLong items to `send` until end of file, then close it; stops quietly once the event
    loop is gone or `send` closed."""
    buf, skipping = bytearray(), False

    def give(item: str | TooLong) -> None:
        anyio.from_thread.run(send.send, item, token=token)

    try:
        while True:
            try:
                chunk = os.read(fd, CHUNK_BYTES)
            except OSError:
                chunk = b""
            if not chunk:
                if buf and not skipping:  # a last line without its newline
                    give(bytes(buf).decode("utf-8", "replace"))
                break
            buf += chunk
            items, skipping = _split(buf, skipping)
            for item in items:
                give(item if isinstance(item, TooLong) else item.decode("utf-8", "replace"))
    except Exception:  # noqa: BLE001 - the loop has ended or stopped listening: nothing left to tell
        return
    with contextlib.suppress(Exception):
        anyio.from_thread.run(send.aclose, token=token)


def start_reader(fd: int) -> ObjectReceiveStream[str | TooLong]:
    """Start the daemon thread that reads `fd` (call inside the event loop); the stream of its lines,
    which ends at end of file."""
    send, receive = anyio.create_memory_object_stream[str | TooLong](0)
    token = anyio.lowlevel.current_token()
    threading.Thread(target=_read, args=(fd, send, token), name="mcp-stdin", daemon=True).start()
    return receive


async def in_daemon_thread(fn: Callable[..., T], *args: Any) -> T:
    """fn(*args) in a daemon thread of its own, awaited so that a cancelled caller stops waiting at once
    (anyio.to_thread.run_sync waits for its worker thread, which is not a daemon and kept the process alive
    until a tool call returned). Returns what fn returns, raises what it raises."""
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
    await done.wait()
    if "error" in box:
        raise box["error"]
    return box["result"]
