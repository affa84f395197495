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
from gorilla_tui.model.gguf_meta import context_length, fit_n_ctx, required_size
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


def _crafted(path: Path, *kvs: bytes) -> Path:
    path.write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, len(kvs)) + b"".join(kvs))
    return path


def test_crafted_headers_are_given_up_on_without_a_traceback(tmp_path: Path, gemma_path: Path) -> None:
    """Break-it pass 11: 20000 arrays nested in one another were a RecursionError out of open_backend (a
    traceback); a context_length of -1 (int64) was "trained for -1 tokens"; a 2**63-string array of empty
    strings was read 8 bytes at a time to the end of the file."""
    arch = _gguf_string("general.architecture") + struct.pack("<I", 8) + _gguf_string("llama")
    nested = _crafted(
        tmp_path / "nested.gguf",
        _gguf_string("x.y") + struct.pack("<I", 9) + struct.pack("<IQ", 9, 1) * 20000,
    )
    negative = _crafted(
        tmp_path / "negative.gguf", arch, _gguf_string("llama.context_length") + struct.pack("<Iq", 11, -1)
    )
    strings = _crafted(
        tmp_path / "strings.gguf",
        arch,
        _gguf_string("tokenizer.ggml.tokens") + struct.pack("<IIQ", 9, 8, 2**63) + bytes(8 * 5_000_000),
        _gguf_string("llama.context_length") + struct.pack("<II", 4, 2048),
    )
    for path in (nested, negative, strings):
        assert context_length(path) is None, path.name
        assert fit_n_ctx({"n_ctx": 4096}, path, 4096) == {"n_ctx": 4096}
    assert context_length(gemma_path) == 32768  # the real model's header is still read


def test_a_fifo_in_place_of_the_model_is_never_opened_for_a_blocking_read(tmp_path: Path) -> None:
    """Break-it pass 11: open(path, "rb") of a FIFO waits for a writer forever (check_gguf's is_file()
    runs before it, but the file can be swapped in between); the file is opened with O_NONBLOCK and
    fstat'ed, so a FIFO or device says nothing."""
    import threading

    fifo = tmp_path / "model.gguf"
    os.mkfifo(fifo)
    got: list[object] = []
    reader = threading.Thread(target=lambda: got.append(context_length(fifo)), daemon=True)
    reader.start()
    reader.join(30)
    if reader.is_alive():  # unblock the reader so that the test run goes on
        with open(fifo, "wb"):
            pass
    assert got == [None]
    assert context_length(Path("/dev/zero")) is None


def test_required_size_is_what_the_header_of_the_embedded_gemma_describes(
    gemma_path: Path, tmp_path: Path
) -> None:
    """Gemma 3 270M's header (6.5 MB: 262,144 token strings) describes 236 tensors of F32, Q4_K, Q6_K ...
    whose data ends where the file does; a copy cut in its tensor data (`head -c 200000000`) needs the
    whole; a copy cut in its header says so (its size + 1); a header of no tensors needs itself alone."""
    size = gemma_path.stat().st_size
    assert required_size(gemma_path) == size
    with gemma_path.open("rb") as src:
        head = src.read(200_000_000)
    (tmp_path / "data.gguf").write_bytes(head)
    assert required_size(tmp_path / "data.gguf") == size
    (tmp_path / "header.gguf").write_bytes(head[:1_000_000])
    assert required_size(tmp_path / "header.gguf") == 1_000_001
    (tmp_path / "empty.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 3, 0, 0))
    assert required_size(tmp_path / "empty.gguf") == 24
    (tmp_path / "v1.gguf").write_bytes(b"GGUF" + struct.pack("<IQQ", 1, 0, 0))
    assert required_size(tmp_path / "v1.gguf") is None
