"""The Backend protocol and opening a backend: a `gorilla_tui.backends` plugin, by default the local GGUF
model (model/llama_backend.py) or the remote endpoint (model/remote.py)."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import TYPE_CHECKING, Any, Protocol, runtime_checkable

from gorilla_tui import plugins
from gorilla_tui.errors import UsageError
from gorilla_tui.model import profiles as kernels
from gorilla_tui.model import registry as models
from gorilla_tui.model.gguf_meta import fit_n_ctx
from gorilla_tui.model.llama_backend import LlamaBackend
from gorilla_tui.model.llama_callbacks import quiet_llama_logs
from gorilla_tui.model.remote import RemoteBackend
from gorilla_tui.model.scripted import ScriptedBackend

if TYPE_CHECKING:
    from gorilla_tui.config import Settings

__all__ = [
    "Backend",
    "LlamaBackend",
    "RemoteBackend",
    "ScriptedBackend",
    "open_backend",
    "open_llama_backend",
    "open_remote_backend",
    "quiet_llama_logs",
]


@runtime_checkable
class Backend(Protocol):
    """A text-completion engine.

    complete() streams the completion of `prompt` as text pieces (one or more tokens each), stopping at
    max_tokens (tokens), at the first of `stop` (not included), when `grammar` (GBNF text) is complete,
    or when `cancel` is set (checked between tokens). temperature 0.0 is greedy decoding.
    n_ctx: context size in tokens; count_tokens(text): tokens the prompt `text` takes, BOS included.
    name: model name; family: prompt family (model/prompts.py). last_stats: figures of the last call
    (prompt_tokens, prompt_eval_tokens = prompt tokens actually evaluated, i.e. not reused from the KV cache).

    Optional capability (not part of the protocol, test with model.likelihood.can_score): a backend that can
    read the model's log-probabilities has
    `loglikelihoods(contexts, continuation, cancel=None) -> list[float]` (LlamaBackend has; RemoteBackend
    has it when its server returns prompt log-probabilities, which its supports_loglikelihoods() probes;
    ScriptedBackend has not, so select mode falls back to the grammar). A backend with a `one_answer()`
    context manager (RemoteBackend) has pipeline.ask make each answer's calls inside it.
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


def open_backend(settings: Settings, *, cancel: threading.Event | None = None) -> Backend:
    """The backend `settings` ask for, a `gorilla_tui.backends` plugin (gorilla_tui/plugins.py) named by
    settings.backend, or by default "remote" when settings.endpoint is set and "llama" otherwise: the
    RemoteBackend for settings.endpoint, or the local model resolved by
    models.resolve_model(settings.model) with the kernel profile's Llama() defaults (kernels.choose_profile,
    overridden by settings.n_ctx / n_threads / n_gpu_layers / use_extra_bufts). Before the first load of a
    (model file, llama-cpp-python version, params) combination, model/probe.ensure_runtime loads it and
    decodes a few tokens in a child process and falls back to safer params if the child crashes; the params
    that worked are remembered, and what was changed is said once (in backend.warnings). A profile that wants
    GPU offload on a build without it still loads (on the CPU), with kernels.offload_warning in
    backend.warnings.
    cancel: set (Ctrl+C) to stop during the probe; the model is then not loaded.
    Raises GorillaError / UsageError (an unknown kernel name, a bad --endpoint URL, an n_ctx over the
    context the model was trained for: gguf_meta.fit_n_ctx); probe.ModelCrashError
    (exit 2) when llama.cpp crashes with every fallback; probe.ProbeCancelled when `cancel` was set;
    models.ModelFileError, its hint models.model_file_fix (what `doctor` says), for a file llama.cpp cannot
    load (not GGUF, cut short, damaged)."""
    name = settings.backend or ("remote" if settings.endpoint else "llama")
    try:
        factory = plugins.load(plugins.BACKENDS, name)
    except plugins.PluginError as e:
        raise UsageError(str(e)) from None
    return factory(settings, cancel)


def open_remote_backend(settings: Settings, cancel: threading.Event | None = None) -> RemoteBackend:
    """The built-in backend "remote" (`gorilla_tui.backends` entry point): the OpenAI-compatible completion
    server at settings.endpoint (n_ctx: settings.n_ctx or 4096 tokens). `cancel` (Ctrl+C in `ask`) gives up
    every request of the backend once set, the start-up probe for log-probabilities included. Raises
    UsageError when no endpoint is set, for a bad URL or a bad $GORILLA_TUI_ENDPOINT_DEADLINES
    (RemoteBackend)."""
    if not settings.endpoint:
        raise UsageError("the remote backend needs an endpoint: --endpoint URL, or endpoint in config.toml")
    return RemoteBackend(
        settings.endpoint,
        n_ctx=settings.n_ctx or 4096,
        name=settings.model or "remote",
        family=models.family_of_spec(settings.model),
        cancel=cancel,
    )


def open_llama_backend(settings: Settings, cancel: threading.Event | None = None) -> LlamaBackend:
    """The built-in backend "llama" (`gorilla_tui.backends` entry point): the local GGUF model through
    llama-cpp-python, probed first (see open_backend for what is raised)."""
    try:
        return _open_llama(settings, cancel)
    except models.ModelFileError as e:  # a file llama.cpp cannot load: the fix `doctor` gives
        e.hint = e.hint or models.model_file_fix(settings.model)
        raise


def _open_llama(settings: Settings, cancel: threading.Event | None) -> LlamaBackend:
    """open_backend's local model: resolve, choose the kernel profile, probe, load (see open_backend)."""
    from gorilla_tui.model import llama_internals, probe  # deferred: loads libllama

    resolved = models.resolve_model(settings.model)
    profile, _why = kernels.choose_profile(settings.kernel or None)
    params = kernels.runtime_params(
        profile,
        n_ctx=settings.n_ctx,
        n_threads=settings.n_threads,
        n_gpu_layers=settings.n_gpu_layers,
        use_extra_bufts=settings.use_extra_bufts,
    )
    params = fit_n_ctx(params, resolved.path, settings.n_ctx)
    params, threads_note = kernels.cap_threads(params)
    warning = kernels.offload_warning(profile, params, kernels.llama_capabilities())
    decision = probe.ensure_runtime(
        resolved.path,
        params,
        fix=profile.install or f'CMAKE_ARGS="{profile.cmake_args}" pip install llama-cpp-python',
        llama_version=llama_internals.version(),
        cancel=cancel,
    )
    if cancel is not None and cancel.is_set():
        raise probe.ProbeCancelled("cancelled before loading the model")
    backend = LlamaBackend(resolved.path, params=decision.params, name=resolved.name, family=resolved.family)
    backend.warnings += [w for w in (threads_note, warning, decision.note) if w]
    return backend
