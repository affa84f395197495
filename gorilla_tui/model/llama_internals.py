"""Every use of llama-cpp-python internals, in one place (its private attributes and raw C bindings).

llama-cpp-python's public API has no keyword for some llama.cpp settings and no wrapper for some calls we
need: llama_model_params.use_extra_bufts (weight repacking into the AMX / CPU_REPACK extra buffer types), the
abort callback (llama_set_abort_callback, through the private `_lib`), the low-level context and batch
(`Llama._ctx`, `Llama._batch`) and the high-level KV-cache bookkeeping (`Llama.n_tokens`). Everything that
touches them is here, so an upgrade that moves one breaks this module only; `check_internals()` lists what
moved, and tests/unit/test_llama_internals.py fails loudly on it. TESTED_RANGE is the llama-cpp-python range
this was tested with (pyproject.toml pins the same).
"""

from __future__ import annotations

import contextlib
import ctypes
import inspect
import os
import sys
import tempfile
import threading
from collections.abc import Callable, Iterator, Sequence
from typing import Any

import numpy as np

from gorilla_tui.model.profiles import extra_bufts_default, load_llama_cpp

# loads libllama (~0.1 s); a library that cannot be loaded is a GorillaError (one line), not FileNotFoundError
llama_cpp = load_llama_cpp()
import llama_cpp._internals as lcp_internals  # noqa: E402  (cached once load_llama_cpp() imported llama_cpp)
import llama_cpp.llama as lcp_llama  # noqa: E402
import llama_cpp.llama_cpp as lcp_c  # noqa: E402

#: llama-cpp-python versions this module was tested with: lower bound inclusive, upper bound exclusive
#: (the same range as the llama-cpp-python requirement in pyproject.toml).
TESTED_RANGE = ("0.3.36", "0.4")

#: Llama() keyword arguments gorilla-tui adds (not Llama() parameters): applied to the params struct here.
EXTRA_PARAMS = ("use_extra_bufts",)

_PARAMS_LOCK = threading.Lock()  # the params hook below is process-wide while a model loads
_STREAMS_LOCK = threading.Lock()  # so is _keep_std_streams


def version() -> str:
    """The installed llama-cpp-python version string (llama_cpp.__version__)."""
    return str(getattr(llama_cpp, "__version__", "?"))


def _vtuple(v: str) -> tuple[int, ...]:
    return tuple(int(p) for p in v.split(".")[:3] if p.isdigit())


def in_tested_range(v: str | None = None) -> bool:
    """Is llama-cpp-python version `v` (default: the installed one) inside TESTED_RANGE?"""
    t = _vtuple(v or version())
    return _vtuple(TESTED_RANGE[0]) <= t < _vtuple(TESTED_RANGE[1])


@contextlib.contextmanager
def _model_params_hook(use_extra_bufts: bool | None) -> Iterator[None]:
    """While active, llama_model_default_params() (which Llama.__init__ calls to build its
    llama_model_params) returns the defaults with use_extra_bufts set. None: leave llama.cpp's default (true).
    Serialised by a lock: the hook is a module attribute, seen by every thread."""
    if use_extra_bufts is None:
        yield
        return
    original = lcp_c.llama_model_default_params

    def default_params() -> Any:
        params = original()
        params.use_extra_bufts = bool(use_extra_bufts)
        return params

    with _PARAMS_LOCK:
        lcp_c.llama_model_default_params = default_params
        try:
            yield
        finally:
            lcp_c.llama_model_default_params = original


#: The llama-cpp-python modules whose `suppress_stdout_stderr` runs during Llama(): it dup2()s /dev/null onto
#: file descriptors 1 and 2 and swaps sys.stdout / sys.stderr for the whole process while the model loads.
#: In the TUI the load runs in a thread beside Textual, whose screen writes then went to /dev/null (and a
#: print() after the app could be lost for good). llama.cpp's log lines reach set_log_callback's handler
#: instead, so nothing needs silencing.
_SUPPRESSORS = (lcp_internals, lcp_llama)


@contextlib.contextmanager
def _keep_std_streams() -> Iterator[None]:
    """While active, llama-cpp-python's suppress_stdout_stderr does nothing (see _SUPPRESSORS).
    Hold _PARAMS_LOCK."""
    saved = [(mod, getattr(mod, "suppress_stdout_stderr", None)) for mod in _SUPPRESSORS]

    def quiet(disable: bool = True) -> contextlib.AbstractContextManager[None]:
        return contextlib.nullcontext()

    for mod, _old in saved:
        mod.suppress_stdout_stderr = quiet  # type: ignore[attr-defined]
    try:
        yield
    finally:
        for mod, old in saved:
            mod.suppress_stdout_stderr = old  # type: ignore[attr-defined]


def new_llama(model_path: str, params: dict[str, Any]) -> Any:
    """llama_cpp.Llama(model_path, verbose=False, **params) with EXTRA_PARAMS applied to its
    llama_model_params: use_extra_bufts (bool; absent = what "auto" decides for this CPU,
    profiles.extra_bufts_default: off with Intel AMX, where llama.cpp's own default, on, segfaults on the
    first decode; a LlamaBackend made without it crashed there). The process's stdout and stderr stay where
    they are during the load (_keep_std_streams: safe beside a running TUI; callers route llama.cpp's log
    with set_log_callback). Exceptions of Llama() propagate unchanged (ValueError / RuntimeError / OSError /
    jinja2.TemplateError)."""
    kwargs = dict(params)
    extra = kwargs.pop("use_extra_bufts", None)
    if extra is None:
        extra = extra_bufts_default()[0]
    with _model_params_hook(bool(extra)), _STREAMS_LOCK, _keep_std_streams():
        return llama_cpp.Llama(model_path=model_path, verbose=False, **kwargs)


def model_params_of(llm: Any) -> dict[str, Any]:
    """What llama_model_load_from_file received for `llm`: the fields of its llama_model_params struct
    that gorilla-tui sets or reports (use_extra_bufts, n_gpu_layers, load_mode)."""
    p = llm.model_params
    return {"use_extra_bufts": bool(p.use_extra_bufts), "n_gpu_layers": int(p.n_gpu_layers),
            "load_mode": int(p.load_mode)}  # fmt: skip


def set_log_callback(callback: Callable[[int, bytes], None]) -> Any:
    """Route llama.cpp / ggml log lines to callback(level, text). Returns the ctypes callback, which the
    caller must keep referenced for as long as llama.cpp may call it."""

    @llama_cpp.llama_log_callback
    def _cb(level: int, text: bytes, _user_data: ctypes.c_void_p) -> None:
        callback(level, text)

    llama_cpp.llama_log_set(_cb, ctypes.c_void_p(0))
    return _cb


def set_abort_callback(llm: Any, should_abort: Callable[[], bool] | None) -> Any:
    """Install (should_abort given) or remove (None) llama.cpp's abort callback on `llm`'s context.
    llama_decode() asks it between graph nodes and returns 2 when it answers true. Returns the ctypes
    callback (None when removed), which must stay referenced while installed. llama-cpp-python has no wrapper:
    the raw symbol from its `_lib`."""
    fn = lcp_c._lib.llama_set_abort_callback
    fn.argtypes = [lcp_c.llama_context_p_ctypes, lcp_c.ggml_abort_callback, ctypes.c_void_p]
    fn.restype = None
    if should_abort is None:
        fn(llm.ctx, lcp_c.ggml_abort_callback(), None)  # NULL: no abort callback
        return None
    callback = lcp_c.ggml_abort_callback(lambda _data: bool(should_abort()))
    fn(llm.ctx, callback, None)
    return callback


def perf(llm: Any) -> tuple[int, int, float]:
    """(prompt tokens evaluated, tokens generated, prompt evaluation ms) since the last perf_reset."""
    d = lcp_c.llama_perf_context(llm.ctx)
    return int(d.n_p_eval), int(d.n_eval), float(d.t_p_eval_ms)


def perf_reset(llm: Any) -> None:
    """Reset llama.cpp's per-context performance counters."""
    lcp_c.llama_perf_context_reset(llm.ctx)


def kv_clear(llm: Any) -> None:
    """Empty the KV cache and tell Llama's prefix-reuse bookkeeping (Llama.n_tokens) it is empty."""
    llm._ctx.kv_cache_clear()
    llm.n_tokens = 0


def kv_truncate(llm: Any, keep: int) -> None:
    """Drop sequence 0's KV cache entries from position `keep` on."""
    llm._ctx.kv_cache_seq_rm(0, keep, -1)


def seq_state(llm: Any) -> bytes:
    """Sequence 0's KV cache as bytes (llama_state_seq_get_data): a prompt's evaluated prefix, kept to be put
    back with set_seq_state instead of evaluating it again."""
    ctx = llm._ctx.ctx
    size = int(llama_cpp.llama_state_seq_get_size(ctx, 0))
    buf = (ctypes.c_uint8 * size)()
    n = int(llama_cpp.llama_state_seq_get_data(ctx, buf, size, 0))
    return bytes(buf[:n])


def set_seq_state(llm: Any, data: bytes) -> bool:
    """Put sequence 0's KV cache back from seq_state's bytes into an empty cache; False when llama.cpp
    refuses them (another model or context)."""
    buf = (ctypes.c_uint8 * len(data)).from_buffer_copy(data)
    return int(llama_cpp.llama_state_seq_set_data(llm._ctx.ctx, buf, len(data), 0)) > 0


def decode(llm: Any, tokens: Sequence[int], *, first_pos: int, logits_at: set[int]) -> None:
    """llama_decode `tokens` (at most llm.n_batch of them) at positions first_pos.. of sequence 0, asking
    for logits only at the batch indices in `logits_at`. Raises RuntimeError when llama_decode fails."""
    b = llm._batch.batch
    b.n_tokens = len(tokens)
    for i, t in enumerate(tokens):
        b.token[i], b.pos[i], b.n_seq_id[i] = t, first_pos + i, 1
        b.seq_id[i][0] = 0
        b.logits[i] = i in logits_at
    llm._ctx.decode(llm._batch)


def set_threads(llm: Any, n_threads: int, n_threads_batch: int) -> None:
    """Set the thread counts of `llm`'s context for the next decodes (llama_set_n_threads): n_threads for one
    token per decode (generation), n_threads_batch for a batch (prompt evaluation, scoring)."""
    llm._ctx.set_n_threads(int(n_threads), int(n_threads_batch))


def thread_counts(llm: Any) -> tuple[int, int]:
    """(n_threads, n_threads_batch) of `llm`'s context as llama.cpp has them now."""
    return int(lcp_c.llama_n_threads(llm.ctx)), int(lcp_c.llama_n_threads_batch(llm.ctx))


def logits_row(llm: Any, i: int) -> np.ndarray:
    """The logits (float32, shape (n_vocab,)) of batch index `i` of the last decode; a view into llama.cpp's
    buffer, valid until the next decode."""
    ptr = lcp_c.llama_get_logits_ith(llm._ctx.ctx, i)
    return np.ctypeslib.as_array(ptr, shape=(llm.n_vocab(),))


def grammar_error(llm: Any, grammar: str, root: str = "root") -> str | None:
    """None when llama.cpp accepts the GBNF `grammar`, else its reason in one line.

    llama-cpp-python 0.3.x does not check a grammar (LlamaGrammar.from_string only stores the text): it
    hands llama_sampler_init_grammar's NULL result for a bad grammar (syntax error, undefined rule, left
    recursion, no root rule) to the sampler chain, and the process dies by SIGSEGV. So the grammar is compiled
    here first with llama.cpp's own parser (the same call, on `llm`'s vocabulary) and the sampler freed again.
    llama.cpp prints the parse error on stderr (fd 2, not its log callback): captured into a temporary file
    while it runs, so nothing reaches the terminal."""
    with tempfile.TemporaryFile() as err:
        with _fd2_to(err.fileno()):
            sampler = lcp_c.llama_sampler_init_grammar(
                llm._model.vocab, grammar.encode("utf-8"), root.encode()
            )
        if sampler:
            lcp_c.llama_sampler_free(sampler)
            return None
        err.seek(0)
        said = err.read(4000).decode("utf-8", "replace")
    reasons = [ln.strip() for ln in said.splitlines() if "error" in ln.lower() or "left recursion" in ln]
    return reasons[0] if reasons else "llama.cpp rejected it (no root rule, left recursion, ...)"


@contextlib.contextmanager
def _fd2_to(fd: int) -> Iterator[None]:
    """Point file descriptor 2 (stderr) at `fd` for the duration (C code writing with fprintf(stderr))."""
    sys.stderr.flush()
    saved = os.dup(2)
    try:
        os.dup2(fd, 2)
        yield
    finally:
        os.dup2(saved, 2)
        os.close(saved)


def check_internals(llm: Any | None = None) -> list[str]:
    """What an upgrade moved: one line per internal this module relies on that is missing or changed (empty
    list: all present). With a loaded `llm`, its instance attributes are checked too."""
    problems: list[str] = []
    fields = {name for name, _t in lcp_c.llama_model_params._fields_}
    if "use_extra_bufts" not in fields:
        problems.append("llama_model_params has no field use_extra_bufts")
    if "llama_model_default_params()" not in _source(lcp_llama.Llama.__init__):
        problems.append("Llama.__init__ no longer builds its params with llama_model_default_params()")
    problems += [f"{m.__name__} has no suppress_stdout_stderr" for m in _SUPPRESSORS
                 if not hasattr(m, "suppress_stdout_stderr")]  # fmt: skip
    if getattr(lcp_llama, "llama_cpp", None) is not lcp_c:
        problems.append("llama_cpp.llama no longer reaches the bindings as module attribute llama_cpp")
    for mod, names in (
        (lcp_c, ("_lib", "llama_context_p_ctypes", "ggml_abort_callback", "llama_get_logits_ith",
                 "llama_perf_context", "llama_perf_context_reset", "llama_log_set", "llama_log_callback",
                 "llama_sampler_init_grammar", "llama_sampler_free", "llama_n_threads",
                 "llama_n_threads_batch")),
        (lcp_internals.LlamaContext, ("kv_cache_clear", "kv_cache_seq_rm", "decode", "set_n_threads")),
    ):  # fmt: skip
        problems += [f"{getattr(mod, '__name__', mod)}.{n} is gone" for n in names if not hasattr(mod, n)]
    if hasattr(lcp_c, "_lib") and not hasattr(lcp_c._lib, "llama_set_abort_callback"):
        problems.append("libllama has no llama_set_abort_callback")
    if llm is not None:
        for attr in ("_ctx", "_batch", "_model", "n_tokens", "model_params", "ctx", "n_batch"):
            if not hasattr(llm, attr):
                problems.append(f"Llama instance has no attribute {attr}")
        if not hasattr(getattr(llm, "_model", None), "vocab"):
            problems.append("Llama._model has no attribute vocab")
        batch = getattr(getattr(llm, "_batch", None), "batch", None)
        for attr in ("n_tokens", "token", "pos", "n_seq_id", "seq_id", "logits"):
            if batch is None or not hasattr(batch, attr):
                problems.append(f"Llama._batch.batch has no field {attr}")
    if not in_tested_range():
        problems.append(f"llama-cpp-python {version()} is outside the tested range {TESTED_RANGE}")
    return problems


def _source(fn: Any) -> str:
    try:
        return inspect.getsource(fn)
    except (OSError, TypeError):
        return ""
