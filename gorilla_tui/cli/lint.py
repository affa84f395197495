"""`gorilla-tui check PATH...`: the linter form of check (text, JSON or SARIF 2.1.0 output)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gorilla_tui import __version__
from gorilla_tui.cli.output import say, status_if_cut
from gorilla_tui.cli.source_text import code_text, refuse_bom_with_coding, source_text
from gorilla_tui.errors import UsageError
from gorilla_tui.jsontext import dumps as json_text
from gorilla_tui.textsafe import safe_text

#: Exit status like other linters: 0 no finding, 1 findings, 2 bad usage or a path asked for and not read or
#: not analysed (a file unreadable, not text, too large or a Python file Python refuses; a folder unlistable
#: or too deep), whatever else was found.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://arxiv.org/abs/2305.15334"


def stdin_text() -> str:
    """Standard input as text, as `run -` reads it (cli/run.py): code_text, so `check -` refuses bytes that
    are not UTF-8 text as `run -` does ("cannot read stdin: not UTF-8 text (bad byte at offset N)")
    instead of checking code with U+FFFD in it. At most check/lint.py MAX_CODE_BYTES are read, the limit a
    file has: 3 MB on stdin took 29 s and 1.5 GB, 30 MB over 5 GB (break-it round 7). Raises UsageError
    (one line) for more than that, or for bytes code_text refuses."""
    from gorilla_tui.check.lint import MAX_CODE_BYTES  # deferred: tree-sitter; `--help` stays fast

    buf = getattr(sys.stdin, "buffer", None)
    try:
        data = (
            buf.read(MAX_CODE_BYTES + 1)
            if buf is not None
            else sys.stdin.read(MAX_CODE_BYTES + 1).encode("utf-8", "surrogateescape")
        )
    except UnicodeEncodeError as e:
        raise UsageError(f"cannot read stdin: not UTF-8 text (bad byte at offset {e.start})") from None
    if len(data) > MAX_CODE_BYTES:
        raise UsageError(f"cannot read stdin: more than {MAX_CODE_BYTES // 2**20} MiB of code: not checked")
    refuse_bom_with_coding(data, "stdin")
    return code_text(data, "stdin")


def run_lint(
    args: argparse.Namespace,
    validator_for: Callable[[list[str]], Any],
    code: str | None = None,
    left_out: int = 0,
) -> int:
    """Check the files args.code names, or `code` itself when given (the snippet form with a linter option:
    named args.stdin_filename, else "<stdin>" for '-' and "<code>"); print findings in args.format; return
    the exit status. validator_for(every code block, a list) gives the Validator (built once for all
    files). left_out: JSON tool calls of `code` past callsite.MAX_CALLS, not rendered (a note). Raises
    UsageError for an unknown reason code or a path that names nothing (before anything is printed)."""
    from gorilla_tui.check import lint  # deferred: tree-sitter and the validator; `--help` stays fast
    from gorilla_tui.check.batch import checked_files  # deferred: as lint

    try:
        select = lint.parse_codes(args.select) or ["all"]
        ignore = lint.parse_codes(args.ignore)
        walked: list[tuple[str, str]] = []  # folders not walked: too deep or unlistable (errors)
        paths = lint.discover(args.code, walked) if code is None else []
    except (ValueError, FileNotFoundError) as e:
        raise UsageError(str(e).strip("'\"")) from None
    texts: list[tuple[str, str]] = []
    if code is not None:
        texts.append((args.stdin_filename or ("<stdin>" if args.code == ["-"] else "<code>"), code))
    errors: list[tuple[str, str]] = []  # (path, the error line): a file not checked (exit 2)
    walked = list(dict.fromkeys(walked))  # a folder reached by two targets (a folder and a glob) said once
    errors += [(folder, f"{folder}: {why}") for folder, why in walked]
    for path in paths:
        try:
            if path == "-":
                name = args.stdin_filename or "<stdin>"
                try:
                    texts.append((name, stdin_text()))
                except UsageError as e:
                    errors.append((name, str(e)))
                continue
            else:
                why = lint.unreadable(path)
                if why is not None:
                    errors.append((path, f"{path}: {why}"))
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
                name = path
        except OSError as e:
            errors.append((path, f"{path}: cannot read ({e.strerror or e})"))
            continue
        try:
            python = not _document(path)
            texts.append((name, source_text(data, path) if python else code_text(data, path)))
        except UsageError as e:  # a binary file: one line naming it, as `run FILE` says (exit 2)
            errors.append((path, str(e)))
    files = []
    for name, text in texts:
        try:
            found = lint.blocks(name, text)
        except ValueError as e:
            errors.append((name, f"{name}: {e}"))
            continue
        why = lint.too_much_code(found)
        if why is not None:
            errors.append((name, f"{name}: {why}"))
        else:
            files.append((name, found))
    findings = []
    notes: list[tuple[str, str]] = []  # (path, what was not checked): calls past MAX_CALLS, Python 2 files
    entries: list[dict[str, Any]] = []  # the JSON list: findings and notes, in the order checked
    explain = getattr(args, "explain", False)
    results = checked_files(files, validator_for, syntax_notes=code is None)  # files: Python 2 is a note
    refused = 0  # Python files Python refuses: not analysed at all
    for name, checked in zip((n for n, _ in files), results, strict=True):
        whole = not _document(name)  # a Python file is one block: if Python refuses it, nothing was checked
        for found, said, skipped in checked:
            for f in found:
                if lint.matches(f.reason, select) and not lint.matches(f.reason, ignore):
                    findings.append(f)
                    entries.append(f.to_dict())
            for why in skipped if explain else ():  # calls not judged: their callee resolves elsewhere
                say(f"gorilla-tui: not judged: {lint.shown_path(why)}")
            for n in said:  # check_block's "PATH: note"
                said_of = n.removeprefix(f"{name}: ")
                if whole and said_of.startswith(lint.SYNTAX_SKIPPED):  # a file not analysed: as one not read
                    refusal = said_of.removeprefix("skipped: ")  # (break-it round 16, P3: a note, exit 0)
                    errors.append((name, f"{name}: {refusal}: not checked"))
                    refused += 1
                    continue
                notes.append((name, said_of))
                entries.append(lint.note_dict(*notes[-1]))
    if left_out and texts:  # JSON tool calls past MAX_CALLS were never rendered: said as the scan says it
        from gorilla_tui.check.callsite import left_out_note  # deferred: as lint

        notes.append((texts[0][0], left_out_note(left_out)))
        entries.append(lint.note_dict(*notes[-1]))
    # files not checked are listed in JSON and SARIF too (issue 42: a SARIF log without them said the run
    # succeeded), each message in shown_path's one line of UTF-8 (a name that is not UTF-8 made the JSON not
    # UTF-8); the text form prints them on stderr only
    entries += [lint.note_dict(path, lint.shown_path(line)) for path, line in errors]
    status = EXIT_ERROR if errors else EXIT_FINDINGS if findings else EXIT_CLEAN
    with status_if_cut(status):
        if args.format == "json":
            print(json_text(entries, indent=1))
        elif args.format == "sarif":
            print(json_text(sarif(findings, notes, errors), indent=1))
        elif not errors or files:  # only errors: printed alone ("0 findings in 0 file(s)" was beside)
            for f in findings:
                print(_text_line(f))
            if findings or len(files) != 1:
                noun = "finding" if len(findings) == 1 else "findings"
                say(f"{len(findings)} {noun} in {len(files) - refused} file(s)")
        for path, n in notes:
            say(f"gorilla-tui: note: {lint.shown_path(f'{path}: {n}')}")
        for _, line in errors:
            say(f"gorilla-tui: error: {lint.shown_path(line)}")
    return status


def _document(name: str) -> bool:
    """True for a file whose Python is in parts (Markdown fences, notebook cells): a part Python refuses is
    a note (the rest is checked); a Python file Python refuses is not checked at all (an error)."""
    return name.lower().endswith((".md", ".markdown", ".ipynb"))


def _text_line(f) -> str:
    """A finding's text line, made safe for the terminal: the path by check.lint.shown_path (one line, a
    newline in a file name as \\x0a), the rest by safe_text."""
    from gorilla_tui.check.lint import shown_path  # deferred: as run_lint's import of check.lint

    path = shown_path(f.path)
    where = f"{path}:cell {f.cell}:{f.line}:{f.col}" if f.cell else f"{path}:{f.line}:{f.col}"
    tail = f" (did you mean {', '.join(f.suggestions)})" if f.suggestions else ""
    return where + safe_text(f": {f.reason} {f.message}{tail}")


def sarif(
    findings: list, notes: Sequence[tuple[str, str]] = (), errors: Sequence[tuple[str, str]] = ()
) -> dict[str, Any]:
    """A SARIF 2.1.0 log (OASIS SARIF v2.1.0, sections 3.13-3.27) of the findings: one run, tool driver
    gorilla-tui with one rule per reason code met; each result at its file and line:col (for notebooks
    the cell number is in the message, as SARIF regions have no cells). notes: (path, message) of what
    was not checked (calls past callsite.MAX_CALLS), each a toolExecutionNotification (section 3.58) of
    level "warning" at its file in the run's one invocation (section 3.20), so that a code-scanning UI
    never shows a partly checked file as clean. errors: (path, error line) of files not checked at all
    (unreadable, not text, too large, a Python file Python refuses), each a notification of level "error",
    and the invocation's
    executionSuccessful false (section 3.20.14; issue 42: they were missing from a log that said the run
    succeeded). Every uri is the path percent-encoded (check.lint.path_uri, RFC 3986), every text one
    line of UTF-8 (check.lint.shown_path)."""
    from gorilla_tui.check.lint import path_uri, shown_path  # deferred: as run_lint's import of check.lint

    rules = sorted({f.reason for f in findings})
    results = []
    for f in findings:
        text = f.message + (f" (did you mean {', '.join(f.suggestions)})" if f.suggestions else "")
        if f.cell:
            text = f"cell {f.cell}: {text}"
        results.append(
            {
                "ruleId": f.reason,
                "ruleIndex": rules.index(f.reason),
                "level": "error" if f.reason.startswith("hallucination") else "warning",
                "message": {"text": text},
                "locations": [
                    {
                        "physicalLocation": {
                            "artifactLocation": {"uri": path_uri(f.path)},
                            "region": {"startLine": f.line, "startColumn": f.col},
                        }
                    }
                ],
            }
        )
    driver = {
        "name": "gorilla-tui",
        "version": __version__,
        "informationUri": INFO_URI,
        "rules": [
            {"id": r, "shortDescription": {"text": r.replace(":", ": ").replace("_", " ")}} for r in rules
        ],
    }
    invocation: dict[str, Any] = {"executionSuccessful": not errors}
    told = [("warning", path, message) for path, message in notes]
    told += [("error", path, shown_path(line)) for path, line in errors]
    if told:
        invocation["toolExecutionNotifications"] = [
            {
                "level": level,
                "descriptor": {"id": "not_checked"},
                "message": {"text": message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": path_uri(path)}}}],
            }
            for level, path, message in told
        ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "invocations": [invocation], "results": results}],
    }
