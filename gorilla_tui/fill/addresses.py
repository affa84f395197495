"""A socket address the task writes in two parts: a host and a port, given as the one ``(host, port)`` pair a
Python parameter named for an address takes.

The standard library's internet addresses are pairs (socket's AF_INET addresses, documented in the socket
module: "A pair (host, port) is used for the AF_INET address family"): ``socket.create_connection(address)``,
``socket.socket.connect(address)``, ``socketserver.TCPServer(server_address, ...)``,
``http.server.HTTPServer(server_address, ...)``. "check whether 8.8.8.8 accepts connections on port 53" was
two calls, ``create_connection(53)`` and ``create_connection('8.8.8.8')``: each part a value of its own. The
pair is made of the task's own values (never invented): a host (an IP address, ``localhost``, a host name,
or the host of a URL) and a port (a whole number after the word "port", or after ``host:``).
"""

from __future__ import annotations

import dataclasses
import ipaddress
import mimetypes
import re
from collections.abc import Sequence
from urllib.parse import urlsplit

from gorilla_tui.fill.call_grammar import Slot, TaskValues
from gorilla_tui.fill.candidate import Candidate
from gorilla_tui.pool.params import Param

#: Parameter names that take a socket address (address, server_address, source_address, addr, sockaddr).
_ADDRESS_NAME = re.compile(r"(?:^|_)(?:address|addr|sockaddr)$", re.IGNORECASE)
#: A host: an IPv4 address, localhost, or a dotted host name ending in letters (example.org).
_HOST = re.compile(
    r"(?<![\w.-])(?:\d{1,3}(?:\.\d{1,3}){3}|localhost|(?:[a-z\d-]+\.)+[a-z]{2,})(?![\w-])"
    # an IPv6 address ("::1": socket.connect(1) was the call, break-it round 25, R25-3), _pair confirms it
    r"|(?<![\w:])[0-9a-f]{0,4}(?::[0-9a-f]{0,4}){2,7}(?![\w:])",
    re.I,
)
#: A port: a number after "port" ("on port 53", "port number 8080") or right after a host and a colon.
_PORT = re.compile(r"\bport(?:\s+(?:number|no\.?))?\s*:?\s*(\d{1,5})\b", re.IGNORECASE)
_HOST_PORT = re.compile(
    r"(?<![\w.-])((?:\d{1,3}(?:\.\d{1,3}){3}|localhost|(?:[a-z\d-]+\.)+[a-z]{2,})):(\d{1,5})\b"
    r"|(?<![\w.\[-])\[([0-9a-f:.]{2,45}(?:%[\w.-]+)?)\]:(\d{1,5})\b",  # "[2001:db8::1]:8080" (RFC 3986 3.2.2)
    re.I,
)


def takes_address(name: str, kind: str, type_: str) -> bool:
    """True for a Python parameter (positional or keyword, of no declared type) named for a socket address
    (_ADDRESS_NAME): a function-calling tool's typed parameter keeps the values its type takes."""
    return (
        type_ == "any"
        and kind in ("positional", "posonly", "keyword", "kwonly")
        and bool(_ADDRESS_NAME.search(name))
    )


def addresses(task: str) -> list[Candidate]:
    """The ``(host, port)`` pairs `task` writes: ``host:port`` ("localhost:8080", "[::1]:8080"), and each host
    with the port the task gives by the word "port" ("8.8.8.8 ... on port 53"; the nearest such port when
    there are several). Each a Candidate of kind "list" (a tuple, written ``('8.8.8.8', 53)``) over the span
    from its first part to its last; [] when the task writes no host or no port. A host is also a URL's
    ("https://example.org:8443/x": its host and port)."""
    out: list[Candidate] = []
    taken: list[tuple[int, int]] = []
    for m in _HOST_PORT.finditer(task):
        host, port = (m.group(1), m.group(2)) if m.group(1) else (m.group(3), m.group(4))
        out.append(_pair(host, int(port), m.start(), m.end()))
        taken.append(m.span())
    ports = [(int(m.group(1)), m.start(), m.end()) for m in _PORT.finditer(task) if int(m.group(1)) < 65536]
    if not ports:
        return [c for c in out if c is not None]
    for m in _HOST.finditer(task):
        if any(s <= m.start() < e for s, e in taken) or _in_url(task, m.start()):
            continue
        port, s, e = min(ports, key=lambda p: abs(p[1] - m.start()))
        out.append(_pair(m.group(), port, min(s, m.start()), max(e, m.end())))
    return [c for c in out if c is not None]


def _in_url(task: str, at: int) -> bool:
    """True when position `at` is inside a URL of `task` (its host is read with the URL's own port)."""
    return any(m.start() <= at < m.end() for m in re.finditer(r"\b[a-z][\w+.-]*://\S+", task, re.IGNORECASE))


#: Top-level domains that mimetypes also knows as file extensions (.com, .org): a host, not a file.
_TLDS = frozenset("com org net io edu gov dev app info co uk de fr".split())


def _pair(host: str, port: int, start: int, end: int) -> Candidate | None:
    """The (host, port) Candidate, or None for a port out of range or a host that is a file's name (its
    last part a file extension mimetypes knows, "report.csv"; not a common top-level domain, _TLDS)."""
    last = host.rsplit(".", 1)[-1].lower()  # an IPv6 host has no file extension
    a_file = last not in _TLDS and not last.isdigit() and mimetypes.guess_type(f"x.{last}")[0] is not None
    if not 0 < port < 65536 or a_file or ":" in host and not _is_v6(host):
        return None
    value = (host, port)
    return Candidate(f"({host!r}, {port})", value, "list", start, end, atomic=True)


def _is_v6(host: str) -> bool:
    """True when the standard library reads `host` as an IPv6 address ("12:30:45" is none)."""
    try:
        ipaddress.IPv6Address(host)
    except ValueError:
        return False
    return True


def url_addresses(task: str) -> list[Candidate]:
    """(host, port) pairs of the URLs `task` writes with a port ("http://localhost:8000/"), over the URL's
    span."""
    out = []
    for m in re.finditer(r"\b[a-z][\w+.-]*://[^\s'\"<>`]+", task, re.IGNORECASE):
        try:
            parts = urlsplit(m.group())
            port = parts.port
        except ValueError:
            continue
        if parts.hostname and port:
            c = _pair(parts.hostname, port, m.start(), m.end())
            if c is not None:
                out.append(c)
    return out


#: Python parameter names that take a socket address's host / its port on their own
#: (``smtplib.SMTP(host, port)``, ``http.client.HTTPConnection(host, port)``).
HOST_NAMES = frozenset({"host", "hostname"})
PORT_NAMES = frozenset({"port"})


def parts(pair: Candidate, task: str) -> tuple[Candidate, Candidate]:
    """The host and the port of a (host, port) Candidate of `task` (addresses), each a Candidate over the
    place the task writes it (the pair's span where it is not found)."""
    host, port = pair.value
    at = task.find(host, pair.start, pair.end)
    h = (at, at + len(host)) if at >= 0 else (pair.start, pair.end)
    m = re.compile(rf"(?<!\d){port}(?!\d)").search(task, h[1] if at >= 0 else pair.start, pair.end)
    p = m.span() if m else (pair.start, pair.end)
    return (Candidate(repr(host), host, "string", h[0], h[1], atomic=True),
            Candidate(str(port), port, "number", p[0], p[1]))  # fmt: skip


def with_addresses(offered: Sequence[Slot], task: TaskValues, params: Sequence[Param] = ()) -> list[Slot]:
    """`offered` with each slot of a parameter that takes a socket address (takes_address) offering the
    task's ``(host, port)`` pairs (addresses, url_addresses) instead of its single values (a host or a port
    alone is not an address), and a positional parameter of `params` named for a host or a port
    (HOST_NAMES, PORT_NAMES) given the pair's host or port, as a value the task gives (required: "connect
    to smtp.gmail.com on port 587" is ``smtplib.SMTP('smtp.gmail.com', 587)``); unchanged where the task
    writes no pair."""
    pairs = addresses(task.text) + url_addresses(task.text) if task.text else []
    if not pairs:
        return list(offered)
    out = [
        dataclasses.replace(s, values={c.text: c for c in pairs})
        if takes_address(s.param.name, s.param.kind, s.param.type)
        else s
        for s in offered
    ]
    split = [parts(c, task.text) for c in pairs]
    for p in params:
        if p.kind not in ("positional", "posonly") or p.type not in ("any", "string", "integer"):
            continue
        n = 0 if p.name in HOST_NAMES else 1 if p.name in PORT_NAMES else -1
        if n < 0:
            continue
        slot = Slot(dataclasses.replace(p, required=True), {c[n].text: c[n] for c in split})
        names = [s.param.name for s in out]
        if p.name in names:
            out[names.index(p.name)] = slot
        else:
            before = {q.name for q in params[: list(params).index(p)]}
            out.insert(sum(1 for s in out if s.param.name in before), slot)
    return out
