"""`gorilla-tui check "CODE"`: the AST verdict of a call (or a whole model response) against the API pool."""

from __future__ import annotations

import argparse
import contextlib
import glob
import os

from gorilla_tui.check.walk import expand
from gorilla_tui.cli.lint import run_lint, stdin_text
from gorilla_tui.cli.output import status_if_cut
from gorilla_tui.cli.source_text import argument_text
from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.pool.doc import load_file
from gorilla_tui.textsafe import safe_text

#: Exit status per verdict: 0 valid, 1 any other verdict (2 is bad usage, raised as UsageError).
EXIT = {"valid": 0}
#: How an argument that is clearly a path starts (with no "(" in it: code is never these): absolute,
#: relative to the current folder or its parent, or the home folder.
PATH_STARTS = tuple(dict.fromkeys(("/", "./", "../", "~", os.sep, "." + os.sep, ".." + os.sep)))
_STYLE = {"valid": "green", "incomplete": "cyan", "wrong_args": "yellow", "hallucination": "red",
          "unparseable": "magenta", "no_call": "blue"}  # fmt: skip


def register(sub: argparse._SubParsersAction) -> None:
    """Add the `check` subcommand."""
    p = sub.add_parser(
        "check",
        help="validate API calls against the API pool (AST match): a snippet, or files as a linter",
        description="Check code or a model response with an AST sub-tree match against the API pool. "
        "Exit 0 when valid, 1 for any other verdict, 2 for bad usage. "
        "With PATHs (files, folders, globs) it is a linter: "
        "every API call that is not valid is reported as 'path:line:col: reason-code message' "
        "(Python files, Markdown python fences, notebook code cells); a call is judged only when its callee "
        "resolves into the pool through the file's own imports (--explain says why others were not); "
        "'# gorilla: ignore[reason]' on a line silences it. Exit 0 clean, 1 findings, 2 errors. "
        + ARGUMENT_RULE,
    )
    p.add_argument(
        "code",
        nargs="+",
        metavar="CODE|PATH",
        help="the code or model response ('-' reads standard input), or files / folders / globs to lint",
    )
    p.add_argument(
        "--format",
        choices=("text", "json", "sarif"),
        default=None,
        help="linter output (default text for PATHs; with CODE: its findings): text lines, a JSON list, "
        "or SARIF 2.1.0",
    )
    p.add_argument("--select", action="append", metavar="CODES", help="report only these reason codes "
                   "(comma-separated; a verdict like 'wrong_args' selects all of its codes)")  # fmt: skip
    p.add_argument("--ignore", action="append", metavar="CODES", help="do not report these reason codes")
    p.add_argument(
        "--stdin-filename", default=None, metavar="NAME", help="the name of '-' (or of CODE) in findings"
    )
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
    form = p.add_mutually_exclusive_group()
    form.add_argument("--file", action="store_true", help="the arguments are paths (files, folders, globs)")
    form.add_argument(
        "--code",
        dest="force_code",
        action="store_true",
        help="the argument is code or a JSON tool call, even if a file of that name exists",
    )
    p.add_argument(
        "--explain",
        action="store_true",
        help="linter: also say, on stderr, why each call that is not valid was not judged (its callee "
        "resolves through the file's own imports to something the pool does not cover)",
    )
    p.set_defaults(func=run)


#: The rule of `check`'s arguments, one sentence (shown in `check --help`; issue 39).
ARGUMENT_RULE = (
    "An argument is a path when it exists (a glob: when it matches a file) or with --file, else it is code "
    "or a JSON tool call (--code forces code; a lone argument that only looks like a missing file is an "
    "error)."
)


def _names_paths(args: argparse.Namespace) -> bool:
    """True when args.code names files to lint, False when it is the code itself (ARGUMENT_RULE). Decided
    by the arguments alone, never by --format/--select/--ignore/--json (those only choose what is
    printed). --file: paths; --code: code; several arguments: paths ('-' among them is standard input);
    one argument: '-' is code read from standard input, an existing file or folder (a link loop too: it is
    then one line, not checked) or a glob that matches is a path, anything else is code: a JSON tool call
    ``[{"name": "shutil.copytree", ...}]`` was taken for a glob ("no file matches"; and where a one-letter
    file exists, its character class matched it), so text that is JSON, or JSON cut short, is code unless
    it names an existing file. Raises UsageError
    for a lone argument that is no code but looks like a path naming nothing (``check nope.py``,
    ``check /nonexistent``: one clear line, not "no_call")."""
    if getattr(args, "file", False):
        return True
    if getattr(args, "force_code", False):
        return False
    if len(args.code) > 1:
        return True
    only = args.code[0]
    if only == "-":
        return False
    if os.path.lexists(only):
        return True
    if only.lstrip()[:1] in ("[", "{"):
        from gorilla_tui.check.extract import json_error, tool_calls_counted  # deferred: tree-sitter

        if tool_calls_counted(only) is not None or json_error(only):
            return False  # a JSON tool call, or one cut short: `[{"name": ...` as a glob matched /tmp/y
    too_deep: list[tuple[str, str]] = []
    if glob.has_magic(only) and (expand(only, too_deep) or too_deep):  # glob's `**` recursed per level
        return True
    if _looks_like_path(only):
        raise UsageError(f"{only}: no such file or folder (to check it as code: --code)")
    return False


def _looks_like_path(text: str) -> bool:
    """True for a lone word that reads as a file name, not code: no newline, bracket, quote or '=', and
    starting like a path (PATH_STARTS) or ending with "/" or a checked suffix (.py/.md/.ipynb)."""
    if any(c in text for c in "\n()[]{}'\"="):
        return False
    return text.startswith(PATH_STARTS) or text.endswith(("/", os.sep, ".py", ".md", ".ipynb"))


def _read_code(args: argparse.Namespace) -> str:
    """The code of the snippet form: args.code[0], or standard input for '-' (lint.stdin_text: raises
    UsageError for bytes that are not UTF-8, as `run -` does; source_text.argument_text refuses such
    bytes in the argument alike)."""
    if args.code[0] == "-" and len(args.code) == 1:
        return stdin_text()
    return argument_text("\n".join(args.code), "the CODE argument")


def _as_python(code: str) -> tuple[str, bool, int]:
    """(`code`, or the Python calls of a JSON tool call (check/extract.py tool_calls_counted), whether it
    is one, how many of its calls past callsite.MAX_CALLS were left out), so the linter form (`check
    '[{"name": ...}]' --format json`) checks them as calls, as the verdict form does."""
    from gorilla_tui.check.extract import tool_calls_counted  # deferred: tree-sitter; `--help` stays fast

    found = tool_calls_counted(code)
    return ("\n".join(found[0]), True, found[1]) if found else (code, False, 0)


def _refuse_broken_json(code: str) -> None:
    """Raise UsageError "not valid JSON: <json error>" for code that starts like JSON and is neither JSON
    nor Python (a tool call cut short: it was "no_call", exit 1)."""
    from gorilla_tui.check.extract import json_error  # deferred: tree-sitter; `--help` stays fast

    error = json_error(code)
    if error is not None:
        raise UsageError(f"not valid JSON: {error}")


def _validator(args: argparse.Namespace, code: str | list[str]):
    """The Validator for `code` (one text or several checked apart): over --pool FILE, else from the
    index's prebuilt lookup (only the entries `code` can reach, check/lookup.py), else over the whole
    index, whose lookup is then written for the next run (an index refreshed without one: an older
    version, the TUI's first run). Raises UsageError (bad --pool / --hub), IndexMissingError."""
    from gorilla_tui.check import lookup  # deferred: tree-sitter; not services (numpy, scipy: slow paths)
    from gorilla_tui.store import integrity
    from gorilla_tui.store import versions as store

    if args.pool:
        return _slow_validator(_pool(args))
    folder = store.current_version()
    if folder is None:
        return _slow_validator(_pool(args))  # raises IndexMissingError with the hint
    why = integrity.loaded_damage(folder)  # the one check search, status and doctor make (lookup/ too)
    if why:
        raise store.damaged(folder, why)
    try:
        validator = lookup.load_validator(folder, code, args.hub)
        if args.hub is None or validator.callees or validator.rest:
            return validator
        return _slow_validator(_pool(args))  # --hub names no source of the lookup: pool() says which exist
    except lookup.LookupMissing:  # an index refreshed by an older version, or by the TUI's first run
        from gorilla_tui.retrieve.index import ApiIndex  # deferred: numpy, scipy (only this slow path)

        index = ApiIndex.load(folder)
        with contextlib.suppress(OSError):  # a cache: next time only the reached entries are read
            lookup.write_lookup(folder, index.docs)
        return _slow_validator(index.pool(args.hub))


def _slow_validator(pool: list):
    """services.build_validator over a whole pool (the --pool file, or an index without lookup)."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    return services.build_validator(pool)


def _pool(args: argparse.Namespace) -> list:
    """The API pool: the docs of --pool FILE (source "user"), else the index's, filtered by --hub.
    Raises UsageError for an unreadable pool file or an unknown --hub; IndexMissingError."""
    from gorilla_tui import services  # deferred: numpy, scipy, tree-sitter (~0.3 s); `--help` stays fast

    if args.pool:
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
    if args.pool and args.hub:  # --hub selects a source of the index; a single file is one source
        raise UsageError("--hub filters the index; with --pool the file is the pool (drop one of them)")
    paths = _names_paths(args)
    if paths or args.format or args.select or args.ignore:  # the linter's findings, of files or of the code
        if args.json and args.format is None:  # `check FILE --json` means the linter's JSON
            args.format = "json"
        if paths:
            return run_lint(args, lambda blocks: _validator(args, blocks), None)
        text = _read_code(args)
        _refuse_broken_json(text)
        code, is_json, left_out = _as_python(text)
        from gorilla_tui.check.imports import named_by_schema  # deferred: tree-sitter; `--help` stays fast

        with named_by_schema(is_json):  # a JSON tool call names positional-only parameters too
            return run_lint(args, lambda blocks: _validator(args, blocks), code, left_out)
    code = _read_code(args)
    if not code.strip():
        raise UsageError("nothing to check: the code is empty")
    _refuse_broken_json(code)
    verdict = _validator(args, code).check(code)
    status = EXIT.get(verdict.kind, 1)
    with status_if_cut(status):
        if args.json:
            print(json_text(verdict.to_dict()))
        else:
            _print_panel(verdict, code)
    return status


def _print_panel(verdict, code: str = "") -> None:
    """The verdict as a rich panel; without an api_call (unparseable, no_call) the code under review is shown
    in its place (first 300 characters), control characters as visible escapes (textsafe.safe_text)."""
    from rich.panel import Panel  # deferred: rich; --help stays fast
    from rich.text import Text  # deferred: rich; --help stays fast

    from gorilla_tui.cli.console import make_console  # deferred: rich; --help stays fast

    body = Text()
    shown = verdict.api_call or code.strip()[:300]
    body.append("call: " if verdict.api_call or not shown else "code: ", style="bold")
    body.append(safe_text(shown or "-", newlines=True) + "\n")
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
        body.append(safe_text(verdict.reason) + "\n")  # may quote the code's names
    deciding = [c for c in verdict.calls if c.role in ("pool", "family", "python-env")]
    if len(deciding) > 1:  # say which calls were checked, each with its own verdict
        for c in deciding:
            body.append(
                safe_text(f"  {c.line}:{c.col} {c.callee}: {c.kind} ({c.role})") + "\n",
                style="dim",
            )
    style = _STYLE.get(verdict.kind, "white")
    make_console().print(
        Panel(body, title=f"[bold {style}]{verdict.kind}[/]", border_style=style, expand=False)
    )
