"""Every on-disk location of gorilla-tui, from platformdirs; GORILLA_TUI_HOME moves them all."""

from __future__ import annotations

import errno
import os
import stat
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any, BinaryIO

import platformdirs

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from gorilla_tui.errors import UsageError

APP_NAME = "gorilla-tui"
HOME_ENV = "GORILLA_TUI_HOME"


@dataclass(frozen=True)
class Paths:
    """The directories gorilla-tui writes to.

    data: index and history (user data dir); cache: downloads and assembled models (user cache dir);
    config: config.toml (user config dir); logs: the MCP server's log of failures (user log dir, made by the
    server when it first writes). Nothing is created until :meth:`ensure` is called.
    """

    data: Path
    cache: Path
    config: Path
    logs: Path

    @property
    def index_dir(self) -> Path:
        """Folder holding the live BM25 index (swapped in atomically by a refresh)."""
        return self.data / "index"

    @property
    def history_db(self) -> Path:
        return self.data / "history.sqlite3"

    @property
    def config_file(self) -> Path:
        return self.config / "config.toml"

    @property
    def models_dir(self) -> Path:
        return self.cache / "models"

    def ensure(self) -> Paths:
        """Create the three folders (idempotent) and return self."""
        for p in (self.data, self.cache, self.config):
            p.mkdir(parents=True, exist_ok=True)
        return self


def get_paths() -> Paths:
    """Resolve the paths now (reads GORILLA_TUI_HOME on every call, so tests can move it).

    With GORILLA_TUI_HOME=DIR: DIR/data, DIR/cache, DIR/config, DIR/logs. Otherwise platformdirs' user dirs
    (the logs: user_log_dir, ~/.local/state/gorilla-tui/log on Linux).

    Raises:
        UsageError: GORILLA_TUI_HOME names something that is not a folder (a file, a FIFO, /dev/null):
            every command then said "no index ... build it with index --refresh", and that failed too; or
            starts with a `~user` that cannot be expanded (expand_user).
    """
    home = os.environ.get(HOME_ENV)
    if home:
        root = expand_user(home)  # "~nosuchuser/x": one line, not "internal error" (break-it round 21, R21-5)
        try:
            mode = os.stat(root).st_mode
        except OSError as e:
            if e.errno == errno.ELOOP:  # a link to itself: every command named CURRENT (break-it round 7)
                raise UsageError(
                    f"{HOME_ENV}={home} is a symbolic link loop, not a folder: point it at a folder"
                ) from None
            mode = None  # missing (made on first write) or not reachable: the write says why
        if mode is not None and not stat.S_ISDIR(mode):
            kind = "a file" if stat.S_ISREG(mode) else file_kind(mode)
            raise UsageError(f"{HOME_ENV}={home} is {kind}, not a folder: point it at a folder")
        return Paths(data=root / "data", cache=root / "cache", config=root / "config", logs=root / "logs")
    return Paths(
        data=Path(platformdirs.user_data_dir(APP_NAME)),
        cache=Path(platformdirs.user_cache_dir(APP_NAME)),
        config=Path(platformdirs.user_config_dir(APP_NAME)),
        logs=Path(platformdirs.user_log_dir(APP_NAME)),
    )


def expand_user(path: str | Path) -> Path:
    """`path` with a leading `~` or `~user` expanded (Path.expanduser), for paths a person typed.

    Raises:
        UsageError: `~user` names no user on this system, or `~` is used with no home folder
            (Path.expanduser raises RuntimeError "Could not determine home directory" there), so a
            config.toml entry or flag like "~nosuchuser/apis" is one line, not an internal error.
    """
    try:
        return Path(path).expanduser()
    except RuntimeError:
        user = str(path).split("/", 1)[0]
        raise UsageError(f"{path}: cannot expand {user!r} (no such user, or no home folder)") from None


def path_exists(path: str | Path) -> bool:
    """Path(path).exists(), False where the name cannot be looked up at all (ENAMETOOLONG for a
    `--source python:` list of 200 names, which os.stat refuses as a file name; EACCES on a folder in
    it), so such a value is read as what it says instead of ending in "internal error: OSError"."""
    try:
        return Path(path).exists()
    except OSError:
        return False


def refusing_folder(path: Path) -> Path:
    """The first folder on the way to `path` (from the root down) that this process may not enter
    (os.access X_OK: mode 000, another user's), else path's own folder: what a chmod fix names when opening
    `path` failed with "Permission denied" (break-it round 14: the cache or data folder of mode 000 was
    "internal error: PermissionError")."""
    for folder in reversed(Path(path).absolute().parents):
        if not os.access(folder, os.X_OK):
            return folder
    return Path(path).absolute().parent


def permission_fix(path: Path) -> str:
    """The fix of a state file or folder its permissions refuse: `chmod u+rwx FOLDER` for the folder that
    cannot be entered (refusing_folder), else `chmod u+rw PATH` (and its folder)."""
    folder = refusing_folder(path)
    if folder != Path(path).absolute().parent:
        return f"chmod u+rwx {folder}  # or run as the user who owns it"
    return f"chmod u+rw {path}; chmod u+rwx {folder}  # or run as the user who owns them"


def unwritable(folder: Path) -> tuple[Path, OSError] | None:
    """None when `folder` can be written, or made and then written: checked by creating and removing a
    file in it (or in its nearest existing parent when it is not made yet), since access(2) says yes to
    root on a folder it still cannot write (break-it pass 10). Else (the folder or parent tried, the
    OSError): a read-only file system or home, no permission, a file where the folder should be, or a
    broken symbolic link there (mkdir fails on it with EEXIST, break-it pass 11). One check for `doctor`
    and for the commands that write a folder (model.registry.check_models_folder), so they agree."""
    probe = folder
    while not probe.exists() and not probe.is_symlink() and probe.parent != probe:
        probe = probe.parent
    try:
        if probe.is_symlink() and not probe.exists():
            raise NotADirectoryError(errno.ENOTDIR, "a broken symbolic link is where the folder should be")
        if not probe.is_dir():
            raise NotADirectoryError(errno.ENOTDIR, "a file is where the folder should be")
        fd, tmp = tempfile.mkstemp(dir=probe, prefix=".gorilla-tui-probe-")
        os.close(fd)
        os.unlink(tmp)
    except OSError as e:
        return probe, e
    return None


def file_kind(mode: int) -> str:
    """What a path that is not a regular file is, from its st_mode, in words ("a FIFO", "a folder"...)."""
    kinds = (
        (stat.S_ISFIFO, "a FIFO"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISDIR, "a folder"),
    )
    return next((name for test, name in kinds if test(mode)), "not a file")


def not_regular(path: str | os.PathLike[str]) -> str | None:
    """Why the file at `path` is not read, by os.stat before it is opened (opening a FIFO blocks until a
    writer comes, a device never ends), or None when it is a regular file: "cannot read (Permission
    denied)", "cannot read (Too many levels of symbolic links)" (os.stat's error), "not a regular file (a
    FIFO)" (file_kind). The one cause `check` (check/lint.py unreadable) and a folder source's files
    (pool/files.py doc_files) give; break-it round 14: a FIFO in a `--source` folder was left out with no
    word, and a link to /dev/zero was "a symbolic link that leads to no file"."""
    try:
        mode = os.stat(path).st_mode
    except OSError as e:
        return f"cannot read ({e.strerror or e})"
    return None if stat.S_ISREG(mode) else f"not a regular file ({file_kind(mode)})"


class NotRegularFileError(OSError):
    """A path the app reads its own small files from (config.toml, the index's CURRENT pointer, the
    probe cache) is a FIFO, a device, a socket or a folder. An OSError, so callers that already turn
    OSError into one line keep doing so; `strerror` says what the path is ("not a regular file (a
    FIFO)")."""

    def __init__(self, path: Path, mode: int) -> None:
        super().__init__(errno.EINVAL, f"not a regular file ({file_kind(mode)})", str(path))


class FileTooLargeError(OSError):
    """A file the app reads its own state, config or cache from holds more bytes than the limit its caller
    states (open_regular): a 1 GB sparse probe.json or config.toml (what a crash or a stray truncate
    leaves) was read whole, 2.1 GB of memory, before it was judged (break-it round 11, R11-5). An OSError
    with errno EFBIG, so callers that turn OSError into one line (damaged state, a cache rebuilt) keep
    doing so; `strerror` says the size and the limit."""

    def __init__(self, path: Path | str, size: int | None, limit: int) -> None:
        said = f"{size:,} bytes" if size is not None else "more bytes"
        super().__init__(errno.EFBIG, f"{said}, more than the {limit:,} it may hold", str(path))


def open_regular(path: Path | str, limit: int) -> BinaryIO:
    """`path` opened for binary reading, only when it is a regular file of at most `limit` bytes: the one
    way the app opens its own state and cache files (the index's files, the vector cache, the usage cache,
    probe.json, config.toml) and a user's source files.

    Opened with O_NONBLOCK and checked with fstat on the open descriptor, so a FIFO put in its place never
    blocks the app (a plain open() of a FIFO waits for a writer forever: break-it round 10, R10-4), a
    device is never read, and a file over `limit` (a sparse file of gigabytes) is refused before a byte is
    read, with no gap between the check and the read; the descriptor is then set back to blocking. The
    caller closes the file, and reads at most `limit` + 1 bytes of it (a file of st_size 0 such as
    /proc/self/pagemap may never end: read_regular_bytes counts).

    Args:
        path: the file.
        limit: the most bytes the file may hold, required: each caller names its file's limit (a
            constant beside the file's reader, saying where the number comes from).

    Raises:
        FileNotFoundError: (and the other OSErrors of open) as open() would.
        NotRegularFileError: the path is a FIFO, device, socket or folder.
        FileTooLargeError: os.fstat says it holds more than `limit` bytes.
    """
    flags = os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags)
    except IsADirectoryError:
        raise NotRegularFileError(Path(path), stat.S_IFDIR) from None
    try:
        st = os.fstat(fd)
        if not stat.S_ISREG(st.st_mode):
            raise NotRegularFileError(Path(path), st.st_mode)
        if st.st_size > limit:
            raise FileTooLargeError(path, st.st_size, limit)
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def read_regular_bytes(path: Path | str, limit: int) -> bytes:
    """The bytes of the regular file `path` of at most `limit` bytes (open_regular), reading at most
    `limit` + 1 of them: a file that grows or lies about its size (st_size 0) is never read whole.

    Raises:
        FileNotFoundError: (and the other OSErrors of open/read) as open() would.
        NotRegularFileError: the path is a FIFO, device, socket or folder.
        FileTooLargeError: it holds more than `limit` bytes (by os.fstat, or counted as read).
    """
    with open_regular(path, limit) as fh:
        data = fh.read(limit + 1)
    if len(data) > limit:
        raise FileTooLargeError(path, None, limit)
    return data


def read_regular_text(path: Path, limit: int) -> str:
    """The UTF-8 text of the regular file `path` (read_regular_bytes: at most `limit` bytes).

    Raises:
        FileNotFoundError: (and the other OSErrors of open/read) as open() would.
        NotRegularFileError: the path is a FIFO, device, socket or folder.
        FileTooLargeError: it holds more than `limit` bytes.
        UnicodeDecodeError: the bytes are not UTF-8.
    """
    return read_regular_bytes(path, limit).decode("utf-8")


def toml_of(text: str, where: str) -> dict[str, Any]:
    """The TOML document `text` as a dict: the one parser of every TOML the product reads (config.toml,
    the index/*.toml source manifests, a plugin's manifests, the hand-written questions, kernel profiles).

    Raises UsageError "WHERE: invalid TOML: ..." (one line naming `where`, exit 2) for text that is not TOML,
    and for a value nested too deeply for tomllib's recursive parser (RecursionError, issue 42 round 4:
    `mirrors = [[[...]]]` 3,000 deep was "internal error"), and for a value tomllib reads with a ValueError
    (an integer of more than sys.get_int_max_str_digits() digits, 4,300: "internal error" in every command,
    break-it round 22, R22-2)."""
    try:
        return tomllib.loads(text)
    except tomllib.TOMLDecodeError as e:
        raise UsageError(f"{where}: invalid TOML: {e}") from None
    except RecursionError:
        raise UsageError(f"{where}: invalid TOML: values nested too deeply") from None
    except ValueError as e:  # an integer of more digits than Python converts (break-it round 22, R22-2)
        raise UsageError(
            f"{where}: invalid TOML: {str(e).splitlines()[0] if str(e) else 'a bad value'}"
        ) from None


def read_toml(path: Path, limit: int, where: str | None = None, what: str = "TOML file") -> dict[str, Any]:
    """The TOML file `path` as a dict (read_regular_text, then toml_of).

    Args:
        path: the file.
        limit: the most bytes it may hold (each caller names its file's: config.MAX_CONFIG_BYTES,
            pool.manifest.MAX_MANIFEST_BYTES); a larger file is refused unread (a 1 GB sparse config.toml
            cost `search` 2.1 GB before "invalid TOML": break-it round 11, R11-5).
        where: names it in errors (default: the path).
        what: what it should be ("config file").

    Raises UsageError, one line naming the file: not a regular file (a FIFO, a folder), over `limit` bytes
    (damaged, never read), unreadable (OSError: missing, no permission), not UTF-8, or not TOML (toml_of)."""
    where = where or str(path)
    try:
        text = read_regular_text(path, limit)
    except NotRegularFileError as e:
        raise UsageError(f"{where}: {e.strerror}, not a {what} (remove it or move it aside)") from None
    except FileTooLargeError as e:
        raise UsageError(
            f"{where}: {e.strerror}: damaged, not a {what} (remove it or move it aside)"
        ) from None
    except UnicodeDecodeError as e:
        raise UsageError(f"{where}: invalid TOML: not UTF-8 (byte {e.start})") from None
    except OSError as e:  # no permission: a chmod is its fix, never "remove it" (break-it round 14)
        hint = permission_fix(Path(path)) if e.errno in (errno.EACCES, errno.EPERM) else None
        raise UsageError(f"{where}: cannot read the {what} ({e.strerror or e})", hint=hint) from None
    return toml_of(text, where)
