"""What a refresh reads, decided before it takes the lock: its arguments checked, the sources chosen (a user
source named like a built-in one replaces it) and each manifest's retrieval mode."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

from gorilla_tui.build.dense_vectors import DEFAULT_RETRIEVAL, EMBED_QUESTIONS_KEY
from gorilla_tui.config import MAX_NAME_CHARS
from gorilla_tui.errors import UsageError
from gorilla_tui.paths import expand_user
from gorilla_tui.pool.doc import SourceRejected, detect_format, source_files
from gorilla_tui.pool.manifest import shown_value
from gorilla_tui.pool.source_spec import source_name, split_source
from gorilla_tui.pool.sources import FetchContext, Manifest, load_manifests
from gorilla_tui.retrieve.embed import PASSAGE_KEY, PASSAGE_RECIPES
from gorilla_tui.retrieve.fusion import (
    DENSE_WEIGHT_KEY,
    FUSION_DEPTH_ALL,
    FUSION_DEPTH_KEY,
    dense_weight,
    fusion_depth,
)
from gorilla_tui.textsafe import cut

#: Manifest key saying how a source is retrieved: "hybrid" (BM25 + dense, its docs are embedded) or "bm25".
RETRIEVAL_KEY = "retrieval"
RETRIEVAL_MODES = ("hybrid", "bm25")
# DEFAULT_RETRIEVAL (dense_vectors.py): a source whose manifest has no RETRIEVAL_KEY (user --source files are
# "hybrid": they are small).


def retrieval_mode(manifest: Manifest | None) -> str:
    """The manifest's RETRIEVAL_KEY ("hybrid" or "bm25"; DEFAULT_RETRIEVAL when absent, "hybrid" for a user
    source, manifest None). Raises UsageError for another value."""
    if manifest is None:
        return "hybrid"
    mode = str(manifest.extra.get(RETRIEVAL_KEY, DEFAULT_RETRIEVAL))
    if mode not in RETRIEVAL_MODES:
        raise UsageError(
            f"{manifest.origin or manifest.name}: {RETRIEVAL_KEY} must be one of {', '.join(RETRIEVAL_MODES)}"
        )
    return mode


def check_settings(manifest: Manifest) -> None:
    """Refuse a manifest whose retrieval settings a search would silently ignore or misuse: DENSE_WEIGHT_KEY
    not a finite number >= 0 (inf, nan, -1, a string, a bool), FUSION_DEPTH_KEY neither a positive integer
    nor FUSION_DEPTH_ALL, PASSAGE_KEY not one of embed.PASSAGE_RECIPES, EMBED_QUESTIONS_KEY not a bool
    (`"yes"` was taken as false). Absent keys are fine. The choice settings (choice_rule, vote_temperature)
    are model/likelihood.py's to check (check_choice_settings; retrieve never imports model): refresh
    takes that check as `check_manifest`.

    Raises:
        UsageError: one line naming the manifest file (or source), the key and the value.
    """
    where = manifest.origin or manifest.name
    extra = manifest.extra
    if DENSE_WEIGHT_KEY in extra and dense_weight(extra[DENSE_WEIGHT_KEY]) is None:
        value = shown_value(extra[DENSE_WEIGHT_KEY])
        raise UsageError(f"{where}: `{DENSE_WEIGHT_KEY}` must be a finite number >= 0, not {value}")
    if FUSION_DEPTH_KEY in extra and fusion_depth(extra[FUSION_DEPTH_KEY]) is None:
        raise UsageError(
            f"{where}: `{FUSION_DEPTH_KEY}` must be a positive integer or {FUSION_DEPTH_ALL!r}, not "
            f"{shown_value(extra[FUSION_DEPTH_KEY])}"
        )
    if PASSAGE_KEY in extra and extra[PASSAGE_KEY] not in PASSAGE_RECIPES:
        raise UsageError(
            f"{where}: `{PASSAGE_KEY}` must be one of {', '.join(map(repr, PASSAGE_RECIPES))}, not "
            f"{shown_value(extra[PASSAGE_KEY])}"
        )
    if EMBED_QUESTIONS_KEY in extra and not isinstance(extra[EMBED_QUESTIONS_KEY], bool):
        value = shown_value(extra[EMBED_QUESTIONS_KEY])
        raise UsageError(f"{where}: `{EMBED_QUESTIONS_KEY}` must be true or false, not {value}")


def _select(manifests: list[Manifest], only: Sequence[str], user_names: Sequence[str]) -> list[Manifest]:
    if not only:
        return manifests
    known = [m.name for m in manifests] + list(user_names)
    unknown = [n for n in only if n not in known]
    if unknown:
        unknown = [cut(n, MAX_NAME_CHARS) for n in unknown]  # 5,000 characters filled the line (R28)
        raise UsageError(f"--only: unknown source {', '.join(unknown)} (known: {', '.join(known)})")
    return [m for m in manifests if m.name in only]


@dataclass
class Plan:
    """What a refresh reads, decided before it takes the lock: every manifest, the selected ones (not
    replaced by a user source of the same name), the user sources as (path, name, strict, title), the
    names of the built-in sources they replace, how files are fetched, and each manifest's retrieval mode."""

    manifests: list[Manifest]
    selected: list[Manifest]
    users: list[tuple[str | Path, str, bool, str]]
    replaced: set[str]
    ctx: FetchContext
    modes: dict[str, str]


def make_plan(
    mirrors: Sequence[str | Path] | None,
    user_paths: Sequence[str | Path],
    config_paths: Sequence[str | Path],
    only: Sequence[str],
    manifests: list[Manifest] | None,
    max_bytes: int,
    check_manifest: Callable[[Manifest], None] | None = None,
) -> Plan:
    """Check refresh's arguments and decide what it reads (see refresh for the arguments; raises
    UsageError, also for a manifest with a bad retrieval setting, check_settings, or one `check_manifest`
    refuses)."""
    for m in mirrors or ():
        if not Path(m).is_dir():
            raise UsageError(f"--from {m}: not a folder")
    manifests = load_manifests() if manifests is None else manifests
    all_user = [*user_paths, *config_paths]
    names = [source_name(p) for p in all_user]
    dupes = sorted({n for n in names if names.count(n) > 1})
    if dupes:
        raise UsageError(
            f"--source: the source name {', '.join(dupes)} is given twice; use --source NAME=PATH"
        )
    # a user source named like a built-in one (e.g. a read-only .../apizoo mirror) supplies that source
    builtin = {m.name: m for m in manifests}
    replaced = {n: builtin[n] for n in names if n in builtin}
    users = []
    for p, name in zip(all_user, names, strict=True):
        m = replaced.get(name)
        if m is not None:
            _check_replacement(m, p)
        users.append((p, name, p in user_paths, f"{m.title} (your copy)" if m else ""))
    selected = [m for m in _select(manifests, only, names) if m.name not in replaced]
    ctx = FetchContext(
        mirrors=[expand_user(m) for m in mirrors] if mirrors is not None else None, max_bytes=max_bytes
    )
    modes = {m.name: retrieval_mode(m) for m in manifests}
    for m in manifests:
        check_settings(m)
        if check_manifest is not None:
            check_manifest(m)
    return Plan(manifests, selected, users, set(replaced), ctx, modes)


#: What pool.doc.detect_format says of the files of a manifest format.
_DETECTED = {
    "apizoo": "apizoo",
    "apibench": "jsonl",
    "jsonl": "jsonl",
    "tools": "tools",
    "openapi": "openapi",
}
_FORMAT_NAMES = {
    "apizoo": "APIZoo JSON lists",
    "jsonl": "JSON Lines",
    "tools": "function definitions",
    "openapi": "OpenAPI 3 documents",
}


def _check_replacement(manifest: Manifest, spec: str | Path) -> None:
    """A user source named like built-in source `manifest` replaces it (the merge rule), so it must hold
    that source's kind of files: raises UsageError (one line) for a built-in source that is not made of
    doc files (python-env) or a file of another format (pool.doc.detect_format), e.g. `--source
    torchhub=<an APIZoo folder>`. A path that cannot be read is left to the load, which says why."""
    p = split_source(spec)[1]
    other = f"name your copy otherwise: --source OTHER={p}"
    if manifest.kind != "docs":
        raise UsageError(f"--source {spec}: {manifest.name} is the built-in {manifest.kind} source; {other}")
    try:
        files = source_files([p])
    except SourceRejected:
        return
    want = _DETECTED.get(manifest.format, "jsonl")
    for f in files:
        got = detect_format(f)
        if got != want:
            raise UsageError(
                f"--source {spec}: {f.name} holds {_FORMAT_NAMES[got]}, but {manifest.name} is a built-in "
                f"source of {_FORMAT_NAMES[want]} ({', '.join(manifest.files)}); {other}"
            )
