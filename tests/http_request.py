"""Raw-socket test servers (hostile hub mirrors): the accept loop and the request head read first."""

from __future__ import annotations

import socket
import threading
from collections.abc import Callable


def read_request(conn: socket.socket) -> bytes | None:
    """The bytes of one HTTP request head (through its blank line) read from `conn`, or None when the client
    closed the connection first."""
    request = b""
    while b"\r\n\r\n" not in request:
        data = conn.recv(4096)
        if not data:
            return None
        request += data
    return request


def accept_in_background(server: socket.socket, handle: Callable[[socket.socket], None]) -> None:
    """Accept connections on `server` in a daemon thread until it is closed, each handled by `handle(conn)`
    in a daemon thread of its own."""

    def accept() -> None:
        while True:
            try:
                conn, _ = server.accept()
            except OSError:
                return
            threading.Thread(target=handle, args=(conn,), daemon=True).start()

    threading.Thread(target=accept, daemon=True).start()
