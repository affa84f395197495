"""Break-it pass 10: runtime params a model cannot use. An n_ctx over the context a GGUF model was
trained for is refused before llama.cpp allocates its KV cache (config.toml `n_ctx = 1000000` took 3.4 GB,
a larger one was killed by the OOM killer; the trained length is read from the GGUF metadata of the real
embedded model), and more threads than cores are capped."""

from __future__ import annotations

import os
import struct
from pathlib import Path

import pytest

from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.model import probe
from gorilla_tui.model.backend import open_backend
from gorilla_tui.model.gguf_meta import context_length, fit_n_ctx
from gorilla_tui.model.profiles import cap_threads

pytestmark = pytest.mark.model


def _gguf_string(text: str) -> bytes:
    raw = text.encode()
    return struct.pack("<Q", len(raw)) + raw


def _tiny_gguf(path: Path, context: int) -> Path:
    """A GGUF v3 header with three metadata keys (an array before the context length, as tokenizer keys
    are), per ggml docs/gguf.md; llama.cpp could not load it, the metadata reader can."""
    kvs = [
        _gguf_string("general.architecture") + struct.pack("<I", 8) + _gguf_string("llama"),
        _gguf_string("tokenizer.ggml.tokens")
        + struct.pack("<IIQ", 9, 8, 2)
        + _gguf_string("<s>")
        + _gguf_string("</s>"),
        _gguf_string("llama.context_length") + struct.pack("<II", 4, context),
    ]
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def test_context_length_of_the_embedded_gemma_is_its_trained_32k(gemma_path: Path) -> None:
    assert context_length(gemma_path) == 32768  # gemma3.context_length in the file's metadata


def test_context_length_is_none_for_what_is_no_gguf(tmp_path: Path) -> None:
    text = tmp_path / "notes.gguf"
    text.write_text("not a model")
    assert context_length(text) is None
    cut = tmp_path / "cut.gguf"
    cut.write_bytes(_tiny_gguf(tmp_path / "full.gguf", 2048).read_bytes()[:40])
    assert context_length(cut) is None


def test_an_n_ctx_set_over_the_trained_length_is_one_line_before_any_load(gemma_path: Path) -> None:
    settings = Settings(model=str(gemma_path), n_ctx=1_000_000)
    with pytest.raises(UsageError) as caught:
        open_backend(settings)
    assert str(caught.value) == (
        f"n_ctx = 1000000 is more than {gemma_path.name} was trained for (32768 tokens): set n_ctx to at "
        "most 32768 in config.toml, or 0 for the kernel profile's context size"
    )
    assert not probe.cache_file().exists()  # refused before the probe child loaded anything


def test_the_profile_default_is_lowered_to_a_shorter_trained_context(tmp_path: Path) -> None:
    model = _tiny_gguf(tmp_path / "old-llama.gguf", 2048)
    assert context_length(model) == 2048
    assert fit_n_ctx({"n_ctx": 4096, "n_threads": 1}, model, 0) == {"n_ctx": 2048, "n_threads": 1}
    assert fit_n_ctx({"n_ctx": 1024}, model, 1024) == {"n_ctx": 1024}
    with pytest.raises(UsageError, match="n_ctx = 4096 is more than old-llama.gguf was trained for"):
        fit_n_ctx({"n_ctx": 4096}, model, 4096)


def test_more_threads_than_cores_are_capped_with_a_note(gemma_path: Path) -> None:
    """Break-it pass 10: `n_threads = 5000` made one answer take 130 s on 2 cores (llama.cpp starts every
    thread), and 100000 crashed the probe child. The real embedded model opens with the cores' count."""
    cores = os.cpu_count() or 1
    assert cap_threads({"n_threads": 1, "n_threads_batch": cores}, cores) == (
        {"n_threads": 1, "n_threads_batch": cores},
        "",
    )
    backend = open_backend(Settings(model=str(gemma_path), n_threads=5000))
    assert backend.params["n_threads"] == cores and backend.params["n_threads_batch"] == cores
    assert f"n_threads = 5000 is more than this machine's {cores} logical cores: using {cores}" in (
        backend.warnings
    )
