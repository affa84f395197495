"""REST side of the validator: find ``METHOD /path`` requests in text, match them to pool path templates."""

from __future__ import annotations

import functools
import re
from collections.abc import Sequence
from dataclasses import dataclass

from gorilla_tui.check.suggest import nearest
from gorilla_tui.pool.doc import ApiDoc

_METHODS = "GET|POST|PUT|PATCH|DELETE|HEAD|OPTIONS"
#: A request line: ``GET /api/v1/pods``, ``curl -X POST https://host/v1/x``, ``DELETE https://host/a/{id}``.
#: Its path starts with "/", a URL's scheme or a template's "{": a line of prose ("head unless it is the
#: root" in a docstring) or an assignment (``DELETE = "DELETE"``) is no request (break-it round 29, F6: 11
#: false alarms in typeshed_client, grimp and identify).
_REQUEST_LINE = re.compile(
    rf"^[ \t]*(?:curl\s+(?:-\w+\s+)*?-X\s*)?({_METHODS})\s+((?:/|https?://|\{{)\S*)",
    re.IGNORECASE | re.MULTILINE,
)
_HTTP_CALLEE = re.compile(rf"^(?:requests|httpx|session|client|\w+)\.({_METHODS})$", re.IGNORECASE)
_URL = re.compile(r"^[a-z][a-z0-9+.-]*://[^/]*", re.IGNORECASE)


#: A URL with a host in a doc's text.
_URLS = re.compile(r"https?://[^\s'\"`/?#]+", re.IGNORECASE)


def host_of(url: str) -> str:
    """The host of a URL, lower case, without its port or user ("" for a path or a template's
    ``{base_url}``)."""
    m = _URL.match(url.strip().strip("'\"`"))
    if m is None:
        return ""
    host = m.group().split("://", 1)[1].rsplit("@", 1)[-1]
    return host.rsplit(":", 1)[0].lower() if not host.endswith("]") else host.lower()


def path_of(url: str) -> str:
    """The path of a URL or path: scheme, host, query string and fragment removed, no trailing slash."""
    path = _URL.sub("", url.strip().strip("'\"`"))
    path = re.split(r"[?#]", path, maxsplit=1)[0]
    if not path.startswith("/"):
        path = "/" + path
    return path.rstrip("/") or "/"


def request_lines(text: str, limit: int = 50) -> list[tuple[str, str, int]]:
    """(METHOD, path, line) of the request lines in text (line is 1-based), at most `limit`. The answers for
    the last 2,048 texts are kept: `check` of a tree asks twice per file (the lookup, then the check)."""
    return list(_request_lines(text, limit))


@functools.lru_cache(maxsize=2048)
def _request_lines(text: str, limit: int) -> tuple[tuple[str, str, int], ...]:
    out: list[tuple[str, str, int]] = []
    for m in _REQUEST_LINE.finditer(text):
        line = text.count("\n", 0, m.start()) + 1
        out.append((m.group(1).upper(), path_of(m.group(2)), line))
        if len(out) >= limit:
            break
    return tuple(out)


def http_method(callee: str) -> str | None:
    """METHOD for an HTTP client call such as ``requests.get`` / ``httpx.post``, else None."""
    m = _HTTP_CALLEE.match(callee)
    return m.group(1).upper() if m else None


@dataclass(frozen=True)
class RestMatch:
    """Outcome of matching one request: kind "valid", "wrong_args" (the path exists with another method)
    or "hallucination" (no template has this path); doc: the matched or closest doc; suggestions:
    "METHOD /template" strings."""

    kind: str
    doc: ApiDoc | None
    suggestions: list[str]


class RestTable:
    """The REST docs of a pool as compiled path templates (``{name}`` matches one non-empty segment)."""

    def __init__(self, docs: Sequence[ApiDoc]) -> None:
        self.entries: list[tuple[str, re.Pattern[str], str, ApiDoc]] = []
        #: The hosts the REST docs' calls and examples name (an OpenAPI server: pool/openapi_ops.py).
        self.hosts: set[str] = set()
        for doc in docs:
            rest = doc.rest
            if rest is None:
                continue
            self.hosts.update(host_of(u) for u in _URLS.findall(f"{doc.api_call}\n{doc.example_code or ''}"))
            method, template = rest
            template = path_of(template)
            pattern = "".join(
                "[^/]+" if re.fullmatch(r"\{[^/{}]*\}", seg) else re.escape(seg)
                for seg in re.split(r"(\{[^/{}]*\})", template)
                if seg
            )
            self.entries.append((method, re.compile(pattern + "$"), template, doc))

    def __bool__(self) -> bool:
        return bool(self.entries)

    def serves(self, url: str) -> bool:
        """Whether an HTTP client call's URL may be a request to a REST source of the pool (break-it round
        30, F-M2): a path without a host (starting with "/": a bare word is a key, round 33), a host some
        REST doc names, or a path some template matches (a source whose docs name no host, Kubernetes', is
        served by the user's own one). A URL to another
        host whose path no template matches (``requests.get('http://x')``) is no request of theirs: the
        call is then judged as any other call, never as a hallucination of those sources."""
        host = host_of(url)
        if not host:  # a path: "/api/v1/pods"; a bare word is a key (`config.get('port')`, break-it round 33)
            return url.strip().strip("'\"`").startswith("/")
        if host in self.hosts:
            return True
        path = path_of(url)
        return any(regex.search(path) for _, regex, _, _ in self.entries)

    def match(self, method: str, path: str) -> RestMatch:
        """Match one request; a path that ends with a template (a prefix like /k8s before /api) matches."""
        same_path: list[tuple[str, str, ApiDoc]] = []
        for m, regex, template, doc in self.entries:
            if regex.search(path):  # templates start with "/", so a match begins at a segment boundary
                if m == method:
                    return RestMatch("valid", doc, [])
                same_path.append((m, template, doc))
        if same_path:
            return RestMatch("wrong_args", same_path[0][2], [f"{m} {t}" for m, t, _ in same_path[:3]])
        names = [f"{m} {t}" for m, _, t, _ in self.entries]
        close = nearest(f"{method} {path}", names, n=3, cutoff=0.3)
        doc = next((d for m, _, t, d in self.entries if close and f"{m} {t}" == close[0]), None)
        return RestMatch("hallucination", doc, close)
