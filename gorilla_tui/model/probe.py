"""The crash-contained probe: load a model and decode a few tokens in a child process before the app does.

llama.cpp kills the whole process when it crashes (a SIGSEGV in a CPU kernel, e.g. ggml's AMX repack on
Sapphire Rapids, llama.cpp issue 20824). The first time a (model file, llama-cpp-python version, effective
runtime params) combination is used, `ensure_runtime` runs it in a child process (`python -m
gorilla_tui.model.probe`); when the child dies by a signal it walks the fallback chain (extra buffer types
off, then 1 thread, then a smaller n_batch), remembers the params that worked in the cache dir (probe.json)
and says once what it changed. When nothing works it raises ModelCrashError (one line: the signal and the
rebuild command, exit 2). A known-good combination is looked up, never probed again.

Test hook, read only by the child: GORILLA_TUI_PROBE_CRASH = comma-separated conditions ("always",
"extra_bufts": use_extra_bufts is on, "threads": more than one thread, "batch": n_batch > 64); when one holds,
the child makes a real invalid memory access (SIGSEGV) right before its first decode; "interrupt" sends it
SIGINT instead (a Ctrl+C, which is not a crash).
"""

from __future__ import annotations

import hashlib
import json
import os
import signal
import subprocess
import sys
import tempfile
import threading
import time
from dataclasses import dataclass, field
from datetime import datetime, timezone
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.jsontext import loads as json_value
from gorilla_tui.model.profiles import extra_bufts_default
from gorilla_tui.paths import get_paths, read_regular_text

#: Env var of the test hook (see the module docstring); read only in the probe child.
CRASH_ENV = "GORILLA_TUI_PROBE_CRASH"
#: Bytes of the model file hashed for the cache key (with its size and mtime): cheap even for a 5 GB file.
HEAD_BYTES = 4 << 20
#: Largest probe.json read, bytes: one entry per model and params tried is about 500, so 1 MiB holds
#: thousands. A larger one (a 1 GB sparse file cost `ask` 2.16 GB: break-it round 11, R11-5) is ignored
#: unread and replaced by the next probe's write, like any unreadable cache.
MAX_CACHE_BYTES = 2**20
#: Prompt decoded by the probe (a few tokens: one prompt batch, then generated tokens one by one; the
#: crash in issue 13 happened in the first llama_decode).
PROBE_PROMPT = "import torch\nmodel = torch.hub.load("
#: n_ctx of the probe child: small, so that loading allocates little KV cache.
PROBE_N_CTX = 256
#: Generated tokens: 4 for the probe (one batch decode + single-token decodes), more for doctor's tokens/s.
PROBE_TOKENS = 4
#: n_batch of the last fallback step (llama.cpp's default n_batch is 512 in kernels/*.toml).
SMALL_N_BATCH = 64
#: Signals that end a probe child without meaning llama.cpp crashed: Ctrl+C reaches the whole foreground
#: process group (Python re-raises an uncaught KeyboardInterrupt as death by SIGINT), or someone stopped it.
NOT_A_CRASH = ("SIGINT", "SIGTERM", "SIGHUP")
#: Seconds a probe child may take before it is killed (loading a 7B model from a cold disk included).
TIMEOUT_S = 300.0


class ModelCrashError(GorillaError):
    """llama.cpp crashed (the probe child died by a signal) with every fallback params set (exit 2).
    signal: the signal's name ("SIGSEGV"); fix: the rebuild command."""

    def __init__(self, message: str, *, signal: str, fix: str) -> None:
        super().__init__(message)
        self.signal = signal
        self.fix = fix


class ProbeCancelled(GorillaError):
    """The caller's cancel event was set while the probe ran (Ctrl+C): the child was stopped (exit 2; the
    CLI turns it into "interrupted", exit 130)."""


@dataclass
class ProbeResult:
    """One probe child's outcome. ok: it loaded and decoded; signal: the signal name when it died by one
    (e.g. "SIGSEGV"); error: one line when it failed otherwise (Python exception, timeout);
    tokens_per_s: generated tokens per second of wall time in the child (decode only, not loading);
    seconds: the child's whole wall time as seen by the parent."""

    ok: bool
    signal: str | None = None
    error: str | None = None
    tokens: int = 0
    tokens_per_s: float = 0.0
    seconds: float = 0.0


@dataclass
class RuntimeDecision:
    """What ensure_runtime decided: params to load with, whether a probe ran, the note for the user when
    the params were changed (said once), and the attempts ([(change description, ProbeResult)])."""

    params: dict[str, Any]
    probed: bool
    note: str | None = None
    attempts: list[tuple[str, ProbeResult]] = field(default_factory=list)


def probe_key(model_path: Path, params: dict[str, Any], llama_version: str) -> str:
    """The cache key of a combination: sha256 over the model file's size, mtime (ns) and first HEAD_BYTES,
    the llama-cpp-python version and the effective Llama() params (JSON, sorted keys). Hex string."""
    st = model_path.stat()
    h = hashlib.sha256()
    h.update(f"{st.st_size}:{st.st_mtime_ns}:{llama_version}:".encode())
    with model_path.open("rb") as fh:
        h.update(fh.read(HEAD_BYTES))
    h.update(json.dumps(params, sort_keys=True, default=str).encode())
    return h.hexdigest()


def cache_file() -> Path:
    """probe.json in the user cache dir: {key: {"params": ..., "note": ..., "at": ISO time}}."""
    return get_paths().cache / "probe.json"


def _read_cache() -> dict[str, Any]:
    try:
        data = json_value(read_regular_text(cache_file(), MAX_CACHE_BYTES))  # too deep: a ValueError too
        return data if isinstance(data, dict) else {}
    except (OSError, ValueError):
        return {}  # missing or unreadable: probe again (the cache is only an optimisation)


def _known_params(entry: Any, params: dict[str, Any]) -> dict[str, Any] | None:
    """The params a probe.json `entry` remembers for `params`, or None when it remembers none that can be
    used. Only a step of fallback_chain(params) is ever used, and it is taken from the chain, not from the
    file: probe.json is only an optimisation, and a damaged entry (n_ctx "abc": "internal error: TypeError";
    n_ctx and n_batch 2^31-1: 16.9 GB before llama.cpp gave up; an unknown key: break-it round 10, R10-1)
    is probed again and replaced, with no note. Values are compared as JSON, the form the file keeps."""
    if not isinstance(entry, dict) or not isinstance(entry.get("params"), dict):
        return None
    stored = entry["params"]
    for _, candidate in fallback_chain(params):
        if stored == json.loads(json.dumps(candidate, default=str)):
            return dict(candidate)
    return None


def _write_cache(key: str, entry: dict[str, Any]) -> None:
    """Add `entry` under `key` (temp file + os.replace; a failure to write only costs a later re-probe)."""
    data = _read_cache()
    data[key] = entry
    path = cache_file()
    tmp = None
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".probe-", suffix=".json")
        with os.fdopen(fd, "w", encoding="utf-8") as fh:
            json.dump(data, fh, indent=1)
        os.replace(tmp, path)
    except OSError:
        if tmp is not None:
            Path(tmp).unlink(missing_ok=True)


def fallback_chain(params: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """The params to try, in order, each step keeping the previous ones' changes: as given; extra buffer
    types off; 1 thread (generation and prompt evaluation); n_batch SMALL_N_BATCH. Steps that change
    nothing are left out. Returns [(what changed, params)]; the first change is "" (as given)."""
    chain = [("", dict(params))]
    p = dict(params)
    if p.get("use_extra_bufts", extra_bufts_default()[0]):  # absent: as new_llama loads it
        p = {**p, "use_extra_bufts": False}
        chain.append(("extra buffer types off (use_extra_bufts = false)", p))
    if int(p.get("n_threads") or 0) != 1 or int(p.get("n_threads_batch") or 0) != 1:
        p = {**p, "n_threads": 1, "n_threads_batch": 1}
        chain.append(("1 thread (n_threads = 1)", p))
    if int(p.get("n_batch") or 512) > SMALL_N_BATCH:
        p = {**p, "n_batch": SMALL_N_BATCH}
        p.pop("n_ubatch", None)
        chain.append((f"n_batch = {SMALL_N_BATCH}", p))
    return chain


def run_child(
    model_path: Path,
    params: dict[str, Any],
    *,
    tokens: int = PROBE_TOKENS,
    cancel: threading.Event | None = None,
) -> ProbeResult:
    """Load `model_path` with `params` (Llama() keywords + use_extra_bufts; n_ctx is replaced by PROBE_N_CTX)
    in a child Python and decode PROBE_PROMPT plus `tokens` generated tokens. Never raises for the child's
    failure: it is in the result. Raises ProbeCancelled when `cancel` is set meanwhile (the child is killed;
    checked every 50 ms)."""
    job = {"model": str(model_path), "params": {**params, "n_ctx": PROBE_N_CTX}, "tokens": tokens}
    # the child must import this same gorilla_tui (a checkout run with PYTHONPATH or from its folder)
    root = str(Path(__file__).resolve().parents[2])
    env = {**os.environ, "PYTHONPATH": os.pathsep.join(filter(None, [root, os.environ.get("PYTHONPATH")]))}
    # the child's report is read as UTF-8: PYTHONIOENCODING=utf-16 made a passing probe "inference failed:
    # exit status 0" (break-it round 23, R23-2)
    env["PYTHONIOENCODING"] = "utf-8"
    start = time.perf_counter()
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        proc = subprocess.Popen(
            [sys.executable, "-m", "gorilla_tui.model.probe", json.dumps(job)],
            stdout=out,
            stderr=err,
            stdin=subprocess.DEVNULL,
            env=env,
        )
        try:
            while True:
                try:
                    proc.wait(timeout=0.05)
                    break
                except subprocess.TimeoutExpired:
                    if cancel is not None and cancel.is_set():
                        raise ProbeCancelled("cancelled while probing the model") from None
                    if time.perf_counter() - start > TIMEOUT_S:
                        return ProbeResult(False, error=f"the probe did not finish in {TIMEOUT_S:.0f} s")
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        out.seek(0)
        err.seek(0)
        stdout = out.read().decode("utf-8", "replace")
        stderr = err.read().decode("utf-8", "replace")
    seconds = time.perf_counter() - start
    if proc.returncode < 0:
        return ProbeResult(False, signal=signal_name(-proc.returncode), seconds=seconds)
    lines = [ln for ln in stdout.splitlines() if ln.startswith("{")]
    try:
        answer = json.loads(lines[-1])
    except (IndexError, ValueError):
        last = (stderr.strip().splitlines() or [f"exit status {proc.returncode}"])[-1]
        return ProbeResult(False, error=last[:300], seconds=seconds)
    if not answer.get("ok"):
        return ProbeResult(False, error=str(answer.get("error", "failed"))[:300], seconds=seconds)
    return ProbeResult(
        True, tokens=int(answer["tokens"]), tokens_per_s=float(answer["tokens_per_s"]), seconds=seconds
    )


def signal_name(signum: int) -> str:
    """ "SIGSEGV" for 11, ...; "signal N" for a number Python does not name."""
    try:
        return signal.Signals(signum).name
    except ValueError:
        return f"signal {signum}"


def ensure_runtime(
    model_path: Path,
    params: dict[str, Any],
    *,
    fix: str,
    llama_version: str,
    force: bool = False,
    tokens: int = PROBE_TOKENS,
    cancel: threading.Event | None = None,
) -> RuntimeDecision:
    """The params to load `model_path` with, probed in a child process the first time (see module doc).

    Args:
        model_path: the GGUF file.
        params: the effective Llama() params (profiles.runtime_params), use_extra_bufts included.
        fix: the rebuild command named when nothing works (the kernel profile's `install` line).
        llama_version: llama-cpp-python's version (part of the cache key).
        force: probe even when the combination is known good (doctor); the chain and cache are the same.
        tokens: tokens each child generates (doctor asks for more, for its tokens/s figure).
        cancel: set (Ctrl+C) to stop the probe; nothing is remembered then.

    Returns:
        RuntimeDecision: params (the first of the fallback chain that worked), note (what was changed, set
        only on the run that found it), attempts.

    Raises:
        ModelCrashError: the child died by a signal with every step of the chain (message: the signal, what
            was tried, the fix).
        ProbeCancelled: `cancel` was set while a child ran.
    """
    key = probe_key(model_path, params, llama_version)
    known = _known_params(_read_cache().get(key), params)
    if known is not None and not force:
        return RuntimeDecision(params=known, probed=False)
    attempts: list[tuple[str, ProbeResult]] = []
    for change, candidate in fallback_chain(params):
        result = run_child(model_path, candidate, tokens=tokens, cancel=cancel)
        attempts.append((change, result))
        if result.ok:
            changes = [c for c, _ in attempts[1:]]
            note = None
            if changes:
                note = (f"llama.cpp crashed ({attempts[0][1].signal}) with the default runtime params; "
                        f"using {', '.join(changes)} from now on for {model_path.name}")  # fmt: skip
            _write_cache(key, {"params": candidate, "note": note, "model": str(model_path),
                               "at": datetime.now(timezone.utc).isoformat(timespec="seconds")})  # fmt: skip
            return RuntimeDecision(params=candidate, probed=True, note=note, attempts=attempts)
        if result.signal is None or result.signal in NOT_A_CRASH:
            # not a crash (a Python error, a model llama.cpp refuses, a timeout, Ctrl+C reaching the child's
            # process group): no fallback helps; the in-process load reports the error in its own words, or
            # the caller handles the interruption. Not cached: probed again next time.
            return RuntimeDecision(params=dict(params), probed=True, attempts=attempts)
    sig = attempts[0][1].signal
    tried = ", ".join(c for c, _ in attempts[1:]) or "no fallback applies"
    raise ModelCrashError(
        f"llama.cpp crashed ({sig}) running {model_path.name} even with {tried}; "
        f"rebuild llama-cpp-python for this CPU: {fix}",
        signal=str(sig),
        fix=fix,
    )


_LOG_CALLBACK: Any = None  # the probe child's llama.cpp log callback (see _child)


def _crash_requested(params: dict[str, Any]) -> bool:
    """The test hook's conditions (CRASH_ENV), evaluated in the child."""
    wanted = {c.strip() for c in os.environ.get(CRASH_ENV, "").split(",") if c.strip()}
    return bool(
        "always" in wanted
        or ("extra_bufts" in wanted and params.get("use_extra_bufts", extra_bufts_default()[0]))
        or ("threads" in wanted and max(int(params.get("n_threads") or 2), int(params.get("n_threads_batch")
                                                                                   or 2)) > 1)
        or ("batch" in wanted and int(params.get("n_batch") or 512) > SMALL_N_BATCH)
    )  # fmt: skip


def _child(job: dict[str, Any]) -> dict[str, Any]:
    """The probe child's work: load, decode PROBE_PROMPT and job["tokens"] greedy tokens; the JSON answer."""
    import ctypes  # deferred: only the probe child needs it (test hook)

    from gorilla_tui.model import llama_internals as li  # loads libllama; only in the child on purpose

    # llama.cpp's log lines must not reach the parent's stdout. The ctypes callback must outlive every
    # llama.cpp object (freeing the model logs too, also while an exception unwinds): a module global.
    global _LOG_CALLBACK
    _LOG_CALLBACK = li.set_log_callback(lambda _level, _text: None)
    params = dict(job["params"])
    llm = li.new_llama(job["model"], params)
    if _crash_requested(params):
        ctypes.string_at(0)  # test hook: a real invalid read, the way a llama.cpp kernel crashes
    if "interrupt" in os.environ.get(CRASH_ENV, ""):
        os.kill(os.getpid(), signal.SIGINT)  # test hook: Ctrl+C reaching the child (KeyboardInterrupt)
    prompt = llm.tokenize(PROBE_PROMPT.encode("utf-8"), add_bos=True, special=False)
    llm.eval(prompt)
    start, n = time.perf_counter(), 0
    for _ in range(int(job["tokens"])):
        token = llm.sample(top_k=1, temp=0.0)
        llm.eval([token])
        n += 1
    seconds = time.perf_counter() - start
    return {"ok": True, "tokens": n, "tokens_per_s": n / seconds if seconds > 0 else 0.0}


if __name__ == "__main__":
    try:
        answer = _child(json.loads(sys.argv[1]))
    except Exception as e:  # reported to the parent as one line, never a traceback
        answer = {"ok": False, "error": f"{type(e).__name__}: {str(e).splitlines()[0] if str(e) else ''}"}
    print(json.dumps(answer), flush=True)
