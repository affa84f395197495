"""`gorilla-tui check PATH...`: the linter form of check (text, JSON or SARIF 2.1.0 output)."""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Callable, Sequence
from typing import Any

from gorilla_tui import __version__
from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import safe_text

#: Exit status like other linters: 0 no finding, 1 findings, 2 bad usage or a file that could not be read.
EXIT_CLEAN, EXIT_FINDINGS, EXIT_ERROR = 0, 1, 2
SARIF_SCHEMA = "https://json.schemastore.org/sarif-2.1.0.json"
INFO_URI = "https://arxiv.org/abs/2305.15334"


def code_text(data: bytes, what: str) -> str:
    """The bytes of a file or of standard input (named `what` in the error) as code text: UTF-8, a leading
    BOM dropped. Raises UsageError (one line) "cannot read WHAT: not UTF-8 text (bad byte at offset N)"
    for bytes that are not UTF-8, and "cannot read WHAT: not text (NUL byte at offset N)" for a NUL byte
    (Python refuses source that holds one). Shared by `run` and `check` (files and '-'), so a binary file is
    refused the same way by both: `check` of an ELF said "unparseable:nesting_limit", of random bytes
    "source code string cannot contain null bytes" (exit 1), where `run` said "not UTF-8 text" (exit 2)."""
    try:
        text = data.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        raise UsageError(f"cannot read {what}: not UTF-8 text (bad byte at offset {e.start})") from None
    nul = data.find(b"\0")
    if nul >= 0:
        raise UsageError(f"cannot read {what}: not text (NUL byte at offset {nul})")
    return text


def stdin_text() -> str:
    """Standard input as text, as `run -` reads it (cli/run.py): code_text, so `check -` refuses bytes that
    are not UTF-8 text as `run -` does ("cannot read stdin: not UTF-8 text (bad byte at offset N)")
    instead of checking code with U+FFFD in it. Raises UsageError."""
    buf = getattr(sys.stdin, "buffer", None)
    try:
        data = buf.read() if buf is not None else sys.stdin.read().encode("utf-8", "surrogateescape")
    except UnicodeEncodeError as e:
        raise UsageError(f"cannot read stdin: not UTF-8 text (bad byte at offset {e.start})") from None
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
        paths = lint.discover(args.code) if code is None else []
    except (ValueError, FileNotFoundError) as e:
        raise UsageError(str(e).strip("'\"")) from None
    texts: list[tuple[str, str]] = []
    if code is not None:
        texts.append((args.stdin_filename or ("<stdin>" if args.code == ["-"] else "<code>"), code))
    errors: list[str] = []
    for path in paths:
        try:
            if path == "-":
                name = args.stdin_filename or "<stdin>"
                try:
                    texts.append((name, stdin_text()))
                except UsageError as e:
                    errors.append(str(e))
                continue
            else:
                why = lint.unreadable(path)
                if why is not None:
                    errors.append(f"{path}: {why}")
                    continue
                with open(path, "rb") as fh:
                    data = fh.read()
                name = path
        except OSError as e:
            errors.append(f"{path}: cannot read ({e.strerror or e})")
            continue
        try:
            texts.append((name, code_text(data, path)))
        except UsageError as e:  # a binary file: one line naming it, as `run FILE` says (exit 2)
            errors.append(str(e))
    files = []
    for name, text in texts:
        try:
            files.append((name, lint.blocks(name, text)))
        except ValueError as e:
            errors.append(f"{name}: {e}")
    findings = []
    notes: list[tuple[str, str]] = []  # (path, what was not checked): calls past MAX_CALLS, Python 2 files
    entries: list[dict[str, Any]] = []  # the JSON list: findings and notes, in the order checked
    explain = getattr(args, "explain", False)
    results = checked_files(files, validator_for, syntax_notes=code is None)  # files: Python 2 is a note
    for name, checked in zip((n for n, _ in files), results, strict=True):
        for found, said, skipped in checked:
            for f in found:
                if lint.matches(f.reason, select) and not lint.matches(f.reason, ignore):
                    findings.append(f)
                    entries.append(f.to_dict())
            for why in skipped if explain else ():  # calls not judged: their callee resolves elsewhere
                print(f"gorilla-tui: not judged: {safe_text(why)}", file=sys.stderr)
            for n in said:  # check_block's "PATH: note"
                notes.append((name, n.removeprefix(f"{name}: ")))
                entries.append(lint.note_dict(*notes[-1]))
    if left_out and texts:  # JSON tool calls past MAX_CALLS were never rendered: said as the scan says it
        from gorilla_tui.check.callsite import left_out_note  # deferred: as lint

        notes.append((texts[0][0], left_out_note(left_out)))
        entries.append(lint.note_dict(*notes[-1]))
    if errors and not texts:
        pass  # nothing was read, only errors: they alone are printed, in any format, as for a missing path
        # (`check huge.py` printed "0 findings in 0 file(s)", `--json` an empty list, beside its error)
    elif args.format == "json":
        print(json.dumps(entries, ensure_ascii=False, indent=1))
    elif args.format == "sarif":
        print(json.dumps(sarif(findings, notes), ensure_ascii=False, indent=1))
    else:
        for f in findings:
            print(safe_text(_text_line(f)))
        if findings or len(texts) != 1:
            noun = "finding" if len(findings) == 1 else "findings"
            print(f"{len(findings)} {noun} in {len(texts)} file(s)", file=sys.stderr)
    for path, n in notes:
        print(f"gorilla-tui: note: {safe_text(f'{path}: {n}')}", file=sys.stderr)
    for e in errors:
        print(f"gorilla-tui: error: {safe_text(e)}", file=sys.stderr)
    if errors:
        return EXIT_ERROR
    return EXIT_FINDINGS if findings else EXIT_CLEAN


def _text_line(f) -> str:
    where = f"{f.path}:cell {f.cell}:{f.line}:{f.col}" if f.cell else f"{f.path}:{f.line}:{f.col}"
    tail = f" (did you mean {', '.join(f.suggestions)})" if f.suggestions else ""
    return f"{where}: {f.reason} {f.message}{tail}"


def sarif(findings: list, notes: Sequence[tuple[str, str]] = ()) -> dict[str, Any]:
    """A SARIF 2.1.0 log (OASIS SARIF v2.1.0, sections 3.13-3.27) of the findings: one run, tool driver
    gorilla-tui with one rule per reason code met; each result at its file and line:col (for notebooks
    the cell number is in the message, as SARIF regions have no cells). notes: (path, message) of what
    was not checked (calls past callsite.MAX_CALLS), each a toolExecutionNotification (section 3.58) of
    level "warning" at its file in the run's one invocation (section 3.20), so that a code-scanning UI
    never shows a partly checked file as clean."""
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
                            "artifactLocation": {"uri": f.path.replace("\\", "/")},
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
    invocation: dict[str, Any] = {"executionSuccessful": True}
    if notes:
        invocation["toolExecutionNotifications"] = [
            {
                "level": "warning",
                "descriptor": {"id": "not_checked"},
                "message": {"text": message},
                "locations": [{"physicalLocation": {"artifactLocation": {"uri": path.replace("\\", "/")}}}],
            }
            for path, message in notes
        ]
    return {
        "$schema": SARIF_SCHEMA,
        "version": "2.1.0",
        "runs": [{"tool": {"driver": driver}, "invocations": [invocation], "results": results}],
    }
