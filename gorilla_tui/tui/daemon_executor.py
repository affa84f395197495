"""The TUI's thread workers on daemon threads: quitting never waits for a worker blocked in a request.

Textual runs a `@work(thread=True)` worker in the event loop's default executor, a ThreadPoolExecutor whose
threads are not daemons: asyncio.run's shutdown_default_executor and concurrent.futures' atexit hook join
them, so a worker still reading a reply (an endpoint that drips a byte a second) kept the process alive
after Ctrl+Q, with a blank screen, until the request's total deadline (600 s by default), and a Ctrl+C
then printed a threading KeyboardInterrupt traceback (issue 42 kind 1, break-it round 8 N10). Here each
job runs in a daemon thread of its own and shutdown does not wait: what a worker leaves undone when the
app quits is given up (the app cancels the backend's requests first: Session.close)."""

from __future__ import annotations

import asyncio
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any


class DaemonExecutor(ThreadPoolExecutor):
    """An executor that runs each submitted call in a new daemon thread (named "tui-worker") and never
    waits for one at shutdown. A ThreadPoolExecutor subclass only because asyncio's set_default_executor
    accepts nothing else (Python 3.11); none of its pool threads is ever started."""

    def __init__(self) -> None:
        super().__init__(max_workers=1, thread_name_prefix="tui-worker")
        self._closed = False

    def submit(self, fn: Callable[..., Any], /, *args: Any, **kwargs: Any) -> Future[Any]:
        """Run fn(*args, **kwargs) in a new daemon thread; its Future. Raises RuntimeError after
        shutdown, as ThreadPoolExecutor does."""
        if self._closed:
            raise RuntimeError("cannot schedule new futures after shutdown")
        future: Future[Any] = Future()

        def run() -> None:
            if not future.set_running_or_notify_cancel():
                return
            try:
                future.set_result(fn(*args, **kwargs))
            except BaseException as e:  # noqa: BLE001 - handed to the awaiting coroutine as it is
                future.set_exception(e)

        threading.Thread(target=run, name="tui-worker", daemon=True).start()
        return future

    def shutdown(self, wait: bool = True, *, cancel_futures: bool = False) -> None:
        """Refuse new calls; never waits for the running ones (daemon threads: they end with the process)."""
        self._closed = True


def install() -> None:
    """Make a DaemonExecutor the running event loop's default executor (call from the app's loop, before
    its first thread worker starts)."""
    asyncio.get_running_loop().set_default_executor(DaemonExecutor())
