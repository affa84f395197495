"""The request head a raw-socket test server reads before it answers (tests of hostile hub mirrors)."""

from __future__ import annotations

import socket


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
