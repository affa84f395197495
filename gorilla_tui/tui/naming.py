"""Display names of pool entries: the api_name, or the api_call's identifying argument if it is generic."""

from __future__ import annotations

from functools import lru_cache
from urllib.parse import urlparse

from gorilla_tui.check.callsite import scan
from gorilla_tui.check.signature import bind, canonical, family, primary_call
from gorilla_tui.pool.doc import ApiDoc

#: api_names that name no particular API (lowercase). APIBench TensorFlow Hub has 181 entries named
#: "model_id" and Torch Hub 14 named "torch.hub.load" (/work/shared/apibench/api, counted 2026-11).
GENERIC_NAMES = frozenset(
    {"model_id", "model", "model_name", "api_name", "torch.hub.load", "hub.load", "hub.keraslayer"}
)


def handle_tail(url: str) -> str:
    """The distinctive part of a model handle URL: its path without the publisher, e.g.
    'https://tfhub.dev/google/imagenet/mobilenet_v2_130_224/classification/5' ->
    'imagenet/mobilenet_v2_130_224/classification/5'. Not a URL: returned stripped of slashes."""
    parsed = urlparse(url.strip())
    if not parsed.scheme or not parsed.netloc:
        return url.strip().strip("/")
    parts = [p for p in parsed.path.split("/") if p]
    if len(parts) >= 3:
        parts = parts[1:]  # the publisher ("google", "tensorflow") is shared by most handles
    return "/".join(parts) or parsed.netloc


@lru_cache(maxsize=4096)
def identifying_argument(api_call: str) -> str:
    """The argument that tells one API of a call family from another, as text ("" when there is none):
    the handle's path tail for hub.KerasLayer / hub.load, model= (2nd positional) for torch.hub.load,
    the model id for from_pretrained, model= (else the task) for pipeline. The call is parsed with
    tree-sitter (check.callsite.scan), never evaluated; families are check.signature's (sources there)."""
    call = primary_call(scan(api_call).calls)
    if call is None:
        return ""
    callee = canonical(call.callee)
    params = family(callee)
    if params is None:
        return ""
    bound = bind(call, params)
    if callee in ("hub.KerasLayer", "hub.load"):
        return handle_tail(bound.get("handle", ""))
    if callee == "torch.hub.load":
        return bound.get("model", "")
    if callee == "pipeline":
        return bound.get("model") or bound.get("task", "")
    return bound.get(params[0], "")


def is_generic(doc: ApiDoc) -> bool:
    """True when doc.api_name does not identify the API: empty, a generic word (GENERIC_NAMES), or the
    api_call's callee (or its last part)."""
    name = doc.api_name.strip()
    if not name or name.lower() in GENERIC_NAMES:
        return True
    callee = doc.api_call.split("(", 1)[0].strip()
    return name in (callee, callee.rsplit(".", 1)[-1])


def display_name(doc: ApiDoc) -> str:
    """What to call `doc` in the hits table and the matched-API card: its api_name, unless generic (see
    :func:`is_generic`); then the identifying argument of its api_call, else the callee, else the api_name."""
    if not is_generic(doc):
        return doc.api_name.strip()
    ident = identifying_argument(doc.api_call) if doc.kind == "python" else ""
    return ident or doc.api_name.strip() or doc.api_call.split("(", 1)[0].strip()
