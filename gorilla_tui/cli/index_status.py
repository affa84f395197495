"""`gorilla-tui index --status`: the live index's sources, flagged entries, skipped lines and summary, as rich
tables or JSON; and the sources table a refresh prints too."""

from __future__ import annotations

import argparse
import json
from datetime import datetime, timezone
from typing import Any

from gorilla_tui.cli.output import status_if_cut
from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.paths import get_paths
from gorilla_tui.pool.manifest import load_manifests
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.textsafe import safe_line, safe_text

#: Flagged entries listed per source by `index --status` (all of them with --json).
FLAGGED_SHOWN = 25
#: Skipped lines listed by `index --status` (an index built by an older release may hold millions).
SKIPPED_SHOWN = 50


#: Narrowest "from / why" column the sources table is laid out with. A console that leaves it less (an
#: 80-column terminal, where rich squeezed the column out entirely) gets the table without it and each
#: source's origin or reason as a line under it (print_sources).
WHY_MIN_WIDTH = 24
#: Heading of the sources table's column of origins and reasons.
WHY_HEADER = "from / why"
#: Narrowest "source" column of the compact table (print_sources), so no console squeezes it out.
SOURCE_MIN_WIDTH = 10


def sources_table(rows: list[dict[str, Any]], title: str, why: bool = True):
    """The sources of a refresh or of the index as a rich Table; every cell is plain text (safe_text),
    never markup: a source path such as `docs/[/x]` is shown as it is. why: with the "from / why" column
    (each row's origin, or the message of a row that is not "ok"); without it the table is compact (no
    outer edge, "call repaired" on two header lines, a long source name folded) and fits 80 columns."""
    from rich.table import Table  # deferred: rich (~0.1 s); --help and --json stay fast
    from rich.text import Text

    table = Table(title=title) if why else Table(title=title, show_edge=False, pad_edge=False)
    repaired_call = "call repaired" if why else "call\nrepaired"
    columns = [("source", "left"), ("status", "left"), ("loaded", "right"), ("flagged", "right"),
               (repaired_call, "right"), ("skipped", "right"), ("repaired", "right")]  # fmt: skip
    for col, just in columns + ([(WHY_HEADER, "left")] if why else []):
        wraps = col == WHY_HEADER or not why
        table.add_column(col, justify=just, overflow="fold", no_wrap=not wraps,
                         min_width=SOURCE_MIN_WIDTH if col == "source" and not why else None)  # fmt: skip
    for r in rows:
        cells = [r["name"], r.get("status", ""), r.get("loaded", 0), r.get("flagged", 0),
                 r.get("calls_repaired", 0), r.get("skipped", 0), r.get("repaired", 0)]  # fmt: skip
        cells += [_where(r)] if why else []
        table.add_row(*(Text(safe_text(str(c))) for c in cells))  # shown as they are, never as markup
    return table


def print_sources(console: Any, rows: list[dict[str, Any]], title: str) -> None:
    """Print the sources table on `console`: with its "from / why" column (sources_table) when the console
    leaves that column at least WHY_MIN_WIDTH characters; else the compact table without it, then one line
    "SOURCE: from / why" per row that has one (printed whole: the terminal wraps it), so every origin and
    reason is shown on an 80-column terminal too."""
    from rich.measure import Measurement  # deferred: rich; --help and --json stay fast
    from rich.text import Text

    bare = sources_table([dict(r, origin="", message="") for r in rows], title)  # "from / why": its header
    width = Measurement.get(console, console.options.update_width(10**6), bare).maximum
    needed = width - len(WHY_HEADER) + WHY_MIN_WIDTH
    if needed <= console.width:
        console.print(sources_table(rows, title))
        return
    console.print(sources_table(rows, title, why=False))
    for r in rows:
        if _where(r):
            console.print(Text(safe_text(f"{r['name']}: {_where(r)}")), soft_wrap=True)


def _where(row: dict[str, Any]) -> str:
    """The "from / why" of a source row: its origin when its status is "ok", else its message."""
    return str((row.get("origin") if row.get("status") == "ok" else row.get("message", "")) or "")


def _age(built_at: str) -> tuple[float, str]:
    try:
        seconds = (datetime.now(timezone.utc) - datetime.fromisoformat(built_at)).total_seconds()
    except (TypeError, ValueError):
        return -1.0, "unknown"
    for unit, size in (("d", 86400), ("h", 3600), ("min", 60)):
        if seconds >= size:
            return seconds, f"{seconds / size:.1f} {unit}"
    return seconds, f"{seconds:.0f} s"


def status(args: argparse.Namespace) -> int:
    """`index --status`: the live index's sources, flagged entries, skipped lines and summary (or JSON).

    No index built yet is a state, not an error: one line saying so and how to build one, exit 0 (with
    --json: {"index": false, ...}). The index is opened and checked as a search opens it
    (store.read_stored: meta.json's shape and fields, vocab.json, postings.npz and docs.jsonl fitting each
    other), then every file checked against the SHA-256 recorded when it was built (previous.read_verified:
    bytes overwritten in place), so an index a search refuses is never shown as healthy: a damaged one
    raises GorillaError, the search's line with how to rebuild it (exit 2); with --json it prints
    {"index": true, "damaged": true, "message", "hint", ...} and exits 2. An index whose record of how it was
    built (previous.STATE_FILE) is missing or unreadable could not be checked: a "note:" line says so
    (previous.UNCHECKED_NOTE; with --json "integrity": {"checked": false, "note"}), exit 0.

    A config.toml that search or `index --refresh` refuses (config_problem) is a "problem:" line after the
    config's path (--json: "config_problem": {"message", "hint"}, else null), exit 2.

    Returns:
        The exit code: 0, or 2 with --json for a damaged index, or for a config.toml refused (config_problem).

    Raises:
        GorillaError: the live index is damaged (without --json).
    """
    from rich.text import Text  # deferred: rich; --help stays fast

    from gorilla_tui.build.previous import read_verified  # deferred: numpy, scipy (with the store below)
    from gorilla_tui.store import versions as index_store  # deferred: numpy, scipy (~0.3 s)

    try:
        stored, unchecked = read_verified()
    except IndexMissingError as e:
        return _no_index(args, e)
    except GorillaError as e:
        if not args.json:
            raise
        return _damaged(e)
    folder, meta = stored.folder, stored.meta
    size = index_store.folder_size(folder)
    age_s, age = _age(meta.get("built_at", ""))
    paths = get_paths()
    config = config_problem([str(s.get("name")) for s in meta.get("sources", [])])
    code = 2 if config is not None else 0
    if args.json:
        doc = _status_json(folder, meta, size, age_s, unchecked)
        doc["config_problem"] = None if config is None else {"message": str(config), "hint": config.hint}
        with status_if_cut(code):
            print(json.dumps(doc, indent=1))
        return code

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    console = make_console()
    with status_if_cut(code):  # `index --status | head -1` keeps 2 for a config problem (break-it round 30)
        print_sources(console, meta.get("sources", []), "API index")
        if meta.get("flagged"):
            console.print(_flagged_table(meta["flagged"]))
        _print_skipped(console, meta.get("diagnostics", []))
        summary = (
            f"{meta.get('n_docs', 0)} docs, {meta.get('vocab_size', 0)} terms, {size / 1e6:.1f} MB, built "
            f"{meta.get('built_at', '?')} ({age} ago)"
        )
        for line in (summary, f"index: {folder}", f"config: {paths.config_file}"):
            console.print(Text(safe_text(line)))
        if config is not None:  # what search or index --refresh refuses in it, as doctor says it
            fix = config.hint or f"fix or delete {paths.config_file}"
            console.print(Text.assemble(("problem:", "red"), safe_text(f" {config} ({fix})")), soft_wrap=True)
        if unchecked:
            console.print(Text.assemble(("note:", "yellow"), safe_text(f" {unchecked}")))
        dense = _dense_state(folder, meta)
        console.print(Text(safe_text(f"retrieval: {dense['note']}")))
        expansion = _expansion_line(meta.get("sources", []), bool(dense.get("questions")))
        if expansion:
            console.print(Text(safe_text(expansion)))
        missing = missing_sources(meta)
        if missing["sources"]:
            console.print(Text(safe_text(f"not in the index: {', '.join(missing['sources'])}")))
            for line in missing["fixes"]:
                console.print(Text(safe_text(line)), soft_wrap=True)
    return code


def config_problem(sources: list[str] | None = None) -> GorillaError | None:
    """What a command refuses in config.toml, or None: the file itself (config.load_settings: not UTF-8,
    invalid TOML, a FIFO, an unknown key: what search and ask refuse), else an entry of its `sources` or
    `mirrors` that `index --refresh` refuses (services.check_configured_sources, configured_mirrors: the
    checks doctor reports), else a `hub` that names none of the index's `sources` (hub_problem: search
    and ask refuse it; break-it round 29). `index --status` showed the config's path with no word of it
    (break-it round 28)."""
    from gorilla_tui import services  # deferred: the index's modules (numpy); --help stays fast

    settings, error = services.read_settings()
    if error is not None:
        return error
    try:
        services.check_configured_sources(settings)
        services.configured_mirrors(settings)
    except GorillaError as e:
        return e
    return services.hub_problem(settings.hub, sources or [])


def missing_sources(meta: dict[str, Any]) -> dict[str, list[str]]:
    """{"sources": the shipped sources (index/*.toml) the index has no docs of, "fixes": one line per fix
    (pool.remedies.fix_lines, as the first launch, `index --refresh` and `doctor` say it)}; both empty when
    every shipped source is in. Raises UsageError naming a shipped manifest that cannot be read."""
    have = {s["name"] for s in meta.get("sources", []) if s.get("loaded")}
    manifests = load_manifests()
    names = [m.name for m in manifests if m.name not in have]
    return {"sources": names, "fixes": fix_lines(names, manifests)}


def _expansion_line(rows: list[dict[str, Any]], embedded: bool) -> str:
    """ "doc expansion: SOURCE N questions, ..." for the sources (meta.json rows) whose docs carry
    questions (training or hand-written), "(BM25 and dense)" after those whose questions have vectors
    (dense_vectors.question_sources, when `embedded`), else "(BM25)"; "" when no source has any."""
    from gorilla_tui.build.dense_vectors import question_sources  # deferred: numpy

    dense = question_sources(rows) if embedded else set()
    reach = {True: "BM25 and dense", False: "BM25"}
    parts = [
        f"{r.get('name')} {r['questions']} questions ({reach[r.get('name') in dense]})"
        for r in rows
        if isinstance(r.get("questions"), int) and r["questions"] > 0
    ]
    return "doc expansion: " + ", ".join(parts) if parts else ""


def _no_index(args: argparse.Namespace, missing: IndexMissingError) -> int:
    """`index --status` when no index has been published: one line (or JSON with "index": false), exit 0; a
    config.toml refused (config_problem) is a second line ("config_problem"), exit 2."""
    paths = get_paths()
    config = config_problem()
    code = 2 if config is not None else 0
    if args.json:
        said = None if config is None else {"message": str(config), "hint": config.hint}
        with status_if_cut(code):
            print(json.dumps({"index": False, **_problem_doc(missing), "config_problem": said}, indent=1))
        return code
    how = missing.hint or "build it with: gorilla-tui index --refresh"
    with status_if_cut(code):
        print(safe_line(f"no index yet ({paths.index_dir}); {how}"))
        if config is not None:
            print(safe_line(f"problem: {config} ({config.hint or f'fix or delete {paths.config_file}'})"))
    return code


def _damaged(damage: GorillaError) -> int:
    """`index --status --json` when the live index is damaged (a search refuses it): {"index": true,
    "damaged": true, "message", "hint"} and the folders, exit 2 (also when the reader goes away)."""
    with status_if_cut(2):
        print(json.dumps({"index": True, "damaged": True, **_problem_doc(damage)}, indent=1))
    return 2


def _problem_doc(problem: GorillaError) -> dict[str, str | None]:
    """The JSON fields of `index --status --json` without a usable index: message, hint and the folders."""
    paths = get_paths()
    return {
        "message": str(problem),
        "hint": problem.hint,
        "index_dir": str(paths.index_dir),
        "config_file": str(paths.config_file),
    }


def _status_json(
    folder: Any, meta: dict[str, Any], size: int, age_s: float, unchecked: str
) -> dict[str, Any]:
    """What `index --status --json` prints ("index": true; see _no_index for the state without one);
    unchecked: previous.UNCHECKED_NOTE when the files could not be checked, else "" ("integrity")."""
    paths = get_paths()
    flagged = meta.get("flagged", [])
    return {
        "index": True,
        "damaged": False,
        "path": str(folder),
        "index_dir": str(paths.index_dir),
        "config_file": str(paths.config_file),
        "built_at": meta.get("built_at"),
        "age_seconds": round(age_s, 1),
        "size_bytes": size,
        "n_docs": meta.get("n_docs"),
        "vocab_size": meta.get("vocab_size"),
        "sources": meta.get("sources", []),
        "dense": _dense_state(folder, meta),
        "flagged": flagged,
        "flagged_repaired": sum(1 for f in flagged if f.get("repaired")),
        "flagged_still": sum(1 for f in flagged if not f.get("repaired")),
        "diagnostics": meta.get("diagnostics", []),
        "integrity": {"checked": not unchecked, "note": unchecked},
        "missing": missing_sources(meta),
    }


def _flagged_table(flagged: list[dict[str, Any]]) -> Any:
    """The flagged entries as a rich Table, at most FLAGGED_SHOWN per source (plain-text cells)."""
    from rich.table import Table  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    by_source: dict[str, list[dict[str, Any]]] = {}
    for f in flagged:
        by_source.setdefault(f["source"], []).append(f)
    fixed = sum(1 for f in flagged if f.get("repaired"))
    table = Table(
        title=f"flagged entries ({len(flagged)}): api_call is not valid Python, still searchable; "
        f"{fixed} repaired (the repaired call is matched and proposed), "
        f"{len(flagged) - fixed} still flagged"
    )
    for col in ("id", "api_call", "reason", "repaired call"):
        table.add_column(col, overflow="fold")
    for source, items in by_source.items():
        for f in items[:FLAGGED_SHOWN]:
            keys = ("id", "api_call", "reason", "repaired")
            table.add_row(*(Text(safe_text(str(f.get(k) or ""))) for k in keys))
        if len(items) > FLAGGED_SHOWN:
            more = f"and {len(items) - FLAGGED_SHOWN} more (see --json)"
            table.add_row(Text(safe_text(f"{source}: ...")), more, "", "")
    return table


def _print_skipped(console: Any, diagnostics: list[Any]) -> None:
    """One line per skipped line or file of the index's diagnostics (at most SKIPPED_SHOWN)."""
    from rich.text import Text  # deferred: rich; --help stays fast

    skipped = [d for d in diagnostics if isinstance(d, dict) and d.get("severity") == "skipped"]
    for d in skipped[:SKIPPED_SHOWN]:
        where = f"{d.get('file')}:{d.get('line')}" if d.get("line") else d.get("file")
        console.print(Text.assemble(("skipped", "yellow"), safe_text(f" {where}: {d.get('message')}")))
    if len(skipped) > SKIPPED_SHOWN:
        more = f" ... and {len(skipped) - SKIPPED_SHOWN} more (see --json)"
        console.print(Text.assemble(("skipped", "yellow"), more))


def _dense_state(folder: Any, meta: dict[str, Any]) -> dict[str, Any]:
    """The dense side's state of the version `folder` as a search would find it
    (retrieve.dense.DenseSide.checked_state: vectors built with another embedder are off), without loading
    the docs."""
    from gorilla_tui.retrieve.dense import DenseSide  # deferred: numpy; `index --help` stays fast

    return DenseSide(int(meta.get("n_docs", 0)), folder).checked_state()
