"""Values a task writes joined by colons, each one value never split into numbers (fill/values.py _atoms).

A time ("12:30", "12:30:45", "7:05 pm", "14:00:00+05:30"), an IPv6 address ("::1", "fe80::1", confirmed by the
standard library's ipaddress), a MAC address ("aa:bb:cc:dd:ee:ff") and a host with its port ("localhost:8080",
"127.0.0.1:8080", "example.com:443", "[::1]:8080"). Read part by part, "sleep until 12:30:45" was
``datetime.datetime.fromtimestamp(12)`` and "connect to ::1 port 8080" ``socket.socket().connect(1)``
(break-it round 25, R25-3).
"""

from __future__ import annotations

import ipaddress
import re

#: A MAC address: six pairs of hex digits joined by ":" or "-" (IEEE 802 canonical form).
_MAC = r"[0-9A-Fa-f]{2}(?P<sep>[:-])[0-9A-Fa-f]{2}(?:(?P=sep)[0-9A-Fa-f]{2}){4}"
#: A time of day: hours (0-23), minutes, optional seconds with a fraction, then am/pm or an ISO 8601 UTC
#: offset ("Z", "+05:30", "+0530"; "-05:00" only after seconds: "9:00-17:00" is a range of two times).
#: Without the offset, "14:00:00+05:30" was two times, and the offset filled strptime's format (R26-1).
_TIME = (
    r"(?:[01]?\d|2[0-3]):[0-5]\d(?::[0-5]\d(?:\.\d+)?(?:Z|[+-](?:[01]\d|2[0-3]):?[0-5]\d)"
    r"|(?::[0-5]\d(?:\.\d+)?)?(?:\s?[AaPp][Mm]\b|Z|\+(?:[01]\d|2[0-3]):?[0-5]\d)?)"
)
#: An IPv6 address candidate (two colons or more, hex groups, an IPv4 tail, a scope: "fe80::1%eth0"),
#: bracketed with a port or bare.
_V6 = r"[0-9A-Fa-f]{0,4}(?::[0-9A-Fa-f]{0,4}){2,7}(?:\.\d{1,3}){0,3}(?:%[\w.-]+)?"
#: A host with a port: localhost, an IPv4 address or a dotted name ending in letters (example.com).
_HOST = r"(?:localhost|\d{1,3}(?:\.\d{1,3}){3}|[A-Za-z\d](?:[\w-]*\.)+[A-Za-z]{2,})"
COLON_JOINED = re.compile(
    rf"(?<![\w:.\[/@-])(?:(?P<mac>{_MAC})|\[(?P<bracketed>{_V6})\]:\d{{1,5}}|(?P<host>{_HOST}):\d{{1,5}}"
    rf"|(?P<time>{_TIME})|(?P<v6>{_V6}))(?![\w:-]|\.\w)"
)


def joined(m: re.Match[str]) -> bool:
    """True when a match of COLON_JOINED is one value: a time, a MAC address, a host with its port, or an
    IPv6 address the standard library reads ("a:b:c" is none)."""
    v6 = m.group("v6") if m.group("v6") is not None else m.group("bracketed")
    return v6 is None or _is_v6(v6)


def _is_v6(text: str) -> bool:
    """True when the standard library reads `text` as an IPv6 address."""
    try:
        ipaddress.IPv6Address(text)
    except ValueError:
        return False
    return True
