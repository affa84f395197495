"""`gorilla-tui check "CODE"`: the AST verdict of a call (or a whole model response) against the API pool."""

from __future__ import annotations

import argparse
import json
import sys

from gorilla_tui.errors import UsageError
from gorilla_tui.pool.doc import load_file
from gorilla_tui.textsafe import safe_text

#: Exit status per verdict: 0 valid, 1 any other verdict (2 is bad usage, raised as UsageError).
EXIT = {"valid": 0}
_STYLE = {"valid": "green", "wrong_args": "yellow", "hallucination": "red", "unparseable": "magenta",
          "no_call": "blue"}  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser(
        "check",
        help="validate an API call against the API pool (AST match)",
        description="Check code or a model response with an AST sub-tree match against the API pool. "
        "Exit 0 when valid, 1 for any other verdict, 2 for bad usage.",
    )
    p.add_argument("code", help="the code or model response; '-' reads standard input")
    p.add_argument(
        "--hub",
        default=None,
        metavar="NAME",
        help="check against one source of the index only (torchhub, ...); not with --pool",
    )
    p.add_argument(
        "--pool", default=None, metavar="FILE", help="check against this doc file instead of the index"
    )
    p.add_argument("--json", action="store_true", help="print JSON instead of a panel")
    p.set_defaults(func=run)


def _pool(args: argparse.Namespace) -> list:
    """The API pool: the docs of --pool FILE (source "user"), else the index's, filtered by --hub.
    Raises UsageError for --pool together with --hub or an unreadable pool file; IndexMissingError."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    if args.pool:
        if args.hub:  # --hub selects a source of the index; a single file is one source, so it has no meaning
            raise UsageError("--hub filters the index; with --pool the file is the pool (drop one of them)")
        try:
            loaded = load_file(args.pool, "user")
        except ValueError as e:
            raise UsageError(str(e)) from None
        if not loaded.docs:
            why = loaded.diagnostics[0].message if loaded.diagnostics else "no docs"
            raise UsageError(f"no API docs could be read from {args.pool} ({why})")
        return loaded.docs

    return services.load_index().pool(args.hub)


def run(args: argparse.Namespace) -> int:
    """Validate args.code; print the verdict; return its exit status. Errors (UsageError, raised before
    anything is printed) reach stderr as one line, so with --json stdout is empty or one JSON object."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    if args.code == "-":
        data = sys.stdin.buffer.read() if hasattr(sys.stdin, "buffer") else sys.stdin.read().encode()
        code = data.decode("utf-8", "replace")
    else:
        code = args.code
    if not code.strip():
        raise UsageError("nothing to check: the code is empty")

    verdict = services.build_validator(_pool(args)).check(code)
    if args.json:
        print(json.dumps(verdict.to_dict(), ensure_ascii=False))
    else:
        _print_panel(verdict)
    return EXIT.get(verdict.kind, 1)


def _print_panel(verdict) -> None:
    from rich.panel import Panel  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    body = Text()
    body.append("call: ", style="bold")
    body.append(safe_text(f"{verdict.api_call or '-'}") + "\n")
    if verdict.matched is not None:
        d = verdict.matched
        label = "matched" if verdict.kind == "valid" else "closest"
        body.append(f"{label}: ", style="bold")
        body.append(safe_text(f"{d.call}  [{d.id}; {d.domain or d.framework}]") + "\n")
    for s in verdict.suggestions:
        body.append("did you mean: ", style="bold")
        body.append(safe_text(s) + "\n")
    for note in verdict.diagnostics:
        body.append(safe_text(note) + "\n", style="dim")
    if verdict.reason:
        body.append("reason: ", style="bold")
        body.append(f"{verdict.reason}\n")
    deciding = [c for c in verdict.calls if c.role in ("pool", "family", "python-env")]
    if len(deciding) > 1:  # say which calls were checked, each with its own verdict
        for c in deciding:
            body.append(safe_text(f"  {c.line}:{c.col} {c.callee}: {c.kind} ({c.role})") + "\n", style="dim")
    style = _STYLE.get(verdict.kind, "white")
    make_console().print(
        Panel(body, title=f"[bold {style}]{verdict.kind}[/]", border_style=style, expand=False)
    )
