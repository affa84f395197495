"""Plugins: sources and backends found through Python entry points.

Two entry-point groups, read with importlib.metadata the way pytest (`pytest11`) and simonw/llm (`llm`)
find their plugins:

- `gorilla_tui.sources`: name = a manifest `kind`; value = a `pool.sources.SourceKind` (how a source of that
  kind is loaded and fingerprinted, and the manifests it adds to the default index).
- `gorilla_tui.backends`: name = a backend name (the `backend` setting); value = a callable
  `(settings, cancel) -> model.backend.Backend`.

The built-in ones are registered the same way, in gorilla-tui's own pyproject.toml
(`[project.entry-points."gorilla_tui.sources"]` and `."gorilla_tui.backends"`), so a third-party package adds
one by declaring an entry point in its own metadata. This module only finds and loads them; what a plugin
must provide is said by the group's user (pool/sources.py, model/backend.py).
"""

from __future__ import annotations

import functools
from importlib.metadata import EntryPoint, entry_points
from typing import Any

from gorilla_tui.errors import GorillaError

SOURCES = "gorilla_tui.sources"
BACKENDS = "gorilla_tui.backends"


class PluginError(GorillaError):
    """A plugin named in an entry point cannot be used: not declared, its module fails to import, or the
    object it names is missing. The message is one line naming the plugin and the distribution."""


@functools.cache
def _declared(group: str) -> dict[str, EntryPoint]:
    """Entry points of `group` by name (read once per process; a name declared twice: the first wins, in
    importlib.metadata's order)."""
    found: dict[str, EntryPoint] = {}
    for ep in entry_points(group=group):
        found.setdefault(ep.name, ep)
    return found


def names(group: str) -> list[str]:
    """The names declared in entry-point group `group`, sorted (nothing is imported)."""
    return sorted(_declared(group))


def load(group: str, name: str) -> Any:
    """The object entry point `name` of `group` names (imported on first use, then cached by
    importlib.metadata's import system).

    Raises:
        PluginError: no entry point `name` in `group` (the message lists the declared ones), or its
            module or attribute cannot be loaded (the message names the distribution and the error).
    """
    ep = _declared(group).get(name)
    if ep is None:
        known = ", ".join(names(group)) or "none: is gorilla-tui installed (pip install -e .)?"
        raise PluginError(f"no {group} plugin named {name!r} (declared: {known})")
    try:
        return ep.load()
    except Exception as e:  # noqa: BLE001 - a third party's import error of any kind is one line here
        dist = ep.dist.name if ep.dist is not None else "unknown distribution"
        raise PluginError(
            f"{group} plugin {name!r} ({ep.value}, from {dist}) cannot be loaded: {type(e).__name__}: {e}"
        ) from None


def load_all(group: str) -> dict[str, Any]:
    """Every plugin of `group` by name, loaded (see load). Raises PluginError for the first that fails."""
    return {name: load(group, name) for name in names(group)}


def forget() -> None:
    """Drop the cached entry-point tables, so plugins installed since are seen (tests, a long-lived TUI)."""
    _declared.cache_clear()
