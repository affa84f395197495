"""The --endpoint URL: checked as the request would check it, before any request (one line, exit 2), and
the URLs built from it: the completions URL (the path joined before a query), the server's other routes,
and the user information of the URL sent as HTTP Basic auth. model/remote_http.py sends the requests.

Break-it round 6 (issue 42): an IDNA error in the host ("http://a..b/") or a non-ASCII path failed at the
request as "cannot reach" (exit 1), and a query was mangled ("http://h/ok?x=1" became
"/ok?x=1/v1/completions").
"""

from __future__ import annotations

import base64
import ipaddress
import re
import unicodedata
import urllib.parse
import urllib.request

from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import redact_url, safe_text, url_secrets

__all__ = ["basic_auth", "check_endpoint", "completions_url", "origin", "proxy_for", "server_url"]


def check_endpoint(endpoint: str) -> str:
    """`endpoint` stripped, if it is a URL that urllib can send a request to as it is. Messages show the URL
    with its password hidden (textsafe.redact_url).

    The checks are those the request would make later, made first so that a bad URL is bad input (exit 2)
    and never "cannot reach" (exit 1) nor a traceback: urllib.parse.urlsplit and its port (a number in
    1..65535), an http:// or https:// scheme with a host, a host name that the standard library's IDNA
    codec (the one socket.getaddrinfo and http.client use) encodes and whose A-labels decode again (RFC 3490
    ToASCII, then ToUnicode: "a..b", ".", "xn--" and "xn--zz" are refused; an IP literal is not a name),
    and a path and query that http.client can send: ASCII only (a non-ASCII character is refused with its
    percent-encoded form, RFC 3987 section 3.1), no control character or space. A fragment ("#...") is
    refused: urllib drops it, and the path joined after it was never sent (http://h/ok#x/v1/completions
    went to /ok). A query is kept (completions_url joins the path before it).

    Raises:
        UsageError: (exit 2) e.g. for "notaurl", "localhost:8080" (no scheme), "http://:80", a port of
            99999 or 0, "http://a..b/", "http://h/é" or a URL holding a newline.
    """
    url = (endpoint or "").strip()
    shown = safe_text(redact_url(url)[:200])
    if any(ch.isspace() or unicodedata.category(ch) == "Cc" for ch in url):
        raise UsageError(f"endpoint {shown!r} holds a control character or a space; pass the URL alone")
    try:
        parts = urllib.parse.urlsplit(url)
        port = parts.port  # ValueError for a port that is not a number in 0..65535
    except ValueError as e:  # e.g. "Port could not be cast to integer value as 'pa'": a password's start
        why = safe_text(_hide_secrets(redact_url(str(e)), url))
        raise UsageError(f"endpoint {shown!r} is not a valid URL ({why})") from None
    if parts.scheme.lower() not in ("http", "https") or not parts.hostname:
        raise UsageError(
            f"endpoint {shown!r} is not an http(s) URL with a host, "
            "e.g. http://127.0.0.1:8080 (an OpenAI-compatible completion server)"
        )
    if port == 0:
        raise UsageError(f"endpoint {shown!r} is not a valid URL (port 0 is no server's port)")
    if why := _bad_host(parts.hostname):
        raise UsageError(f"endpoint {shown!r} is not a valid URL (its host {why})")
    if parts.fragment or url.endswith("#"):
        raise UsageError(
            f"endpoint {shown!r} has a fragment (#...), which is never sent to a server: drop it"
        )
    rest = urllib.parse.urlunsplit(("", "", parts.path, parts.query, ""))
    if not rest.isascii():
        quoted = urllib.parse.urlunsplit(parts._replace(path=_quote(parts.path), query=_quote(parts.query)))
        raise UsageError(
            f"endpoint {shown!r} has characters that are not ASCII in its path or query; percent-encode "
            f"them: {safe_text(redact_url(quoted)[:200])}"
        )
    return url


def _hide_secrets(text: str, url: str) -> str:
    """`text` (urllib's words about `url`) with each secret of `url` (textsafe.url_secrets), and each of its
    pieces between "/", "?", "#", "@" and ":" (urllib's netloc ends at the first of "/?#": the port it
    quotes is the start of a password holding one), as ***."""
    for secret in url_secrets(url):
        for piece in sorted({secret, *re.split(r"[/?#@:]", secret)}, key=len, reverse=True):
            if piece:
                text = text.replace(piece, "***")
    return text


def _bad_host(host: str) -> str:
    """Why the host name `host` (urlsplit's hostname, lower case, no brackets) cannot be looked up, or "":
    the IDNA codec of the standard library fails on it, or on one of its A-labels read back."""
    if ":" in host:  # an IPv6 literal (urlsplit checked its form)
        return ""
    try:
        host.encode("idna").decode("idna")
    except UnicodeError as e:
        why = str(e).rpartition("UnicodeError: ")[2].rstrip(")") or "not IDNA"
        name = safe_text(host[:80])
        return f"{name!r} is not a valid host name: {safe_text(why)}"
    return ""


def _quote(text: str) -> str:
    """`text` (a path or a query) with every character that is not ASCII percent-encoded as UTF-8 (a byte
    that was not UTF-8 in the argument, a lone surrogate, as that byte); the ASCII ones, "%" included, are
    left as they are."""
    raw = text.encode("utf-8", "surrogateescape" if _escapes_only(text) else "replace")
    return urllib.parse.quote(raw, safe=bytes(range(0x21, 0x7F)))


def _escapes_only(text: str) -> bool:
    """Whether every surrogate in `text` is one of surrogateescape's (U+DC80..U+DCFF: a byte of an argument
    that was not UTF-8)."""
    return all(not 0xD800 <= ord(ch) <= 0xDFFF or 0xDC80 <= ord(ch) <= 0xDCFF for ch in text)


def basic_auth(url: str) -> tuple[str, str | None]:
    """(`url` without its user information, the Authorization header for it or None): the user and
    password of `http://user:pw@host` (percent-decoded) are sent as HTTP Basic auth (RFC 7617); urllib
    took "user:pw@host" for the host name ("Name or service not known", the password printed)."""
    parts = urllib.parse.urlsplit(url)
    if "@" not in parts.netloc:
        return url, None
    userinfo, _, host = parts.netloc.rpartition("@")
    user, _, password = userinfo.partition(":")
    token = f"{urllib.parse.unquote(user)}:{urllib.parse.unquote(password)}".encode()
    bare = urllib.parse.urlunsplit(parts._replace(netloc=host))
    return bare, "Basic " + base64.b64encode(token).decode("ascii")


def completions_url(endpoint: str) -> str:
    """Normalise --endpoint: "http://h:p" or ".../v1" or ".../v1/completions" -> the completions URL.
    The path is joined before a query, which is kept: "http://h/ok?x=1" -> "http://h/ok/v1/completions?x=1"
    (a gateway's "?api-version=..." is sent with every request; it was "http://h/ok?x=1/v1/completions").
    Raises UsageError for a URL check_endpoint refuses."""
    parts = urllib.parse.urlsplit(check_endpoint(endpoint))
    path = parts.path.rstrip("/")
    if not path.endswith("/completions"):
        path += "/completions" if path.endswith("/v1") else "/v1/completions"
    return urllib.parse.urlunsplit(parts._replace(path=path))


def server_url(completions: str, route: str) -> str:
    """The URL of another `route` of the server of `completions` (a completions_url), e.g. its tokenizer's
    "/extras/tokenize": the path's "/v1/completions" (or "/completions") replaced by `route`, the query
    kept."""
    parts = urllib.parse.urlsplit(completions)
    path = parts.path
    for end in ("/v1/completions", "/completions"):
        if path.endswith(end):
            path = path[: -len(end)]
            break
    return urllib.parse.urlunsplit(parts._replace(path=path + route))


def origin(url: str) -> str:
    """The scheme and authority of `url` ("http://user:pw@h:8080"): where a shown URL (password hidden)
    and the URL sent differ."""
    parts = urllib.parse.urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}"


def proxy_for(url: str) -> str:
    """The proxy a request to `url` goes through: the environment's ($http_proxy, $https_proxy, minus
    $no_proxy: urllib.request.getproxies and proxy_bypass), "" for none. A loopback host (localhost,
    127.0.0.0/8, ::1) never goes through one: a local server is what `--endpoint http://127.0.0.1:8080`
    means, and the prompt and its Basic auth went to the proxy, which a bad proxy then made "cannot reach
    endpoint" (break-it round 7)."""
    parts = urllib.parse.urlsplit(url)
    host = (parts.hostname or "").lower()
    try:
        loopback = (
            host == "localhost" or host.endswith(".localhost") or ipaddress.ip_address(host).is_loopback
        )
    except ValueError:
        loopback = False
    if loopback or urllib.request.proxy_bypass(host):
        return ""
    return urllib.request.getproxies().get(parts.scheme.lower(), "")
