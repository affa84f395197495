"""User settings: config.toml in the user config dir -> a typed Settings; saving writes it back atomically."""

from __future__ import annotations

import errno
import os
import re
import stat
import tempfile
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field, fields
from pathlib import Path
from typing import Any

from gorilla_tui import plugins
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import (
    expand_user,
    file_kind,
    get_paths,
    path_exists,
    permission_fix,
    read_regular_text,
    read_toml,
)
from gorilla_tui.textsafe import redact_url, safe_text

MODES = ("select", "generate")
#: How select mode chooses among the hits: "likelihood" scores every hit by the model's log-probability of
#: the task given the doc (model/likelihood.py); "grammar": the model writes one hit's api_call under a GBNF
#: grammar.
SELECT_BY = ("likelihood", "grammar")
#: use_extra_bufts values (the same as model/profiles.py EXTRA_BUFTS_CHOICES; config.toml may also say
#: true / false, read as "on" / "off").
EXTRA_BUFTS = ("auto", "on", "off")
#: Smallest n_ctx accepted besides 0 (the kernel profile's), in tokens: room for a select prompt with one doc
#: at minimal detail and the task (model/prompts.py fit_prompt; a likelihood scoring text is shorter) beside
#: the default max_tokens of 256. `n_ctx = 16` was accepted, and every ask then failed in the model.
MIN_N_CTX = 512
#: Longest source name, in characters: a name is typed after --hub and --only and shown in tables and
#: messages; one of 5,000 went into the index, squeezed search's table to nothing and filled error lines
#: (break-it round 28). The shipped and plugin sources' names are at most 13.
MAX_NAME_CHARS = 64
#: A source name in `--source NAME=PATH` and config.toml `sources` (pool/source_spec.py reads it too).
SOURCE_NAME = re.compile(rf"^[A-Za-z0-9][A-Za-z0-9_.-]{{0,{MAX_NAME_CHARS - 1}}}$")
#: The rule of SOURCE_NAME in words, for the messages that refuse a name.
NAME_RULE = (
    "ASCII letters, digits, '_', '.', '-', starting with a letter or digit, "
    f"at most {MAX_NAME_CHARS} characters"
)
#: Largest config.toml read, bytes: every setting written out with a long `sources` list is a few KB, so
#: 1 MiB is hundreds of times that. A larger file (a 1 GB sparse one cost `search` 2.1 GB before "invalid
#: TOML": break-it round 11, R11-5) is damaged, refused unread in one line (exit 2).
MAX_CONFIG_BYTES = 2**20


def config_relative(entry: str, base: Path) -> str:
    """A config.toml `sources` or `mirrors` entry with its path made absolute against `base` (the folder
    config.toml is in), `~` expanded: "apis/my.jsonl" -> "<base>/apis/my.jsonl", "mine=~/d" ->
    "mine=/home/me/d". "python:SPEC" and blank entries are returned as they are (the checks that refuse
    them name the entry as written). A NAME=PATH entry keeps its NAME; an entry that is itself an existing
    path under `base` is that path (as pool.source_spec.split_source reads one against the current folder).
    The entry's text is not checked here: a missing path is refused later, naming config.toml."""
    if not entry.strip() or entry.startswith("python:"):
        return entry
    whole = base / expand_user(entry)
    name, sep, rest = entry.partition("=")
    if sep and rest and SOURCE_NAME.match(name) and not path_exists(whole):
        return f"{name}={base / expand_user(rest)}"
    return str(whole)


@dataclass
class Settings:
    """Every setting a person can change (TUI settings screen, config.toml, CLI flags).

    model: "" for the embedded default, a .gguf path, "hf:OWNER/REPO/FILE.gguf" or a registry name.
    mode: "select" (the model chooses one of the hits' api_calls) or "generate" (free text, validated).
    select_by: how select mode chooses (SELECT_BY): "likelihood" (default; falls back to "grammar" when the
    backend cannot score text, e.g. a remote endpoint) or "grammar".
    k: hits retrieved per task (1..50). hub: restrict retrieval to one source short name, "" for all.
    kernel: kernel profile name ("" = detect). endpoint: OpenAI-compatible completion URL ("" = local model).
    backend: the `gorilla_tui.backends` plugin that runs the model (gorilla_tui/plugins.py; "" = "remote"
    when an endpoint is set, else "llama", both built in).
    n_ctx, n_threads, n_gpu_layers: llama-cpp-python parameters (n_ctx: 0 = the kernel profile's default, else
    at least MIN_N_CTX; n_threads: 0 = the kernel profile's default, else positive; n_gpu_layers: -1 = the
    profile's default, else 0 or more; model/profiles.py runtime_params applies only n_ctx > 0,
    n_threads > 0, n_gpu_layers >= 0).
    use_extra_bufts: llama.cpp's extra buffer types (weight repacking, AMX): "auto" (the kernel profile's
    value; off on CPUs with Intel AMX, where it crashes, on elsewhere), "on" or "off".
    max_tokens: generation budget per answer. translate: put a task in another language into English with the
    model before searching (model/translate.py; only a task that is not English and whose words the index
    mostly does not know, retrieve/fit.py needs_translation). fill: put the task's values into the chosen
    API's call (fill/: the model writes the arguments, each value one the task states). sources: extra user
    doc paths indexed by `index --refresh` (PATH, NAME=PATH, or "python:SPEC"). mirrors: local folders holding
    the sources' files (like `index --refresh --from DIR`); the first launch, and `index --refresh` without
    --from, build from them instead of the network.
    """

    model: str = ""
    mode: str = "select"
    select_by: str = "likelihood"
    k: int = 5
    hub: str = ""
    kernel: str = ""
    endpoint: str = ""
    backend: str = ""
    n_ctx: int = 0
    n_threads: int = 0
    n_gpu_layers: int = -1
    use_extra_bufts: str = "auto"
    max_tokens: int = 256
    translate: bool = True
    fill: bool = True
    sources: list[str] = field(default_factory=list)
    mirrors: list[str] = field(default_factory=list)

    def source_specs(self, base: Path | None = None) -> list[str]:
        """`sources` with each path resolved against `base` (default: the folder of config.toml) rather
        than the current folder (config_relative); `--source` on the command line is not resolved here."""
        base = get_paths().config_file.parent if base is None else base
        return [config_relative(s, base) for s in self.sources]

    def mirror_folders(self, base: Path | None = None) -> list[str]:
        """The non-empty `mirrors`, each resolved against `base` (default: the folder of config.toml), as
        source_specs; `--from` on the command line is not resolved here."""
        base = get_paths().config_file.parent if base is None else base
        return [config_relative(m, base) for m in self.mirrors if m]

    def validate(self) -> Settings:
        """Raise UsageError for out-of-range values; return self."""
        if self.mode not in MODES:
            raise UsageError(f"mode must be one of {', '.join(MODES)}, not {self.mode!r}")
        if self.backend and not SOURCE_NAME.match(self.backend):
            raise UsageError(f"backend must be a plugin name (letters, digits, _.-), not {self.backend!r}")
        if self.backend and self.backend not in plugins.names(plugins.BACKENDS):
            raise UsageError(
                f"backend {self.backend!r} is not installed (gorilla_tui.backends plugins: "
                f"{', '.join(plugins.names(plugins.BACKENDS)) or 'none'})"
            )
        if self.backend == "llama" and self.endpoint:
            shown = safe_text(redact_url(self.endpoint))
            raise UsageError(
                f"backend 'llama' runs a local model, but an endpoint is set ({shown}): "
                'set backend = "remote" or leave it empty to use the endpoint, or drop the endpoint'
            )
        if self.select_by not in SELECT_BY:
            raise UsageError(f"select_by must be one of {', '.join(SELECT_BY)}, not {self.select_by!r}")
        if not 1 <= self.k <= 50:
            raise UsageError(f"k must be between 1 and 50, not {self.k}")
        if self.use_extra_bufts not in EXTRA_BUFTS:
            raise UsageError(
                f"use_extra_bufts must be one of {', '.join(EXTRA_BUFTS)}, not {self.use_extra_bufts!r}"
            )
        if self.n_ctx != 0 and self.n_ctx < MIN_N_CTX:
            raise UsageError(
                f"n_ctx must be 0 (the kernel profile's context size) or at least {MIN_N_CTX} tokens, "
                f"not {self.n_ctx}"
            )
        if self.n_threads < 0:
            raise UsageError(
                f"n_threads must be 0 (the kernel profile's default) or positive, not {self.n_threads}"
            )
        if self.n_gpu_layers < -1:
            raise UsageError(
                f"n_gpu_layers must be -1 (the kernel profile's default), 0 (CPU only) or more, "
                f"not {self.n_gpu_layers}"
            )
        if self.max_tokens < 1:
            raise UsageError(f"max_tokens must be positive, not {self.max_tokens}")
        return self

    def replace(self, **changes: Any) -> Settings:
        """A copy with `changes` applied (None values are ignored, so CLI flags can be passed as they are)."""
        data = asdict(self)
        data.update({k: v for k, v in changes.items() if v is not None})
        return Settings(**data).validate()


#: What each setting's value must be, as named in error messages.
_TYPE_NAMES = {str: "a string", int: "an integer", bool: "true or false", list: "a list of strings"}


def _check_type(key: str, value: Any, expected: type) -> str | None:
    """Why `value` is not a valid value for setting `key` of type `expected` (None when it is): a bool is
    not an integer, and `sources` holds non-empty strings only (an empty one would index the current
    folder)."""
    if expected is int and isinstance(value, bool) or not isinstance(value, expected):
        return _TYPE_NAMES.get(expected, expected.__name__)
    if expected is list and not all(isinstance(v, str) and v.strip() for v in value):
        return "a list of non-empty strings"
    return None


def load_settings(path: Path | None = None) -> Settings:
    """Read config.toml (default: the user config dir). A missing file gives the defaults.

    Raises UsageError (one line naming the file) for a path that is not a readable file (a folder, no
    permission), invalid TOML or UTF-8, an unknown key, a value of the wrong type or shape (naming the key
    and the type it must be, e.g. `sources = [1, 2]`), or a value out of range (Settings.validate).
    """
    path = path or get_paths().config_file
    try:
        os.stat(path)
    except OSError as e:
        if e.errno in (errno.ENOENT, errno.ENOTDIR, errno.ELOOP, errno.EBADF):  # as Path.exists: none there
            return Settings()
        # a config folder that cannot be entered (mode 000) was "internal error" (break-it round 14)
        raise UsageError(
            f"{path}: cannot read the config file ({e.strerror or e})", hint=permission_fix(path)
        ) from None
    if path.is_dir():
        raise UsageError(f"{path}: is a folder, not a config file (remove it or move it aside)")
    data = read_toml(
        path, MAX_CONFIG_BYTES, what="config file"
    )  # one line naming it for any unreadable or invalid file
    known = {f.name: f for f in fields(Settings)}
    defaults = Settings()
    values: dict[str, Any] = {}
    for key, value in data.items():
        if key not in known:
            raise UsageError(f"{path}: unknown setting {key!r} (known: {', '.join(known)})")
        if key == "use_extra_bufts" and isinstance(value, bool):
            value = "on" if value else "off"  # TOML true / false, as llama.cpp names it
        wanted = _check_type(key, value, type(getattr(defaults, key)))
        if wanted is not None:
            shown = repr(value) if len(repr(value)) <= 60 else repr(value)[:57] + "..."
            raise UsageError(f"{path}: setting {key!r} must be {wanted}, not {shown}")
        values[key] = value
    try:
        return Settings(**values).validate()
    except UsageError as e:
        raise UsageError(f"{path}: {e}") from None


def save_settings(settings: Settings, path: Path | None = None, keys: Iterable[str] | None = None) -> Path:
    """Write settings to config.toml atomically (temp file + os.replace); returns the path. Raises
    UsageError for out-of-range values or a file that cannot be written (a folder in its place, a full
    disk, no permission); the previous file is then left as it was. The file's own text is kept: only the
    values that changed are replaced, its comments and order stay (_config_text). keys: write only these
    settings (the TUI's settings screen: the fields changed in it, so a value another process saved
    meanwhile, or one given on the command line for one session, is not overwritten); None: all.
    A config.toml that is a symbolic link (kept in a dotfiles folder) stays one: the file it points to is
    written, not the link replaced by a file. A config.toml (or the file it points to) that is a FIFO,
    device or folder is a UsageError and is left alone."""
    path = path or get_paths().config_file
    if path.is_symlink():
        path = Path(os.path.realpath(path))  # write where the link points, in that file's folder
    try:
        mode = os.stat(path).st_mode
    except OSError:
        mode = stat.S_IFREG  # not there yet (or unreadable: the write below says why)
    if not stat.S_ISREG(mode):
        # a config.toml linked to /dev/null (a common way to switch a config file off) was replaced by a
        # regular file, as root the machine's /dev/null itself; a FIFO or folder likewise (break-it pass 11)
        raise UsageError(
            f"{path}: cannot write the config file (it is {file_kind(mode)}, not a regular file); "
            "remove it or point config.toml at a regular file"
        )
    data = asdict(settings.validate())
    if keys is not None:
        wanted = set(keys)
        data = {k: v for k, v in data.items() if k in wanted}
    text = _config_text(data, path)
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=".config-", suffix=".toml")
    except OSError as e:
        raise UsageError(f"{path}: cannot write the config file ({e.strerror or e})") from None
    try:
        with os.fdopen(fd, "wb") as fh:
            fh.write(text.encode("utf-8"))
        os.replace(tmp, path)
    except OSError as e:
        Path(tmp).unlink(missing_ok=True)
        raise UsageError(f"{path}: cannot write the config file ({e.strerror or e})") from None
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise
    return path


def _config_text(data: dict[str, Any], path: Path) -> str:
    """The text of config.toml holding `data`: the file at `path` with each value that differs replaced
    and new keys added (tomlkit, a style-preserving TOML library), so the person's comments, order and
    keys this version does not write survive a save from the settings screen (tomli_w rewrote the file
    and dropped every comment); a new document when the file is missing or not TOML."""
    import tomlkit  # deferred: only saving settings (the TUI settings screen) needs it

    try:
        doc = tomlkit.parse(read_regular_text(path, MAX_CONFIG_BYTES))  # a FIFO there: never blocks
    except (OSError, UnicodeDecodeError, RecursionError, tomlkit.exceptions.TOMLKitError):
        doc = tomlkit.document()
    for key, value in data.items():
        if key not in doc or doc[key] != value:
            doc[key] = value
    return tomlkit.dumps(doc)
