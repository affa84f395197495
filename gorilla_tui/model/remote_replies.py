"""What an OpenAI-compatible completions server's replies mean (model/remote.py does the HTTP): a whole
completion object sent instead of an event stream, the JSON of a scoring reply, and the prompt
log-probabilities in it (OpenAI's legacy echo format, choices[0].logprobs.{tokens, token_logprobs,
text_offset}, or vLLM's prompt_logprobs), and the shape of each event of a stream. Every failure is one
EndpointError line (exit 1: a failed answer; in `eval run` a failed task); text from the server enters it
through shown() (control characters and newlines escaped)."""

from __future__ import annotations

import json
import math
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


#: Characters of answer text taken per token asked for (text_cap). A token of the tokenizers in use
#: (Gemma's, Llama's, GPT-2's BPE) is about 4 characters of English or code on average and its longest
#: pieces (runs of spaces, long words) are a few dozen; 64 a token leaves room for any real answer.
TEXT_CHARS_PER_TOKEN = 64


def text_cap(max_tokens: int) -> int:
    """The most characters of answer text taken for an answer of at most `max_tokens` tokens:
    TEXT_CHARS_PER_TOKEN each (16,384 for the default 256), at least TEXT_CHARS_PER_TOKEN. The text past
    it is dropped quietly, like the pieces past max_tokens: a server that sent one 2.4 MB event (under the
    4 MiB byte cap) had it kept whole (36 s and 1.4 GB downstream; issue 42, break-it round 6)."""
    return TEXT_CHARS_PER_TOKEN * max(1, max_tokens)


#: Lines without an event read from a reply, besides two per event (the blank line that ends each, and
#: a comment or a field): a stream's separators and keep-alive comments, or the lines of a completion
#: object sent whole (a few dozen pretty-printed). 4 MiB of "\n" under the byte caps were 4 million
#: lines, read one call each (8-10 s; break-it round 7).
MAX_IDLE_LINES = 4096


def too_many_lines(url: str) -> str:
    """The message for a reply past MAX_IDLE_LINES lines that hold no event."""
    return f"endpoint {url} sent over {MAX_IDLE_LINES} lines that hold no event; the rest was not read"


def stream_too_long(url: str, cap: int, max_tokens: int) -> str:
    """The message for a stream past stream_cap(max_tokens) bytes."""
    return (
        f"endpoint {url} sent over {cap / 2**20:g} MiB of events for an answer of at most {max_tokens} "
        "tokens; the rest was not read"
    )


def shown(text: str, limit: int = 200) -> str:
    """Text a server sent, as it goes into a one-line EndpointError: its first `limit` characters with every
    control character escaped and newlines too (safe_text, one line): an error object's message with
    newlines forged lines of its own after "gorilla-tui: error:" (break-it round 7). The one way server
    text enters a message of model/remote*.py."""
    return safe_text(text[:limit])


def cut_short(resp: Any, received: int) -> str:
    """Why the body of `resp` (an http.client.HTTPResponse read to its end, `received` bytes) is not a whole
    reply, or "": fewer bytes than its Content-Length, chunked framing that broke off (after a bad chunk
    size http.client closes the body with its chunk unfinished; a whole body ends on the last chunk, which
    leaves chunk_left None), or no byte at all. http.client's readline() ends quietly at each, so a cut
    answer was judged as the model's ("unparseable", "the model gave no API call"; break-it pass 4)."""
    left = getattr(resp, "length", None)
    if isinstance(left, int) and left > 0:
        return f"the body ended {left} bytes short of its Content-Length"
    if getattr(resp, "chunked", False) and getattr(resp, "chunk_left", None) is not None:
        return "the chunked body broke off before its last chunk"
    if not received:
        return "the reply ended before any event or completion"
    return ""


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
        raise EndpointError(f"endpoint {url} answered with an error: {shown(str(msg))}")
    choices = event.get("choices") if isinstance(event, dict) else None
    if isinstance(choices, list) and not choices:
        return ""
    text = choices[0].get("text") if isinstance(choices, list) and isinstance(choices[0], dict) else 0
    if text is None or isinstance(text, str):
        return text or ""
    raise EndpointError(f"endpoint {url} sent a malformed event: {shown(data, 80)}")


def _json(raw: bytes) -> Any:
    """json.loads(raw), or None for text that is no JSON or is nested too deeply to read (JSON nested
    100000 deep raised RecursionError, break-it pass 11)."""
    try:
        return json.loads(raw)
    except (ValueError, RecursionError):
        return None


def plain_answer(url: str, raw: bytes, size: int, max_tokens: int) -> str:
    """The text of a reply that is no event stream: a server that ignores "stream": true sends one
    completion object, whose text is used up to text_cap(max_tokens) characters (the rest is dropped,
    as in a stream); anything else was taken for an empty answer ("the model gave no API call", break-it
    pass 10) and is now one line saying what the server sent instead.

    Args:
        url: the endpoint, for the message.
        raw: the reply's first bytes (at most MAX_PLAIN_BYTES + 1 are read).
        size: how many bytes were read.
        max_tokens: the tokens asked for (text_cap).

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
        raise EndpointError(f"endpoint {url} answered with an error: {shown(str(msg))}")
    try:
        text = data["choices"][0]["text"]  # type: ignore[index]
        if isinstance(text, str):
            return text[: text_cap(max_tokens)]
    except (KeyError, IndexError, TypeError):
        pass
    body = shown(raw[:80].decode("utf-8", "replace"), 80)
    raise EndpointError(f"endpoint {url} sent no completion (neither an event stream nor one): {body}")


def token_count(raw: bytes) -> int | None:
    """How many tokens a tokenizer reply ({"tokens": [...]}, llama-cpp-python's /extras/tokenize and
    llama-server's /tokenize) lists, or None for a reply of any other shape (the caller then estimates)."""
    data = _json(raw)
    tokens = data.get("tokens") if isinstance(data, dict) else None
    return len(tokens) if isinstance(tokens, list) else None


def scoring_json(url: str, raw: bytes) -> Any:
    """The JSON of one scoring reply (at most MAX_SCORING_BYTES + 1 bytes read). Raises EndpointError for a
    reply over MAX_SCORING_BYTES or one that is no JSON."""
    if len(raw) > MAX_SCORING_BYTES:
        raise EndpointError(
            f"endpoint {url} sent a reply over {MAX_SCORING_BYTES // 2**20} MiB while scoring"
        )
    data = _json(raw)
    if data is None and raw.strip() != b"null":
        raise EndpointError(f"endpoint {url} sent no JSON while scoring: {shown(repr(raw[:80]))}")
    return data


class _Malformed(ValueError):
    """A reply field of the wrong type or shape (turned into EndpointError by prompt_logprob)."""


def _number(value: Any, what: str) -> float:
    """`value` as a finite float: a JSON number (not a bool) whose float is finite, else _Malformed (a
    400-digit integer was OverflowError, NaN and Infinity are no log-probabilities)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise _Malformed(f"{what} is {type(value).__name__}, not a number")
    try:
        number = float(value)
    except OverflowError:
        number = math.inf
    if not math.isfinite(number):
        raise _Malformed(f"{what} is not a finite number")
    return number


def _offset(value: Any, what: str) -> int:
    """`value` as a character offset: a non-negative JSON integer (not a bool), else _Malformed."""
    if isinstance(value, bool) or not isinstance(value, int) or value < 0:
        raise _Malformed(f"{what} is {shown(repr(value), 40)}, not an offset")
    return value


def _list(value: Any, what: str) -> list[Any]:
    if not isinstance(value, list):
        raise _Malformed(f"{what} is {type(value).__name__}, not a list")
    return value


def _tokens_and_offsets(choice: dict[str, Any]) -> tuple[list[float | None], list[int]] | None:
    """(log-probabilities, character offsets) of the echoed tokens from either format, or None when the
    choice holds neither. Every field is shape-checked here, the one place a scoring reply is read:
    token_logprobs a list of finite numbers (null for the first token, which has none), text_offset a
    list of offsets of the same length (or, when absent, rebuilt from `tokens`, a list of strings of that
    length); vLLM's prompt_logprobs a list of null or {token_id: {"logprob": number, "decoded_token":
    str}}. Raises _Malformed (with what is wrong) for any other shape."""
    lp = choice.get("logprobs")
    if isinstance(lp, dict) and "token_logprobs" in lp:
        raw = _list(lp["token_logprobs"], "logprobs.token_logprobs")
        values = [None if v is None else _number(v, f"token_logprobs[{i}]") for i, v in enumerate(raw)]
        offsets_raw = lp.get("text_offset")
        if offsets_raw is not None:
            offsets = [
                _offset(o, f"text_offset[{i}]") for i, o in enumerate(_list(offsets_raw, "text_offset"))
            ]
        else:  # rebuild the offsets from the token texts
            tokens = _list(lp.get("tokens"), "logprobs.tokens (no text_offset)")
            offsets, at = [], 0
            for i, token in enumerate(tokens):
                if not isinstance(token, str):
                    raise _Malformed(f"tokens[{i}] is {type(token).__name__}, not a string")
                offsets.append(at)
                at += len(token)
        if len(offsets) != len(values):
            raise _Malformed(f"{len(values)} token_logprobs but {len(offsets)} offsets")
        return values, offsets
    plp = choice.get("prompt_logprobs")  # vLLM: [None, {token_id: {logprob, rank, decoded_token}}, ...]
    if plp is None:
        return None
    values, offsets, at = [], [], 0
    for i, entry in enumerate(_list(plp, "prompt_logprobs")):
        offsets.append(at)
        if entry is None or entry == {}:
            values.append(None)
            continue
        if not isinstance(entry, dict):
            raise _Malformed(f"prompt_logprobs[{i}] is {type(entry).__name__}, not an object")
        first = next(iter(entry.values()))  # the prompt's own token comes first
        if not isinstance(first, dict):
            raise _Malformed(f"prompt_logprobs[{i}] holds {type(first).__name__}, not an object")
        values.append(_number(first.get("logprob"), f"prompt_logprobs[{i}].logprob"))
        token = first.get("decoded_token")
        if token is not None and not isinstance(token, str):
            raise _Malformed(f"prompt_logprobs[{i}].decoded_token is {type(token).__name__}, not a string")
        at += len(token or "")
    return values, offsets


def malformed(url: str, what: str) -> EndpointError:
    """The one line for a reply of the wrong shape: "endpoint URL sent a malformed reply: WHAT"."""
    return EndpointError(f"endpoint {url} sent a malformed reply: {what}")


def prompt_logprob(data: Any, *, start: int, end: int, url: str = "the endpoint") -> float:
    """Sum of the log-probabilities (nats) of the echoed prompt tokens whose character offset is in
    [start, end) in a completions response `data` (OpenAI echo format, or vLLM's prompt_logprobs).

    Raises:
        EndpointError: the response holds no prompt log-probabilities or none for that span, or a field
            of the wrong type or shape ("sent a malformed reply: ..."; `tokens: 5`, a text_offset of
            "zz" or a 400-digit log-probability were TypeError, ValueError and OverflowError, "internal
            error" that ended a whole `eval run`; break-it pass 4).
    """
    choices = data.get("choices") if isinstance(data, dict) else None
    if not isinstance(choices, list) or not choices:
        raise EndpointError(f"{url} sent a completion without choices while scoring") from None
    choice = choices[0]
    try:
        if not isinstance(choice, dict):
            raise _Malformed(f"choices[0] is {type(choice).__name__}, not an object")
        found = _tokens_and_offsets(choice)
        if found is None and isinstance(data.get("prompt_logprobs"), list):
            found = _tokens_and_offsets({"prompt_logprobs": data["prompt_logprobs"]})
        if found is None:
            raise EndpointError(f"{url} returns no prompt log-probabilities (echo + logprobs)")
        values, offsets = found
        picked = [v for v, o in zip(values, offsets, strict=True) if start <= o < end]
        if not picked or any(v is None for v in picked):
            raise EndpointError(f"{url} returned no log-probabilities for the scored text")
        total = math.fsum(v for v in picked if v is not None)
        if not math.isfinite(total):
            raise _Malformed("the log-probabilities sum to no finite number")
    except _Malformed as e:
        raise malformed(url, str(e)) from None
    return total
