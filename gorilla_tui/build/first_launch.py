"""First launch without an index: build what can be built at once, and say in one line per missing source how
to add it later.

Offline (the Hugging Face hub does not answer, or HF_HUB_OFFLINE=1) it builds the standard-library pool
(python-env), any source whose files are in a folder named by `mirrors` in config.toml, and the user's own
`sources`; online it fetches the APIBench hubs too. No question is asked: the person can add a source later
with `gorilla-tui index --refresh --from DIR` or `--source NAME=PATH`.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from gorilla_tui.build.refresh import refresh
from gorilla_tui.config import Settings, load_settings
from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.pool.pyenv.source import SOURCE
from gorilla_tui.pool.remedies import fix_lines
from gorilla_tui.pool.sources import FetchContext, Manifest, hub_unreachable, load_manifests
from gorilla_tui.store import versions as index_store


def has_index() -> bool:
    """True when a live index exists in get_paths().index_dir (it is not loaded)."""
    return index_store.current_version(None) is not None


def how_to_add(manifest: Manifest) -> str:
    """One calm line saying how to add the source of `manifest` later: pool.remedies' fix for that source,
    worded as `index --refresh`, `doctor` and `index --status` word it."""
    return fix_lines([manifest.name], [manifest])[0]


@dataclass
class FirstLaunch:
    """What a first-launch build did. index: the published ApiIndex; built: summary rows of the sources
    built now (build.report.source_row); missing: (source name, how_to_add line) of the others (shown
    grouped by fix: pool.remedies.fix_lines);
    network: one line on why remote sources were not fetched ("" when the hub answered or was not needed);
    seconds: build time."""

    index: Any
    built: list[dict[str, Any]] = field(default_factory=list)
    missing: list[tuple[str, str]] = field(default_factory=list)
    network: str = ""
    seconds: float = 0.0

    def lines(self) -> list[str]:
        """The person-facing summary: one line for what was built, the network line (once), then the
        sources not built and one line per fix (pool.remedies.fix_lines: the three hubs share one)."""
        built = ", ".join(
            r["name"] + (f" ({r.get('loaded', 0)})" if len(self.built) > 1 else "") for r in self.built
        )
        head = f"Built the API pool: {built}: {len(self.index.docs)} APIs in {self.seconds:.1f} s."
        names = [name for name, _ in self.missing]
        missing = [f"Not built yet: {', '.join(names)}.", *fix_lines(names)] if names else []
        return [head] + ([self.network] if self.network else []) + missing

    @property
    def message(self) -> str:
        return "\n".join(self.lines())


def build_first_index(
    settings: Settings | None = None, progress=None, check_manifest: Callable[[Manifest], None] | None = None
) -> FirstLaunch | None:
    """Build the first index when none exists; None when one is already there (nothing done).

    Sources: settings.mirrors (config.toml `mirrors`) when any are named, searched like `--from`; else the
    hubs over the network when the Hugging Face hub answers (pool.sources.hub_unreachable: one quick
    probe); else (offline) only the local python-env source. settings.sources (the user's own doc paths,
    not "python:" specs) are always added. Relative paths in both are config.toml's folder's
    (Settings.source_specs, Settings.mirror_folders). progress: refresh's ProgressFn (kind, source name,
    SourceLoad). check_manifest: refresh's check of the manifest keys retrieve does not own (the TUI and
    services pass model.choice.check_choice_settings, as `index --refresh` does).

    Raises GorillaError only when not even the python-env pool can be built: "could not build any index: "
    and why (the first attempt's reason, then the python-env retry's when it differs, each said once).
    """
    if has_index():
        return None

    settings = settings or load_settings()
    user_paths = [s for s in settings.source_specs() if not s.startswith("python:")]
    manifests = load_manifests()
    mirrors = settings.mirror_folders()
    network = ""
    only: list[str] = []
    if not mirrors:
        cause = hub_unreachable(FetchContext())
        if cause:
            network = f"No network: {cause}; only local sources were built."
            only = [SOURCE]
    try:
        report = refresh(mirrors=mirrors or None, only=only, on_event=progress, config_paths=user_paths,
                         check_manifest=check_manifest)  # fmt: skip
    except IndexMissingError:
        raise
    except GorillaError as first:
        try:
            report = refresh(only=[SOURCE], on_event=progress, check_manifest=check_manifest)
        except GorillaError as e:
            # the retry with python-env alone often fails the same way (an unwritable home): say it once
            why = str(first) if str(e) == str(first) else f"{first}; {e}"
            raise GorillaError(f"could not build any index: {why}") from None
    built = [r for r in report.sources if r["status"] in ("ok", "kept")]
    done = {r["name"] for r in built}
    missing = [(m.name, how_to_add(m)) for m in manifests if m.name not in done]
    return FirstLaunch(report.index, built, missing, network, report.seconds)


def first_launch_index(
    progress=None, settings: Settings | None = None, check_manifest: Callable[[Manifest], None] | None = None
) -> str | None:
    """build_first_index's summary as text (one line each, see FirstLaunch.lines), or None when an index
    already exists. Raises GorillaError only when not even the python-env pool can be built."""
    result = build_first_index(settings, progress, check_manifest)
    return None if result is None else result.message
