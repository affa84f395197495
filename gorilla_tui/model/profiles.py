"""Kernel profiles (kernels/*.toml): one llama.cpp compute backend each: build flags, detection, defaults."""

from __future__ import annotations

import os
import platform
import shutil
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import ModuleType
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.paths import toml_of
from gorilla_tui.resources import data_files
from gorilla_tui.textsafe import safe_line

#: Llama() parameters a profile's [runtime] table may set (llama-cpp-python's own names).
RUNTIME_KEYS = (
    "n_gpu_layers",
    "n_threads",
    "n_threads_batch",
    "n_batch",
    "n_ubatch",
    "n_ctx",
    "flash_attn",
    "use_mmap",
    "use_mlock",
    "offload_kqv",
    "use_extra_bufts",
)

#: Values of the use_extra_bufts setting (config.toml, kernels/*.toml [runtime]): "auto" decides by detection
#: (extra_bufts_default), "on" / "off" (or TOML true / false) force it.
EXTRA_BUFTS_CHOICES = ("auto", "on", "off")
#: CPU flags (/proc/cpuinfo "flags") of Intel AMX; ggml's AMX extra buffer type is used where they are.
AMX_FLAGS = ("amx_int8", "amx_tile")


@dataclass(frozen=True)
class KernelProfile:
    """One kernel profile.

    name: file stem (cpu, metal, cuda, vulkan); priority: higher wins when several GPU profiles match;
    cmake_args / install: how to build llama-cpp-python for this backend; detect: the [detect] table
    (keys: always, gpu_offload, platform, machine, system_info, commands, env); runtime: Llama() keyword
    defaults (n_threads 0 = half the logical cores, n_threads_batch 0 = all of them; see runtime_params).
    """

    name: str
    description: str
    priority: int
    cmake_args: str
    install: str
    detect: dict[str, Any] = field(default_factory=dict)
    runtime: dict[str, Any] = field(default_factory=dict)


@dataclass(frozen=True)
class LlamaCapabilities:
    """What the installed llama.cpp reports: GPU offload support and llama_print_system_info() text."""

    gpu_offload: bool
    system_info: str
    version: str


def load_profiles() -> dict[str, KernelProfile]:
    """Read every shipped kernels/*.toml. Raises GorillaError naming a file that is broken."""
    profiles: dict[str, KernelProfile] = {}
    for f in data_files("kernels"):
        try:
            data = toml_of(f.read_text(encoding="utf-8"), f.name)
            runtime = dict(data.get("runtime", {}))
            unknown = set(runtime) - set(RUNTIME_KEYS)
            if unknown:
                raise ValueError(f"unknown runtime keys {sorted(unknown)}")
            ebt = runtime.get("use_extra_bufts", "auto")
            if not isinstance(ebt, bool) and ebt not in EXTRA_BUFTS_CHOICES:
                raise ValueError(f"use_extra_bufts must be true, false or one of {EXTRA_BUFTS_CHOICES}")
            prof = KernelProfile(
                name=str(data["name"]),
                description=str(data.get("description", "")),
                priority=int(data.get("priority", 0)),
                cmake_args=str(data.get("cmake_args", "")),
                install=str(data.get("install", "")),
                detect=dict(data.get("detect", {})),
                runtime=runtime,
            )
        except (OSError, UsageError, KeyError, ValueError, TypeError) as e:
            raise GorillaError(f"kernel profile {f.name} is broken: {e}") from None
        profiles[prof.name] = prof
    return profiles


#: The environment variable llama-cpp-python loads libllama from instead of its own lib/ folder
#: (llama_cpp/llama_cpp.py:36).
LIB_PATH_ENV = "LLAMA_CPP_LIB_PATH"


def load_llama_cpp() -> ModuleType:
    """Import llama_cpp (loads the llama.cpp shared library, ~0.1 s); every import of it goes through here
    (model/llama_internals.py first of all), so that a library that cannot be loaded is one line.

    Returns:
        The llama_cpp module.

    Raises:
        GorillaError: llama-cpp-python is not installed, or its shared library was not found or could not be
            loaded: llama_cpp/_ctypes_extensions.py raises FileNotFoundError (:106, no libllama in
            LLAMA_CPP_LIB_PATH or lib/) or RuntimeError (:94, :103, a file that is no loadable library),
            which were "internal error" (break-it round 24, R24-2). The message names LLAMA_CPP_LIB_PATH
            when it is set."""
    try:
        import llama_cpp  # heavy: loads the llama.cpp shared library (~0.1 s)
    except ImportError as e:
        raise GorillaError(
            f"llama-cpp-python is not installed ({e})", hint="pip install llama-cpp-python"
        ) from None
    except (OSError, RuntimeError) as e:
        folder = os.environ.get(LIB_PATH_ENV)
        if folder is not None:
            raise GorillaError(
                f"llama.cpp's library could not be loaded from {LIB_PATH_ENV}={safe_line(folder[:200])}: {e}",
                hint=f"unset {LIB_PATH_ENV}, or set it to the folder that holds libllama.so",
            ) from None
        raise GorillaError(
            f"llama.cpp's library could not be loaded: {e}",
            hint="pip install --force-reinstall --no-deps llama-cpp-python",
        ) from None
    return llama_cpp


def llama_capabilities() -> LlamaCapabilities:
    """Ask the installed llama-cpp-python what it supports (imports llama_cpp: ~0.1 s, loads libllama).

    Raises:
        GorillaError: llama_cpp cannot be imported or its library loaded (load_llama_cpp)."""
    llama_cpp = load_llama_cpp()
    info = llama_cpp.llama_print_system_info().decode("utf-8", "replace")
    return LlamaCapabilities(
        gpu_offload=bool(llama_cpp.llama_supports_gpu_offload()),
        system_info=info,
        version=getattr(llama_cpp, "__version__", "?"),
    )


def matches(profile: KernelProfile, caps: LlamaCapabilities) -> tuple[bool, str]:
    """Does `profile`'s [detect] table fit this machine and llama.cpp build? Returns (ok, reason)."""
    d = profile.detect
    if d.get("always"):
        return True, "always available"
    if d.get("gpu_offload") and not caps.gpu_offload:
        return False, "installed llama.cpp has no GPU offload (llama_supports_gpu_offload() is false)"
    plats = d.get("platform")
    if plats and not any(sys.platform.startswith(p) for p in plats):
        return False, f"platform {sys.platform} not in {plats}"
    machines = d.get("machine")
    if machines and platform.machine().lower() not in [m.lower() for m in machines]:
        return False, f"machine {platform.machine()} not in {machines}"
    built = [s for s in d.get("system_info", []) if s in caps.system_info]
    found_cmd = [c for c in d.get("commands", []) if shutil.which(c)]
    found_env = [e for e in d.get("env", []) if os.environ.get(e)]
    if d.get("system_info") and not built:
        return False, f"llama.cpp was not built with {d['system_info'][0]}"
    why = ["GPU offload supported"] if d.get("gpu_offload") else []
    why += [f"llama.cpp built with {built[0]}"] if built else []
    why += [f"found {', '.join(found_cmd + found_env)}"] if found_cmd or found_env else []
    return True, "; ".join(why) or "detected"


def choose_profile(
    override: str | None = None, caps: LlamaCapabilities | None = None
) -> tuple[KernelProfile, str]:
    """Pick the kernel profile: `override` (--kernel / settings.kernel) if given, else the highest-priority
    profile that the installed llama.cpp supports. Returns (profile, reason in one sentence).

    Raises UsageError for an unknown override name.
    """
    profiles = load_profiles()
    if override:
        if override not in profiles:
            raise UsageError(f"unknown kernel profile {override!r} (known: {', '.join(sorted(profiles))})")
        return profiles[override], f"chosen with --kernel/config kernel = {override!r}"
    caps = caps or llama_capabilities()
    for prof in sorted(profiles.values(), key=lambda p: -p.priority):
        ok, why = matches(prof, caps)
        if ok:
            return prof, f"detected: {why}"
    raise GorillaError("no kernel profile matches (the cpu profile is missing from kernels/)")


def offload_warning(profile: KernelProfile, params: dict[str, Any], caps: LlamaCapabilities) -> str | None:
    """A one-line warning when `profile` (or params["n_gpu_layers"] != 0) asks for GPU offload but the
    installed llama-cpp-python cannot offload (llama_supports_gpu_offload() is false): llama.cpp then
    silently runs every layer on the CPU. None when nothing is wrong. The hint is the profile's own build
    command (its `install` line, kernels/<name>.toml).

    We warn rather than refuse (a deliberate choice): the answer is the same on the CPU, only slower.
    LlamaBackend.warnings carries it into Proposal.warnings; `ask` prints it on stderr."""
    wants_gpu = bool(profile.detect.get("gpu_offload")) or int(params.get("n_gpu_layers", 0) or 0) != 0
    if not wants_gpu or caps.gpu_offload:
        return None
    how = profile.install or (f'CMAKE_ARGS="{profile.cmake_args}" pip install llama-cpp-python')
    return (
        f"kernel profile {profile.name} requested, but this llama-cpp-python build has no GPU offload: "
        f"running on the CPU; rebuild with {how} (from kernels/{profile.name}.toml)"
    )


def amx_flags(cpuinfo: str) -> list[str]:
    """The AMX_FLAGS present in the "flags" lines of `cpuinfo` (the text of Linux's /proc/cpuinfo)."""
    found: set[str] = set()
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            found.update(f for f in value.split() if f in AMX_FLAGS)
    return sorted(found)


def extra_bufts_default(cpuinfo: Path = Path("/proc/cpuinfo")) -> tuple[bool, str]:
    """use_extra_bufts for "auto": (value, why in one phrase). Off where the CPU advertises Intel AMX
    (/proc/cpuinfo flags amx_int8 / amx_tile, Sapphire Rapids and later): there ggml repacks Q4_K weights
    into its AMX buffer and the first llama_decode segfaults in ggml_backend_amx_mul_mat (llama.cpp issue
    20824; dspy PR 10079, ollama issues 17006 / 17205), while use_extra_bufts = false runs normally. On
    elsewhere (llama.cpp's own default: the CPU_REPACK buffers are faster). Other systems than Linux have no
    /proc/cpuinfo: on (ggml's AMX backend is x86 Linux/Windows server CPUs only; macOS CPUs have none).
    `cpuinfo`: the file to read (Linux's /proc/cpuinfo)."""
    try:
        text = cpuinfo.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return True, f"auto: on ({sys.platform}: no /proc/cpuinfo, no Intel AMX detection needed)"
    found = amx_flags(text)
    if found:
        return False, f"auto: off (the CPU has Intel AMX: {', '.join(found)}; llama.cpp's AMX repack crashes)"
    return True, "auto: on (no Intel AMX in /proc/cpuinfo)"


def resolve_extra_bufts(value: Any) -> tuple[bool, str]:
    """A use_extra_bufts setting (True / False / "auto" / "on" / "off") -> (bool, why).
    Raises UsageError for anything else."""
    if isinstance(value, bool):
        return value, f"set to {'on' if value else 'off'}"
    if value in ("on", "off"):
        return value == "on", f"set to {value}"
    if value in ("auto", "", None):
        return extra_bufts_default()
    raise UsageError(f"use_extra_bufts must be one of {', '.join(EXTRA_BUFTS_CHOICES)}, not {value!r}")


def runtime_params(
    profile: KernelProfile,
    *,
    n_ctx: int = 0,
    n_threads: int = 0,
    n_gpu_layers: int = -1,
    use_extra_bufts: str = "auto",
) -> dict:
    """Llama() keyword arguments: the profile's [runtime] defaults, overridden by settings values that are
    set (n_ctx > 0, n_threads > 0, n_gpu_layers >= 0, use_extra_bufts "on" / "off"). A settings n_threads
    applies to both generation (n_threads) and prompt evaluation (n_threads_batch): the way to tell a busy
    machine to use fewer cores. use_extra_bufts comes out as a bool (resolve_extra_bufts: "auto" is
    extra_bufts_default); it is not a Llama() keyword: model/llama_internals.new_llama applies it to the
    llama_model_params struct. Raises UsageError for a bad use_extra_bufts value.

    0 in the profile resolves as llama-cpp-python's own defaults do: n_threads (generation, one token per
    llama_decode) = half the logical cores, at least 1; n_threads_batch (prompt evaluation, a batch per
    llama_decode) = all logical cores. Measured on the 2-core CI machine, otherwise idle, with Gemma 3 270M
    Q4_K_M (a 450-token prompt through Llama.eval, 8 alternating runs, medians):
    prompt evaluation 0.89 s with 1 thread, 0.51 s with 2; generating 32 tokens 0.42 s with 1 thread,
    0.43 s with 2. So 1 / 2 on 2 cores. With another process keeping a core busy, 2 threads are far slower
    (OpenMP threads spin-wait on the busy core): prompt 3.3 s vs 1.4 s, 32 tokens 3.7 s vs 0.55 s; set
    n_threads = 1 in config.toml to pin one thread; model/threads.py already drops to one while a decode
    shows the CPU contended."""
    params = dict(profile.runtime)
    if n_ctx > 0:
        params["n_ctx"] = n_ctx
    if n_threads > 0:
        params["n_threads"] = n_threads
        params["n_threads_batch"] = n_threads
    if n_gpu_layers >= 0:
        params["n_gpu_layers"] = n_gpu_layers
    cores = os.cpu_count() or 1
    if not params.get("n_threads"):
        params["n_threads"] = max(1, cores // 2)
    if not params.get("n_threads_batch"):
        params["n_threads_batch"] = cores
    params.setdefault("n_ctx", 4096)
    setting = use_extra_bufts
    if setting in ("", "auto"):
        setting = params.get("use_extra_bufts", "auto")
    params["use_extra_bufts"] = resolve_extra_bufts(setting)[0]
    return params


def extra_bufts_reason(profile: KernelProfile, setting: str = "auto") -> str:
    """Why runtime_params(profile, use_extra_bufts=setting) chose its use_extra_bufts value (for doctor):
    "config.toml: set to off", "kernels/cpu.toml: auto: on (no Intel AMX in /proc/cpuinfo)", ..."""
    if setting not in ("", "auto"):
        return "config.toml: " + resolve_extra_bufts(setting)[1]
    return f"kernels/{profile.name}.toml: " + resolve_extra_bufts(profile.runtime.get("use_extra_bufts"))[1]


def cap_threads(params: dict, cores: int | None = None) -> tuple[dict, str]:
    """`params` with n_threads and n_threads_batch at most the machine's logical cores, and a one-line
    note when a configured count was lowered ("" otherwise).

    llama.cpp starts every thread it is given: `n_threads = 5000` in config.toml made one answer take
    130 s on 2 cores, and `n_threads = 100000` crashed the probe child (SIGABRT) so that the fallback chain
    pinned one thread for good (break-it pass 10). More threads than cores never decode faster (see
    runtime_params' measurements). cores: default os.cpu_count()."""
    cores = cores or os.cpu_count() or 1
    asked = max(int(params.get("n_threads") or 0), int(params.get("n_threads_batch") or 0))
    if asked <= cores:
        return params, ""
    capped = {**params}
    for key in ("n_threads", "n_threads_batch"):
        if int(capped.get(key) or 0) > cores:
            capped[key] = cores
    return capped, f"n_threads = {asked} is more than this machine's {cores} logical cores: using {cores}"
