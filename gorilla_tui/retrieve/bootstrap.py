"""First launch without an index: try the remote sources, fall back to the offline python-env pool."""

from __future__ import annotations

from gorilla_tui.errors import GorillaError, IndexMissingError
from gorilla_tui.pool.pyenv.source import SOURCE
from gorilla_tui.retrieve import store as index_store
from gorilla_tui.retrieve.refresh import refresh

HUB_HINT = (
    "To add the APIBench hubs later: `gorilla-tui index --refresh` when online, or "
    "`gorilla-tui index --refresh --from DIR` with a local copy of the APIBench api/ files."
)
#: The sources HUB_HINT is about (index/apibench-*.toml).
APIBENCH_HUBS = ("torchhub", "tensorflowhub", "huggingface")


def later_hint(missing: list[str]) -> str:
    """How to add the `missing` sources later: HUB_HINT when an APIBench hub is among them, else a hint
    naming them (e.g. apizoo, whose files only come from a local copy)."""
    if any(name in APIBENCH_HUBS for name in missing):
        return HUB_HINT
    return f"To add {', '.join(missing)} later: `gorilla-tui index --refresh --from DIR` with their files."


def has_index() -> bool:
    """True when a live index exists in get_paths().index_dir (it is not loaded)."""
    return index_store.current_version(None) is not None


def first_launch_index(progress=None) -> str | None:
    """Build the first index when none exists; return a one-paragraph message for the person, or None
    when an index is already there (nothing done).

    Every manifest in index/ is tried (retrieve/refresh.refresh: remote sources, and the local python-env
    source, which needs no network). When the refresh fails as a whole, the python-env source is built
    alone. progress: refresh's ProgressFn, progress(kind, source name, SourceLoad | None), kind "start" or
    "done". Raises GorillaError only when not even the python-env pool can be built.
    """
    if has_index():
        return None

    try:
        report = refresh(on_event=progress)
    except IndexMissingError:
        raise
    except GorillaError as first:
        try:
            report = refresh(only=[SOURCE], on_event=progress)
        except GorillaError as e:
            raise GorillaError(f"could not build any index: {first}; {e}") from None
    ok = [r for r in report.sources if r["status"] == "ok"]
    missing = [r for r in report.sources if r["status"] != "ok"]
    built = ", ".join(f"{r['name']} ({r['loaded']} APIs)" for r in ok)
    msg = f"Built the API pool: {built}, {len(report.index.docs)} APIs in {report.seconds:.1f} s."
    if missing:
        names = ", ".join(r["name"] for r in missing)
        msg += f" Not reachable: {names}. " + later_hint([r["name"] for r in missing])
    return msg
