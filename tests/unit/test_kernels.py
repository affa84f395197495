"""Kernel profiles: the shipped TOML files, detection against the installed llama.cpp, overrides."""

from __future__ import annotations

import pytest

from gorilla_tui.errors import UsageError
from gorilla_tui.model.profiles import (
    LlamaCapabilities,
    choose_profile,
    load_profiles,
    matches,
    runtime_params,
)


def test_four_profiles_with_build_flags_and_runtime_defaults():
    profiles = load_profiles()
    assert set(profiles) == {"cpu", "metal", "cuda", "vulkan"}
    for p in profiles.values():
        assert p.install.startswith("CMAKE_ARGS=") and p.cmake_args in p.install
        assert {"n_gpu_layers", "n_threads", "n_batch", "n_ctx", "flash_attn", "use_mmap"} <= set(p.runtime)
    assert profiles["cpu"].runtime["n_gpu_layers"] == 0 and profiles["cuda"].runtime["n_gpu_layers"] == -1


def test_installed_cpu_build_picks_cpu():
    import llama_cpp

    prof, why = choose_profile()
    assert llama_cpp.llama_supports_gpu_offload() is False  # this machine's build (no accelerator)
    assert prof.name == "cpu" and why.startswith("detected")


def test_gpu_profiles_need_offload_and_their_build():
    profiles = load_profiles()
    cuda_build = LlamaCapabilities(
        gpu_offload=True, system_info="CUDA : ARCHS = 890 | CPU : AVX2 = 1", version="x"
    )
    ok, _ = matches(profiles["cuda"], cuda_build)
    assert ok or not __import__("sys").platform.startswith(("linux", "win32"))
    ok, why = matches(profiles["cuda"], LlamaCapabilities(False, "CPU : AVX2 = 1", "x"))
    assert not ok and "GPU offload" in why
    ok, _ = matches(profiles["vulkan"], cuda_build)
    assert not ok


def test_override_and_unknown_override():
    assert choose_profile("cuda")[0].name == "cuda"
    with pytest.raises(UsageError, match="unknown kernel profile"):
        choose_profile("tpu")


def test_runtime_params_settings_override_profile():
    cpu = load_profiles()["cpu"]
    p = runtime_params(cpu)
    assert p["n_threads"] >= 1 and p["n_ctx"] == cpu.runtime["n_ctx"] and p["n_gpu_layers"] == 0
    p = runtime_params(cpu, n_ctx=1024, n_threads=3, n_gpu_layers=5)
    assert (p["n_ctx"], p["n_threads"], p["n_gpu_layers"]) == (1024, 3, 5)


def test_gpu_profile_without_offload_warns_with_the_build_command():
    from gorilla_tui.model.profiles import offload_warning

    profiles = load_profiles()
    cpu_build = LlamaCapabilities(False, "CPU : AVX2 = 1", "x")
    gpu_build = LlamaCapabilities(True, "CUDA : ARCHS = 890", "x")
    cuda = profiles["cuda"]
    w = offload_warning(cuda, runtime_params(cuda), cpu_build)
    assert w is not None and w.startswith("kernel profile cuda requested, but this llama-cpp-python build")
    assert "running on the CPU" in w and 'CMAKE_ARGS="-DGGML_CUDA=on"' in w and "kernels/cuda.toml" in w
    assert offload_warning(cuda, runtime_params(cuda), gpu_build) is None
    cpu = profiles["cpu"]
    assert offload_warning(cpu, runtime_params(cpu), cpu_build) is None
    w = offload_warning(cpu, runtime_params(cpu, n_gpu_layers=10), cpu_build)  # config n_gpu_layers = 10
    assert w is not None and "kernel profile cpu" in w


def test_thread_defaults_half_the_cores_to_generate_all_to_read_the_prompt(monkeypatch):
    cpu = load_profiles()["cpu"]
    assert cpu.runtime["n_threads"] == 0 and cpu.runtime["n_threads_batch"] == 0  # explicit in cpu.toml
    monkeypatch.setattr("os.cpu_count", lambda: 2)  # the CI machine the defaults were measured on
    p = runtime_params(cpu)
    assert (p["n_threads"], p["n_threads_batch"]) == (1, 2)
    p = runtime_params(cpu, n_threads=1)  # config.toml n_threads: both phases (a busy machine)
    assert (p["n_threads"], p["n_threads_batch"]) == (1, 1)
    monkeypatch.setattr("os.cpu_count", lambda: 8)
    assert (runtime_params(cpu)["n_threads"], runtime_params(cpu)["n_threads_batch"]) == (4, 8)


#: The "flags" line of /proc/cpuinfo on an Intel Xeon Sapphire Rapids (4th gen Xeon Scalable), abridged.
SAPPHIRE_RAPIDS_FLAGS = (
    "flags\t\t: fpu vme de pse tsc msr pae mce cx8 apic sep mtrr pge mca cmov pat pse36 clflush mmx fxsr sse "
    "sse2 ss ht syscall nx pdpe1gb rdtscp lm constant_tsc avx512f avx512dq avx512_bf16 avx512_fp16 "
    "amx_bf16 amx_tile amx_int8 arch_capabilities"
)


def test_amx_cpu_turns_extra_buffer_types_off(tmp_path):
    from gorilla_tui.model.profiles import amx_flags, extra_bufts_default

    assert amx_flags(SAPPHIRE_RAPIDS_FLAGS) == ["amx_int8", "amx_tile"]
    cpuinfo = tmp_path / "cpuinfo"
    cores = [f"processor\t: {i}\n{SAPPHIRE_RAPIDS_FLAGS}\n" for i in range(2)]
    cpuinfo.write_text("\n".join(cores))
    on, why = extra_bufts_default(cpuinfo)
    assert on is False and why.startswith("auto: off") and "amx_int8, amx_tile" in why


def test_auto_follows_this_machines_cpu(tmp_path):
    """The "auto" setting reads the real /proc/cpuinfo: off on a CPU with AMX, on without it (CI machines
    of both kinds run this suite: it asserted "no AMX" once and failed on a Sapphire Rapids machine)."""
    from pathlib import Path

    from gorilla_tui.model.profiles import amx_flags, extra_bufts_default

    real = Path("/proc/cpuinfo")
    found = amx_flags(real.read_text()) if real.exists() else []
    on, why = extra_bufts_default()
    if found:
        assert on is False and why.startswith("auto: off") and ", ".join(found) in why
    else:
        assert (on, why) == (True, "auto: on (no Intel AMX in /proc/cpuinfo)") or not real.exists()
    plain = tmp_path / "cpuinfo"
    plain.write_text("processor\t: 0\nflags\t\t: fpu sse2 avx2 avx512f\n")
    assert extra_bufts_default(plain) == (True, "auto: on (no Intel AMX in /proc/cpuinfo)")
    assert extra_bufts_default(Path("/nonexistent/cpuinfo"))[0] is True  # macOS and others: no /proc


def test_use_extra_bufts_is_a_profile_setting_that_config_overrides():
    from gorilla_tui.model.profiles import extra_bufts_default, extra_bufts_reason

    for prof in load_profiles().values():
        assert prof.runtime["use_extra_bufts"] == "auto"
    cpu = load_profiles()["cpu"]
    auto, why = extra_bufts_default()  # off on a CPU with Intel AMX, on elsewhere
    assert runtime_params(cpu)["use_extra_bufts"] is auto
    assert runtime_params(cpu, use_extra_bufts="off")["use_extra_bufts"] is False
    assert runtime_params(cpu, use_extra_bufts="on")["use_extra_bufts"] is True
    assert extra_bufts_reason(cpu, "off") == "config.toml: set to off"
    assert extra_bufts_reason(cpu) == f"kernels/cpu.toml: {why}"
    with pytest.raises(UsageError, match="use_extra_bufts must be one of auto, on, off"):
        runtime_params(cpu, use_extra_bufts="maybe")


def test_config_toml_use_extra_bufts(tmp_path):
    from gorilla_tui.config import load_settings, save_settings

    cfg = tmp_path / "config.toml"
    cfg.write_text("use_extra_bufts = false\n")
    assert load_settings(cfg).use_extra_bufts == "off"  # llama.cpp's own spelling: a bool
    cfg.write_text('use_extra_bufts = "on"\n')
    settings = load_settings(cfg)
    assert settings.use_extra_bufts == "on"
    save_settings(settings, cfg)
    assert load_settings(cfg).use_extra_bufts == "on"
    cfg.write_text('use_extra_bufts = "sometimes"\n')
    with pytest.raises(UsageError, match="use_extra_bufts must be one of auto, on, off, not 'sometimes'"):
        load_settings(cfg)


def test_saving_settings_keeps_a_symlinked_config_toml_a_link(tmp_path):
    """A config.toml kept in a dotfiles folder and linked into the config dir was replaced by a plain file
    on the first save (os.replace over the link): the dotfiles copy kept the old value and the link was
    gone. The file the link points to is written now; the link, its comments and other keys stay."""
    from gorilla_tui.config import load_settings, save_settings

    dotfiles = tmp_path / "dotfiles" / "config.toml"
    dotfiles.parent.mkdir()
    dotfiles.write_text('# mine\nk = 7\nmode = "select"\n')
    link = tmp_path / "config" / "config.toml"
    link.parent.mkdir()
    link.symlink_to(dotfiles)
    settings = load_settings(link)
    settings.k = 9
    assert save_settings(settings, link, keys=["k"]) == dotfiles
    assert link.is_symlink() and link.resolve() == dotfiles
    assert dotfiles.read_text() == '# mine\nk = 9\nmode = "select"\n'
    assert load_settings(link).k == 9
    assert not list(link.parent.glob(".config-*")) and not list(dotfiles.parent.glob(".config-*"))
