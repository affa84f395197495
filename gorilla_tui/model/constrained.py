"""Constrained greedy decoding over a set of texts, step by step, on llama.cpp's KV cache.

What a GBNF grammar does for filling (fill/), without llama.cpp's grammar sampler: with Gemma 3's 262k
vocabulary that sampler checks every token against every live grammar stack and cost ~250 ms a token here
against ~40 ms unconstrained (2 cores). `Chooser.choose` walks the token trie of the options it is given:
a token every live option shares is appended without asking the model (batched with the next decode), and
only where the options branch does one decode give the logits to pick the likeliest branch. Greedy, as
temperature 0 under a grammar is.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

import numpy as np

from gorilla_tui.errors import ContextOverflowError, GorillaError


class Chooser:
    """A prompt in the KV cache that grows by the options chosen (LlamaBackend.chooser makes one).

    Args:
        llm: a llama_cpp.Llama; its KV cache is cleared first and when close() is called.
        prompt: the text the choices follow (BOS added, tokenized as plain text).
        decode: callable(tokens, first_pos, logits_at) -> None that runs llama_decode (the backend's, which
            governs threads); logits: callable(i) -> the logits row of batch index i of the last decode.
        cancel: set to stop (choose then raises AskCancelled-free GorillaError("cancelled")).
        done: how many of the prompt's first tokens the KV cache already holds (a cached prefix).

    Raises:
        ContextOverflowError: the prompt does not fit n_ctx.
    """

    def __init__(self, llm: Any, prompt: str, decode: Any, logits: Any,
                 cancel: threading.Event | None = None, done: int = 0) -> None:  # fmt: skip
        self._llm, self._decode, self._logits, self._cancel = llm, decode, logits, cancel
        self._pending = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)[done:]
        self._n_past = done
        self._n_ctx = int(llm.n_ctx())
        if len(self._pending) >= self._n_ctx:
            raise ContextOverflowError(f"fill prompt does not fit the model: {len(self._pending)} tokens")
        self.decodes = 0
        self.text = ""
        self._last: np.ndarray | None = None  # the log-softmax of the last decode

    def _tokens(self, text: str) -> list[int]:
        return list(self._llm.tokenize(text.encode("utf-8"), add_bos=False, special=False))

    def _flush(self) -> np.ndarray:
        """Decode the pending tokens (in chunks of n_batch) and return the log-softmax of the last one's
        logits (float64, shape (n_vocab,))."""
        if self._cancel is not None and self._cancel.is_set():
            raise GorillaError("cancelled")
        pending, self._pending = self._pending, []
        if not pending:  # the text was decoded up to its end already (an option ended at a branch)
            if self._last is None:
                raise GorillaError("nothing to decode")
            return self._last
        if self._n_past + len(pending) + 1 >= self._n_ctx:
            raise ContextOverflowError("the filled call does not fit the model's context")
        n_batch = int(self._llm.n_batch)
        for start in range(0, len(pending), n_batch):
            chunk = pending[start : start + n_batch]
            last = start + len(chunk) == len(pending)
            try:
                self._decode(chunk, self._n_past, {len(chunk) - 1} if last else set())
            except RuntimeError as e:
                raise GorillaError(f"llama.cpp failed while filling ({e})") from None
            self._n_past += len(chunk)
        self.decodes += 1
        row = np.asarray(self._logits(len(chunk) - 1), dtype=np.float64)
        top = row.max()
        self._last = row - top - np.log(np.exp(row - top).sum())
        return self._last

    def choose(self, options: Sequence[str], ends: Sequence[str] = (), bias: Sequence[float] = ()) -> int:
        """Index of the option the model continues the text with (greedy over the options' token trie), which
        is appended to the text. `ends`: texts that may follow a finished option (", " and ")" after a
        value): where one option is a token prefix of another ("1" and "10"), stopping is scored as the
        likeliest first token of an end. `bias`: nats added to each option's score where the options branch
        (a branch scores its best live option's bias). Raises ValueError for no options."""
        if not options:
            raise ValueError("choose needs at least one option")
        toks = [self._tokens(o) for o in options]
        end_first = {t[0] for t in (self._tokens(e) for e in ends) if t}
        alive = [i for i, t in enumerate(toks) if t]
        if not alive:
            return 0
        pos = 0
        while len(alive) > 1:
            done = [i for i in alive if len(toks[i]) == pos]
            going = [i for i in alive if len(toks[i]) > pos]
            nexts = {toks[i][pos] for i in going}
            if not done and len(nexts) == 1:  # every live option goes on with this token: no decode
                self._pending.append(toks[going[0]][pos])
                pos += 1
                continue
            logp = self._flush()
            extra = {t: max(_bias(bias, i) for i in going if toks[i][pos] == t) for t in nexts}
            best = max(nexts, key=lambda t: logp[t] + extra[t]) if nexts else None
            stop = (
                max((logp[t] for t in end_first), default=-np.inf) + _bias(bias, done[0]) if done else -np.inf
            )
            if best is None or (done and stop > logp[best] + extra[best]):
                alive = done[:1]
                break
            self._pending.append(best)
            alive = [i for i in going if toks[i][pos] == best]
            pos += 1
        chosen = alive[0]
        self._pending.extend(toks[chosen][pos:])
        self.text += options[chosen]
        return chosen

    def next_logprobs(self, texts: Sequence[str]) -> list[float]:
        """log p(first token of each text | the text so far) in nats, from one decode of what is pending
        (nothing is appended): the model's answer to a question the prompt ends with (" Yes" against " No",
        model/fit_question.py). A text with no token scores -inf."""
        logp = self._flush()
        firsts = [self._tokens(t)[:1] for t in texts]
        return [float(logp[f[0]]) if f else float("-inf") for f in firsts]


def _bias(bias: Sequence[float], i: int) -> float:
    return float(bias[i]) if i < len(bias) else 0.0
