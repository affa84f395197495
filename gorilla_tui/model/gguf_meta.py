"""The trained context length of a GGUF model, read from its metadata before llama.cpp loads it.

llama.cpp allocates the KV cache for whatever n_ctx it is given (a config.toml `n_ctx = 1000000` took
3.4 GB before failing, and a larger one got the process killed by the kernel's OOM killer: break-it pass
10), so the n_ctx a model is opened with is checked against `<arch>.context_length` first. The layout is
the GGUF spec (ggml docs/gguf.md, versions 2 and 3): magic, version (u32), tensor count (u64), metadata
count (u64), then each key (u64 length + UTF-8) with a value type (u32) and its value. The `gguf` package
of ggml-org reads every field first (16 s for Gemma 3 270M's 262,144-token vocabulary), so the few keys
needed are read here, stopping at the first that answers.
"""

from __future__ import annotations

import os
import stat
import struct
from pathlib import Path
from typing import Any, BinaryIO

from gorilla_tui.errors import UsageError

#: GGUF value types with a fixed size in bytes: uint8, int8, uint16, int16, uint32, int32, float32, bool,
#: uint64, int64, float64 (gguf.md "gguf_metadata_value_type"); 8 is a string and 9 an array.
_FIXED = {0: 1, 1: 1, 2: 2, 3: 2, 4: 4, 5: 4, 6: 4, 7: 1, 10: 8, 11: 8, 12: 8}
_INTS = {0: "<B", 1: "<b", 2: "<H", 3: "<h", 4: "<I", 5: "<i", 10: "<Q", 11: "<q"}
_STRING, _ARRAY = 8, 9
#: Largest key or string read whole (a longer one is a corrupt file: keys are short ASCII names).
_MAX_STRING = 1 << 20
#: Most strings skipped in one read (a vocabulary of 262,144 tokens, Gemma 3's, and a BPE merge list of
#: about 280,000, Llama 3's, fit many times over), deepest array nesting, and most metadata keys read
#: (check_gguf refuses over 1,000,000): a crafted header is given up on in a bounded time.
_MAX_STRINGS = 4_000_000
_MAX_DEPTH = 8
_MAX_KEYS = 1_000_000


class _Corrupt(Exception):
    pass


def _read(fh: BinaryIO, n: int) -> bytes:
    data = fh.read(n)
    if len(data) != n:
        raise _Corrupt
    return data


def _u32(fh: BinaryIO) -> int:
    return struct.unpack("<I", _read(fh, 4))[0]


def _u64(fh: BinaryIO) -> int:
    return struct.unpack("<Q", _read(fh, 8))[0]


def _string(fh: BinaryIO) -> bytes:
    n = _u64(fh)
    if n > _MAX_STRING:
        raise _Corrupt
    return _read(fh, n)


def _skip(fh: BinaryIO, vtype: int, budget: list[int], depth: int = 0) -> None:
    """Move past one value of type `vtype` (an array's strings one by one, other arrays in one seek).

    budget: [strings still allowed], shared by the whole read; raises _Corrupt past it, for an array
    nested more than _MAX_DEPTH deep, or an unknown type (break-it pass 11: 20000 nested arrays were a
    RecursionError traceback; a crafted 2**63-string array would be read 8 bytes at a time to the file's end).
    """
    if vtype in _FIXED:
        fh.seek(_FIXED[vtype], 1)
    elif vtype == _STRING:
        budget[0] -= 1
        if budget[0] < 0:
            raise _Corrupt
        fh.seek(_u64(fh), 1)
    elif vtype == _ARRAY:
        if depth >= _MAX_DEPTH:
            raise _Corrupt
        etype, count = _u32(fh), _u64(fh)
        if etype in _FIXED:
            fh.seek(_FIXED[etype] * count, 1)
        else:
            if count > budget[0]:
                raise _Corrupt
            for _ in range(count):
                _skip(fh, etype, budget, depth + 1)
    else:
        raise _Corrupt


def _open_regular(path: Path) -> BinaryIO | None:
    """`path` opened for reading when it is a regular file, else None: O_NONBLOCK and fstat on the open
    descriptor, so a FIFO put there never blocks (a plain open() waits for a writer forever) and a device
    is never read. Raises OSError when it cannot be opened."""
    fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    if not stat.S_ISREG(os.fstat(fd).st_mode):
        os.close(fd)
        return None
    return os.fdopen(fd, "rb")


def context_length(path: Path) -> int | None:
    """The context length `path` was trained for (`<general.architecture>.context_length`), in tokens.

    Returns None when the file does not say (no such key, a value of 0 or below, GGUF version 1, a header
    that cannot be read, crafted counts or nesting, no regular file: a FIFO or device): the caller then
    leaves n_ctx as it is. Raises OSError when the file cannot be opened.
    """
    fh = _open_regular(path)
    if fh is None:
        return None
    with fh:
        try:
            if _read(fh, 4) != b"GGUF" or _u32(fh) not in (2, 3):
                return None
            _u64(fh)  # tensor count
            n_kv = _u64(fh)
            arch = None
            budget = [_MAX_STRINGS]
            for _ in range(min(n_kv, _MAX_KEYS)):
                key = _string(fh)
                vtype = _u32(fh)
                if key == b"general.architecture" and vtype == _STRING:
                    arch = _string(fh)
                elif arch is not None and key == arch + b".context_length" and vtype in _INTS:
                    fmt = _INTS[vtype]
                    value = int(struct.unpack(fmt, _read(fh, struct.calcsize(fmt)))[0])
                    return value if value > 0 else None
                else:
                    _skip(fh, vtype, budget)
        except (_Corrupt, struct.error, OSError, ValueError, OverflowError):
            return None
    return None


#: Bytes per block and elements per block of each ggml tensor type (ggml.h `enum ggml_type`, ggml.c
#: `type_traits`): F32, F16, the Q4_0 ... Q8_1 and K-quants, the IQ quants, the integer types, BF16, TQ1_0,
#: TQ2_0 and MXFP4. A type not listed counts its tensor's offset alone (a lower bound: never too much).
_TYPE_SIZES = {
    0: (4, 1), 1: (2, 1), 2: (18, 32), 3: (20, 32), 6: (22, 32), 7: (24, 32), 8: (34, 32), 9: (36, 32),
    10: (84, 256), 11: (110, 256), 12: (144, 256), 13: (176, 256), 14: (210, 256), 15: (292, 256),
    16: (66, 256), 17: (74, 256), 18: (98, 256), 19: (50, 256), 20: (18, 32), 21: (110, 256),
    22: (82, 256), 23: (136, 256), 24: (1, 1), 25: (2, 1), 26: (4, 1), 27: (8, 1), 28: (8, 1),
    29: (56, 256), 30: (2, 1), 34: (54, 256), 35: (66, 256), 39: (17, 32),
}  # fmt: skip
#: GGUF's default alignment of the tensor data (gguf.md: `general.alignment`, 32 when absent).
_ALIGNMENT = 32
#: Most tensors and dimensions read (check_gguf refuses over 1,000,000 tensors; ggml has 4 dimensions).
_MAX_TENSORS = 1_000_000
_MAX_DIMS = 8


def required_size(path: Path) -> int | None:
    """The least size in bytes `path` must have for its GGUF header to hold: the end of its tensor data
    (the data section's start, aligned to `general.alignment`, plus the furthest tensor's offset and
    size, from each tensor's ggml type and dimensions), or, when the header itself runs past the end of
    the file (a download cut short in its vocabulary), the file's size + 1.

    Returns None when it cannot tell: GGUF version 1, a header that is corrupt but not cut short, crafted
    counts or nesting (the same bounds as context_length), no regular file. Reads the whole header
    (Gemma 3 270M's: ~4 MB, its 262,144 token strings skipped one by one, ~0.2 s); never the tensor data.
    Raises OSError when the file cannot be opened.
    """
    fh = _open_regular(path)
    if fh is None:
        return None
    with fh:
        size = os.fstat(fh.fileno()).st_size
        try:
            if _read(fh, 4) != b"GGUF" or _u32(fh) not in (2, 3):
                return None
            n_tensors, n_kv = _u64(fh), _u64(fh)
            if n_tensors > _MAX_TENSORS or n_kv > _MAX_KEYS:
                return None
            alignment = _ALIGNMENT
            budget = [_MAX_STRINGS]
            for _ in range(n_kv):
                key, vtype = _string(fh), _u32(fh)
                if key == b"general.alignment" and vtype == 4:
                    alignment = _u32(fh) or _ALIGNMENT
                else:
                    _skip(fh, vtype, budget)
            end = 0
            for _ in range(n_tensors):
                _string(fh)  # the tensor's name
                n_dims = _u32(fh)
                if n_dims > _MAX_DIMS:
                    return None
                elements = 1
                for _ in range(n_dims):
                    elements *= _u64(fh)
                ggml_type, offset = _u32(fh), _u64(fh)
                nbytes, block = _TYPE_SIZES.get(ggml_type, (0, 1))
                end = max(end, offset + elements // block * nbytes)
            start = fh.tell()
            if end:  # no tensor data (no tensors, or all empty): the header's end is the file's least size
                start += -start % alignment
        except _Corrupt:
            return size + 1 if fh.tell() >= size else None
        except (struct.error, OSError, ValueError, OverflowError):
            return None
    return start + end


def fit_n_ctx(params: dict[str, Any], path: Path, requested: int) -> dict[str, Any]:
    """`params` (Llama() keywords with "n_ctx") made to fit the context `path` was trained for.

    Args:
        params: the kernel profile's runtime params, settings applied (profiles.runtime_params).
        path: the GGUF file about to be loaded.
        requested: settings.n_ctx (0 = the profile's default).

    Returns:
        `params` unchanged when it fits or the file does not say; with n_ctx lowered to the trained
        length when the profile's default (4096 on cpu) is more than the model knows (a 2048-token
        LLaMA-1 Gorilla).

    Raises:
        UsageError: an n_ctx set in config.toml is more than the trained length; llama.cpp would
            allocate its KV cache anyway (gigabytes, or the OOM killer) before it failed.
    """
    try:
        trained = context_length(path)
    except OSError:
        trained = None
    if trained is None or int(params.get("n_ctx", 0)) <= trained:
        return params
    if requested > 0:
        raise UsageError(
            f"n_ctx = {requested} is more than {path.name} was trained for ({trained} tokens): set n_ctx "
            f"to at most {trained} in config.toml, or 0 for the kernel profile's context size"
        )
    return {**params, "n_ctx": trained}
