"""`check PATH...` as a linter: files, folders and globs; Python, Markdown and notebook code; findings.

A *finding* is an API call of a checked file whose own verdict (Verdict.calls, docs/validator.md) is not
valid and that reaches a pool: role "pool" (a callee of the APIBench hubs / APIZoo / user docs),
"family" (a near-miss of one, or a loader given a pool model id) or "python-env" (a standard-library
callee). Calls that reach no pool ("other", "incidental") are never reported. Code that Python refuses is
one finding (unparseable:...) at Python's line:col.
"""

from __future__ import annotations

import glob
import os
import re
import urllib.parse
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.check.blocks import (  # noqa: F401 - re-exported: callers import them from here
    MAX_CODE_BYTES,
    Block,
    blocks,
    markdown_blocks,
    too_much_code,
)
from gorilla_tui.check.callsite import LEFT_OUT_TAIL, scan
from gorilla_tui.check.expected import ExpectedFailures
from gorilla_tui.check.imports import import_aliases
from gorilla_tui.check.judged import variable_argument, why_skipped
from gorilla_tui.check.rest import request_lines
from gorilla_tui.check.scope import bindings
from gorilla_tui.check.validator import Validator
from gorilla_tui.check.walk import Skipped, expand, walk
from gorilla_tui.paths import not_regular
from gorilla_tui.textsafe import safe_text, shown_path  # noqa: F401 - shown_path re-exported
from gorilla_tui.types import REASONS

#: File suffixes a folder is searched for (explicit files are checked whatever their suffix: as Python
#: unless .md / .markdown / .ipynb; a type stub, .pyi, given by name is noted as not checked, blocks).
SUFFIXES = (".py", ".md", ".markdown", ".ipynb")
#: Folder names never entered when a folder is searched (caches, virtual environments, VCS data).
SKIP_DIRS = frozenset({"__pycache__", "node_modules", "site-packages", "venv", ".venv", "build", "dist"})
#: Roles of the calls a finding can come from (types.CallVerdict.role).
REPORTED_ROLES = ("pool", "family", "python-env")
#: The reason of a JSON entry that is a note, not a finding: calls of a block past callsite.MAX_CALLS that
#: were not checked (note_dict).
NOT_CHECKED = "not_checked"
#: How check_block's note on a block Python refuses starts ("skipped: not Python 3 syntax (3:23: why)").
SYNTAX_SKIPPED = "skipped: not Python 3 syntax"
#: Largest file checked, in bytes (10 MiB): bigger files are generated or data, and tree-sitter plus the
#: validator would take minutes on them; they are reported as not checked (exit 2), never read.
MAX_FILE_BYTES = 10 * 1024 * 1024
_IGNORE = re.compile(r"#\s*gorilla:\s*ignore(?:\[([^\]]*)\])?", re.IGNORECASE)
_POSITION = re.compile(r"(\d+):(\d+):\s*(.*)", re.DOTALL)


@dataclass
class Finding:
    """One reported call: path as given, 1-based line and column (in the file; in the cell for
    notebooks), reason code (types.REASONS), message, did-you-mean suggestions, cell (notebooks)."""

    path: str
    line: int
    col: int
    reason: str
    message: str
    suggestions: list[str] = field(default_factory=list)
    cell: int = 0

    def to_dict(self) -> dict[str, Any]:
        """The JSON entry of the finding; the path as shown_path gives it."""
        return {
            "path": shown_path(self.path),
            "line": self.line,
            "col": self.col,
            "cell": self.cell or None,
            "reason": self.reason,
            "message": self.message,
            "suggestions": list(self.suggestions),
        }


def note_dict(path: str, message: str) -> dict[str, Any]:
    """The JSON entry of a note on a file (a block whose calls past callsite.MAX_CALLS were not checked,
    check_block's notes): a finding's keys, reason NOT_CHECKED, line, col and cell None, `message` as
    given ("2 calls after the first 2,000 were not checked", "cannot read (Permission denied)"), the path
    as shown_path gives it. Listed beside the findings so that a JSON
    reader never takes a partly checked file for a clean one."""
    return {
        "path": shown_path(path),
        "line": None,
        "col": None,
        "cell": None,
        "reason": NOT_CHECKED,
        "message": message,
        "suggestions": [],
    }


def discover(targets: Sequence[str], skipped: Skipped | None = None) -> list[str]:
    """The files `targets` name, in order, each once: an existing file as is (a FIFO, device or link
    loop too: run_lint refuses it, see unreadable); a folder searched for SUFFIXES (hidden folders and
    SKIP_DIRS skipped, sorted, links to folders not followed: check/walk.py, without recursion); a glob
    pattern (``*``, ``?``, ``[``; ``**`` recursive, links to folders neither followed nor matched:
    walk.expand) expanded; ``-`` kept (standard input). skipped: (folder, why) appended for a folder
    not walked (deeper than walk.MAX_DEPTH, or not listable: an error, as an unreadable file is). Raises
    FileNotFoundError naming the first target that is none of these (or a glob matching nothing)."""
    out: list[str] = []
    for target in targets:
        if target == "-" or os.path.isfile(target):
            out.append(target)
        elif os.path.lexists(target) and not os.path.isdir(target):  # a FIFO, device, socket, link loop
            out.append(target)  # kept: run_lint reports it as not checked (unreadable)
        elif os.path.isdir(target):
            out.extend(walk(target, SUFFIXES, SKIP_DIRS, skipped))
        elif glob.has_magic(target):
            before = len(skipped) if skipped is not None else 0
            matches = expand(target, skipped)
            if not matches and (skipped is None or len(skipped) == before):  # none, and none too deep
                raise FileNotFoundError(f"{target}: no file matches")
            walked: list[str] = []
            for m in matches:
                if not os.path.isdir(m):
                    out.append(m)
                elif not any(_walked_under(root, m) for root in walked):  # ``**`` matches every level
                    walked.append(m)
                    out.extend(walk(m, SUFFIXES, SKIP_DIRS, skipped))
        else:
            raise FileNotFoundError(f"{target}: no such file or folder")
    return list(dict.fromkeys(out))


def _walked_under(root: str, folder: str) -> bool:
    """True when walking `root` already gave the files of `folder` below it: no hidden or SKIP_DIRS
    folder between them (walk enters neither, though ``**`` matches them)."""
    rel = os.path.relpath(folder, root)
    parts = rel.split(os.sep)
    return (
        rel != os.curdir
        and parts[0] != os.pardir
        and not any(p.startswith(".") or p in SKIP_DIRS for p in parts)
    )


def unreadable(path: str) -> str | None:
    """Why `path` is not checked, or None when it is a regular file of at most MAX_FILE_BYTES. Checked
    before a file is opened: opening a FIFO blocks until a writer comes, and a device never ends."""
    why = not_regular(path)  # the cause a folder source gives for its files too (pool/files.py)
    if why is not None:
        return why if why.startswith("cannot read") else f"{why}: not checked"
    try:
        st = os.stat(path)
    except OSError as e:  # gone since
        return f"cannot read ({e.strerror or e})"
    if st.st_size > MAX_FILE_BYTES:
        return f"too large ({st.st_size / 2**20:.1f} MiB > {MAX_FILE_BYTES // 2**20} MiB): not checked"
    return None


def path_uri(path: str) -> str:
    """`path` as a SARIF artifactLocation uri (SARIF 2.1.0 section 3.4.4: a URI reference, RFC 3986): the
    file name's bytes percent-encoded (a space as %20, "#" as %23, a byte that is not UTF-8 as %FF),
    "/" separators (a backslash is one only where it is the system's: elsewhere it is part of a name,
    %5C); an absolute path as a file:// URI."""
    raw = (path.replace(os.sep, "/") if os.sep != "/" else path).encode("utf-8", "surrogateescape")
    quoted = urllib.parse.quote(raw, safe="/")
    return "file://" + quoted if raw.startswith(b"/") else quoted


def matches(reason: str, codes: Iterable[str]) -> bool:
    """True when `reason` is one of `codes`: a full code (``wrong_args:unknown_model``) or a verdict
    prefix (``wrong_args``) or ``all``."""
    return any(c == "all" or reason == c or reason.split(":", 1)[0] == c for c in codes)


def parse_codes(values: Sequence[str] | None) -> list[str]:
    """Comma-separated reason codes (repeatable option values) as a list. Raises ValueError for a code
    that is no reason code (types.REASONS), no verdict prefix and not ``all``."""
    codes = [c.strip() for v in values or () for c in v.split(",") if c.strip()]
    prefixes = {r.split(":", 1)[0] for r in REASONS}
    for c in codes:
        if c != "all" and c not in REASONS and c not in prefixes:
            raise ValueError(f"unknown reason code {c!r} (known: {', '.join(REASONS)})")
    return codes


def check_block(
    validator: Validator,
    path: str,
    block: Block,
    suggest: Callable[[str], list[str]] | None = None,
    notes: list[str] | None = None,
    skipped: list[str] | None = None,
    syntax_note: bool = False,
) -> list[Finding]:
    """Findings of one block (see the module doc), inline ``# gorilla: ignore[...]`` applied; sorted by
    position. Did-you-mean: the deciding call's suggestions, else those of the call checked alone with
    the block's import lines. notes: "PATH: what was not checked" is appended for a block with more calls
    than the validator reads (callsite.MAX_CALLS), so a large file never passes in silence. A call whose
    callee does not resolve into the pool through the block's own names is no finding (check/judged.py);
    skipped: "PATH:LINE:COL: callee: why" is appended for each (`check --explain`). syntax_note: a block
    Python refuses (a file of Python 2, a test's deliberately broken file) is a note, "PATH: skipped: not
    Python 3 syntax (LINE:COL: why)", not a finding (files; a snippet given as CODE keeps its
    unparseable verdict)."""
    verdict = validator.check_code(block.code, per_call=True)
    if notes is not None:
        notes += [f"{path}: {n}" for n in block.notes]  # a notebook's cells that are no Python
        notes += [f"{path}: {d}" for d in verdict.diagnostics if d.endswith(LEFT_OUT_TAIL)]
    lines = block.code.split("\n")
    out: list[Finding] = []
    if verdict.kind == "unparseable":
        m = (
            _POSITION.match(verdict.diagnostics[0].removeprefix("syntax error at "))
            if verdict.diagnostics
            else None
        )
        line, col, msg = (int(m.group(1)), int(m.group(2)), m.group(3)) if m else (1, 1, "syntax error")
        if syntax_note:
            if notes is not None:
                where = f"{line + block.line_offset}:{col}"
                if block.cells and 0 < line <= len(block.cells):  # a notebook: its cell, the line in it
                    where = "cell {}: {}:{}".format(*block.cells[line - 1], col)
                notes.append(f"{path}: {SYNTAX_SKIPPED} ({where}: {msg})")
            return []
        out.append(Finding(path, line, col, verdict.reason or "unparseable:python_syntax", msg))
    # the block's imports, as the validator reads them (tree-sitter), one line each: the block's own
    # import lines, taken as text, broke the call checked alone (an indented import, the first line of a
    # parenthesised one, a docstring line starting with "from") and made "syntax error" its message
    imports = [
        f"import {q} as {name}" if name != q else f"import {q}"
        for name, q in import_aliases(block.code).items()
    ]
    candidates = [i for i, c in enumerate(verdict.calls) if c.role in REPORTED_ROLES and c.kind != "valid"]
    sites, names, expected = [], None, None
    if candidates:  # the file's own names, read only when a call may be reported (most files: none)
        last = validator.last_scan
        scanned = last[1] if last is not None and last[0] is block.code else scan(block.code)
        sites, names = scanned.calls, bindings(block.code, scanned.assigned, scanned.free)
        expected = ExpectedFailures(names.root) if names.root is not None else None
    for i in candidates:
        call = verdict.calls[i]
        site = sites[i] if i < len(sites) and (sites[i].line, sites[i].col) == (call.line, call.col) else None
        root = names.root if names is not None else None
        node = (
            root.descendant_for_point_range((call.line - 1, call.col - 1), (call.line - 1, call.col - 1))
            if root is not None
            else None
        )
        why = why_skipped(validator, call, site, names, node, expected) if names is not None else ""
        if why:
            if skipped is not None:
                skipped.append(f"{path}:{call.line + block.line_offset}:{call.col}: {call.callee}: {why}")
            continue
        if call.call == verdict.api_call:
            alone = verdict
        else:  # did-you-mean is computed for the deciding call only: check this one alone
            alone = validator.check_code("\n".join([*imports, call.call]))
        notes = [n for n in alone.diagnostics if n]
        message = _strip_position(notes[0]) if notes else f"{call.callee}: {call.kind}"
        why = variable_argument(call, site, message)
        if why:
            if skipped is not None:
                skipped.append(f"{path}:{call.line + block.line_offset}:{call.col}: {call.callee}: {why}")
            continue
        out.append(
            Finding(path, call.line, call.col, call.reason or call.kind, message, list(alone.suggestions))
        )
    out += _request_findings(validator, path, block.code) if not verdict.calls else []
    kept = []
    for f in out:
        span = 1 + next((c.call.count("\n") for c in verdict.calls if c.line == f.line and c.col == f.col), 0)
        if any(_ignored(lines[k - 1], f.reason) for k in range(f.line, f.line + span) if 0 < k <= len(lines)):
            continue
        if block.cells and 0 < f.line <= len(block.cells):
            f.cell, f.line = block.cells[f.line - 1]
        elif 0 < f.line <= len(block.col_offsets):
            f.col += block.col_offsets[f.line - 1]
        f.line += block.line_offset
        kept.append(f)
    return sorted(kept, key=lambda f: (f.cell, f.line, f.col))


def _request_findings(validator: Validator, path: str, code: str) -> list[Finding]:
    """Findings of the REST request lines in `code` (``GET /api/v1/pods``), each checked alone, for code
    whose verdict has no Python calls (check/rest.py: such a verdict lists no calls, so `check "GET /x"
    --format json` printed no finding and exited 0 where `check "GET /x"` said hallucination, exit 1). A
    request that reaches no REST pool is not reported, like a call that reaches no pool."""
    lines = code.split("\n")
    out: list[Finding] = []
    for method, rest_path, line in request_lines(code):
        verdict = validator.check_code(f"{method} {rest_path}")
        if verdict.kind in ("valid", "no_call") or verdict.reason == "hallucination:no_rest_pool":
            continue
        col = lines[line - 1].upper().find(method) + 1 if 0 < line <= len(lines) else 1
        notes = [re.sub(r"^line \d+: ", "", n) for n in verdict.diagnostics if n]
        message = notes[0] if notes else f"{method} {rest_path}: {verdict.kind}"
        out.append(
            Finding(
                path, line, max(col, 1), verdict.reason or verdict.kind, message, list(verdict.suggestions)
            )
        )
    return out


def _ignored(line: str, reason: str) -> bool:
    m = _IGNORE.search(line)
    if m is None:
        return False
    if m.group(1) is None:
        return True
    return matches(reason, [c.strip() for c in m.group(1).split(",") if c.strip()])


def _strip_position(note: str) -> str:
    m = _POSITION.match(note)
    return m.group(3) if m else note
