"""Reading the files of a source safely: only regular files are opened (a FIFO never blocks, /dev/zero is
never read), reads are bounded by the source's size limit, and a binary, unreadable or empty file is a
"skipped" diagnostic, not an error."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Iterator
from pathlib import Path

from gorilla_tui.paths import FileTooLargeError, NotRegularFileError, file_kind, not_regular
from gorilla_tui.paths import open_regular as paths_open_regular
from gorilla_tui.pool.apidoc import Diagnostic, LoadResult, SourceRejected

#: Default size limit of one source (all its files together), in bytes; `index --refresh --max-source-mb`
#: raises it. The largest APIBench pool (huggingface_api.jsonl) is 1.06 MB, so 64 MB is 60 times that;
#: a 200 MB garbage file once took a refresh to 5.2 GB of memory (issue 17).
MAX_SOURCE_BYTES = 64_000_000


def open_regular(path: Path, limit: int):
    """Open `path` for binary reading only when it is a regular file of at most `limit` bytes
    (paths.open_regular: O_NONBLOCK and fstat, so a FIFO never blocks, a sparse file of gigabytes is
    refused unread, and there is no gap between the check and the read). Its reader counts the bytes it
    reads, at most `limit` + 1 (a file of st_size 0 may never end: /proc/self/pagemap). Raises
    SourceRejected (not a regular file, one line) or OSError (paths.FileTooLargeError over `limit`)."""
    try:
        return paths_open_regular(path, limit)
    except NotRegularFileError as e:
        raise SourceRejected(f"{path}: {e.strerror}; only files are read") from None


def too_big(what: Path | str, max_bytes: int) -> SourceRejected:
    """The SourceRejected for a source (or file) `what` over its size limit of `max_bytes` bytes."""
    limit = f"{max_bytes / 1e6:g} MB"
    return SourceRejected(
        f"{what}: more than {limit}, the size limit of one source (raise it with --max-source-mb)"
    )


def read_text(path: Path, result: LoadResult, max_bytes: int = MAX_SOURCE_BYTES) -> str | None:
    """File text with a UTF-8 BOM removed, reading at most max_bytes (SourceRejected beyond: a file that
    grew after it was measured; a file whose os.fstat size is already over is refused before a byte is read);
    None (and a "skipped" diagnostic) for unreadable, binary or empty files."""
    try:
        with open_regular(path, max_bytes) as fh:  # a 10 GB sparse file is not read to say no
            raw = fh.read(max_bytes + 1)
    except FileTooLargeError:
        raise too_big(path, max_bytes) from None
    except OSError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        return None
    if len(raw) > max_bytes:
        raise too_big(path, max_bytes)
    if b"\x00" in raw[:8192]:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "binary file (NUL bytes), not JSON"))
        return None
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"not UTF-8 text (byte {e.start})"))
        return None
    if not text.strip():
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty file"))
        return None
    return text


def jsonl_lines(path: Path, result: LoadResult, max_bytes: int) -> Iterator[tuple[int, bytes]]:
    """(1-based line number, raw line) of a JSONL file, streamed: memory holds one line, and at most
    max_bytes are read (SourceRejected beyond, at once when os.fstat says the file is larger). A binary
    (NUL bytes in the first 8 KiB), unreadable or empty file yields nothing and leaves a "skipped"
    diagnostic."""
    try:
        fh = open_regular(path, max_bytes)  # refused before a byte is read (issue 42, N15)
    except FileTooLargeError:
        raise too_big(path, max_bytes) from None
    except OSError as e:
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))
        return
    try:
        with fh:
            if b"\x00" in fh.peek(8192)[:8192]:
                result.diagnostics.append(
                    Diagnostic(str(path), 0, "skipped", "binary file (NUL bytes), not JSON")
                )
                return
            left, lineno, any_text = max_bytes, 0, False
            while True:
                raw = fh.readline(left + 1)
                if not raw:
                    break
                left -= len(raw)
                if left < 0:
                    raise too_big(path, max_bytes)
                lineno += 1
                if lineno == 1 and raw.startswith(b"\xef\xbb\xbf"):
                    raw = raw[3:]
                if raw.strip():
                    any_text = True
                    yield lineno, raw
            if not any_text:
                result.diagnostics.append(Diagnostic(str(path), 0, "skipped", "empty file"))
    except OSError as e:  # a read that fails midway (EIO: /proc/self/mem, a failing disk; break-it R27-7)
        result.diagnostics.append(Diagnostic(str(path), 0, "skipped", f"cannot read: {e.strerror or e}"))


def checked_stat(path: Path) -> os.stat_result:
    """os.stat of a doc file; SourceRejected when it is missing, unreadable or not a regular file."""
    try:
        st = os.stat(path)
    except OSError as e:
        raise SourceRejected(f"{path}: cannot read ({e.strerror or e})") from None
    if not stat.S_ISREG(st.st_mode):
        raise SourceRejected(f"{path}: not a regular file ({file_kind(st.st_mode)}); only files are read")
    return st


def doc_files(folder: Path, skipped: list[Diagnostic] | None = None) -> list[Path]:
    """The doc files in a folder (*.json, *.jsonl, any case, regular files only), sorted, not recursive.

    A symbolic link is read only when it resolves inside the folder (``latest.jsonl -> v2.jsonl``), to a
    file; a name that is no regular file (a FIFO, a link to /dev/zero, a link loop or a dangling link) is
    named in `skipped` with the cause `check` gives (paths.not_regular); one that leads out of it
    (``leak.json -> ~/.ssh/id_rsa``, ``-> /etc/passwd``) is left out and, when `skipped` is given, named
    there as a "skipped" Diagnostic. Why not follow it: the folder is what the
    user named as the source, and what is read goes into the index, which search, the TUI and a remote
    model show; a folder from elsewhere (a cloned repository, an unpacked archive) could otherwise pull any
    file the user can read into it. A file named directly (``--source FILE``), and the files of a
    built-in source's mirror (Hugging Face snapshots are links into the cache's blobs), are followed.
    """
    root = Path(os.path.realpath(folder))
    out = []
    for p in sorted(folder.iterdir()):
        if p.suffix.lower() not in (".json", ".jsonl"):
            continue
        # os.stat first: the kernel gives up after 40 links (ELOOP), where os.path.realpath follows a chain
        # of links by recursion (1,200 links: RecursionError, break-it round 9) and Path.resolve raises
        # RuntimeError on a loop (a.json -> b.json -> a.json, issue 42): "internal error" for `--source`
        why = not_regular(
            p
        )  # the cause `check` gives (check/lint.py unreadable): "not a regular file (a FIFO)"
        if why is not None:
            if skipped is not None:
                skipped.append(Diagnostic(str(p), 0, "skipped", f"{why}: not read"))
            continue
        if p.is_symlink() and not Path(os.path.realpath(p)).is_relative_to(root):
            if skipped is not None:
                why = "symbolic link to a file outside the folder: not read"
                skipped.append(Diagnostic(str(p), 0, "skipped", why))
            continue
        out.append(p)
    return out


def source_files(paths: Iterable[str | Path], skipped: list[Diagnostic] | None = None) -> list[Path]:
    """The files a source reads: each path a regular file, or a folder (its doc_files; links out of it
    left out, and named in `skipped` when given). Checked with os.stat, never opened. Raises
    SourceRejected for anything else (FIFO, device, socket, missing)."""
    files: list[Path] = []
    for p in map(Path, paths):
        try:
            st = os.stat(p)
        except OSError as e:
            raise SourceRejected(f"{p}: cannot read ({e.strerror or e})") from None
        if stat.S_ISDIR(st.st_mode):
            files.extend(doc_files(p, skipped))
        elif stat.S_ISREG(st.st_mode):
            files.append(p)
        else:
            raise SourceRejected(f"{p}: not a regular file ({file_kind(st.st_mode)}); only files are read")
    return files
