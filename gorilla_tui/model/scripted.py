"""ScriptedBackend: a Backend that streams pre-set texts (for UI tests and demos, no model needed)."""

from __future__ import annotations

import re
import threading
import time
from collections.abc import Iterator, Sequence
from typing import Any

_PIECE = re.compile(r"\s*\S+|\s+")


class ScriptedBackend:
    """Streams `texts` in order, one per complete() call (the last one repeats), word by word.

    It honours max_tokens (one piece = one token), stop sequences (text is cut before the first one) and
    cancel (checked between pieces); it ignores grammar but records every call in `calls`
    (dicts with prompt, max_tokens, stop, grammar). delay: seconds slept before each piece.
    count_tokens is an estimate: one token per 4 characters, plus one for BOS.
    """

    def __init__(
        self, texts: Sequence[str], *, n_ctx: int = 4096, delay: float = 0.0, name: str = "scripted",
        family: str = "fewshot",
    ) -> None:  # fmt: skip
        if not texts:
            raise ValueError("ScriptedBackend needs at least one text")
        self.texts = list(texts)
        self._n_ctx = n_ctx
        self.delay = delay
        self.name = name
        self.family = family
        self.calls: list[dict[str, Any]] = []
        self.last_stats: dict[str, Any] = {}

    @property
    def n_ctx(self) -> int:
        return self._n_ctx

    def count_tokens(self, text: str) -> int:
        return len(text) // 4 + 1

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        grammar: str | None = None,
        temperature: float = 0.0,
        cancel: threading.Event | None = None,
    ) -> Iterator[str]:
        """Yield the next scripted text piece by piece (see class docstring)."""
        self.calls.append(
            {"prompt": prompt, "max_tokens": max_tokens, "stop": list(stop), "grammar": grammar}
        )
        text = self.texts[min(len(self.calls) - 1, len(self.texts) - 1)]
        cuts = [text.find(s) for s in stop if s and s in text]
        if cuts:
            text = text[: min(cuts)]
        pieces = _PIECE.findall(text)[:max_tokens]
        sent = 0
        for piece in pieces:
            if cancel is not None and cancel.is_set():
                break
            if self.delay:
                time.sleep(self.delay)
            sent += 1
            yield piece
        self.last_stats = {
            "generated_tokens": sent,
            "cancelled": bool(cancel is not None and cancel.is_set()),
        }
