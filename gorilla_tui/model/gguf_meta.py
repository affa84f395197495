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
