"""`gorilla-tui check PATH...`: the linter form of check (text, JSON or SARIF 2.1.0 output)."""

from __future__ import annotations

import argparse
import codecs
import io
import json
import sys
import tokenize
from collections.abc import Callable, Sequence
from typing import Any

from gorilla_tui import __version__
from gorilla_tui.cli.output import say, status_if_cut
from gorilla_tui.errors import UsageError
from gorilla_tui.textsafe import cut, safe_text

#: Exit status like other linters: 0 no finding, 1 findings, 2 bad usage or a path asked for and not read (a
#: file unreadable, not text or too large; a folder unlistable or too deep), whatever else was found.
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
    _refuse_nul(data, what)
    return text


def _refuse_nul(data: bytes, what: str) -> None:
    """Raise UsageError (one line) when `data` holds a NUL byte: a binary, never code."""
    nul = data.find(b"\0")
    if nul >= 0:
        raise UsageError(f"cannot read {what}: not text (NUL byte at offset {nul})")


def source_text(data: bytes, what: str) -> str:
    """The bytes of a Python file (`check FILE`) as the text CPython runs, decided by CPython itself, not
    guessed: the PEP 263 coding line found as CPython finds it (tokenize.detect_encoding over the first two
    lines split at "\\r\\n", "\\r" or "\\n", CPython's line ends: a CR-only file with ``# coding:
    latin-1`` was "not UTF-8 text", break-it round 12), the rest read as CPython's file reader reads it
    (Parser/tokenizer.c fp_setreadl: a text stream in the declared encoding opened one byte before the
    coding line's end, universal newlines, its first line skipped; for an EBCDIC coding that skipped line
    runs on into the next, which CPython never runs), refused exactly when that stream fails (utf-16
    without a BOM there: CPython's "encoding problem"; ``hex``, no text encoding), and every line end
    made "\\n" (universal newlines: a finding's line:col is the one Python gives; a CR-only file's
    finding was at 1:21, not 3:1). A file in
    an EBCDIC coding (cp037) was refused as "not ASCII compatible (Python refuses it)", though CPython
    3.10-3.13 run it (round 12). A file without a coding line is read as code_text reads it (UTF-8, a BOM
    dropped). Raises UsageError (one line) for an unknown encoding, one that is no text encoding, one
    CPython refuses, bytes the declared one cannot decode, a NUL byte, or bytes that are not UTF-8 without
    a coding line. The encoding's name is cut at CODING_SHOWN characters in every message."""
    refuse_bom_with_coding(data, what)
    head = data.splitlines(keepends=True)[:2]
    try:
        encoding, read = tokenize.detect_encoding(iter(head + [b""]).__next__)
    except SyntaxError as e:  # no coding line and bytes that are not UTF-8, or an unknown encoding name
        if str(e).startswith("unknown encoding"):  # "unknown encoding: NAME", NAME as long as the line
            raise UsageError(f"cannot read {what}: {cut(str(e), CODING_SHOWN)}") from None
        encoding, read = "utf-8", []  # code_text says which byte is not UTF-8
    if encoding in ("utf-8", "utf-8-sig") or not read:
        return universal_newlines(code_text(data, what))
    name = cut(encoding, CODING_SHOWN)  # "latin" + 9 MB of "-" + "1" is latin-1 to codecs.lookup
    pos = sum(len(line) for line in read)
    try:  # CPython's fp_setreadl (Parser/tokenizer.c, 3.10-3.13) exactly: a text stream opened one byte
        # before where the coding line ended, in the declared encoding; one line skipped
        stream = io.TextIOWrapper(io.BytesIO(data[pos - 1 :]), encoding=encoding, newline=None)
        stream.readline()
    except (LookupError, UnicodeError, TypeError):  # utf-16 without a BOM there, hex: "encoding problem"
        why = ", not a text encoding" if not _decodes_text(encoding) else " (Python refuses it)"
        raise UsageError(f"cannot read {what}: encoding problem: its coding line names {name}{why}") from None
    try:
        rest = stream.read()
    except (LookupError, UnicodeError, TypeError):
        raise UsageError(f"cannot read {what}: not {name} text{_bad_byte(data, pos, encoding)}") from None
    _refuse_nul(data, what)
    return b"".join(read).decode("utf-8").replace("\r\n", "\n").replace("\r", "\n") + rest


def _decodes_text(encoding: str) -> bool:
    """False for a codec that decodes no bytes to text at all (``hex``, ``rot13``: bytes to bytes or str
    to str; ``undefined``, ``punycode``: a plain UnicodeError), True for a text encoding."""
    try:
        b"\n".decode(encoding)
    except UnicodeDecodeError:  # utf-16: one byte is short of a character, still a text encoding
        return True
    except (LookupError, UnicodeError, TypeError):
        return False
    return True


def _bad_byte(data: bytes, pos: int, encoding: str) -> str:
    """ " (bad byte at offset N)" for the first byte from `pos` on that `encoding` cannot decode, else ""."""
    try:
        data[pos:].decode(encoding)
    except UnicodeDecodeError as e:
        return f" (bad byte at offset {pos + e.start})"
    except (LookupError, UnicodeError, TypeError):
        pass
    return ""


def universal_newlines(text: str) -> str:
    """`text` with each "\\r\\n" and lone "\\r" made "\\n": the lines Python sees (its line ends)."""
    return text.replace("\r\n", "\n").replace("\r", "\n") if "\r" in text else text


#: At most this many characters of a coding line's encoding name are quoted in a message: CPython puts the
#: whole name in its "encoding problem" error, and a 9 MB name made a 9 MB error line (break-it round 11).
CODING_SHOWN = 80


def refuse_bom_with_coding(data: bytes, what: str) -> None:
    """Raise UsageError (one line) for Python source that starts with a UTF-8 BOM and has a PEP 263 coding
    line naming another encoding: CPython refuses it ("encoding problem: iso-8859-1 with BOM"), and
    tokenize.detect_encoding raises SyntaxError "encoding problem: ..." for it, the only case it says so
    (break-it round 9: `check` read such a file as UTF-8 and reported findings in it). Shared by `check`
    and `run` of a Python file."""
    if not data.startswith(codecs.BOM_UTF8):
        return
    try:
        tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as e:
        if str(e).startswith("encoding problem"):
            raise UsageError(
                f"cannot read {what}: encoding problem: a UTF-8 BOM and a coding line naming another "
                "encoding (Python refuses it)"
            ) from None


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
            python = not path.lower().endswith((".md", ".markdown", ".ipynb"))
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
    for name, checked in zip((n for n, _ in files), results, strict=True):
        for found, said, skipped in checked:
            for f in found:
                if lint.matches(f.reason, select) and not lint.matches(f.reason, ignore):
                    findings.append(f)
                    entries.append(f.to_dict())
            for why in skipped if explain else ():  # calls not judged: their callee resolves elsewhere
                say(f"gorilla-tui: not judged: {lint.shown_path(why)}")
            for n in said:  # check_block's "PATH: note"
                notes.append((name, n.removeprefix(f"{name}: ")))
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
            print(json.dumps(entries, ensure_ascii=False, indent=1))
        elif args.format == "sarif":
            print(json.dumps(sarif(findings, notes, errors), ensure_ascii=False, indent=1))
        elif not errors or files:  # only errors: printed alone ("0 findings in 0 file(s)" was beside)
            for f in findings:
                print(_text_line(f))
            if findings or len(files) != 1:
                noun = "finding" if len(findings) == 1 else "findings"
                say(f"{len(findings)} {noun} in {len(files)} file(s)")
        for path, n in notes:
            say(f"gorilla-tui: note: {lint.shown_path(f'{path}: {n}')}")
        for _, line in errors:
            say(f"gorilla-tui: error: {lint.shown_path(line)}")
    return status


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
    (unreadable, not text, too large), each a notification of level "error", and the invocation's
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
