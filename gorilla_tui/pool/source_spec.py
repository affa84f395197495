"""What a `--source` value names (`--source [NAME=]PATH`, `--source python:SPEC`, config.toml `sources`):
the value read into a name and a path (split_source), checked before any work is done (check_source_spec,
check_utf8_names), the name it gives its source (source_name), and why one naming no path was refused
(missing_why). Loading the source it names is pool/sources.py user_source.
"""

from __future__ import annotations

import os
from pathlib import Path

from gorilla_tui.config import MAX_NAME_CHARS, NAME_RULE, SOURCE_NAME
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import expand_user, path_exists
from gorilla_tui.textsafe import cut, safe_text

#: Why a `--source` folder gives no docs: its doc files are read one level deep (pool/files.py doc_files),
#: so a folder whose files sit in sub-folders said only "no *.json ... file" (break-it round 9).
NO_DOC_FILES = "no *.json or *.jsonl file in that folder (sub-folders are not read)"
#: A source name in `--source NAME=PATH` (and config.toml `sources`), and the name a plain PATH gives its
#: source (its stem): one rule for both (source_name).
_SOURCE_NAME = SOURCE_NAME


def split_source(spec: str | Path) -> tuple[str | None, Path]:
    """`--source` value -> (name or None, path). "NAME=PATH" names the source (NAME: letters, digits, "_",
    ".", "-"); a value that is an existing path, or has no valid NAME before its first "=", is a plain PATH
    (the source is then named after its stem)."""
    text = str(spec)
    name, sep, rest = text.partition("=")
    if sep and rest and _SOURCE_NAME.match(name) and not path_exists(expand_user(text)):
        return name, expand_user(rest)
    return None, expand_user(text)


def check_source_spec(spec: str, what: str = "--source") -> None:
    """Raise UsageError (one line, exit 2) for a `--source` value that is empty or malformed, before any
    work is done:

    - blank (`""`, `" "`: a PATH of "" is the current folder);
    - `python:SPEC` with no distribution name, or an empty one between commas (`python:`, `python:,`,
      `python:requests,,numpy`; pool/pyenv/groups.parse_spec reads an empty SPEC as the standard library);
    - `NAME=PATH` with no NAME or no PATH (`=`, `name=`, `=docs.jsonl`);
    - a `:` with nothing after it (`:`, `pip:`): the only prefix is `python:`.

    A value that names an existing file or folder is that path, whatever it holds (split_source), and
    names its source after its stem, which must be a source name as NAME must (source_name). what: how the
    message names where the value came from ("--source", or config.toml's `sources` entry)."""
    text = str(spec)
    if not text.strip():
        raise UsageError(f"{what} {text!r}: empty (give [NAME=]PATH or python:NAME[,NAME])")
    if path_exists(expand_user(text)):
        check_utf8_names(expand_user(text), what)
        source_name(text, what)
        return
    if text.startswith("python:"):
        names = [n.strip() for n in text.removeprefix("python:").split(",")]
        if not any(names):
            raise UsageError(f"{what} {text!r}: no distribution after 'python:' (python:stdlib, python:NAME)")
        if not all(names):
            raise UsageError(
                f"{what} {text!r}: an empty distribution name (two commas in a row, or one at an end)"
            )
        return
    name, sep, rest = text.partition("=")
    if sep and not name.strip():
        raise UsageError(f"{what} {text!r}: no source name before '=' (--source NAME=PATH)")
    if sep and not rest.strip():
        raise UsageError(f"{what} {text!r}: no path after '=' (--source NAME=PATH)")
    if text.rstrip().endswith(":"):
        raise UsageError(f"{what} {text!r}: nothing after ':' (only python:NAME[,NAME] takes one)")
    if sep and path_exists(expand_user(rest)):
        if not _SOURCE_NAME.match(name):  # before --only reads the value as a path's stem (break-it R28)
            raise UsageError(f"{what} {cut(text, 2 * MAX_NAME_CHARS)!r}: {missing_why(text)}")
        check_utf8_names(expand_user(rest), what)


def check_utf8_names(path: Path, what: str) -> None:
    """Raise UsageError (one line, exit 2) when `path`, or the name of a .json/.jsonl file in it when it is a
    folder, is not UTF-8 (a byte such as 0xff: Python holds it as a lone surrogate, surrogateescape), before
    anything is written: the path is recorded in meta.json, the refresh report and the fingerprints, which
    are UTF-8 JSON (it was "internal error: UnicodeEncodeError", exit 1; issue 42, break-it round 13). The
    name is shown with its bad bytes as \\xff escapes (textsafe.safe_text)."""
    names = [path]
    if path.is_dir():
        try:
            names += [p for p in path.iterdir() if p.suffix.lower() in (".json", ".jsonl")]
        except OSError:
            pass  # an unreadable folder is refused later, by the reader, with its own message
    for p in names:
        try:
            str(p).encode("utf-8")
        except UnicodeEncodeError:
            shown = safe_text(os.fsencode(p).decode("utf-8", "backslashreplace"))
            raise UsageError(
                f"{what} {shown}: the path is not UTF-8 (rename it; its name is recorded in the index)"
            ) from None


def missing_why(text: str) -> str:
    """Why a `--source` value that names no existing path was refused: a NAME=PATH whose NAME is not a
    source name or whose PATH is empty says so, rather than "no such file" for the whole value."""
    name, sep, rest = text.partition("=")
    if any(os.path.islink(expand_user(t)) for t in (text, rest) if t):  # a link loop or a dangling link
        return "a symbolic link that leads to no file (a loop, or a missing target)"
    if sep and not rest:
        return f"no path after {name + '='!r} (--source NAME=PATH)"
    if sep and not _SOURCE_NAME.match(name) and path_exists(expand_user(rest)):
        return f"{cut(name, MAX_NAME_CHARS)!r} is not a source name ({NAME_RULE}): --source NAME=PATH"
    return "no such file or folder"


def source_name(spec: str | Path, what: str = "--source") -> str:
    """The name a `--source` value gives its source: NAME of "NAME=PATH", else the folder name or the file
    name without suffix. Raises UsageError (one line, exit 2; `what` names where the value came from) when
    that stem is not a source name: the rule NAME= follows holds for it too (a file "-my docs.jsonl" gave
    a source "-my docs", which --source -my docs=FILE refuses and --hub cannot name; issue 42)."""
    name, p = split_source(spec)
    if name:
        return name
    stem = p.resolve().name if p.is_dir() else p.stem
    if not _SOURCE_NAME.match(stem) and path_exists(p):  # a missing path: "no such file" is said later
        whose = "the folder's name" if p.is_dir() else "the file's name without its suffix"
        raise UsageError(
            f"{what} {spec}: the name it gives its source, {cut(stem, MAX_NAME_CHARS)!r} ({whose}), is not a "
            f"source name ({NAME_RULE}); name it: --source NAME={p}"
        )
    return stem
