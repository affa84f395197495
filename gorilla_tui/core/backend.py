"""Backend protocol and the llama.cpp backend (llama-cpp-python, imported lazily, its logging kept quiet)."""

from __future__ import annotations

import ctypes
import logging
import threading
import time
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from gorilla_tui.core.remote import RemoteBackend
from gorilla_tui.core.scripted import ScriptedBackend
from gorilla_tui.errors import GorillaError

if TYPE_CHECKING:
    from gorilla_tui.config import Settings

__all__ = ["Backend", "LlamaBackend", "RemoteBackend", "ScriptedBackend", "open_backend", "quiet_llama_logs"]

_log = logging.getLogger("gorilla_tui.llama")
_LOG_CALLBACK: Any = None  # keeps the ctypes callback alive for as long as llama.cpp may call it


@runtime_checkable
class Backend(Protocol):
    """A text-completion engine.

    complete() streams the completion of `prompt` as text pieces (one or more tokens each), stopping at
    max_tokens (tokens), at the first of `stop` (not included), when `grammar` (GBNF text) is complete,
    or when `cancel` is set (checked between tokens). temperature 0.0 is greedy decoding.
    n_ctx: context size in tokens; count_tokens(text): tokens the prompt `text` takes, BOS included.
    name: model name; family: prompt family (core/prompts.py). last_stats: figures of the last call
    (prompt_tokens, prompt_eval_tokens = prompt tokens actually evaluated, i.e. not reused from the KV cache).
    """

    name: str
    family: str
    last_stats: dict[str, Any]

    @property
    def n_ctx(self) -> int: ...

    def count_tokens(self, text: str) -> int: ...

    def complete(
        self,
        prompt: str,
        *,
        max_tokens: int,
        stop: Sequence[str] = (),
        grammar: str | None = None,
        temperature: float = 0.0,
        cancel: threading.Event | None = None,
    ) -> Iterator[str]: ...


def quiet_llama_logs() -> None:
    """Route llama.cpp / ggml log lines to the Python logger "gorilla_tui.llama" at DEBUG, instead of the
    terminal (llama_log_set with our own callback; Llama(verbose=False) alone still lets lines through)."""
    global _LOG_CALLBACK
    if _LOG_CALLBACK is not None:
        return
    import llama_cpp  # heavy: loads libllama (~0.1 s)

    @llama_cpp.llama_log_callback
    def _callback(level: int, text: bytes, user_data: ctypes.c_void_p) -> None:
        _log.debug("%s", text.decode("utf-8", "replace").rstrip())

    _LOG_CALLBACK = _callback
    llama_cpp.llama_log_set(_callback, ctypes.c_void_p(0))


class LlamaBackend:
    """llama.cpp through llama-cpp-python's Llama.create_completion(stream=True), one model per instance.

    model_path: a GGUF file (checked with models.check_gguf first); params: Llama() keyword arguments
    (kernels.runtime_params: n_ctx, n_threads, n_gpu_layers, n_batch, flash_attn, use_mmap, ...).
    Raises GorillaError (one line) for a missing/truncated/non-GGUF file, a model llama.cpp cannot load, or
    a chat template that Jinja cannot compile. load_seconds: wall time of Llama().
    The KV cache keeps the previous prompt: Llama.generate reuses the longest common token prefix, so a prompt
    that starts with the same fixed text only evaluates the new suffix (see last_stats["prompt_eval_tokens"]).
    Calls are serialised with a lock (one llama context per instance).
    """

    def __init__(
        self,
        model_path: Path | str,
        *,
        params: dict[str, Any] | None = None,
        name: str = "",
        family: str = "fewshot",
    ) -> None:
        from gorilla_tui.core.models import check_gguf

        path = Path(model_path)
        check_gguf(path)
        quiet_llama_logs()
        import jinja2
        import llama_cpp  # heavy: loads libllama (~0.1 s)

        params = dict(params or {})
        params.setdefault("n_ctx", 4096)
        start = time.perf_counter()
        try:
            self._llm = llama_cpp.Llama(model_path=str(path), verbose=False, **params)
        except jinja2.TemplateError as e:
            raise GorillaError(f"{path}: the model's chat template is broken (Jinja: {e})") from None
        except (ValueError, RuntimeError, OSError) as e:
            msg = str(e).splitlines()[0] if str(e) else type(e).__name__
            raise GorillaError(f"{path}: llama.cpp cannot load this model ({msg})") from None
        self.load_seconds = time.perf_counter() - start
        self.path = path
        self.params = params
        self.name = name or path.name
        self.family = family
        self.last_stats: dict[str, Any] = {}
        self._lock = threading.Lock()

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
        import llama_cpp

        d = llama_cpp.llama_perf_context(self._llm.ctx)
        return int(d.n_p_eval), int(d.n_eval), float(d.t_p_eval_ms)

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
        import llama_cpp

        compiled = None
        if grammar:
            try:
                compiled = llama_cpp.LlamaGrammar.from_string(grammar, verbose=False)
            except ValueError as e:
                raise GorillaError(f"invalid GBNF grammar: {e}") from None
        with self._lock:
            llama_cpp.llama_perf_context_reset(self._llm.ctx)
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
            try:
                for chunk in stream:
                    if cancel is not None and cancel.is_set():
                        break
                    text = chunk["choices"][0]["text"]
                    if text:
                        pieces += 1
                        yield text
                    if cancel is not None and cancel.is_set():  # set while the caller held the piece
                        break
            except ValueError as e:  # "Requested tokens (N) exceed context window of M"
                raise GorillaError(f"prompt does not fit the model: {e}") from None
            finally:
                stream.close()
                p_eval, n_eval, t_p_ms = self._perf()
                self.last_stats = {
                    "prompt_tokens": self.count_tokens(prompt),
                    "prompt_eval_tokens": p_eval,
                    "generated_tokens": n_eval,
                    "prompt_eval_ms": t_p_ms,
                    "cancelled": bool(cancel is not None and cancel.is_set()),
                }


def open_backend(settings: Settings) -> Backend:
    """The backend `settings` ask for: RemoteBackend for settings.endpoint, else the local model resolved by
    models.resolve_model(settings.model) with the kernel profile's Llama() defaults (kernels.choose_profile,
    overridden by settings.n_ctx / n_threads / n_gpu_layers). Raises GorillaError / UsageError."""
    from gorilla_tui.core import kernels, models

    if settings.endpoint:
        return RemoteBackend(
            settings.endpoint,
            n_ctx=settings.n_ctx or 4096,
            name=settings.model or "remote",
            family=models.family_of_spec(settings.model),
        )
    resolved = models.resolve_model(settings.model)
    profile, _why = kernels.choose_profile(settings.kernel or None)
    params = kernels.runtime_params(
        profile, n_ctx=settings.n_ctx, n_threads=settings.n_threads, n_gpu_layers=settings.n_gpu_layers
    )
    return LlamaBackend(resolved.path, params=params, name=resolved.name, family=resolved.family)
