"""Source manifests (index/*.toml): what one part of the API pool is and where its files come from, and the
context a refresh fetches them in (pool/sources.py fetches and loads them)."""

from __future__ import annotations

import functools
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from gorilla_tui import plugins
from gorilla_tui.config import NAME_RULE, SOURCE_NAME
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import read_toml, toml_of
from gorilla_tui.pool.doc import FORMATS, MAX_SOURCE_BYTES
from gorilla_tui.resources import data_files

#: Largest manifest file read (the package's index/*.toml), bytes: the largest shipped is a few KB, so
#: 1 MiB is hundreds of times that; a larger one is refused unread (paths.read_toml; break-it round 11).
MAX_MANIFEST_BYTES = 2**20
#: Remote types a manifest's [remote] table may name. "hf": huggingface_hub.hf_hub_download of each file
#: (repo_id, repo_type, revision); "path": a local folder (`path`); "url": documentation only (not fetched,
#: e.g. a GitHub folder; use `--from DIR` with a local copy, or set `path`).
REMOTE_TYPES = ("hf", "path", "url")


@dataclass(frozen=True)
class Manifest:
    """One source manifest (index/<file>.toml).

    name: short source name (torchhub, apizoo, ...), unique; title: display name; kind: loader kind, the
    name of a `gorilla_tui.sources` plugin (SourceKind; "docs": files in a doc `format`; "python-env": the
    local Python environment, issue 9);
    format: one of pool.FORMATS (for kind "docs"); files: file names or glob patterns (matched
    case-insensitively) as they are named remotely and in a mirror folder; mirror_subdirs: sub-folders of
    a --from folder also searched; remote: the [remote] table; license, homepage, citation: provenance;
    questions: optional training-split question files (APIBench train format) whose questions are attached to
    their docs (pool/expansion.py; never an eval set); questions_subdirs: where they sit in a --from folder
    (searched under the folder and its parent, so `--from .../apibench/api` finds `.../apibench/eval`);
    hand_questions: hand-written question files shipped in the package's index/questions/ folder, attached
    to the source's docs whatever loader read them (pool/expansion.py read_hand_questions);
    extra: any other keys (for other kinds); origin: the manifest file name.
    """

    name: str
    title: str
    kind: str = "docs"
    format: str = "jsonl"
    files: tuple[str, ...] = ()
    mirror_subdirs: tuple[str, ...] = ()
    remote: dict[str, Any] = field(default_factory=dict)
    license: str = ""
    homepage: str = ""
    citation: str = ""
    questions: tuple[str, ...] = ()
    questions_subdirs: tuple[str, ...] = ()
    hand_questions: tuple[str, ...] = ()
    extra: dict[str, Any] = field(default_factory=dict)
    origin: str = ""


class SourceUnavailable(Exception):
    """A source could not be fetched. status: "unreachable" (remote failed), "not in mirror" (its files
    are not in the --from folders), "unsupported" (no loader for its kind)."""

    def __init__(self, status: str, message: str) -> None:
        super().__init__(message)
        self.status = status


@dataclass
class FetchContext:
    """How a refresh fetches: mirrors are the --from folders (None: use each manifest's remote).
    `hub_error`: None until the Hugging Face hub was checked (hub_unreachable), then "" when it answers or
    the short cause when it does not, so later hub files read the local cache only and fail fast instead of
    each waiting through huggingface_hub's retries (about 25 s per file without network).
    `max_bytes`: the size limit of one source (pool.doc.MAX_SOURCE_BYTES; `--max-source-mb`)."""

    mirrors: list[Path] | None = None
    hub_error: str | None = None
    max_bytes: int = MAX_SOURCE_BYTES


def parse_manifest(data: dict[str, Any], origin: str) -> Manifest:
    """Validate one manifest's TOML table. Raises UsageError naming `origin` for a missing name, a bad kind
    or format, or a remote type not in REMOTE_TYPES."""
    known = {
        "name",
        "title",
        "kind",
        "format",
        "files",
        "mirror_subdirs",
        "remote",
        "license",
        "homepage",
        "citation",
        "questions",
        "questions_subdirs",
        "hand_questions",
    }
    name = data.get("name")
    if not isinstance(name, str) or not name.strip():
        raise UsageError(f"{origin}: a source manifest needs a `name`")
    if not SOURCE_NAME.match(name):  # one rule of source names: --source NAME=, a file's stem, a plugin's
        raise UsageError(f"{origin}: {name!r} is not a source name ({NAME_RULE})")
    kind = str(data.get("kind", "docs"))
    fmt = str(data.get("format", "jsonl"))
    if kind == "docs" and fmt not in FORMATS:
        raise UsageError(f"{origin}: unknown format {fmt!r} (expected one of {', '.join(FORMATS)})")
    remote = data.get("remote", {})
    if not isinstance(remote, dict) or remote.get("type", "path") not in REMOTE_TYPES:
        raise UsageError(f"{origin}: [remote] type must be one of {', '.join(REMOTE_TYPES)}")
    files = data.get("files", [])
    if kind == "docs" and (not isinstance(files, list) or not files):
        raise UsageError(f"{origin}: a docs source needs a non-empty `files` list")
    questions = data.get("questions", [])
    if not isinstance(questions, list) or not all(isinstance(q, str) for q in questions):
        raise UsageError(f"{origin}: `questions` must be a list of file names")
    if any("eval" in q.lower() for q in questions):
        raise UsageError(f"{origin}: `questions` must name training splits, never an eval set")
    hand = data.get("hand_questions", [])
    if not isinstance(hand, list) or not all(isinstance(q, str) and "/" not in q for q in hand):
        raise UsageError(f"{origin}: `hand_questions` must be a list of file names in index/questions/")
    return Manifest(
        name=name.strip(),
        title=str(data.get("title", name)),
        kind=kind,
        format=fmt,
        files=tuple(map(str, files)),
        mirror_subdirs=tuple(map(str, data.get("mirror_subdirs", []))),
        remote=dict(remote),
        license=str(data.get("license", "")),
        homepage=str(data.get("homepage", "")),
        citation=str(data.get("citation", "")),
        questions=tuple(questions),
        questions_subdirs=tuple(map(str, data.get("questions_subdirs", []))),
        hand_questions=tuple(hand),
        extra={k: v for k, v in data.items() if k not in known},
        origin=origin,
    )


@dataclass(frozen=True)
class SourceKind:
    """One kind of source, as a `gorilla_tui.sources` entry point names it (gorilla_tui/plugins.py; the
    entry point's name is the manifest `kind` it loads; the built-in "docs" and "python-env" are declared in
    gorilla-tui's pyproject.toml the same way a third-party package declares its own).

    load: (manifest, FetchContext) -> (origin, files read, LoadResult); raises SourceUnavailable when the
    source cannot be had, pool.doc.SourceRejected when its content is refused.
    fingerprint: (manifest, FetchContext) -> hex string of the source's inputs (pool.fingerprint.combine),
    or None: a source of this kind is then rebuilt by every refresh.
    manifests: the sources of this kind the plugin adds to the default index, each a TOML text in the
    format of index/*.toml (parse_manifest), named "plugin NAME" in errors.
    """

    load: Callable[..., Any]
    fingerprint: Callable[..., str] | None = None
    manifests: tuple[str, ...] = ()


def source_kind(kind: str) -> SourceKind:
    """The SourceKind of manifest kind `kind`: a `gorilla_tui.sources` entry point (plugins.load).
    Raises SourceUnavailable("unsupported") when none is declared or it cannot be loaded, or it is not a
    SourceKind (the message names the plugin)."""
    try:
        found = plugins.load(plugins.SOURCES, kind)
    except plugins.PluginError as e:
        raise SourceUnavailable("unsupported", f"no loader for source kind {kind!r}: {e}") from None
    if not isinstance(found, SourceKind):
        raise SourceUnavailable(
            "unsupported", f"source plugin {kind!r} is a {type(found).__name__}, not a SourceKind"
        )
    return found


def _parse_toml(text: str, where: str) -> Manifest:
    """The manifest of TOML `text`; raises UsageError naming `where` (paths.toml_of, parse_manifest)."""
    return parse_manifest(toml_of(text, where), where)


def plugin_errors() -> list[str]:
    """One line per `gorilla_tui.sources` plugin that cannot be loaded or is not a SourceKind (plugins.load;
    `doctor` lists them as problems). Empty when every plugin loads."""
    errors = []
    for name in plugins.names(plugins.SOURCES):
        try:
            kind = plugins.load(plugins.SOURCES, name)
        except plugins.PluginError as e:
            errors.append(str(e))
            continue
        if not isinstance(kind, SourceKind):
            errors.append(f"source plugin {name!r} is a {type(kind).__name__}, not a SourceKind")
    return errors


def load_manifests() -> list[Manifest]:
    """Every manifest shipped in the package's index/ folder (gorilla_tui.resources.data_files("index")),
    sorted by file name, then the manifests of the `gorilla_tui.sources` plugins (SourceKind.manifests), by
    plugin name. A plugin that cannot be loaded adds nothing (one broken third-party package must not stop
    every build; `doctor` names it: plugin_errors). Raises UsageError for invalid TOML, a bad manifest or a
    duplicate name."""
    manifests: list[Manifest] = []
    for f in data_files("index"):
        manifests.append(
            parse_manifest(read_toml(f, MAX_MANIFEST_BYTES, f"index/{f.name}"), f"index/{f.name}")
        )
    for name in plugins.names(plugins.SOURCES):
        try:
            kind = plugins.load(plugins.SOURCES, name)
        except plugins.PluginError:
            continue  # doctor says it (plugin_errors); its kind's sources report "unsupported" when fetched
        if isinstance(kind, SourceKind):
            for i, text in enumerate(kind.manifests):
                manifests.append(_parse_toml(text, f"plugin {name} manifest {i + 1}"))
    names = [m.name for m in manifests]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(f"duplicate source names in index/ and source plugins: {', '.join(dupes)}")
    return manifests


def shown_value(value: Any) -> str:
    """A manifest value as an error naming it shows it: its repr (one line: a string's line breaks are
    escaped), cut to 60 characters."""
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


#: The manifest key of a source whose calls carry made-up example values (APIZoo's
#: ``sendAsEmail='alias@example.com'``): filling replaces them with the task's (fill/examples.py), the checker
#: takes any value there (check/pool_index.py). The APIBench hubs' values name the model: not set.
EXAMPLE_VALUES = "example_values"


@functools.cache
def packaged_values(key: str) -> dict[str, Any]:
    """Source name -> the value of `key` in the package's own manifests (index/*.toml), for those that set
    it: shipped_values without the plugins' manifests, whose lookup (entry points) costs ~0.3 s, so a cold
    `check` can read it (check/pool_index.py: a source whose calls carry example values, ``example_values``).
    Read once per process and key; callers must not change the dict. Raises UsageError as load_manifests."""
    files = data_files("index")
    manifests = [
        parse_manifest(read_toml(f, MAX_MANIFEST_BYTES, f"index/{f.name}"), f"index/{f.name}") for f in files
    ]
    return {m.name: m.extra[key] for m in manifests if key in m.extra}


@functools.cache
def shipped_values(key: str) -> dict[str, Any]:
    """Source name -> the value of `key` in its shipped manifest (index/*.toml, Manifest.extra), for the
    manifests that set it: a per-source setting such as retrieve/dense.py's dense_weight or
    model/likelihood.py's choice_rule. Read once per process and key (the shipped manifests are package data;
    callers must not change the dict). Raises UsageError naming a shipped manifest that is broken (a broken
    installation: a search refuses it, exit 2, rather than rank with other settings unsaid)."""
    manifests = load_manifests()
    return {m.name: m.extra[key] for m in manifests if key in m.extra}
