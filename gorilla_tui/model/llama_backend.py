"""The llama.cpp backend: a local GGUF model through llama-cpp-python (imported lazily, its logging kept
quiet); model/backend.py opens it (open_llama_backend) after the probe."""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import numpy as np

from gorilla_tui.errors import ContextOverflowError, GorillaError
from gorilla_tui.model import registry as models
from gorilla_tui.model.constrained import Chooser
from gorilla_tui.model.llama_callbacks import prompt_eval_abort as _prompt_eval_abort
from gorilla_tui.model.llama_callbacks import quiet_llama_logs
from gorilla_tui.model.llama_callbacks import raise_pending_interrupt as _raise_pending_interrupt
from gorilla_tui.model.llama_callbacks import sigint_after_load as _sigint_after_load
from gorilla_tui.model.registry import check_gguf
from gorilla_tui.model.threads import ThreadGovernor

#: How many chooser prefixes a LlamaBackend keeps evaluated (fill's few-shot examples, the fit question's):
#: each is ~18 KB of KV state per token with Gemma 3 270M, a few MB in all.
KEPT_PREFIXES = 4
#: Most rows of logits one decode of loglikelihoods asks for: llama.cpp's output buffer grows to the largest
#: such count and is kept, n_vocab floats a row (262,144 x 4 bytes = 1 MB for Gemma 3): scoring a task of
#: 400 tokens in one decode held ~0.4 GB more (break-it round 15, P1). 64 rows make it 64 MB.
LOGIT_ROWS = 64


class LlamaBackend:
    """llama.cpp through llama-cpp-python's Llama.create_completion(stream=True), one model per instance.

    model_path: a GGUF file (checked with models.check_gguf first); params: Llama() keyword arguments
    (kernels.runtime_params: n_ctx, n_threads, n_gpu_layers, n_batch, flash_attn, use_mmap, ...) plus
    use_extra_bufts (bool, set on llama_model_params by model/llama_internals.new_llama).
    Raises GorillaError (one line) for a missing/truncated/non-GGUF file, a model llama.cpp cannot load (or
    not in the memory left), or a chat template that Jinja cannot compile. load_seconds: wall time of Llama().
    The KV cache keeps the previous prompt: Llama.generate reuses the longest common token prefix, so a prompt
    that starts with the same fixed text only evaluates the new suffix (see last_stats["prompt_eval_tokens"]).
    Calls are serialised with a lock (one llama context per instance).
    warnings: one-line notes for the user (e.g. kernels.offload_warning), copied into Proposal.warnings.
    Ctrl+C during loading raises KeyboardInterrupt once Llama() returns (_sigint_after_load).
    """

    def __init__(
        self,
        model_path: Path | str,
        *,
        params: dict[str, Any] | None = None,
        name: str = "",
        family: str = "fewshot",
    ) -> None:
        path = Path(model_path)
        check_gguf(path)
        quiet_llama_logs()
        import jinja2  # deferred: only with llama_cpp, which needs it

        from gorilla_tui.model import llama_internals  # heavy: loads libllama (~0.1 s)

        params = dict(params or {})
        params.setdefault("n_ctx", 4096)
        start = time.perf_counter()
        try:
            with _sigint_after_load():
                self._llm = llama_internals.new_llama(str(path), params)
        except jinja2.TemplateError as e:
            raise GorillaError(f"{path}: the model's chat template is broken (Jinja: {e})") from None
        except MemoryError as e:  # e.g. a huge n_batch: llama-cpp-python allocates n_batch x n_vocab logits
            raise GorillaError(
                f"{path}: not enough memory to load this model with {params} ({e})",
                hint="lower n_ctx / n_batch in config.toml",
            ) from None
        except (ValueError, RuntimeError, OSError) as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            error = (
                models.ModelFileError if models.LOAD_FAILED in msg else GorillaError
            )  # the file, not the build
            raise error(f"{path}: llama.cpp cannot load this model ({msg})") from None
        self.load_seconds = time.perf_counter() - start
        self.path = path
        self.params = params
        self.name = name or path.name
        self.family = family
        self.last_stats: dict[str, Any] = {}
        self.warnings: list[str] = []
        self._lock = threading.Lock()
        #: chooser's kept prefixes: tokens -> KV state (fill's few-shot prefix, the fit question's)
        self._prefix_states: dict[tuple[int, ...], bytes] = {}
        #: one thread while the CPU is contended (model/threads.py); begin()/end() around every decode
        counts = llama_internals.thread_counts(self._llm)
        self.threads = ThreadGovernor(lambda n, nb: llama_internals.set_threads(self._llm, n, nb), *counts)

    @property
    def n_ctx(self) -> int:
        """Context size in tokens (llama_n_ctx)."""
        return int(self._llm.n_ctx())

    @property
    def llama(self) -> Any:
        """The underlying llama_cpp.Llama (for benchmarks and doctor)."""
        return self._llm

    def count_tokens(self, text: str) -> int:
        """Tokens `text` takes as a prompt: BOS + tokenize(special=True), as create_completion counts them."""
        return len(self._llm.tokenize(text.encode("utf-8"), add_bos=True, special=True))

    def _perf(self) -> tuple[int, int, float]:
        from gorilla_tui.model import llama_internals  # deferred: loads libllama

        return llama_internals.perf(self._llm)

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
        """Stream the completion (see Backend). The GBNF grammar is compiled and passed on this call
        (llama-cpp-python ignores a grammar set as an attribute). Raises GorillaError for a bad grammar or a
        prompt longer than n_ctx."""
        from gorilla_tui.model import llama_internals  # deferred: loads libllama (load_llama_cpp)
        from gorilla_tui.model.llama_internals import llama_cpp

        compiled = None
        if grammar:
            # llama-cpp-python does not check a grammar and a bad one crashes the process (SIGSEGV)
            problem = llama_internals.grammar_error(self._llm, grammar)
            if problem:
                raise GorillaError(f"invalid GBNF grammar: {problem}")
            compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
        with self._lock:
            llama_internals.perf_reset(self._llm)
            stream = self._llm.create_completion(
                prompt,
                max_tokens=max_tokens,
                stop=list(stop) or None,
                temperature=temperature,
                top_k=1 if temperature <= 0 else 40,
                repeat_penalty=1.0,
                grammar=compiled,
                stream=True,
            )
            pieces = 0
            # prompt evaluation is one long C call: let cancel (or Ctrl+C) abort it
            abort = _prompt_eval_abort(self._llm, cancel or threading.Event())
            self.threads.begin()  # each chunk is one decode (the first: the prompt's evaluation)
            try:
                for chunk in stream:
                    self.threads.end()
                    if abort is not None:  # the prompt is in: from here cancel is checked between tokens
                        abort = _prompt_eval_abort(self._llm, None)
                    _raise_pending_interrupt()
                    if cancel is not None and cancel.is_set():
                        break
                    text = chunk["choices"][0]["text"]
                    if text:
                        pieces += 1
                        yield text
                    if cancel is not None and cancel.is_set():  # set while the caller held the piece
                        break
                    self.threads.begin()
            except RuntimeError as e:  # "llama_decode returned 2": aborted by _prompt_eval_abort
                _raise_pending_interrupt()
                if cancel is None or not cancel.is_set():
                    raise GorillaError(f"llama.cpp failed while generating ({e})") from None
            except ValueError as e:  # "Requested tokens (N) exceed context window of M"
                raise GorillaError(f"prompt does not fit the model: {e}") from None
            finally:
                if abort is not None:
                    _prompt_eval_abort(self._llm, None)
                stream.close()
                p_eval, n_eval, t_p_ms = self._perf()
                self.last_stats = {
                    "prompt_tokens": self.count_tokens(prompt),
                    "prompt_eval_tokens": p_eval,
                    "generated_tokens": n_eval,
                    "prompt_eval_ms": t_p_ms,
                    "cancelled": bool(cancel is not None and cancel.is_set()),
                }

    def loglikelihoods(
        self, contexts: Sequence[str], continuation: str, cancel: threading.Event | None = None
    ) -> list[float]:
        """log p(continuation | context) for each context, in nats (sum over the continuation's tokens; the
        same continuation tokens for every context, so the values compare directly). One float per context.

        The contexts' common token prefix is evaluated once and kept in the KV cache; each context's own
        tokens and the continuation are then evaluated with logits only at the positions that predict a
        continuation token (the LM head over Gemma 3's 262k vocabulary is most of the cost). Contexts get
        BOS and are tokenized as plain text (special=False). Stops early when `cancel` is set (the list is
        then shorter than `contexts`). Raises ContextOverflowError when a context + continuation exceeds
        n_ctx, GorillaError when llama.cpp fails; KeyboardInterrupt for a Ctrl+C caught by llama.cpp's log
        callback."""
        llm = self._llm
        if not contexts:
            return []
        tok = [llm.tokenize(c.encode("utf-8"), add_bos=True, special=False) for c in contexts]
        cont = llm.tokenize(continuation.encode("utf-8"), add_bos=False, special=False)
        if not cont:
            return [0.0] * len(contexts)
        longest = max(len(t) for t in tok) + len(cont)
        if longest > self.n_ctx:
            raise ContextOverflowError(
                f"text to score does not fit the model: {longest} tokens > n_ctx {self.n_ctx}"
            )
        shared = 0  # common prefix, leaving every context at least one token of its own
        limit = min(len(t) for t in tok) - 1
        while shared < limit and all(t[shared] == tok[0][shared] for t in tok):
            shared += 1
        from gorilla_tui.model import llama_internals as li  # deferred: loads libllama

        scores: list[float] = []
        with self._lock:
            li.kv_clear(llm)  # also resets Llama's prefix-reuse bookkeeping, which no longer matches
            try:
                self._decode(tok[0][:shared], shared_pos=0, targets={})
                for t in tok:
                    _raise_pending_interrupt()
                    if cancel is not None and cancel.is_set():
                        break
                    li.kv_truncate(llm, shared)
                    rest = t[shared:] + cont
                    own = len(t) - shared
                    targets = {j: rest[j + 1] for j in range(own - 1, len(rest) - 1)}
                    total = self._decode(rest, shared_pos=shared, targets=targets)
                    scores.append(total)
            except RuntimeError as e:  # llama_decode failed
                raise GorillaError(f"llama.cpp failed while scoring ({e})") from None
            finally:
                li.kv_clear(llm)
            self.last_stats = {"scored_contexts": len(scores), "prompt_eval_tokens": shared + sum(
                len(t) - shared + len(cont) for t in tok[: len(scores)])}  # fmt: skip
        return scores

    @contextlib.contextmanager
    def chooser(
        self, prompt: str, cancel: threading.Event | None = None, prefix: str = ""
    ) -> Iterator[Chooser]:
        """A model.constrained.Chooser over `prompt`: constrained greedy decoding among given texts, step by
        step (fill/ writes a call's arguments with it). Holds the backend's lock while open; the KV cache
        is cleared before and after. `prefix`: fixed text `prompt` starts with (fill's few-shot examples):
        its KV cache is kept after its first evaluation and put back on the next call instead of evaluating
        it again (llama_state_seq_get_data). Raises ContextOverflowError when the prompt does not fit
        n_ctx."""
        from gorilla_tui.model import llama_internals as li  # deferred: loads libllama

        llm = self._llm

        def decode(tokens: Sequence[int], first_pos: int, logits_at: set[int]) -> None:
            self.threads.begin()
            try:
                li.decode(llm, tokens, first_pos=first_pos, logits_at=logits_at)
            finally:
                self.threads.end()
            _raise_pending_interrupt()

        with self._lock:
            li.kv_clear(llm)
            try:
                done = self._cached_prefix(prompt, prefix, li) if prefix and prompt.startswith(prefix) else 0
                chooser = Chooser(llm, prompt, decode, lambda i: li.logits_row(llm, i), cancel, done)
                yield chooser
                self.last_stats = {"fill_decodes": chooser.decodes}
            finally:
                li.kv_clear(llm)

    def _cached_prefix(self, prompt: str, prefix: str, li: Any) -> int:
        """Empty the KV cache and put `prefix`'s evaluated tokens in it (from the kept state, or evaluated now
        and kept); returns how many tokens it holds, 0 when the prompt's tokens do not start with the
        prefix's. Called by chooser with the lock held and the cache empty."""
        llm = self._llm
        tokens = llm.tokenize(prefix.encode("utf-8"), add_bos=True, special=False)
        head = llm.tokenize(prompt.encode("utf-8"), add_bos=True, special=False)[: len(tokens)]
        if head != tokens or len(tokens) >= self.n_ctx:
            return 0
        kept = self._prefix_states.get(tuple(tokens))
        if kept is not None and li.set_seq_state(llm, kept):
            return len(tokens)
        li.kv_clear(llm)
        n_batch = int(llm.n_batch)
        for start in range(0, len(tokens), n_batch):
            self.threads.begin()
            try:
                li.decode(llm, tokens[start : start + n_batch], first_pos=start, logits_at=set())
            finally:
                self.threads.end()
        if len(self._prefix_states) >= KEPT_PREFIXES:  # the oldest goes (a dict keeps insertion order)
            self._prefix_states.pop(next(iter(self._prefix_states)))
        self._prefix_states[tuple(tokens)] = li.seq_state(llm)
        return len(tokens)

    def _decode(self, tokens: Sequence[int], *, shared_pos: int, targets: dict[int, int]) -> float:
        """llama_decode `tokens` at positions shared_pos.. on sequence 0, in chunks of n_batch, with logits
        only at the indices in `targets`; returns the sum over targets of log p(targets[j] | tokens[:j + 1])
        in nats (log-softmax over the whole vocabulary, in float64)."""
        from gorilla_tui.model import llama_internals as li  # deferred: loads libllama

        llm, total, start = self._llm, 0.0, 0
        while start < len(tokens):  # at most LOGIT_ROWS rows of logits a decode: llama.cpp keeps a buffer
            end = min(start + int(llm.n_batch), len(tokens))  # of n_vocab floats for each (1 MB for Gemma 3)
            rows = [j for j in range(start, end) if j in targets]
            end = rows[LOGIT_ROWS - 1] + 1 if len(rows) > LOGIT_ROWS else end
            chunk, first = tokens[start:end], start
            start = end
            self.threads.begin()
            try:
                li.decode(llm, chunk, first_pos=shared_pos + first,
                          logits_at={i for i in range(len(chunk)) if first + i in targets})  # fmt: skip
            finally:
                self.threads.end()
            for i in range(len(chunk)):
                target = targets.get(first + i)
                if target is None:
                    continue
                row = li.logits_row(llm, i)
                top = float(row.max())
                total += float(row[target]) - top - float(np.log(np.exp(row - top).sum(dtype=np.float64)))
        return total
