"""What an OpenAI-compatible completions server's replies mean (model/remote.py does the HTTP): a whole
completion object sent instead of an event stream, the JSON of a scoring reply, and the prompt
log-probabilities in it (OpenAI's legacy echo format, choices[0].logprobs.{tokens, token_logprobs,
text_offset}, or vLLM's prompt_logprobs), and the shape of each event of a stream. Every failure is one
EndpointError line (exit 1: a failed answer; in `eval run` a failed task); text from the server is passed
through safe_text."""

from __future__ import annotations

import json
from typing import Any

from gorilla_tui.model.remote_http import EndpointError
from gorilla_tui.textsafe import safe_text

#: Largest reply read while scoring (one prompt echoed with its log-probabilities: vLLM's prompt_logprobs
#: take about 200 bytes a token, 6.4 MB for a 32,768-token context).
MAX_SCORING_BYTES = 32 * 2**20
#: Largest reply kept when an endpoint answers with no event stream (a whole completion object); the
#: most a model writes here is max_tokens (256 by default), a few KiB of JSON.
MAX_PLAIN_BYTES = 4 * 2**20


#: Bytes of event stream allowed per token asked for (stream_cap): an event of llama.cpp's or vLLM's
#: servers is 200-500 bytes of JSON for one token.
STREAM_BYTES_PER_TOKEN = 16 * 2**10


def stream_cap(max_tokens: int) -> int:
    """The most bytes of event stream read for an answer of at most `max_tokens` tokens: 16 KiB a token,
    at least MAX_PLAIN_BYTES (4 MiB for the default 256 tokens). A 200 MB stream was kept whole (issue 42)."""
    return max(MAX_PLAIN_BYTES, STREAM_BYTES_PER_TOKEN * max_tokens)


def stream_too_long(url: str, cap: int, max_tokens: int) -> str:
    """The message for a stream past stream_cap(max_tokens) bytes."""
    return (
        f"endpoint {url} sent over {cap / 2**20:g} MiB of events for an answer of at most {max_tokens} "
        "tokens; the rest was not read"
    )


def event_text(url: str, data: str) -> str:
    """The text of one server-sent event's data (a completion chunk: {"choices": [{"text": str}, ...]});
    "" for a chunk with no text (no "text", null, or "choices": [] as in OpenAI's usage chunk).

    Raises:
        EndpointError: the data is no JSON, nested too deeply, an error object, or of another shape
            (`{"choices": ["x"]}` was "internal error: AttributeError" and ended a whole `eval run`).
    """
    event = _json(data.encode("utf-8", "replace"))
    if isinstance(event, dict) and isinstance(event.get("error"), (dict, str)):
        err = event["error"]
        msg = err.get("message", err) if isinstance(err, dict) else err
        raise EndpointError(f"endpoint {url} answered with an error: {safe_text(str(msg)[:200])}")
    choices = event.get("choices") if isinstance(event, dict) else None
    if isinstance(choices, list) and not choices:
        return ""
    text = choices[0].get("text") if isinstance(choices, list) and isinstance(choices[0], dict) else 0
    if text is None or isinstance(text, str):
        return text or ""
    raise EndpointError(f"endpoint {url} sent a malformed event: {safe_text(data[:80])}")


def _json(raw: bytes) -> Any:
    """json.loads(raw), or None for text that is no JSON or is nested too deeply to read (JSON nested
    100000 deep raised RecursionError, break-it pass 11)."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def plain_answer(url: str, raw: bytes, size: int) -> str:
    """The text of a reply that is no event stream: a server that ignores "stream": true sends one
    completion object, which is used; anything else was taken for an empty answer ("the model gave no
    API call", break-it pass 10) and is now one line saying what the server sent instead.

    Args:
        url: the endpoint, for the message.
        raw: the reply's first bytes (at most MAX_PLAIN_BYTES + 1 are read).
        size: how many bytes were read.

    Raises:
        EndpointError: a reply over MAX_PLAIN_BYTES, an error object, or no completion.
    """
    if size > MAX_PLAIN_BYTES:
        raise EndpointError(
            f"endpoint {url} sent no event stream but a reply over {MAX_PLAIN_BYTES // 2**20} MiB"
        )
    data = _json(raw)
    if isinstance(data, dict) and isinstance(data.get("error"), (dict, str)):
        err = data["error"]
        msg = err.get("message", err) if isinstance(err, dict) else err
        raise EndpointError(f"endpoint {url} answered with an error: {safe_text(str(msg)[:200])}")
    try:
        text = data["choices"][0]["text"]  # type: ignore[index]
        if isinstance(text, str):
            return text
    except (KeyError, IndexError, TypeError):
        pass
    shown = safe_text(raw[:80].decode("utf-8", "replace"))
    raise EndpointError(f"endpoint {url} sent no completion (neither an event stream nor one): {shown}")


def scoring_json(url: str, raw: bytes) -> Any:
    """The JSON of one scoring reply (at most MAX_SCORING_BYTES + 1 bytes read). Raises EndpointError for a
    reply over MAX_SCORING_BYTES or one that is no JSON."""
    if len(raw) > MAX_SCORING_BYTES:
        raise EndpointError(
            f"endpoint {url} sent a reply over {MAX_SCORING_BYTES // 2**20} MiB while scoring"
        )
    data = _json(raw)
    if data is None and raw.strip() != b"null":
        raise EndpointError(f"endpoint {url} sent no JSON while scoring: {safe_text(repr(raw[:80]))}")
    return data


def _tokens_and_offsets(choice: dict[str, Any]) -> tuple[list[Any], list[int]] | None:
    """(log-probabilities, character offsets) of the echoed tokens from either format, or None."""
    lp = choice.get("logprobs")
    if isinstance(lp, dict) and isinstance(lp.get("token_logprobs"), list):
        values, offsets = lp["token_logprobs"], lp.get("text_offset")
        if not isinstance(offsets, list):  # rebuild the offsets from the token texts
            offsets, at = [], 0
            for token in lp.get("tokens") or []:
                offsets.append(at)
                at += len(str(token))
        return values, [int(o) for o in offsets]
    plp = choice.get("prompt_logprobs")  # vLLM: [None, {token_id: {logprob, rank, decoded_token}}, ...]
    if isinstance(plp, list):
        values, offsets, at = [], [], 0
        for entry in plp:
            offsets.append(at)
            if not isinstance(entry, dict) or not entry:
                values.append(None)
                continue
            first = next(iter(entry.values()))  # the prompt's own token comes first
            values.append(first.get("logprob") if isinstance(first, dict) else None)
            at += len(str(first.get("decoded_token") or "")) if isinstance(first, dict) else 0
        return values, offsets
    return None


def prompt_logprob(data: Any, *, start: int, end: int, url: str = "the endpoint") -> float:
    """Sum of the log-probabilities (nats) of the echoed prompt tokens whose character offset is in
    [start, end) in a completions response `data` (OpenAI echo format, or vLLM's prompt_logprobs).
    Raises EndpointError when the response holds no prompt log-probabilities or none for that span."""
    try:
        choice = data["choices"][0]
    except (KeyError, IndexError, TypeError):
        raise EndpointError(f"{url} sent a completion without choices while scoring") from None
    found = _tokens_and_offsets(choice if isinstance(choice, dict) else {})
    if found is None and isinstance(data, dict) and isinstance(data.get("prompt_logprobs"), list):
        found = _tokens_and_offsets({"prompt_logprobs": data["prompt_logprobs"]})
    if found is None:
        raise EndpointError(f"{url} returns no prompt log-probabilities (echo + logprobs)")
    values, offsets = found
    picked = [v for v, o in zip(values, offsets, strict=False) if start <= o < end]
    if not picked or any(not isinstance(v, (int, float)) for v in picked):
        raise EndpointError(f"{url} returned no log-probabilities for the scored text")
    return float(sum(picked))
